#!/usr/bin/env bash
# Writes the seed corpora of tests/fuzz/corpus/ (run once; the seeds are in
# the repository). zstd files come from stock zstd and pzstd; the pack,
# mapping and catalog seeds from a small store made by cachescope-cli.
#   bash tests/fuzz/make_seeds.sh build/dev/app/cachescope-cli
set -euo pipefail
cli=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$corpus"/{fuzz_frames,fuzz_seek_table,fuzz_mapping,fuzz_pack_object,fuzz_catalog}

# ---- frames: stock zstd writers ----
f=$corpus/fuzz_frames
head -c 3000 /dev/urandom > "$tmp/random"   # incompressible: raw blocks
python3 -c "import sys; sys.stdout.write(('cache entry part merge restore frame ' * 200)[:5000])" > "$tmp/text"
printf '' | zstd -q -c > "$f/empty-checksum.zst"
printf '' | zstd -q -c --no-check > "$f/empty-nocheck.zst"
zstd -q -c "$tmp/text" > "$f/text-sized.zst"
zstd -q -c < "$tmp/text" > "$f/text-unsized.zst"
zstd -q -c --no-check -19 "$tmp/text" > "$f/text-19.zst"
zstd -q -c "$tmp/random" > "$f/random-raw.zst"
head -c 300 /dev/zero | zstd -q -c > "$f/zeros-rle.zst"
cat "$f/text-sized.zst" "$f/text-unsized.zst" "$f/empty-nocheck.zst" > "$f/concat.zst"
pzstd -q -p 2 -c "$tmp/text" > "$f/pzstd.zst"
printf '\x50\x2a\x4d\x18\x04\x00\x00\x00abcd' > "$f/skippable.bin"
cat "$f/skippable.bin" "$f/text-sized.zst" > "$f/skippable-then-zstd.zst"
head -c 60 "$f/text-sized.zst" > "$f/truncated.zst"
# a snapshot of ours: sized frames and a seek table
"$cli" snapshot create "$tmp/text" "$f/snapshot-seekable.zst" --chunk 1KiB --seek-table > /dev/null

# ---- seek table: the tail after three empty --no-check frames (9 bytes each) ----
python3 - "$corpus/fuzz_seek_table" <<'PY'
import struct, sys, os
d = sys.argv[1]
def table(entries, checksums, frames=None, descriptor=None):
    esize = 12 if checksums else 8
    body = b''.join(struct.pack('<II', e[0], e[1]) + (struct.pack('<I', e[2]) if checksums else b'') for e in entries)
    n = len(entries) if frames is None else frames
    desc = (0x80 if checksums else 0) if descriptor is None else descriptor
    footer = struct.pack('<IBI', n, desc, 0x8F92EAB1)
    payload = body + footer
    return struct.pack('<II', 0x184D2A5E, len(payload)) + payload
seeds = {
    'consistent': table([(9, 0)] * 3, False),
    'consistent-checksums': table([(9, 0, 0xEF46DB37)] * 3, True),
    'wrong-size': table([(9, 0), (10, 0), (9, 0)], False),
    'wrong-content': table([(9, 0), (9, 7), (9, 0)], False),
    'count-mismatch': table([(9, 0)] * 2, False),
    'reserved-bits': table([(9, 0)] * 3, False, descriptor=0x04),
    'huge-count': table([(9, 0)] * 3, False, frames=0xFFFFFFFF),
    'none': b'',
    'other-skippable': struct.pack('<II', 0x184D2A51, 3) + b'abc',
}
for name, data in seeds.items():
    open(os.path.join(d, name + '.bin'), 'wb').write(data)
PY

# ---- a small store: pack objects, a mapping after GC, the catalog ----
s=$tmp/store
"$cli" store init "$s" > /dev/null
python3 -c "import sys; sys.stdout.write(('shared dependency bytes ' * 1000)[:20000])" > "$tmp/a"
{ cat "$tmp/a"; head -c 7000 /dev/urandom; } > "$tmp/b"
"$cli" store put --wait "$s" key-a "$tmp/a" > /dev/null
"$cli" store put --wait "$s" key-b "$tmp/b" > /dev/null
cp "$s/pack/0.suffix" "$corpus/fuzz_pack_object/suffix-two-entries.bin"
head -c 200 "$s/pack/0.suffix" > "$corpus/fuzz_pack_object/suffix-cut.bin"
"$cli" store evict "$s" --key key-a > /dev/null 2>&1 || "$cli" store evict "$s" --max-size 1 > /dev/null 2>&1 || true
"$cli" store gc "$s" > /dev/null
for m in "$s"/pack/*.mapping; do [ -s "$m" ] && cp "$m" "$corpus/fuzz_mapping/gc-$(basename "$m").bin"; done
python3 - "$corpus/fuzz_mapping" <<'PY'
import struct, sys, os
d = sys.argv[1]
rec = lambda o, p, l: struct.pack('<QQQ', o, p, l)
seeds = {
    'three': rec(0, 0, 100) + rec(200, 100, 50) + rec(1000, 150, 4096),
    'unsorted': rec(200, 0, 10) + rec(100, 10, 10),
    'overlap': rec(0, 0, 100) + rec(50, 100, 100),
    'empty-record': rec(0, 0, 0),
    'wrap': rec(0xFFFFFFFFFFFFFF00, 0, 0x1000),
    'ragged': rec(0, 0, 1)[:20],
    'empty': b'',
}
for name, data in seeds.items():
    open(os.path.join(d, name + '.bin'), 'wb').write(data)
PY
sqlite3 "$s/catalog.db" 'PRAGMA wal_checkpoint(TRUNCATE);' > /dev/null
cp "$s/catalog.db" "$corpus/fuzz_catalog/store-catalog.db"
# Small pages make a small seed: the fuzzer mutates every byte of it.
sqlite3 "$corpus/fuzz_catalog/store-catalog.db" "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;" > /dev/null
: > "$corpus/fuzz_catalog/empty.db"
sqlite3 "$tmp/foreign.db" 'CREATE TABLE t(x); INSERT INTO t VALUES (1);'
cp "$tmp/foreign.db" "$corpus/fuzz_catalog/foreign.db"
printf 'SQLite format 3\0garbage' > "$corpus/fuzz_catalog/bad-header.db"
ls -la "$corpus"/* | head -60
