#include "core/remote/PgConnection.h"

#include "core/util/Error.h"

#include <libpq-fe.h>

#include <charconv>

namespace cs::remote {

PgResult::PgResult(pg_result* r) : r_(r) {}
PgResult::~PgResult()
{
    if (r_)
        PQclear(r_);
}
PgResult::PgResult(PgResult&& o) noexcept : r_(o.r_) { o.r_ = nullptr; }
PgResult& PgResult::operator=(PgResult&& o) noexcept
{
    if (this != &o) {
        if (r_)
            PQclear(r_);
        r_ = o.r_;
        o.r_ = nullptr;
    }
    return *this;
}
int PgResult::rows() const { return r_ ? PQntuples(r_) : 0; }
int PgResult::columns() const { return r_ ? PQnfields(r_) : 0; }
bool PgResult::isNull(int row, int col) const { return PQgetisnull(r_, row, col) != 0; }
std::string PgResult::text(int row, int col) const
{
    return std::string(PQgetvalue(r_, row, col), size_t(PQgetlength(r_, row, col)));
}
int64_t PgResult::i64(int row, int col) const
{
    const char* v = PQgetvalue(r_, row, col);
    const char* end = v + PQgetlength(r_, row, col);
    int64_t out = 0;
    const auto [p, ec] = std::from_chars(v, end, out);
    if (ec != std::errc() || p != end)
        throw Error(std::string("PostgreSQL: column ") + PQfname(r_, col) + " holds '" + std::string(v, end) +
                    "', not an integer");
    return out;
}
std::optional<int64_t> PgResult::optI64(int row, int col) const
{
    if (isNull(row, col))
        return std::nullopt;
    return i64(row, col);
}
int64_t PgResult::affected() const
{
    const char* n = PQcmdTuples(r_);
    return n && *n ? std::stoll(n) : 0;
}

namespace {

std::string describeConn(pg_conn* c)
{
    const char* host = PQhost(c);
    const char* port = PQport(c);
    const char* user = PQuser(c);
    const char* db = PQdb(c);
    return std::string("postgres://") + (user ? user : "") + "@" + (host ? host : "") + ":" + (port ? port : "") +
           "/" + (db ? db : "");
}

std::string firstLine(const char* message)
{
    std::string s = message ? message : "";
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    for (char& ch : s)
        if (ch == '\n')
            ch = ' ';
    return s;
}

} // namespace

PgConnection::PgConnection(pg_conn* conn) : conn_(conn), describe_(describeConn(conn)) {}

PgConnection::~PgConnection()
{
    if (conn_)
        PQfinish(conn_);
}

std::unique_ptr<PgConnection> PgConnection::connect(const std::string& conninfo, const std::string& password)
{
    // expand_dbname: the conninfo (URL or key=value) is expanded in place of
    // "dbname"; parameters before it are defaults it may override, those
    // after it override it (libpq's PQconnectdbParams rule).
    // fallback_application_name: our sessions name themselves (a conninfo's
    // application_name still wins), so an activity check can tell them from
    // a server's (pg_stat_activity).
    std::vector<const char*> keys{"connect_timeout", "fallback_application_name", "dbname"};
    std::vector<const char*> values{"10", "cachescope", conninfo.c_str()};
    if (!password.empty()) {
        keys.push_back("password");
        values.push_back(password.c_str());
    }
    keys.push_back(nullptr);
    values.push_back(nullptr);
    pg_conn* c = PQconnectdbParams(keys.data(), values.data(), 1);
    if (!c)
        throw Error(redactConninfo(conninfo) + ": cannot connect (out of memory)");
    if (PQstatus(c) != CONNECTION_OK) {
        // libpq's message names host and port; it never contains the password.
        const std::string why = firstLine(PQerrorMessage(c));
        PQfinish(c);
        throw Error(redactConninfo(conninfo) + ": cannot connect: " + why);
    }
    return std::unique_ptr<PgConnection>(new PgConnection(c));
}

PgResult PgConnection::exec(const std::string& sql, const PgParams& params)
{
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const auto& p : params)
        values.push_back(p ? p->c_str() : nullptr);
    pg_result* r = PQexecParams(conn_, sql.c_str(), int(values.size()), nullptr, values.data(), nullptr, nullptr, 0);
    const ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        const std::string why = firstLine(r ? PQresultErrorMessage(r) : PQerrorMessage(conn_));
        if (r)
            PQclear(r);
        throw Error(describe_ + ": " + why);
    }
    return PgResult(r);
}

PgTransaction::PgTransaction(PgConnection& c, Mode mode) : c_(c)
{
    c_.exec(mode == ReadOnly ? "BEGIN TRANSACTION READ ONLY" : "BEGIN");
    open_ = true;
}

PgTransaction::~PgTransaction()
{
    if (open_) {
        try {
            c_.exec("ROLLBACK");
        } catch (...) {
            // The connection is gone; the server rolls back by itself.
        }
    }
}

void PgTransaction::commit()
{
    c_.exec("COMMIT");
    open_ = false;
}

} // namespace cs::remote
