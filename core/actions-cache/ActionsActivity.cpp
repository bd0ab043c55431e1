// Whether the server runs beside us (issue 21): the system's signals first,
// the rows' times second. A running server v9.4.7 keeps its database open
// for as long as it runs (better-sqlite3: one connection for the process;
// PostgreSQL: a kysely pool of sessions), so an idle server is seen too;
// row times only tell that something wrote lately, not who.
#include "core/actions-cache/ActionsCache.h"

#include "core/actions-cache/ActionsInternal.h"
#include "core/util/Error.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>

namespace cs::actions {

const char* activitySignalName(ActivitySignal s)
{
    switch (s) {
    case ActivitySignal::None: return "none";
    case ActivitySignal::ProcessHoldsDatabase: return "process-holds-database";
    case ActivitySignal::ProcessHoldsStorage: return "process-holds-storage";
    case ActivitySignal::DatabaseSessions: return "database-sessions";
    case ActivitySignal::ServerAnswers: return "server-answers";
    case ActivitySignal::RecentRows: return "recent-rows";
    }
    return "?";
}

namespace {

// Whether something answers at http(s)://HOST[:PORT][/...]: a TCP connect
// within 2 s and, for http, any HTTP status line to a GET of /health (the
// server's own route). No client library: a local command maps none.
std::optional<std::string> probeServer(const std::string& url)
{
    const bool https = url.rfind("https://", 0) == 0;
    if (!https && url.rfind("http://", 0) != 0)
        throw Error("--server " + url + ": give an http:// or https:// URL of the cache server");
    std::string rest = url.substr(https ? 8 : 7);
    rest = rest.substr(0, rest.find('/'));
    std::string host = rest, port = https ? "443" : "80";
    if (const size_t colon = rest.rfind(':'); colon != std::string::npos && rest.find(']') == std::string::npos) {
        host = rest.substr(0, colon);
        port = rest.substr(colon + 1);
    }
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || !found)
        return std::nullopt;
    std::optional<std::string> answer;
    for (addrinfo* a = found; a && !answer; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0)
            continue;
        bool connected = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0;
        if (!connected && errno == EINPROGRESS) {
            pollfd p{fd, POLLOUT, 0};
            int err = 0;
            socklen_t len = sizeof err;
            connected = ::poll(&p, 1, 2000) == 1 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0;
        }
        if (connected && https) {
            answer = "something accepts connections at " + url;
        } else if (connected) {
            const std::string get = "GET /health HTTP/1.0\r\nHost: " + host + "\r\n\r\n";
            (void)!::send(fd, get.data(), get.size(), MSG_NOSIGNAL);
            pollfd p{fd, POLLIN, 0};
            char buf[64] = {};
            if (::poll(&p, 1, 2000) == 1 && ::recv(fd, buf, sizeof buf - 1, 0) > 0 && std::strncmp(buf, "HTTP/", 5) == 0) {
                std::string line(buf);
                answer = "the server answers at " + url + " (" + line.substr(0, line.find('\r')) + ")";
            } else {
                answer = "something accepts connections at " + url;
            }
        }
        ::close(fd);
    }
    ::freeaddrinfo(found);
    return answer;
}

} // namespace

Activity ActionsCache::activity(int64_t windowMs, const std::string& serverUrl)
{
    Activity out;
    const auto seen = [&out](ActivitySignal s, std::string reason, std::string clears) {
        out.active = true;
        out.signal = s;
        out.reason = std::move(reason);
        out.clears = std::move(clears);
        return out;
    };
    const auto holders = catalog_->otherUsers();
    if (!holders.empty()) {
        const bool sessions = holders.front().rfind("process ", 0) != 0;
        const std::string more = holders.size() > 1 ? " and " + std::to_string(holders.size() - 1) + " more" : "";
        if (sessions)
            return seen(ActivitySignal::DatabaseSessions, holders.front() + more + " on " + catalog_->describe(),
                        "stop the server (its pool keeps sessions open while it runs) and any other client of the "
                        "database");
        return seen(ActivitySignal::ProcessHoldsDatabase, holders.front() + more,
                    "stop that process (the server keeps its database open while it runs)");
    }
    if (const auto users = storage_->otherUsers(); !users.empty())
        return seen(ActivitySignal::ProcessHoldsStorage,
                    users.front() + (users.size() > 1 ? " and " + std::to_string(users.size() - 1) + " more" : ""),
                    "stop that process, or wait until its download or upload ends");
    if (!serverUrl.empty())
        if (auto answer = probeServer(serverUrl))
            return seen(ActivitySignal::ServerAnswers, *answer, "stop the server");
    const int64_t now = nowMs();
    int64_t newest = now - windowMs;
    std::string what;
    auto consider = [&](const std::optional<int64_t>& at, const std::string& thing) {
        if (at && *at > newest && *at <= now + windowMs) {
            newest = *at;
            what = thing + " " + ago(std::max<int64_t>(0, now - *at)) + " ago";
        }
    };
    for (const auto& u : catalog_->uploads()) {
        const std::string name = "upload " + std::to_string(u.id) + " ('" + u.key + "')";
        consider(u.createdAtMs, name + " was created");
        consider(u.lastPartUploadedAtMs, name + " received a part");
    }
    for (const auto& row : catalog_->entries()) {
        consider(row.updatedAtMs, "entry '" + row.key + "' was written");
        if (!row.location)
            continue;
        if (!row.location->mergedAtMs)
            consider(row.location->mergeStartedAtMs, "a merge of '" + row.key + "' started");
        consider(row.location->mergedAtMs, "'" + row.key + "' was merged");
        consider(row.location->lastDownloadedAtMs, "'" + row.key + "' was downloaded");
    }
    if (!what.empty())
        return seen(ActivitySignal::RecentRows,
                    what + " (no process of this host that this user can see holds the database or the storage, "
                           "so a server elsewhere, or an earlier cachescope write)",
                    "wait " + ago(newest + windowMs - now) + ", or force the write if no server runs");
    return out;
}

void ActionsCache::requireWritable(const WriteOptions& options)
{
    if (catalog_->readOnly())
        fail(catalog_->describe(), "opened read-only: writing needs --write (or the GUI's confirmation)");
    if (options.force)
        return;
    const Activity a = activity(kActivityWindowMs, options.serverUrl);
    if (a.active)
        throw ServerActive(catalog_->describe() + ": the server looks active: " + a.reason
                               + "; writing now could race it, so nothing was changed. To write: " + a.clears
                               + " (or --force)",
                           a);
}

} // namespace cs::actions
