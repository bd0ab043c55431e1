// The one SQLite layer: every database cachescope opens (its own store
// catalog and a foreign server's database) goes through Catalog. One
// connection guarded by a recursive mutex (hold Catalog::Lock for a whole
// transaction), prepared statements with typed binds, RAII transactions.
// Cross-process concurrency is SQLite's: busy_timeout, BEGIN IMMEDIATE for
// writes. The open mode decides what the connection may change:
//   Create, ReadWrite  the native store: WAL, synchronous=FULL, foreign keys.
//   ReadOnly           any database we must not change (a foreign server's,
//                      a read-only native store): SQLITE_OPEN_READONLY and
//                      query_only, no pragma that writes, the journal mode as
//                      found, and no -wal/-shm created where there were none.
//   ForeignWrite       a foreign database we were asked to write (merge,
//                      evict): read-write, but its journal mode as found
//                      (never switched to WAL), synchronous=FULL and foreign
//                      keys for this connection only.
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace cs::store {

class Statement {
public:
    Statement(sqlite3* db, const std::string& sql, const std::string& path);
    ~Statement();
    Statement(Statement&& o) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    Statement& bind(int i, int64_t v);
    Statement& bind(int i, uint64_t v) { return bind(i, int64_t(v)); }
    Statement& bind(int i, int v) { return bind(i, int64_t(v)); }
    Statement& bind(int i, uint32_t v) { return bind(i, int64_t(v)); }
    Statement& bind(int i, double v);
    Statement& bindText(int i, std::string_view v);
    Statement& bindBlob(int i, const void* data, size_t size);
    Statement& bindNull(int i);

    // Steps once: true while a row is available.
    bool step();
    // Steps to completion (statements without rows).
    void run();
    void reset();

    bool isNull(int col) const;
    int64_t i64(int col) const;
    double real(int col) const;
    std::string text(int col) const;   // full bytes, embedded NULs kept
    std::string blob(int col) const;

private:
    sqlite3_stmt* stmt_ = nullptr;
    sqlite3* db_ = nullptr;
    std::string path_;
};

enum class OpenMode { Create, ReadWrite, ReadOnly, ForeignWrite };

class Catalog {
public:
    // Opens the SQLite file in `mode` (see the top of this file) with a busy
    // timeout; throws cs::Error naming the path. ReadOnly and ForeignWrite
    // never create the file.
    Catalog(const std::string& path, OpenMode mode);
    // The native store's modes: Create when create, else ReadWrite.
    Catalog(const std::string& path, bool create);
    ~Catalog();
    Catalog(const Catalog&) = delete;
    Catalog& operator=(const Catalog&) = delete;

    using Lock = std::unique_lock<std::recursive_mutex>;
    Lock lock() const { return Lock(mutex_); }

    const std::string& path() const { return path_; }
    OpenMode mode() const { return mode_; }
    bool readOnly() const { return mode_ == OpenMode::ReadOnly; }
    sqlite3* handle() const { return db_; }
    void exec(const std::string& sql);
    Statement prepare(const std::string& sql) const { return Statement(db_, sql, path_); }
    int64_t lastInsertId() const;
    int changes() const;
    // Runs fn (its own transactions) with synchronous=NORMAL instead of FULL:
    // its commits skip the fsync (0.41 -> 0.03 ms per commit on this VM's
    // disk; milliseconds on a real one). In WAL mode the catalog stays
    // consistent; a power cut may lose these commits until the next FULL
    // commit makes them durable. For writes that may be lost (last access
    // times). Holds the catalog lock, so no other commit on this connection
    // runs relaxed; FULL is restored even when fn throws. In ReadOnly mode
    // it only runs fn (nothing to commit).
    void withoutFsync(const std::function<void()>& fn);
    int synchronousMode() const; // PRAGMA synchronous: 1 NORMAL, 2 FULL

    // The journal mode as the file says (header bytes 18-19): "wal" or
    // "delete" (any rollback journal), read from the file without SQLite, so
    // asking changes nothing. Throws when the file is not an SQLite database.
    static std::string journalModeOnDisk(const std::string& path);

private:
    std::string path_;
    OpenMode mode_ = OpenMode::ReadWrite;
    sqlite3* db_ = nullptr;
    mutable std::recursive_mutex mutex_;
};

// BEGIN (IMMEDIATE for writers) .. COMMIT; rolls back when destroyed uncommitted.
// Holds the catalog lock for its lifetime.
class Transaction {
public:
    enum Kind { Deferred, Immediate };
    Transaction(Catalog& catalog, Kind kind);
    ~Transaction();
    void commit();

private:
    Catalog& catalog_;
    Catalog::Lock lock_;
    bool open_ = false;
};

// Applies the ordered migrations to reach the latest schema (Schema.cpp).
int migrateSchema(Catalog& catalog);
int schemaVersionOf(Catalog& catalog);
// The schema of an existing catalog, for every command but `store init`:
// throws cs::Error (one sentence naming the file and what fsck can and cannot
// do) when the catalog is empty, foreign (no meta.schema_version), damaged
// (a version that is not a number) or newer than latestSchemaVersion().
// Returns the version (1..latest); changes nothing.
int checkStoreSchema(Catalog& catalog);
int latestSchemaVersion();

double nowSeconds();

} // namespace cs::store
