#include "core/util/Sqlite.h"

#include "core/util/Error.h"
#include "core/util/InputFile.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cs::sqlite {

namespace {

[[noreturn]] void failSql(sqlite3* db, const std::string& path, const std::string& what)
{
    fail(path, what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

} // namespace

Statement::Statement(sqlite3* db, const std::string& sql, const std::string& path) : db_(db), path_(path)
{
    if (sqlite3_prepare_v2(db, sql.c_str(), int(sql.size()), &stmt_, nullptr) != SQLITE_OK)
        failSql(db, path, "cannot prepare a catalog query");
}

Statement::~Statement()
{
    if (stmt_)
        sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& o) noexcept
    : stmt_(std::exchange(o.stmt_, nullptr)), db_(o.db_), path_(std::move(o.path_))
{
}

Statement& Statement::bind(int i, int64_t v)
{
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
}

Statement& Statement::bind(int i, double v)
{
    sqlite3_bind_double(stmt_, i, v);
    return *this;
}

Statement& Statement::bindText(int i, std::string_view v)
{
    sqlite3_bind_text64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    return *this;
}

Statement& Statement::bindBlob(int i, const void* data, size_t size)
{
    sqlite3_bind_blob64(stmt_, i, data, size, SQLITE_TRANSIENT);
    return *this;
}

Statement& Statement::bindNull(int i)
{
    sqlite3_bind_null(stmt_, i);
    return *this;
}

bool Statement::step()
{
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    failSql(db_, path_, "catalog query failed");
}

void Statement::run()
{
    while (step()) {
    }
}

void Statement::reset()
{
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

bool Statement::isNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
int64_t Statement::i64(int col) const { return sqlite3_column_int64(stmt_, col); }
double Statement::real(int col) const { return sqlite3_column_double(stmt_, col); }

std::string Statement::text(int col) const
{
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    const int n = sqlite3_column_bytes(stmt_, col);
    return p ? std::string(p, size_t(n)) : std::string();
}

std::string Statement::blob(int col) const
{
    const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
    const int n = sqlite3_column_bytes(stmt_, col);
    return p ? std::string(p, size_t(n)) : std::string();
}

Database::Database(const std::string& path, bool create)
    : Database(path, create ? OpenMode::Create : OpenMode::ReadWrite)
{
}

namespace {

bool pathExists(const std::string& path)
{
    struct stat st;
    return ::lstat(path.c_str(), &st) == 0;
}

// "file:" URI of a path, every byte but unreserved ones and '/' escaped, so
// '?', '#' and '%' in a folder name stay part of the path.
std::string fileUri(const std::string& path)
{
    static const char* hex = "0123456789ABCDEF";
    std::string uri = "file:";
    for (const unsigned char c : path) {
        if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
            uri += char(c);
        } else {
            uri += '%';
            uri += hex[c >> 4];
            uri += hex[c & 15];
        }
    }
    return uri;
}

// A foreign database (an actions-cache server's, named by the user) that is
// a FIFO or a device: SQLite's open or first read would wait for a writer
// that never comes, beyond Ctrl-C. Refused without waiting (a store's own
// catalog is checked by StoreLayout).
void refuseUnlessRegular(const std::string& path)
{
    openSeekableInput(path, "SQLite reads a database at offsets");
}

} // namespace

std::string Database::journalModeOnDisk(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        failErrno(path, "cannot open the database");
    unsigned char header[100];
    ssize_t got = 0;
    while (got < ssize_t(sizeof header)) {
        const ssize_t n = ::pread(fd, header + got, sizeof header - size_t(got), got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += n;
    }
    ::close(fd);
    if (got == 0)
        return "delete"; // an empty file is an empty database to SQLite
    if (got < ssize_t(sizeof header) || std::memcmp(header, "SQLite format 3", 16) != 0)
        fail(path, "not an SQLite database (no SQLite header in its first 100 bytes)");
    // Bytes 18 and 19 are the write and read format versions: 2 means WAL.
    return header[18] == 2 && header[19] == 2 ? "wal" : "delete";
}

std::string Database::hardLinkRefusal(const std::string& path)
{
    for (const std::string& p : {path, path + "-wal", path + "-shm"}) {
        struct stat st {};
        if (::lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1)
            return p + ": has " + std::to_string(st.st_nlink) + " hard links (the same file under another name); "
                   "cachescope never writes a store file another name shares, nothing was written: replace it with "
                   "a copy of its own (cp --remove-destination, or remove the other name)";
    }
    return {};
}

Database::Database(const std::string& path, OpenMode mode, std::optional<int> busyTimeoutMs)
    : path_(path), mode_(mode)
{
    if (mode == OpenMode::Create || mode == OpenMode::ReadWrite)
        if (const std::string why = hardLinkRefusal(path); !why.empty())
            throw Error(why);
    const bool native = mode == OpenMode::Create || mode == OpenMode::ReadWrite;
    int flags = SQLITE_OPEN_NOMUTEX;
    std::string name = path;
    switch (mode) {
    case OpenMode::Create:
        flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
        break;
    case OpenMode::ReadWrite:
        flags |= SQLITE_OPEN_READWRITE;
        break;
    case OpenMode::ForeignWrite:
        flags |= SQLITE_OPEN_READWRITE;
        refuseUnlessRegular(path);
        break;
    case OpenMode::ReadOnly: {
        flags |= SQLITE_OPEN_READONLY;
        if (!pathExists(path))
            fail(path, "no such database");
        refuseUnlessRegular(path);
        // A WAL database read by SQLite gets a -wal and a -shm even on a
        // read-only connection. Without a -wal file no server has it open
        // and every page is in the main file: read it as immutable, which
        // creates nothing (a server starting during a read could race it;
        // reads are one short transaction). A -wal without its -shm would
        // need a -shm created: refuse rather than change the folder.
        if (journalModeOnDisk(path) == "wal") {
            const bool wal = pathExists(path + "-wal"), shm = pathExists(path + "-shm");
            if (!wal) {
                flags |= SQLITE_OPEN_URI;
                name = fileUri(path) + "?immutable=1";
            } else if (!shm) {
                fail(path, "is in WAL mode and has a -wal file but no -shm file; reading it would create one "
                           "(open it once with the server, or copy the folder and read the copy)");
            }
        }
        break;
    }
    }
    if (sqlite3_open_v2(name.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        fail(path, std::string(native ? "cannot open the store catalog: " : "cannot open the database: ")
                       + msg);
    }
    try {
        sqlite3_busy_timeout(db_, busyTimeoutMs.value_or(native ? busy::kNativeStoreMs : busy::kForeignMs));
        switch (mode) {
        case OpenMode::Create:
        case OpenMode::ReadWrite:
            exec("PRAGMA journal_mode=WAL");
            {
                // Keep -wal and -shm when the last connection closes: a full
                // disk must not stop the next open (a new -shm needs 32 KiB)
                // nor the eviction that frees space (it writes into the WAL
                // space kept allocated at close: emptyWalKeepingSpace).
                int persist = 1;
                sqlite3_file_control(db_, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
            }
            exec("PRAGMA synchronous=FULL");
            exec("PRAGMA foreign_keys=ON");
            break;
        case OpenMode::ForeignWrite:
            // Connection settings only: nothing here writes to the file.
            exec("PRAGMA synchronous=FULL");
            exec("PRAGMA foreign_keys=ON");
            break;
        case OpenMode::ReadOnly:
            exec("PRAGMA query_only=1");
            break;
        }
        if (mode != OpenMode::Create) {
            // Reads the schema now, so a file that is not a database fails
            // here in one sentence and not in the first query.
            sqlite3_stmt* probe = nullptr;
            int rc = sqlite3_prepare_v2(db_, "SELECT count(*) FROM sqlite_master", -1, &probe, nullptr);
            if (rc == SQLITE_OK)
                rc = sqlite3_step(probe);
            sqlite3_finalize(probe);
            if (rc != SQLITE_ROW) {
                if (sqlite3_extended_errcode(db_) == SQLITE_READONLY_ROLLBACK)
                    fail(path, "has a hot journal (" + path
                                   + "-journal) left by a write that did not finish; it must be rolled back "
                                     "(the server does that when it next opens the database) and a read-only "
                                     "reader will not");
                failSql(db_, path, "cannot read the database");
            }
        }
    } catch (...) {
        sqlite3_close(db_);
        db_ = nullptr;
        throw;
    }
}

void Database::withoutFsync(const std::function<void()>& fn)
{
    auto held = lock();
    if (mode_ == OpenMode::ReadOnly) {
        fn();
        return;
    }
    exec("PRAGMA synchronous=NORMAL");
    try {
        fn();
    } catch (...) {
        exec("PRAGMA synchronous=FULL");
        throw;
    }
    exec("PRAGMA synchronous=FULL");
}

int Database::synchronousMode() const
{
    auto held = lock();
    Statement q = prepare("PRAGMA synchronous");
    return q.step() ? int(q.i64(0)) : -1;
}

namespace {

// What an eviction or a GC's bookkeeping on a full disk writes to the WAL,
// with room to spare (a few dozen pages per transaction).
constexpr off_t kWalReserve = 1 << 20;

// A WAL that the last connection leaves full of checkpointed frames is read
// whole by the next process to open the catalog (SQLite rebuilds its index
// from it) and never restarts, because the rebuilt index counts none of its
// frames as checkpointed: every command made the file longer and every open
// read all of it (10 MB and ~2,400 reads after 150 puts). So the native
// store's catalog empties its WAL when it closes, if no other connection
// uses it, and keeps space reserved past the end of the empty file (blocks
// allocated, size 0: SQLite sees no frame) so a full disk can still evict.
void emptyWalKeepingSpace(sqlite3* db, const std::string& path)
{
    sqlite3_busy_timeout(db, busy::kClosingCheckpointMs);
    if (sqlite3_wal_checkpoint_v2(db, "main", SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr) != SQLITE_OK)
        return;
    const int fd = ::open((path + "-wal").c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st{};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        (void)::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, kWalReserve); // best effort
    ::close(fd);
}

} // namespace

Database::~Database()
{
    if (!db_)
        return;
    if (mode_ == OpenMode::Create || mode_ == OpenMode::ReadWrite)
        emptyWalKeepingSpace(db_, path_);
    sqlite3_close(db_);
}

void Database::exec(const std::string& sql)
{
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : sqlite3_errmsg(db_);
        sqlite3_free(err);
        fail(path_, "catalog statement failed: " + msg);
    }
}

int64_t Database::lastInsertId() const { return sqlite3_last_insert_rowid(db_); }
int Database::changes() const { return sqlite3_changes(db_); }

std::optional<std::string> Database::whyNotPreparable(const std::string& sql) const
{
    auto held = lock();
    sqlite3_stmt* st = nullptr;
    const int rc = sqlite3_prepare_v2(db_, sql.c_str(), int(sql.size()), &st, nullptr);
    std::optional<std::string> why;
    if (rc != SQLITE_OK)
        why = sqlite3_errmsg(db_);
    sqlite3_finalize(st);
    return why;
}

Transaction::Transaction(Database& db, Kind kind) : db_(db), lock_(db.lock())
{
    if (kind == Immediate && db.readOnly()) {
        if (const std::string why = Database::hardLinkRefusal(db.path()); !why.empty())
            throw Error(why);
        fail(db.path(), "opened read-only: this write was refused");
    }
    db_.exec(kind == Immediate ? "BEGIN IMMEDIATE" : "BEGIN");
    open_ = true;
}

Transaction::~Transaction()
{
    if (open_)
        sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit()
{
    db_.exec("COMMIT");
    open_ = false;
}

std::string libraryVersion() { return sqlite3_libversion(); }

} // namespace cs::sqlite
