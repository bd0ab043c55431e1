// bench_scale [--entries N] [--objects M] [--runs K] [--verify-runs V]
// [--merge-runs R] [--only A|B|C]: the
// scale targets of a github-actions-cache-server deployment (issue 13), each
// against the same operation on the SQLite + filesystem layout, on servers
// this program starts (PostgreSQL 15, MariaDB and s3rver, tests/common/TestServers.h):
//  A. a catalog of N entries (default 1,000,000; PostgreSQL, MySQL and
//     SQLite): open + first page of 200
//     (keyset paging), a scroll of 50 pages, a page in the middle by keyset
//     and by OFFSET (why keyset), the entry count;
//  B. verify of M objects (default 100,000: M/10 entries of 10 parts) in a
//     child process: wall time, peak RSS, peak S3 requests in flight;
//  C. merge of one entry of 100 parts of 1 MiB in a child process (R runs):
//     wall time, peak RSS; the merged object's SHA-256 must equal the parts'.
// Medians of the runs. s3rver is a Node.js test server writing each object
// as files: its figures are the server's speed, not S3's.
#include "common/MysqlSchema.h"
#include "common/TestServers.h"
#include "BenchOptions.h"
#include "ChildRun.h"
#include "ScaleCatalog.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/RemoteBackends.h"
#include "core/jobs/Job.h"
#include "core/remote/MysqlConnection.h"
#include "core/remote/PgConnection.h"
#include "core/remote/S3Client.h"
#include "core/util/Error.h"
#include "core/util/Sha256.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <sqlite3.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace cs;
using namespace cs::actions;
using Clock = std::chrono::steady_clock;
using bench::fillPg;
using bench::fillSqlite;
using bench::kPgSchema;
using bench::sqliteExec;

extern char** environ;

