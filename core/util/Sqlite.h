// The one SQLite layer: every database cachescope opens (its own store
// catalog, its benchmark history and a foreign server's database) goes
// through Database; no other file calls sqlite3_open. One connection guarded
// by a recursive mutex (hold Database::Lock for a whole transaction),
// prepared statements with typed binds, RAII transactions. Cross-process
// concurrency is SQLite's: a busy timeout (the named ones below), BEGIN
// IMMEDIATE for writes. The open mode decides what the connection may change:
//   Create, ReadWrite  our own databases: WAL, synchronous=FULL, foreign
//                      keys; -wal and -shm kept when closed (a full disk
//                      must not stop the next open), the WAL emptied by the
//                      last connection to close, 1 MiB kept allocated.
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

namespace cs::sqlite {

// How long a connection waits for another connection's lock before its
// statement fails with "database is locked".
namespace busy {
// Store commands: a put or merge may queue behind a GC's or another merge's
// commit on a loaded machine, and giving up would fail the command.
constexpr int kNativeStoreMs = 60000;
// A foreign server's database, read-only or --write: the server's own
// writes are short; past this the command fails and says the file is busy.
constexpr int kForeignMs = 15000;
// The benchmark history (its own file or a store's catalog), saved once per run.
constexpr int kBenchHistoryMs = 10000;
// The GC view's "which entries reach this object" read of a store's catalog.
constexpr int kReachingReadMs = 10000;
// The closing connection's WAL checkpoint: never waits; when another
// connection holds the catalog, the last one to close empties the WAL.
constexpr int kClosingCheckpointMs = 0;
} // namespace busy

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

class Database {
public:
    // Opens the SQLite file in `mode` (see the top of this file); throws
    // cs::Error naming the path. ReadOnly and ForeignWrite never create the
    // file. busyTimeoutMs: one of busy::, by default kNativeStoreMs for
    // Create and ReadWrite, kForeignMs for the others.
    Database(const std::string& path, OpenMode mode, std::optional<int> busyTimeoutMs = std::nullopt);
    // The native store's modes: Create when create, else ReadWrite.
    Database(const std::string& path, bool create);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    using Lock = std::unique_lock<std::recursive_mutex>;
    Lock lock() const { return Lock(mutex_); }

    const std::string& path() const { return path_; }
    OpenMode mode() const { return mode_; }
    bool readOnly() const { return mode_ == OpenMode::ReadOnly; }
    sqlite3* handle() const { return db_; }
    void exec(const std::string& sql);
    Statement prepare(const std::string& sql) const { return Statement(db_, sql, path_); }
    // SQLite's reason why sql does not compile here (a missing table or
    // column), or nullopt when it does; runs nothing.
    std::optional<std::string> whyNotPreparable(const std::string& sql) const;
    int64_t lastInsertId() const;
    int changes() const;
    // Runs fn (its own transactions) with synchronous=NORMAL instead of FULL:
    // its commits skip the fsync (0.41 -> 0.03 ms per commit on this VM's
    // disk; milliseconds on a real one). In WAL mode the catalog stays
    // consistent; a power cut may lose these commits until the next FULL
    // commit makes them durable. For writes that may be lost (last access
    // times). Holds the lock, so no other commit on this connection runs
    // relaxed; FULL is restored even when fn throws. In ReadOnly mode it
    // only runs fn (nothing to commit).
    void withoutFsync(const std::function<void()>& fn);
    int synchronousMode() const; // PRAGMA synchronous: 1 NORMAL, 2 FULL

    // The journal mode as the file says (header bytes 18-19): "wal" or
    // "delete" (any rollback journal), read from the file without SQLite, so
    // asking changes nothing. Throws when the file is not an SQLite database.
    static std::string journalModeOnDisk(const std::string& path);
    // Why the database at path may not be written, or "": the file, its
    // -wal or its -shm has more than one hard link (writing it would change
    // the file behind the other name). Create and ReadWrite refuse it; a
    // store opens such a catalog read-only, so reads go on.
    static std::string hardLinkRefusal(const std::string& path);

private:
    std::string path_;
    OpenMode mode_ = OpenMode::ReadWrite;
    sqlite3* db_ = nullptr;
    mutable std::recursive_mutex mutex_;
};

// BEGIN (IMMEDIATE for writers) .. COMMIT; rolls back when destroyed uncommitted.
// Holds the database lock for its lifetime.
class Transaction {
public:
    enum Kind { Deferred, Immediate };
    Transaction(Database& db, Kind kind);
    ~Transaction();
    void commit();

private:
    Database& db_;
    Database::Lock lock_;
    bool open_ = false;
};

// The SQLite library's version as it runs (loaded lazily, like every other
// call): the About box and --version ask here rather than calling SQLite.
std::string libraryVersion();

} // namespace cs::sqlite
