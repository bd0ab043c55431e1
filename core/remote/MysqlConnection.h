// A MySQL/MariaDB connection on MariaDB Connector/C: queries with `?`
// placeholders filled client-side (text escaped by the connection's own
// mysql_real_escape_string, integers written as decimal literals), results
// as text, read-only sessions for everything that only reads, and errors
// that name the database (mysql://user@host:port/db) but never the password.
//
// Locations are URLs: mysql://USER@HOST[:PORT]/DB (TCP, port 3306 by
// default) or mysql://USER@localhost/DB?socket=/run/mysqld/mysqld.sock (a
// unix socket); mariadb:// is the same. The password comes from MYSQL_PWD
// or is typed in; a URL holding one is refused (URLs are kept in shell
// histories, settings and messages), and this class keeps none.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct st_mysql;

namespace cs::remote {

struct MysqlTarget {
    std::string user, host, socket, database;
    unsigned port = 3306;
    // "mysql://user@host:port/db" or "mysql://user@localhost/db?socket=PATH": safe to print.
    std::string describe() const;
};

// Throws cs::Error naming the URL (any password in it masked) when it is
// not one of the forms above, or holds a password.
MysqlTarget parseMysqlUrl(const std::string& url);

// A value for a `?`: text (quoted and escaped), an integer, or NULL.
struct MysqlValue {
    enum Kind { Null, Text, Integer } kind = Null;
    std::string text;
    int64_t integer = 0;
    static MysqlValue of(std::string s) { return {Text, std::move(s), 0}; }
    static MysqlValue of(int64_t v) { return {Integer, {}, v}; }
    static MysqlValue of(const std::optional<int64_t>& v) { return v ? of(*v) : MysqlValue{}; }
};
using MysqlParams = std::vector<MysqlValue>;

class MysqlResult {
public:
    int rows() const { return int(rows_.size()); }
    int columns() const { return int(names_.size()); }
    bool isNull(int row, int col) const { return !rows_[size_t(row)][size_t(col)]; }
    std::string text(int row, int col) const;              // "" for NULL
    int64_t i64(int row, int col) const;                   // throws on a non-integer
    std::optional<int64_t> optI64(int row, int col) const;
    int64_t affected() const { return affected_; }         // rows matched by UPDATE/DELETE (CLIENT_FOUND_ROWS)

private:
    friend class MysqlConnection;
    std::vector<std::string> names_;
    std::vector<std::vector<std::optional<std::string>>> rows_;
    int64_t affected_ = 0;
};

class MysqlConnection {
public:
    enum Session { ReadOnlySession, ReadWriteSession };
    // Connects (10 s timeout) or throws cs::Error naming the database without
    // the password. password (typed in) overrides MYSQL_PWD when not empty.
    // A ReadOnlySession runs SET SESSION TRANSACTION READ ONLY before
    // anything else, so no statement on it can write. The session names
    // itself (connection attribute program_name=cachescope) so an activity
    // check can tell it from a server's.
    static std::unique_ptr<MysqlConnection> connect(const MysqlTarget& target, Session session,
                                                    const std::string& password = {});
    ~MysqlConnection();
    MysqlConnection(const MysqlConnection&) = delete;
    MysqlConnection& operator=(const MysqlConnection&) = delete;

    // Runs one statement, each `?` replaced by the next parameter.
    MysqlResult exec(const std::string& sql, const MysqlParams& params = {});
    const std::string& describe() const { return describe_; }

private:
    MysqlConnection(st_mysql* conn, std::string describe);
    std::string bind(const std::string& sql, const MysqlParams& params);
    st_mysql* conn_ = nullptr;
    std::string describe_;
};

// START TRANSACTION [READ ONLY] .. COMMIT; rolls back when destroyed uncommitted.
class MysqlTransaction {
public:
    enum Mode { ReadOnly, ReadWrite };
    MysqlTransaction(MysqlConnection& c, Mode mode);
    ~MysqlTransaction();
    void commit();

private:
    MysqlConnection& c_;
    bool open_ = false;
};

} // namespace cs::remote