namespace {

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// The same rows in the server's MySQL schema, from MariaDB's seq_1_to_N table.
void fillMysql(remote::MysqlConnection& c, uint64_t n, int parts)
{
    testsupport::createMysqlSchema(c);
    const std::string seq = "seq_1_to_" + std::to_string(n);
    c.exec("INSERT INTO storage_locations SELECT concat('loc-', seq), 1000000000 + seq, " + std::to_string(parts)
           + ", NULL, NULL, NULL, NULL FROM " + seq);
    c.exec("INSERT INTO cache_entries (`id`, `key`, `version`, `updatedAt`, `locationId`, `scope`, `repoId`) "
           "SELECT concat('e-', seq), concat('cache-', (seq * 2654435761) % 4294967296), concat('v', seq % 7), "
           "1700000000000 + seq, concat('loc-', seq), 'refs/heads/main', '1' FROM " + seq);
    c.exec("ANALYZE TABLE cache_entries, storage_locations");
}

constexpr size_t kPage = 200;

struct CatalogFigures {
    double openMs = 0, firstPageMs = 0, countMs = 0, scrollPageMs = 0, middleKeysetMs = 0, middleOffsetMs = 0;
};

// Open (connect, check the tables) + the first page, then 50 pages on, then
// a page at the middle by keyset; OFFSET only as the contrast.
CatalogFigures measureCatalog(const std::string& db, uint64_t n, int runs,
                              const std::function<double(uint64_t offset)>& offsetQueryMs)
{
    CatalogFigures f;
    std::vector<double> open, first, count, scroll, middle, offset;
    for (int r = 0; r < runs; ++r) {
        auto t0 = Clock::now();
        auto catalog = openCatalogAt(db, false);
        open.push_back(msSince(t0));
        t0 = Clock::now();
        auto page = catalog->entriesPage(std::nullopt, kPage);
        first.push_back(msSince(t0));
        if (page.size() != kPage) {
            std::fprintf(stderr, "%s: first page has %zu rows\n", db.c_str(), page.size());
            std::exit(1);
        }
        t0 = Clock::now();
        if (catalog->entryCount() != n)
            std::exit(1);
        count.push_back(msSince(t0));
        if (r == 0) {
            // 50 pages on, or as many as a smaller catalog has (a short page
            // is its last one).
            for (int p = 0; p < 50 && page.size() == kPage; ++p) {
                const EntryCursor c{page.back().key, page.back().version, page.back().id};
                t0 = Clock::now();
                page = catalog->entriesPage(c, kPage);
                scroll.push_back(msSince(t0));
            }
        }
    }
    // The middle: walk there once by keyset in large pages (setup, not timed).
    auto catalog = openCatalogAt(db, false);
    std::optional<EntryCursor> at;
    uint64_t walked = 0;
    while (walked < n / 2) {
        const auto rows = catalog->entriesPage(at, 10000);
        if (rows.empty())
            break;
        walked += rows.size();
        at = EntryCursor{rows.back().key, rows.back().version, rows.back().id};
    }
    for (int r = 0; r < runs; ++r) {
        const auto t0 = Clock::now();
        const auto rows = catalog->entriesPage(at, kPage);
        middle.push_back(msSince(t0));
    }
    for (int r = 0; r < 3; ++r)
        offset.push_back(offsetQueryMs(walked));
    f.openMs = median(open);
    f.firstPageMs = median(first);
    f.countMs = median(count);
    f.scrollPageMs = median(scroll);
    f.middleKeysetMs = median(middle);
    f.middleOffsetMs = median(offset);
    return f;
}

// The GUI's server-side filter and sort: the first page of a query, the
// page after it (from its cursor) and the matching count, medians of runs.
struct QueryFigures {
    double firstMs = 0, nextMs = 0, countMs = 0;
    uint64_t matching = 0;
};

QueryFigures measureQuery(const std::string& db, const EntryQuery& query, int runs)
{
    QueryFigures f;
    std::vector<double> first, next, count;
    auto catalog = openCatalogAt(db, false);
    for (int r = 0; r < runs; ++r) {
        auto t0 = Clock::now();
        const auto page = catalog->entriesPage(query, std::nullopt, kPage);
        first.push_back(msSince(t0));
        if (page.size() == kPage) {
            t0 = Clock::now();
            catalog->entriesPage(query, EntryCursor{page.back().key, page.back().version, page.back().id,
                                                    page.back().updatedAtMs}, kPage);
            next.push_back(msSince(t0));
        }
        t0 = Clock::now();
        f.matching = catalog->entryCount(query.keyContains);
        count.push_back(msSince(t0));
    }
    f.firstMs = median(first);
    f.nextMs = median(next);
    f.countMs = median(count);
    return f;
}

// `cachescope-cli actions-cache ls --json` under /usr/bin/time: its wall
// time and peak RSS (time forks the CLI from its own small image, so the
// figure is the CLI's), stdout read through a pipe and counted.
struct LsFigures {
    double seconds = 0;
    long peakKiB = 0;
    uint64_t bytes = 0;
};

LsFigures measureLs(const std::string& db, const std::string& storage, const std::string& timeFile)
{
    const std::string cmd = "/usr/bin/time -f '%e %M' -o '" + timeFile + "' '" + CACHESCOPE_CLI
                            + "' actions-cache ls --json --db '" + db + "' --storage '" + storage + "'";
    FILE* p = popen(cmd.c_str(), "r");
    LsFigures f;
    std::vector<char> buf(1 << 16);
    for (size_t n; p && (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;)
        f.bytes += n;
    if (!p || pclose(p) != 0) {
        std::fprintf(stderr, "ls failed: %s\n", cmd.c_str());
        std::exit(1);
    }
    std::ifstream(timeFile) >> f.seconds >> f.peakKiB;
    return f;
}

// Peak resident set of this process since exec (VmHWM, kB). Not the
// parent's ru_maxrss of the child: Linux carries the spawning process's
// high-water mark into the child's at exec (fork or vfork alike), so that
// figure is max(benchmark, child), 113 MiB after the merge setup.
long ownPeakRssKiB()
{
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stol(line.substr(6));
    return 0;
}

// "mean M, S% at >= 8": the time-weighted number of requests in flight while
// at least one was (from the client's own clock, S3Client::
// processSecondsAtInFlight), and the share of that time with 8 or more.
std::string inFlightProfile()
{
    const auto at = remote::S3Client::processSecondsAtInFlight();
    double busy = 0, weighted = 0, eight = 0;
    for (size_t n = 1; n < at.size(); ++n) {
        busy += at[n];
        weighted += double(n) * at[n];
        if (n >= 8)
            eight += at[n];
    }
    char text[96];
    std::snprintf(text, sizeof text, "mean-in-flight %.2f, %.0f%%-at->=8", busy > 0 ? weighted / busy : 0.0,
                  busy > 0 ? 100 * eight / busy : 0.0);
    return text;
}

// The children: one operation in a fresh process, so its peak RSS is its own.
int childMain(int argc, char** argv)
{
    const std::string mode = argv[1];
    DataDirPaths paths;
    paths.dbPath = argv[2];
    paths.storageDir = argv[3];
    paths.endpoint = argc > 4 ? argv[4] : "";
    try {
        Job job;
        const auto t0 = Clock::now();
        if (mode == "child-verify") {
            auto cache = ActionsCache::open(paths, false);
            const auto findings = cache->verify(job);
            std::printf("%.3f %ld %zu %d %llu %s\n", msSince(t0) / 1000, ownPeakRssKiB(), findings.size(),
                        remote::S3Client::processPeakInFlight(),
                        (unsigned long long)remote::S3Client::processRequestsSent(), inFlightProfile().c_str());
        } else {
            auto cache = ActionsCache::open(paths, true);
            const auto results = cache->merge({argv[5]}, job, WriteOptions{true});
            if (results.size() != 1 || !results[0].merged) {
                std::fprintf(stderr, "merge did not merge: %s\n", results.empty() ? "" : results[0].action.c_str());
                return 1;
            }
            std::printf("%.3f %ld %llu %d %s\n", msSince(t0) / 1000, ownPeakRssKiB(), (unsigned long long)results[0].bytes,
                        remote::S3Client::processPeakInFlight(), inFlightProfile().c_str());
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}

struct ChildFigures {
    std::vector<double> seconds;
    std::vector<double> rssMiB;
    std::string lastLine;
};

ChildFigures runChild(const QString& self, const QStringList& args, int runs, const std::function<void(int)>& before = {})
{
    ChildFigures f;
    QTemporaryDir tmp;
    for (int r = 0; r < runs; ++r) {
        if (before)
            before(r);
        QStringList a = args;
        if (a.first() == "child-merge")
            a.last() = a.last() + QString::number(r);
        std::vector<std::string> argv{self.toStdString()};
        for (const auto& word : a)
            argv.push_back(word.toStdString());
        // The ru_maxrss of a posix_spawn child is its own (ChildRun.h); the
        // figures come from the child's own clock and VmHWM, on its last line.
        const auto run = bench::runChild(argv, {.stdoutPath = tmp.filePath("out").toStdString(), .mayFail = true});
        QFile out(tmp.filePath("out"));
        out.open(QIODevice::ReadOnly);
        f.lastLine = out.readAll().trimmed().toStdString();
        if (run.exitCode != 0) {
            std::fprintf(stderr, "child %s failed (exit %d)\n", qPrintable(args.join(' ')), run.exitCode);
            std::exit(1);
        }
        // "seconds peak-kB ...": the child's own figures.
        const size_t space = f.lastLine.find(' ');
        f.seconds.push_back(std::stod(f.lastLine));
        f.rssMiB.push_back(double(std::stol(f.lastLine.substr(space + 1))) / 1024);
    }
    return f;
}

// PUTs objects from many threads (the client keeps 8 in flight).
void putAll(remote::S3Client& s3, uint64_t count, const std::function<std::pair<std::string, std::string>(uint64_t)>& object)
{
    std::atomic<uint64_t> next{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&] {
            for (uint64_t i; (i = next.fetch_add(1)) < count;) {
                const auto [key, body] = object(i);
                s3.put(key, body);
            }
        });
    for (auto& t : threads)
        t.join();
}

} // namespace

int main(int argc, char** argv)
{
    if (argc > 1 && std::string(argv[1]).rfind("child-", 0) == 0)
        return childMain(argc, argv);
    QCoreApplication app(argc, argv);
    setvbuf(stdout, nullptr, _IOLBF, 0);   // figures appear as they are measured
    uint64_t entries = 1000000, objects = 100000;
    int runs = 5, mergeRuns = 3, verifyRuns = 3;
    std::string only;
    CLI::App cli{"The scale targets of a cache-server deployment on PostgreSQL + S3, each against SQLite + a folder "
                 "(issue 13)", "bench_scale"};
    cli.add_option("--entries", entries, "catalog entries (A)")->check(CLI::PositiveNumber)->capture_default_str();
    cli.add_option("--objects", objects, "objects to verify (B), in entries of 10 parts")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    cli.add_option("--runs", runs, "runs of A (medians)")->check(CLI::PositiveNumber)->capture_default_str();
    cli.add_option("--merge-runs", mergeRuns, "runs of C")->check(CLI::PositiveNumber)->capture_default_str();
    cli.add_option("--verify-runs", verifyRuns, "runs of B")->check(CLI::PositiveNumber)->capture_default_str();
    cli.add_option("--only", only, "one part: A, B or C (default all)")->check(CLI::IsMember({"A", "B", "C"}));
    if (const int exit = bench::parseOrExit(cli, argc, argv); exit >= 0)
        return exit;
    setenv("AWS_ACCESS_KEY_ID", "S3RVER", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "S3RVER", 1);
    testsupport::PgTestServer pg;
    testsupport::MariaDbTestServer my;
    testsupport::S3TestServer s3server;
    QString why;
    if (!pg.start(&why) || !s3server.start({"bench"}, &why) || ((only.empty() || only == "A") && !my.start(&why))) {
        std::fprintf(stderr, "cannot start a server: %s\n", qPrintable(why));
        return 1;
    }
    // The catalog opens as the server's user with the password from MYSQL_PWD.
    setenv("MYSQL_PWD", testsupport::MariaDbTestServer::password().toUtf8().constData(), 1);
    QTemporaryDir tmp(QDir::tempPath() + "/bench-scale-XXXXXX");
    const std::string endpoint = s3server.endpoint().toStdString();
    const QString self = QCoreApplication::applicationFilePath();
    auto admin = remote::PgConnection::connect(pg.conninfo().toStdString());
    remote::S3Config loader;
    loader.endpoint = endpoint;
    loader.bucket = "bench";
    loader.accessKeyId = loader.secretAccessKey = "S3RVER";
    remote::S3Client s3(loader);

    // A. The catalog.
    if (only.empty() || only == "A") {
    std::printf("## A. catalog of %llu entries: open + first page of %zu, scroll, middle page (ms, median of %d)\n",
                (unsigned long long)entries, kPage, runs);
    admin->exec("CREATE DATABASE scale");
    const std::string pgScale = pg.conninfo("scale").toStdString();
    {
        auto t0 = Clock::now();
        auto c = remote::PgConnection::connect(pgScale);
        fillPg(*c, entries, 1);
        std::printf("filled PostgreSQL in %.1f s\n", msSince(t0) / 1000);
        t0 = Clock::now();
        remote::MysqlConnection::connect(remote::parseMysqlUrl(my.url("mysql").toStdString()),
                                         remote::MysqlConnection::ReadWriteSession)
            ->exec("CREATE DATABASE scale");
        fillMysql(*remote::MysqlConnection::connect(remote::parseMysqlUrl(my.url("scale").toStdString()),
                                                    remote::MysqlConnection::ReadWriteSession),
                  entries, 1);
        std::printf("filled MariaDB in %.1f s\n", msSince(t0) / 1000);
        t0 = Clock::now();
        fillSqlite(tmp.filePath("scale.db").toStdString(), entries, 1);
        std::printf("filled SQLite in %.1f s\n", msSince(t0) / 1000);
    }
    const auto pgFig = measureCatalog(pgScale, entries, runs, [&](uint64_t offset) {
        auto c = remote::PgConnection::connect(pgScale);
        const auto t0 = Clock::now();
        c->exec(R"(SELECT e.*, l.* FROM cache_entries e LEFT JOIN storage_locations l ON l."id" = e."locationId"
                   ORDER BY e."key", e."version", e."id" OFFSET $1 LIMIT 200)", {std::to_string(offset)});
        return msSince(t0);
    });
    const std::string myScale = my.url("scale").toStdString();
    const auto myFig = measureCatalog(myScale, entries, runs, [&](uint64_t offset) {
        auto c = remote::MysqlConnection::connect(remote::parseMysqlUrl(myScale), remote::MysqlConnection::ReadOnlySession);
        const auto t0 = Clock::now();
        c->exec("SELECT e.*, l.* FROM cache_entries e LEFT JOIN storage_locations l ON l.`id` = e.`locationId` "
                "ORDER BY e.`key`, e.`version`, e.`id` LIMIT 200 OFFSET " + std::to_string(offset));
        return msSince(t0);
    });
    const std::string sqlitePath = tmp.filePath("scale.db").toStdString();
    const auto sqFig = measureCatalog(sqlitePath, entries, runs, [&](uint64_t offset) {
        sqlite3* db = nullptr;
        sqlite3_open_v2(sqlitePath.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
        const auto t0 = Clock::now();
        sqliteExec(db, "SELECT count(*) FROM (SELECT e.*, l.* FROM cache_entries e LEFT JOIN storage_locations l ON "
                       "l.id = e.locationId ORDER BY e.key, e.version, e.id LIMIT 200 OFFSET " + std::to_string(offset) + ")");
        const double ms = msSince(t0);
        sqlite3_close(db);
        return ms;
    });
    std::printf("| catalog | open | first page | count(*) | next page (scroll) | middle page, keyset | middle page, OFFSET |\n"
                "|---|---|---|---|---|---|---|\n");
    for (const auto& [name, f] : {std::pair{"PostgreSQL 15", pgFig}, std::pair{"MariaDB 10.11", myFig}, std::pair{"SQLite", sqFig}})
        std::printf("| %s | %.1f | %.1f | %.1f | %.2f | %.2f | %.1f |\n", name, f.openMs, f.firstPageMs, f.countMs,
                    f.scrollPageMs, f.middleKeysetMs, f.middleOffsetMs);
    std::printf("target: open + first page <= 300 ms on PostgreSQL: %.1f ms\n", pgFig.openMs + pgFig.firstPageMs);
    std::printf("target: open + first page <= 300 ms on MySQL (MariaDB): %.1f ms\n\n", myFig.openMs + myFig.firstPageMs);

    // The GUI's filter and sort, done by the catalog (ms, median of runs).
    std::printf("### filter and sort in SQL: first page of %zu, the next page, matching count (ms, median of %d)\n",
                kPage, runs);
    std::printf("| catalog | query | first page | next page | count | matching |\n|---|---|---|---|---|---|\n");
    const struct {
        const char* name;
        EntryQuery query;
    } queries[] = {
        {"key descending", {"", EntryOrder::KeyDescending}},
        {"newest updatedAt first", {"", EntryOrder::UpdatedNewest}},
        {"key contains '-12', by key", {"-12", EntryOrder::KeyAscending}},
        {"key contains '424242', by key", {"424242", EntryOrder::KeyAscending}},
        {"key contains '424242', newest first", {"424242", EntryOrder::UpdatedNewest}},
    };
    for (const auto& [catalogName, db] : {std::pair{"PostgreSQL 15", pgScale}, std::pair{"MariaDB 10.11", myScale},
                                          std::pair{"SQLite", sqlitePath}})
        for (const auto& q : queries) {
            const auto f = measureQuery(db, q.query, runs);
            std::printf("| %s | %s | %.1f | %.1f | %.1f | %llu |\n", catalogName, q.name, f.firstMs, f.nextMs, f.countMs,
                        (unsigned long long)f.matching);
        }

    // ls --json of every entry, a page of 1,000 at a time. The storage
    // holds every entry's folder, empty (each is looked up and has no
    // parts; a storage with none of them is refused as the wrong one), so
    // the figure is the catalog's paging and the output.
    if (access("/usr/bin/time", X_OK) != 0) {
        std::printf("\nls --json: not measured, /usr/bin/time is missing (Debian package time)\n\n");
    } else {
        const std::string empty = tmp.filePath("ls-storage").toStdString();
        std::filesystem::create_directories(empty);
        for (uint64_t i = 1; i <= entries; ++i)
            std::filesystem::create_directory(empty + "/" + std::to_string(1000000000 + i));
        std::printf("\n### ls --json of %llu entries (storage: every entry's folder, empty)\n| catalog | wall | peak RSS | output |\n"
                    "|---|---|---|---|\n", (unsigned long long)entries);
        for (const auto& [catalogName, db] : {std::pair{"PostgreSQL 15", pg.url("scale").toStdString()},
                                              std::pair{"MariaDB 10.11", myScale}, std::pair{"SQLite", sqlitePath}}) {
            const auto f = measureLs(db, empty, tmp.filePath("ls-time").toStdString());
            std::printf("| %s | %.1f s | %.1f MiB | %.0f MiB |\n", catalogName, f.seconds, double(f.peakKiB) / 1024,
                        double(f.bytes) / (1 << 20));
        }
        std::printf("\n");
    }
    }

    // B. Verify of `objects` objects: entries of 10 parts of 64 bytes.
    if (only.empty() || only == "B") {
    const uint64_t vEntries = std::max<uint64_t>(1, objects / 10);
    std::printf("## B. verify of %llu objects (%llu entries x 10 parts), median of %d\n",
                (unsigned long long)(vEntries * 10), (unsigned long long)vEntries, verifyRuns);
    admin->exec("CREATE DATABASE verify");
    const std::string pgVerify = pg.conninfo("verify").toStdString();
    fillPg(*remote::PgConnection::connect(pgVerify), vEntries, 10);
    fillSqlite(tmp.filePath("verify.db").toStdString(), vEntries, 10);
    const std::string body(64, 'x');
    {
        const auto t0 = Clock::now();
        putAll(s3, vEntries * 10, [&](uint64_t i) {
            return std::pair{"verify/" + std::to_string(1000000000 + i / 10 + 1) + "/parts/" + std::to_string(i % 10), body};
        });
        const double s = msSince(t0) / 1000;
        std::printf("uploaded to s3rver in %.1f s (%.0f PUT/s, 8 in flight)\n", s, double(vEntries * 10) / s);
        for (uint64_t e = 1; e <= vEntries; ++e) {
            const std::string dir = tmp.filePath("verify-storage").toStdString() + "/" + std::to_string(1000000000 + e) + "/parts";
            std::filesystem::create_directories(dir);
            for (int p = 0; p < 10; ++p)
                std::ofstream(dir + "/" + std::to_string(p)) << body;
        }
    }
    const int vRuns = std::max(1, verifyRuns);
    const auto vS3 = runChild(self, {"child-verify", QString::fromStdString(pgVerify), "s3://bench/verify",
                                     QString::fromStdString(endpoint)}, vRuns);
    const auto vFs = runChild(self, {"child-verify", tmp.filePath("verify.db"), tmp.filePath("verify-storage")}, vRuns);
    std::printf("| deployment | verify wall | objects/s | peak RSS | child line: s, peak kB, findings, peak in flight, requests, in-flight profile |\n|---|---|---|---|---|\n");
    std::printf("| PostgreSQL + s3rver | %.2f s | %.0f | %.1f MiB | %s |\n", median(vS3.seconds),
                double(vEntries * 10) / median(vS3.seconds), *std::max_element(vS3.rssMiB.begin(), vS3.rssMiB.end()),
                vS3.lastLine.c_str());
    std::printf("| SQLite + folder | %.2f s | %.0f | %.1f MiB | %s |\n\n", median(vFs.seconds),
                double(vEntries * 10) / median(vFs.seconds), *std::max_element(vFs.rssMiB.begin(), vFs.rssMiB.end()),
                vFs.lastLine.c_str());

    }

    // C. Merge of 100 parts of 1 MiB (a fresh entry per run).
    if (!only.empty() && only != "C")
        return 0;
    std::printf("## C. merge of an entry of 100 parts x 1 MiB, median of %d\n", mergeRuns);
    admin->exec("CREATE DATABASE merge");
    const std::string pgMerge = pg.conninfo("merge").toStdString();
    {
        auto c = remote::PgConnection::connect(pgMerge);
        for (const char* s : kPgSchema)
            c->exec(s);
    }
    sqlite3* mdb = nullptr;
    const std::string mergeDb = tmp.filePath("merge.db").toStdString();
    sqlite3_open(mergeDb.c_str(), &mdb);
    for (const char* s : kPgSchema)
        sqliteExec(mdb, s);
    std::mt19937_64 rng(42);
    std::vector<std::string> expected;
    for (int r = 0; r < mergeRuns; ++r) {
        const std::string folder = std::to_string(2000000000 + r);
        const std::string id = "m" + std::to_string(r);
        auto c = remote::PgConnection::connect(pgMerge);
        c->exec(R"(INSERT INTO storage_locations VALUES ($1, $2, 100, NULL, NULL, NULL, NULL))", {"loc-" + id, folder});
        c->exec(R"(INSERT INTO cache_entries VALUES ($1, $2, 'v1', 1700000000000, $3, 'refs/heads/main', '1'))",
                {id, "merge-" + id, "loc-" + id});
        sqliteExec(mdb, "INSERT INTO storage_locations VALUES ('loc-" + id + "', '" + folder + "', 100, NULL, NULL, NULL, NULL)");
        sqliteExec(mdb, "INSERT INTO cache_entries VALUES ('" + id + "', 'merge-" + id +
                            "', 'v1', 1700000000000, 'loc-" + id + "', 'refs/heads/main', '1')");
        Sha256 whole;
        const std::string dir = tmp.filePath("merge-storage").toStdString() + "/" + folder + "/parts";
        std::filesystem::create_directories(dir);
        std::vector<std::string> parts(100);
        for (int p = 0; p < 100; ++p) {
            parts[size_t(p)].resize(1 << 20);
            for (size_t k = 0; k < parts[size_t(p)].size(); k += 8) {
                const uint64_t v = rng();
                std::memcpy(&parts[size_t(p)][k], &v, 8);
            }
            whole.update(parts[size_t(p)].data(), parts[size_t(p)].size());
            std::ofstream(dir + "/" + std::to_string(p), std::ios::binary) << parts[size_t(p)];
        }
        putAll(s3, 100, [&](uint64_t p) { return std::pair{"merge/" + folder + "/parts/" + std::to_string(p), parts[p]}; });
        expected.push_back(Sha256::hex(whole.finish()));
    }
    sqlite3_close(mdb);
    const auto mS3 = runChild(self, {"child-merge", QString::fromStdString(pgMerge), "s3://bench/merge",
                                     QString::fromStdString(endpoint), "m"}, mergeRuns);
    const auto mFs = runChild(self, {"child-merge", tmp.filePath("merge.db"), tmp.filePath("merge-storage"), "", "m"},
                              mergeRuns);
    // Every merged object is the parts in order, on both sides.
    for (int r = 0; r < mergeRuns; ++r) {
        const std::string folder = std::to_string(2000000000 + r);
        Sha256 remoteHash;
        s3.get("merge/" + folder + "/merged", [&](const char* d, size_t n) { remoteHash.update(d, n); });
        const std::string got = Sha256::hex(remoteHash.finish());
        const std::string local = Sha256::hex(Sha256::ofFile(tmp.filePath("merge-storage").toStdString() + "/" + folder + "/merged"));
        if (got != expected[size_t(r)] || local != expected[size_t(r)]) {
            std::fprintf(stderr, "merged object %s differs from its parts\n", folder.c_str());
            return 1;
        }
    }
    std::printf("| deployment | merge wall | MiB/s | peak RSS | child line: s, peak kB, bytes, peak in flight, in-flight profile |\n|---|---|---|---|---|\n");
    std::printf("| PostgreSQL + s3rver | %.2f s | %.0f | %.1f MiB | %s |\n", median(mS3.seconds), 100 / median(mS3.seconds),
                *std::max_element(mS3.rssMiB.begin(), mS3.rssMiB.end()), mS3.lastLine.c_str());
    std::printf("| SQLite + folder | %.2f s | %.0f | %.1f MiB | %s |\n", median(mFs.seconds), 100 / median(mFs.seconds),
                *std::max_element(mFs.rssMiB.begin(), mFs.rssMiB.end()), mFs.lastLine.c_str());
    std::printf("merged objects checked: SHA-256 of each equals the SHA-256 of its 100 parts in order\n");
    return 0;
}
