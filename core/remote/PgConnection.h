// A PostgreSQL connection on libpq: parameterized queries with text
// results, read-only transactions for everything that only reads, and
// errors that name the database (user@host:port/db) but never the password.
//
// Connection strings are libpq's: a URL (postgres://user@host:port/db) or
// key=value pairs; the password comes from the URL, PGPASSWORD or
// ~/.pgpass and is never kept by this class beyond libpq's own connection.
#pragma once
#include "core/remote/Conninfo.h"   // redactConninfo

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct pg_conn;
struct pg_result;

namespace cs::remote {

class PgResult {
public:
    PgResult() = default;
    explicit PgResult(pg_result* r);
    ~PgResult();
    PgResult(PgResult&& o) noexcept;
    PgResult& operator=(PgResult&& o) noexcept;
    PgResult(const PgResult&) = delete;
    PgResult& operator=(const PgResult&) = delete;

    int rows() const;
    int columns() const;
    bool isNull(int row, int col) const;
    std::string text(int row, int col) const;
    int64_t i64(int row, int col) const;             // throws on a non-integer
    std::optional<int64_t> optI64(int row, int col) const;
    int64_t affected() const;                        // rows changed by INSERT/UPDATE/DELETE

private:
    pg_result* r_ = nullptr;
};

using PgParams = std::vector<std::optional<std::string>>;

class PgConnection {
public:
    // Connects or throws cs::Error naming the database without the password.
    // password (typed in) overrides the conninfo's, PGPASSWORD and ~/.pgpass
    // when not empty. A connect that gets no answer gives up after 10 s
    // unless the conninfo sets connect_timeout.
    static std::unique_ptr<PgConnection> connect(const std::string& conninfo, const std::string& password = {});
    ~PgConnection();
    PgConnection(const PgConnection&) = delete;
    PgConnection& operator=(const PgConnection&) = delete;

    // Runs one statement ($1, $2 ... placeholders, text parameters).
    PgResult exec(const std::string& sql, const PgParams& params = {});
    // "postgres://user@host:port/db": safe to print.
    const std::string& describe() const { return describe_; }
    pg_conn* handle() const { return conn_; }

private:
    explicit PgConnection(pg_conn* conn);
    pg_conn* conn_ = nullptr;
    std::string describe_;
};

// BEGIN [READ ONLY] .. COMMIT; rolls back when destroyed uncommitted.
class PgTransaction {
public:
    enum Mode { ReadOnly, ReadWrite };
    PgTransaction(PgConnection& c, Mode mode);
    ~PgTransaction();
    void commit();

private:
    PgConnection& c_;
    bool open_ = false;
};

} // namespace cs::remote
