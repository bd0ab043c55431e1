#include "core/store/Catalog.h"

#include "core/util/Error.h"

#include <chrono>
#include <utility>

namespace cs::store {

namespace {

[[noreturn]] void failSql(sqlite3* db, const std::string& path, const std::string& what)
{
    fail(path, what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

} // namespace

double nowSeconds()
{
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

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

Catalog::Catalog(const std::string& path, bool create) : path_(path)
{
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        fail(path, "cannot open the store catalog: " + msg);
    }
    sqlite3_busy_timeout(db_, 60000);
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=FULL");
    exec("PRAGMA foreign_keys=ON");
}

void Catalog::withoutFsync(const std::function<void()>& fn)
{
    auto held = lock();
    exec("PRAGMA synchronous=NORMAL");
    try {
        fn();
    } catch (...) {
        exec("PRAGMA synchronous=FULL");
        throw;
    }
    exec("PRAGMA synchronous=FULL");
}

int Catalog::synchronousMode() const
{
    auto held = lock();
    Statement q = prepare("PRAGMA synchronous");
    return q.step() ? int(q.i64(0)) : -1;
}

Catalog::~Catalog()
{
    if (db_)
        sqlite3_close(db_);
}

void Catalog::exec(const std::string& sql)
{
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : sqlite3_errmsg(db_);
        sqlite3_free(err);
        fail(path_, "catalog statement failed: " + msg);
    }
}

int64_t Catalog::lastInsertId() const { return sqlite3_last_insert_rowid(db_); }
int Catalog::changes() const { return sqlite3_changes(db_); }

Transaction::Transaction(Catalog& catalog, Kind kind) : catalog_(catalog), lock_(catalog.lock())
{
    catalog_.exec(kind == Immediate ? "BEGIN IMMEDIATE" : "BEGIN");
    open_ = true;
}

Transaction::~Transaction()
{
    if (open_)
        sqlite3_exec(catalog_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit()
{
    catalog_.exec("COMMIT");
    open_ = false;
}

} // namespace cs::store
