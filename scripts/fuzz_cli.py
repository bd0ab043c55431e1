#!/usr/bin/env python3
"""Mutation fuzzing of cachescope-cli on bad input: every run must end with
exit 0 or 1 (one error sentence), never a signal or a hang.

  scripts/fuzz_cli.py zstd  CLI DEMO_DIR [SEED] [RUNS]
      mutates the demo's .zst files (bit flips, truncation, splices, random
      bytes) and runs `frames --json --blocks` and `snapshot restore`.
  scripts/fuzz_cli.py store CLI WORK_DIR [SEED] [RUNS]
      builds a small store in WORK_DIR (3 merged entries, 1 unmerged, one
      evicted and collected), then per run mutates one of its files (pack,
      catalog, control, parts) in a copy and runs fsck, get, gc --dry-run,
      gc, ls and stats.

DEMO_DIR is what `cachescope-cli demo DIR` makes. Inputs that broke a run
are kept next to the work files and printed. Point CLI at an ASan build
(cmake --preset asan) to catch memory errors too, with an exit code that is
not 0 or 1 (ASan's default is 1):
  ASAN_OPTIONS=detect_leaks=0:exitcode=86 scripts/fuzz_cli.py zstd build/asan/app/cachescope-cli DEMO"""
import glob
import os
import random
import shutil
import subprocess
import sys


def mutate(rng, data):
    kind = rng.choice(['flip', 'trunc', 'splice', 'bytes'])
    if kind == 'flip':
        for _ in range(rng.randint(1, 20)):
            p = rng.randrange(len(data))
            data[p] ^= 1 << rng.randrange(8)
    elif kind == 'trunc':
        data = data[:rng.randrange(len(data))]
    elif kind == 'splice':
        a, b = rng.randrange(len(data)), rng.randrange(len(data))
        data[a:a] = data[b:b + rng.randint(1, 5000)]
    else:
        for _ in range(rng.randint(1, 8)):
            p = rng.randrange(max(1, len(data) - 8))
            data[p:p + 8] = os.urandom(8) if rng.random() < 0.5 else b'\xff' * 8
    return data


def run(cmd, keep_from, keep_to, copy):
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=60)
        rc, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        rc, err = 'timeout', b''
    if rc in (0, 1):
        return 0
    copy(keep_from, keep_to)
    print('BAD', rc, ' '.join(cmd[1:3]), keep_to, err[-400:].decode(errors='replace'), flush=True)
    return 1


def fuzz_zstd(cli, demo, rng, runs, work):
    seeds = sorted(glob.glob(os.path.join(demo, '*.zst')))
    if not seeds:
        sys.exit('no .zst files in ' + demo)
    bad = 0
    f = os.path.join(work, 'in.zst')
    for i in range(runs):
        data = bytearray(open(rng.choice(seeds), 'rb').read())
        if len(data) > 2_000_000 and rng.random() < 0.5:
            data = data[:rng.randrange(1, 2_000_000)]
        open(f, 'wb').write(mutate(rng, data))
        for cmd in ([cli, 'frames', f, '--json', '--blocks'],
                    [cli, 'snapshot', 'restore', f, os.path.join(work, 'out.bin'), '--threads', '2']):
            bad += run(cmd, f, os.path.join(work, 'bad-%d-%d.zst' % (i, bad)), shutil.copy)
    return bad


def fuzz_store(cli, work, rng, runs):
    base = os.path.join(work, 'store-base')
    if not os.path.exists(base):
        subprocess.run([cli, 'store', 'init', base], check=True, capture_output=True)
        for i in range(3):
            p = os.path.join(work, 'in%d.bin' % i)
            open(p, 'wb').write(os.urandom(300000) + b'abc' * 100000)
            subprocess.run([cli, 'store', 'put', base, 'k%d' % i, p], check=True, capture_output=True)
        subprocess.run([cli, 'store', 'put', base, 'u', os.path.join(work, 'in0.bin'), '--no-merge'],
                       check=True, capture_output=True)
        subprocess.run([cli, 'store', 'evict', base, '--key', 'k1'], check=True, capture_output=True)
        subprocess.run([cli, 'store', 'gc', base], check=True, capture_output=True)
    bad = 0
    d = os.path.join(work, 'store')
    out = os.path.join(work, 'out.bin')
    for i in range(runs):
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(base, d)
        files = [f for f in glob.glob(d + '/**', recursive=True) if os.path.isfile(f) and not f.endswith('.lock')]
        f = rng.choice(files)
        data = bytearray(open(f, 'rb').read())
        if not data:
            continue
        open(f, 'wb').write(mutate(rng, data))
        for cmd in ([cli, 'store', 'fsck', d, '--json'], [cli, 'store', 'get', d, 'k0', out],
                    [cli, 'store', 'get', d, 'u', out], [cli, 'store', 'gc', d, '--dry-run', '--json'],
                    [cli, 'store', 'ls', d], [cli, 'store', 'stats', d], [cli, 'store', 'gc', d, '--json']):
            bad += run(cmd, d, os.path.join(work, 'bad-%d-%d' % (i, bad)), shutil.copytree)
    return bad


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ('zstd', 'store'):
        sys.exit(__doc__)
    mode, cli, where = sys.argv[1], sys.argv[2], sys.argv[3]
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    runs = int(sys.argv[5]) if len(sys.argv) > 5 else 200
    if mode == 'zstd':
        work = os.path.join(where, '.fuzz')
        os.makedirs(work, exist_ok=True)
        bad = fuzz_zstd(cli, where, rng, runs, work)
    else:
        os.makedirs(where, exist_ok=True)
        bad = fuzz_store(cli, where, rng, runs)
    print('%d runs, %d bad' % (runs, bad))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
