// The catalog schema and its ordered migrations. meta('schema_version') holds
// the number of migrations applied; each migration runs once, in order, in
// the same transaction as the version bump. Never edit a shipped migration:
// append a new one.
#include "core/store/Catalog.h"

#include "core/util/Error.h"
#include "core/util/Escape.h"

#include <string>
#include <vector>

namespace cs::store {

namespace {

// The triggers that keep entries_generation: created by migration 2 and
// created again, unchanged, by migration 3 after it rebuilt the table.
constexpr const char* kEntriesGenerationTriggers = R"SQL(
CREATE TRIGGER entries_generation_insert AFTER INSERT ON entries
BEGIN UPDATE entries_generation SET rows = rows + 1 WHERE id = 1; END;
CREATE TRIGGER entries_generation_delete AFTER DELETE ON entries
BEGIN UPDATE entries_generation SET rows = rows + 1 WHERE id = 1; END;
CREATE TRIGGER entries_generation_update AFTER UPDATE ON entries
WHEN old.id IS NOT new.id OR old.key IS NOT new.key OR old.version IS NOT new.version
  OR old.scope IS NOT new.scope OR old.size IS NOT new.size OR old.state IS NOT new.state
  OR old.part_count IS NOT new.part_count OR old.created IS NOT new.created
BEGIN UPDATE entries_generation SET rows = rows + 1 WHERE id = 1; END;
CREATE TRIGGER entries_generation_access AFTER UPDATE OF last_access ON entries
WHEN old.last_access IS NOT new.last_access
BEGIN UPDATE entries_generation SET access = access + 1 WHERE id = 1; END;
)SQL";

const std::vector<std::string>& migrations()
{
    static const std::vector<std::string> list = {
        // 1: entries, parts, dedup index, GC state and history, benchmark runs.
        R"SQL(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE entries(
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    version TEXT NOT NULL DEFAULT '',
    scope TEXT NOT NULL DEFAULT '',
    size INTEGER NOT NULL DEFAULT 0,
    sha256 TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL CHECK(state IN ('uploading','unmerged','merged')),
    root_offset INTEGER,
    part_count INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    last_access REAL,
    committed REAL,
    synthetic INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX entries_lookup ON entries(version, scope, key, created);
CREATE UNIQUE INDEX entries_committed_unique ON entries(key, version, scope) WHERE state <> 'uploading';
CREATE INDEX entries_key ON entries(key);
CREATE INDEX entries_version ON entries(version);
CREATE INDEX entries_scope ON entries(scope);
CREATE INDEX entries_size ON entries(size);
CREATE INDEX entries_state ON entries(state);
CREATE INDEX entries_parts ON entries(part_count);
CREATE INDEX entries_created ON entries(created);
CREATE INDEX entries_last_access ON entries(last_access);
CREATE INDEX entries_lru ON entries(coalesce(last_access, created));
CREATE INDEX entries_root ON entries(root_offset) WHERE root_offset IS NOT NULL;
CREATE TABLE parts(
    entry_id INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    size INTEGER NOT NULL,
    PRIMARY KEY(entry_id, idx)
) WITHOUT ROWID;
CREATE TABLE chunks(
    sha256 BLOB PRIMARY KEY,
    offset INTEGER NOT NULL,
    raw_size INTEGER NOT NULL,
    stored_size INTEGER NOT NULL
);
CREATE INDEX chunks_offset ON chunks(offset);
CREATE TABLE gc_state(
    id INTEGER PRIMARY KEY CHECK(id = 1),
    epoch INTEGER NOT NULL DEFAULT 0,
    running INTEGER NOT NULL DEFAULT 0,
    split INTEGER NOT NULL DEFAULT 0,
    started REAL
);
INSERT INTO gc_state(id, epoch, running, split, started) VALUES(1, 0, 0, 0, NULL);
CREATE TABLE gc_runs(
    id INTEGER PRIMARY KEY,
    started REAL,
    finished REAL,
    generation INTEGER,
    dry_run INTEGER,
    status TEXT,
    stats_json TEXT
);
CREATE TABLE bench_runs(
    id INTEGER PRIMARY KEY,
    scenario TEXT,
    params_json TEXT,
    started REAL,
    finished REAL,
    version TEXT,
    machine TEXT,
    status TEXT,
    result_json TEXT
);
CREATE TABLE bench_samples(
    run_id INTEGER,
    t REAL,
    series TEXT,
    value REAL
);
CREATE INDEX bench_samples_run ON bench_samples(run_id);
)SQL",
        // 2: change counters of the entries table, kept by triggers so that every
        // writer (any process, any version from 2 on) bumps them. The browser's
        // page anchors (row number -> sort key) are valid while `rows` (and, for
        // a listing sorted by last access, `access`) did not move. A restore only
        // moves `access`, so it does not invalidate listings sorted otherwise.
        R"SQL(
CREATE TABLE entries_generation(
    id INTEGER PRIMARY KEY CHECK(id = 1),
    rows INTEGER NOT NULL,
    access INTEGER NOT NULL
);
INSERT INTO entries_generation(id, rows, access) VALUES(1, 0, 0);
)SQL" + std::string(kEntriesGenerationTriggers),
        // 3: the counter table without constraints. A statement that writes more
        // than one row (here: through a trigger) and may abort on a constraint
        // needs a statement journal inside a transaction; with NOT NULL and
        // CHECK on the counters, every DELETE of an entry (eviction) paid one
        // (50,000 deletes in one transaction: 0.9 s -> 2.5 s; now 1.3 s).
        R"SQL(
CREATE TABLE entries_generation_new(id INTEGER PRIMARY KEY, rows INTEGER, access INTEGER);
INSERT INTO entries_generation_new(id, rows, access) SELECT id, rows, access FROM entries_generation;
DROP TRIGGER entries_generation_insert;
DROP TRIGGER entries_generation_delete;
DROP TRIGGER entries_generation_update;
DROP TRIGGER entries_generation_access;
DROP TABLE entries_generation;
ALTER TABLE entries_generation_new RENAME TO entries_generation;
)SQL" + std::string(kEntriesGenerationTriggers),
        // 4: a CRC-32C per part, computed at commit, so fsck finds bytes that
        // changed on disk in an unmerged part of the same size (and a merge or
        // restore that finds the entry's SHA-256 wrong can name the part).
        // NULL for parts committed before: checked by size only.
        R"SQL(
