#include "core/remote/MysqlConnection.h"

#include "core/util/Error.h"

#include <mysql.h>

#include <charconv>
#include <cstdlib>

namespace cs::remote {

namespace {

int hexDigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// %XX decoding of one URL part; false on a broken escape.
bool percentDecode(const std::string& in, std::string& out)
{
    out.clear();
    for (size_t i = 0; i < in.size(); ++i) {
        if (in[i] != '%') {
            out += in[i];
            continue;
        }
        const int hi = i + 1 < in.size() ? hexDigit(in[i + 1]) : -1;
        const int lo = i + 2 < in.size() ? hexDigit(in[i + 2]) : -1;
        if (hi < 0 || lo < 0)
            return false;
        out += char(hi * 16 + lo);
        i += 2;
    }
    return true;
}

std::string oneLine(const char* message)
{
    std::string s = message ? message : "";
    for (char& ch : s)
        if (ch == '\n' || ch == '\r')
            ch = ' ';
    while (!s.empty() && s.back() == ' ')
        s.pop_back();
    return s;
}

} // namespace

std::string MysqlTarget::describe() const
{
    if (!socket.empty())
        return "mysql://" + user + "@localhost/" + database + "?socket=" + socket;
    return "mysql://" + user + "@" + host + ":" + std::to_string(port) + "/" + database;
}

MysqlTarget parseMysqlUrl(const std::string& url)
{
    const auto bad = [](const std::string& shown, const std::string& why) -> MysqlTarget {
        throw Error(shown + ": " + why);
    };
    std::string rest;
    for (const char* scheme : {"mysql://", "mariadb://"})
        if (url.rfind(scheme, 0) == 0)
            rest = url.substr(std::string(scheme).size());
    const std::string form = "give mysql://USER@HOST:PORT/DB or mysql://USER@localhost/DB?socket=PATH";
    if (rest.empty())
        return bad(url, "not a MySQL URL; " + form);
    const size_t at = rest.find('@'), slash = rest.find('/');
    const std::string userinfo = at != std::string::npos && at < slash ? rest.substr(0, at) : std::string();
    if (userinfo.find(':') != std::string::npos) {
        // The password is never shown, not even in this message.
        const std::string scheme = url.substr(0, url.find("://") + 3);
        return bad(scheme + userinfo.substr(0, userinfo.find(':')) + ":***@" + rest.substr(at + 1),
                   "the URL holds a password; give it in MYSQL_PWD instead (a URL is kept in shell histories and "
                   "settings)");
    }
    MysqlTarget t;
    if (!percentDecode(userinfo, t.user))
        return bad(url, "broken %-escape in the user name");
    if (t.user.empty())
        return bad(url, "no user name; " + form);
    std::string hostport = rest.substr(at == std::string::npos || at > slash ? 0 : at + 1);
    std::string path;
    if (const size_t s = hostport.find('/'); s != std::string::npos) {
        path = hostport.substr(s + 1);
        hostport = hostport.substr(0, s);
    }
    std::string query;
    if (const size_t q = path.find('?'); q != std::string::npos) {
        query = path.substr(q + 1);
        path = path.substr(0, q);
    }
    if (!percentDecode(path, t.database) || t.database.empty() || t.database.find('/') != std::string::npos)
        return bad(url, "no database name; " + form);
    t.host = hostport;
    if (const size_t colon = hostport.rfind(':'); colon != std::string::npos && hostport.find(']') == std::string::npos) {
        t.host = hostport.substr(0, colon);
        const std::string port = hostport.substr(colon + 1);
        unsigned value = 0;
        const auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
        if (ec != std::errc() || p != port.data() + port.size() || value == 0 || value > 65535)
            return bad(url, "port '" + port + "' is not a number from 1 to 65535");
        t.port = value;
    }
    if (t.host.size() > 2 && t.host.front() == '[' && t.host.back() == ']')
        t.host = t.host.substr(1, t.host.size() - 2);
    for (size_t start = 0; start < query.size();) {
        size_t end = query.find('&', start);
        if (end == std::string::npos)
            end = query.size();
        const std::string pair = query.substr(start, end - start);
        start = end + 1;
        if (pair.rfind("socket=", 0) == 0) {
            if (!percentDecode(pair.substr(7), t.socket) || t.socket.empty())
                return bad(url, "empty or broken socket path");
        } else if (!pair.empty()) {
            return bad(url, "unknown parameter '" + pair.substr(0, pair.find('=')) + "' (only socket=PATH is read)");
        }
    }
    if (t.socket.empty() && t.host.empty())
        return bad(url, "no host; " + form);
    return t;
}

std::string MysqlResult::text(int row, int col) const
{
    const auto& v = rows_[size_t(row)][size_t(col)];
    return v ? *v : std::string();
}

int64_t MysqlResult::i64(int row, int col) const
{
    const auto& v = rows_[size_t(row)][size_t(col)];
    int64_t out = 0;
    const std::string s = v ? *v : std::string("NULL");
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (!v || ec != std::errc() || p != s.data() + s.size())
        throw Error("MySQL: column " + names_[size_t(col)] + " holds '" + s + "', not an integer");
    return out;
}

std::optional<int64_t> MysqlResult::optI64(int row, int col) const
{
    if (isNull(row, col))
        return std::nullopt;
    return i64(row, col);
}

MysqlConnection::MysqlConnection(st_mysql* conn, std::string describe) : conn_(conn), describe_(std::move(describe)) {}

MysqlConnection::~MysqlConnection()
{
    if (conn_)
        mysql_close(conn_);
}

std::unique_ptr<MysqlConnection> MysqlConnection::connect(const MysqlTarget& target, Session session,
                                                          const std::string& password)
{
    const std::string describe = target.describe();
    MYSQL* c = mysql_init(nullptr);
    if (!c)
        throw Error(describe + ": cannot connect (out of memory)");
    const unsigned timeout = 10;
    mysql_optionsv(c, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
    // The transport the URL names: "localhost" is TCP here too unless a
    // socket is given (the client library would quietly take its default socket).
    const unsigned protocol = target.socket.empty() ? MYSQL_PROTOCOL_TCP : MYSQL_PROTOCOL_SOCKET;
    mysql_optionsv(c, MYSQL_OPT_PROTOCOL, &protocol);
    mysql_optionsv(c, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    mysql_optionsv(c, MYSQL_OPT_CONNECT_ATTR_ADD, "program_name", "cachescope");
    const char* env = std::getenv("MYSQL_PWD");
    const char* pw = !password.empty() ? password.c_str() : env;
    // CLIENT_FOUND_ROWS: an UPDATE reports the rows it matched, so a
    // compare-and-set that writes the value already there still counts.
    if (!mysql_real_connect(c, target.socket.empty() ? target.host.c_str() : "localhost", target.user.c_str(), pw,
                            target.database.c_str(), target.socket.empty() ? target.port : 0,
                            target.socket.empty() ? nullptr : target.socket.c_str(), CLIENT_FOUND_ROWS)) {
        // Connector/C's messages name the host and user, never the password.
        const std::string why = oneLine(mysql_error(c));
        mysql_close(c);
        throw Error(describe + ": cannot connect: " + why);
    }
    std::unique_ptr<MysqlConnection> out(new MysqlConnection(c, describe));
    if (session == ReadOnlySession)
        out->exec("SET SESSION TRANSACTION READ ONLY");
    return out;
}

std::string MysqlConnection::bind(const std::string& sql, const MysqlParams& params)
{
    std::string out;
    size_t next = 0;
    char quote = 0;
    for (size_t i = 0; i < sql.size(); ++i) {
        const char ch = sql[i];
        if (quote) {
            out += ch;
            if (ch == quote)
                quote = 0;
            continue;
        }
        if (ch == '\'' || ch == '"' || ch == '`') {
            quote = ch;
            out += ch;
            continue;
        }
        if (ch != '?') {
            out += ch;
            continue;
        }
        if (next >= params.size())
            throw Error(describe_ + ": statement has more ? than parameters");
        const MysqlValue& v = params[next++];
        switch (v.kind) {
        case MysqlValue::Null: out += "NULL"; break;
        case MysqlValue::Integer: out += std::to_string(v.integer); break;
        case MysqlValue::Text: {
            std::string escaped(v.text.size() * 2 + 1, '\0');
            const unsigned long n = mysql_real_escape_string(conn_, escaped.data(), v.text.data(), v.text.size());
            if (n == static_cast<unsigned long>(-1))
                throw Error(describe_ + ": cannot escape a parameter for the connection's character set");
            escaped.resize(n);
            out += "'" + escaped + "'";
            break;
        }
        }
    }
    if (next != params.size())
        throw Error(describe_ + ": statement has fewer ? than parameters");
    return out;
}

MysqlResult MysqlConnection::exec(const std::string& sql, const MysqlParams& params)
{
    const std::string bound = params.empty() ? sql : bind(sql, params);
    if (mysql_real_query(conn_, bound.data(), bound.size()) != 0)
        throw Error(describe_ + ": " + oneLine(mysql_error(conn_)));
    MysqlResult r;
    MYSQL_RES* res = mysql_store_result(conn_);
    if (!res) {
        if (mysql_field_count(conn_) != 0)
            throw Error(describe_ + ": " + oneLine(mysql_error(conn_)));
        r.affected_ = int64_t(mysql_affected_rows(conn_));
        return r;
    }
    const unsigned n = mysql_num_fields(res);
    const MYSQL_FIELD* fields = mysql_fetch_fields(res);
    for (unsigned i = 0; i < n; ++i)
        r.names_.emplace_back(fields[i].name, fields[i].name_length);
    r.rows_.reserve(size_t(mysql_num_rows(res)));
    while (MYSQL_ROW row = mysql_fetch_row(res)) {
        const unsigned long* lengths = mysql_fetch_lengths(res);
        std::vector<std::optional<std::string>> values;
        values.reserve(n);
        for (unsigned i = 0; i < n; ++i)
            values.push_back(row[i] ? std::optional<std::string>(std::string(row[i], lengths[i])) : std::nullopt);
        r.rows_.push_back(std::move(values));
    }
    mysql_free_result(res);
    return r;
}

MysqlTransaction::MysqlTransaction(MysqlConnection& c, Mode mode) : c_(c)
{
    c_.exec(mode == ReadOnly ? "START TRANSACTION READ ONLY" : "START TRANSACTION");
    open_ = true;
}

MysqlTransaction::~MysqlTransaction()
{
    if (open_) {
        try {
            c_.exec("ROLLBACK");
        } catch (...) {
            // The connection is gone; the server rolls back by itself.
        }
    }
}

void MysqlTransaction::commit()
{
    c_.exec("COMMIT");
    open_ = false;
}

} // namespace cs::remote