ALTER TABLE parts ADD COLUMN crc32c INTEGER;
)SQL",
        // 5: who an entry belongs to beyond its scope, and where an imported
        // one came from. A cache server partitions by repository as well as
        // scope (github-actions-cache-server v9: key, version, scope,
        // repoId), so an import keeps entries of two repositories apart; the
        // origin ("actions:<server entry id>@<updatedAt>") recognises a
        // repeated import. Native puts have repo '' and no origin.
        R"SQL(
ALTER TABLE entries ADD COLUMN repo TEXT NOT NULL DEFAULT '';
ALTER TABLE entries ADD COLUMN origin TEXT;
DROP INDEX entries_committed_unique;
CREATE UNIQUE INDEX entries_committed_unique ON entries(key, version, scope, repo) WHERE state <> 'uploading';
CREATE INDEX entries_origin ON entries(origin) WHERE origin IS NOT NULL;
)SQL",
        // 6: the sentence of the last failed merge of an unmerged entry (NULL
        // when none; cleared by the merge that succeeds), so a merge that ran
        // behind the command that started it (docs/formats.md, "Background
        // merges") leaves its outcome where `store ls` and the browser show it.
        // A change of it moves the row counter, so open browsers re-read the row.
        R"SQL(
ALTER TABLE entries ADD COLUMN merge_error TEXT;
DROP TRIGGER entries_generation_update;
CREATE TRIGGER entries_generation_update AFTER UPDATE ON entries
WHEN old.id IS NOT new.id OR old.key IS NOT new.key OR old.version IS NOT new.version
  OR old.scope IS NOT new.scope OR old.size IS NOT new.size OR old.state IS NOT new.state
  OR old.part_count IS NOT new.part_count OR old.created IS NOT new.created
  OR old.merge_error IS NOT new.merge_error
BEGIN UPDATE entries_generation SET rows = rows + 1 WHERE id = 1; END;
)SQL",
    };
    return list;
}

bool hasTable(Catalog& catalog, const char* name)
{
    auto q = catalog.prepare("SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?1");
    q.bindText(1, name);
    q.step();
    return q.i64(0) != 0;
}

// 0 when the database has no meta table or no version row (an empty file, a
// database being created, or a foreign one: see checkStoreSchema).
int readVersion(Catalog& catalog)
{
    if (!hasTable(catalog, "meta"))
        return 0;
    auto q = catalog.prepare("SELECT value FROM meta WHERE key='schema_version'");
    if (!q.step())
        return 0;
    const std::string text = q.text(0);
    int v = 0;
    bool ok = !text.empty() && text.size() <= 9;
    for (char c : text) {
        if (c < '0' || c > '9') {
            ok = false;
            break;
        }
        v = v * 10 + (c - '0');
    }
    if (!ok || v == 0)
        fail(catalog.path(), "meta.schema_version is '" + escapeControl(text.substr(0, 40))
                                 + "', not a schema number; the catalog is damaged (no fsck can repair it: "
                                   "restore catalog.db from a backup)");
    return v;
}

} // namespace

int checkStoreSchema(Catalog& catalog)
{
    auto lock = catalog.lock();
    const int version = readVersion(catalog);
    const int latest = latestSchemaVersion();
    if (version > latest)
        fail(catalog.path(), "catalog schema version " + std::to_string(version)
                                 + " is newer than this cachescope understands (" + std::to_string(latest)
                                 + "); nothing was changed: use a newer cachescope (store fsck refuses it too)");
    if (version > 0)
        return version;
    // No version: an empty file or somebody else's database. Only `store
    // init` makes a catalog, and only in a folder without a pack or parts.
    auto q = catalog.prepare("SELECT count(*) FROM sqlite_master");
    q.step();
    if (q.i64(0) == 0)
        fail(catalog.path(), "is an empty database, not a store catalog; refusing to treat it as an empty store "
                             "(store gc would drop every object, fsck --repair every part): restore catalog.db "
                             "from a backup, no fsck can rebuild it");
    fail(catalog.path(), "is an SQLite database without the store's tables (meta.schema_version); it is not a "
                         "cachescope catalog, nothing was changed (no fsck can repair it)");
}

int latestSchemaVersion() { return int(migrations().size()); }

int schemaVersionOf(Catalog& catalog)
{
    auto lock = catalog.lock();
    return readVersion(catalog);
}

int migrateSchema(Catalog& catalog)
{
    Transaction tx(catalog, Transaction::Immediate);
    const int current = readVersion(catalog);
    const int latest = latestSchemaVersion();
    if (current > latest)
        fail(catalog.path(), "catalog schema version " + std::to_string(current)
                                 + " is newer than this cachescope understands (" + std::to_string(latest) + ")");
    if (current == latest) {
        tx.commit();
        return current;
    }
    for (int v = current; v < latest; ++v)
        catalog.exec(migrations()[size_t(v)]);
    catalog.prepare("INSERT INTO meta(key, value) VALUES('schema_version', ?1) "
                    "ON CONFLICT(key) DO UPDATE SET value=excluded.value")
        .bindText(1, std::to_string(latest))
        .run();
    catalog.prepare("INSERT OR IGNORE INTO meta(key, value) VALUES('format', 'cachescope-store 1')").run();
    tx.commit();
    return latest;
}

} // namespace cs::store
