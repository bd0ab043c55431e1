// bench_actions_report [ENTRIES]: `actions-cache report --no-repetition` on a
// cache-server data dir of ENTRIES entries (default 100,000; half merged,
// half one 512-byte part; keys in 50 families of hashFiles-like suffixes,
// 20 scopes, 3 repos, a third downloaded), cold (no size index: the first
// scan) and warm (the index there: a rescan), against stock
// `find STORAGE -type f -printf '%s\n'` on the same folder in the same run;
// then the first page of the entries sorted by size straight from the
// warm index (what the GUI shows first, and `ls --sort size --limit 200`
// end to end). Medians of the runs, wall time and peak RSS (ru_maxrss of
// the child), and its CPU time (user + sys: what the run costs when other
// work shares the cores and stretches the wall time). Issue 28's targets: cold <= 30 s, warm <= 3 s, peak RSS <= 64 MiB,
// first page <= 300 ms.
#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/SizeIndex.h"

#include <sqlite3.h>

#include <QTemporaryDir>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

namespace {

struct Run {
    double seconds = 0;
    double cpuSeconds = 0;
    long maxRssKb = 0;
    int status = 0;
};

Run runQuiet(const std::vector<std::string>& argv)
{
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = 0;
    if (posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ) != 0) {
        std::perror(args[0]);
        std::exit(1);
    }
    int status = 0;
    rusage ru{};
    wait4(pid, &status, 0, &ru);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    posix_spawn_file_actions_destroy(&fa);
    const double cpu = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec)
                       + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    return {double(t1.tv_sec - t0.tv_sec) + double(t1.tv_nsec - t0.tv_nsec) / 1e9, cpu, ru.ru_maxrss,
            WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

template <class F>
Run median(int runs, F&& once)
{
    std::vector<Run> rs;
    for (int i = 0; i < runs; ++i)
        rs.push_back(once(i));
    std::sort(rs.begin(), rs.end(), [](const Run& a, const Run& b) { return a.seconds < b.seconds; });
    return rs[rs.size() / 2];
}

void sql(sqlite3* db, const std::string& s)
{
    char* err = nullptr;
    if (sqlite3_exec(db, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::fprintf(stderr, "sql: %s\n", err ? err : "?");
        std::exit(1);
    }
}

void writeFile(const std::string& path, size_t size, unsigned seed)
{
    std::string data(size, '\0');
    for (size_t i = 0; i < size; ++i)
        data[i] = char((i * 131 + seed * 7) & 0xff);
    std::ofstream(path, std::ios::binary).write(data.data(), std::streamsize(data.size()));
}

std::string hex16(unsigned long long v)
{
    char b[17];
    std::snprintf(b, sizeof b, "%016llx", v * 0x9E3779B97F4A7C15ULL);
    return b;
}

void row(const char* what, const Run& r, double reference)
{
    std::printf("%-58s %9.3f %9.3f %11.1f %8.2f%s\n", what, r.seconds, r.cpuSeconds, double(r.maxRssKb) / 1024,
                r.seconds / reference,
                r.status == 0 ? "" : "  (failed)");
}

} // namespace

int main(int argc, char** argv)
{
    if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
        std::fprintf(stderr, "usage: bench_actions_report [ENTRIES]\n");
        return 2;
    }
    const int entries = argc > 1 ? std::atoi(argv[1]) : 100000;
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString(), storage = d + "/data/storage/filesystem";
    const std::string data = d + "/data";
    std::filesystem::create_directories(storage);
    sqlite3* db = nullptr;
    sqlite3_open((data + "/sqlite.db").c_str(), &db);
    sql(db, "BEGIN; CREATE TABLE storage_locations (id text primary key, folderName text not null, partCount integer "
            "not null, mergeStartedAt bigint, mergedAt bigint, partsDeletedAt bigint, lastDownloadedAt bigint);"
            "CREATE TABLE cache_entries (id text primary key, key text not null, version text not null, updatedAt "
            "bigint not null, locationId text not null, scope text not null, repoId text not null);"
            "CREATE INDEX idx_cache_entries_key_version ON cache_entries (key, version);"
            "CREATE TABLE uploads (id bigint primary key, key text not null, version text not null, createdAt bigint "
            "not null, lastPartUploadedAt bigint, folderName text not null, finishedPartUploadCount integer not null "
            "default 0, startedPartUploadCount integer not null default 0, scope text not null, repoId text not null)");
    const long long now = (long long)(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
    const long long day = 86400000LL;
    for (int i = 0; i < entries; ++i) {
        const std::string folder = std::to_string(1000000000 + i), id = "loc-" + std::to_string(i);
        const bool merged = i % 2 == 0;
        if (merged) {
            std::filesystem::create_directories(storage + "/" + folder);
            writeFile(storage + "/" + folder + "/merged", 2048 + size_t(i % 7) * 100, unsigned(i));
        } else {
            std::filesystem::create_directories(storage + "/" + folder + "/parts");
            writeFile(storage + "/" + folder + "/parts/0", 512, unsigned(i));
        }
        const std::string ts = std::to_string(now - (i % 120) * day - 3600000);
        const std::string downloaded = i % 3 == 0 ? std::to_string(now - (i % 60) * day) : "NULL";
        sql(db, "INSERT INTO storage_locations VALUES ('" + id + "', '" + folder + "', 1, "
                    + (merged ? ts + ", " + ts + ", " + ts : "NULL, NULL, NULL") + ", " + downloaded + ")");
        sql(db, "INSERT INTO cache_entries VALUES ('e-" + std::to_string(i) + "', 'Linux-fam" + std::to_string(i % 50)
                    + "-" + hex16((unsigned long long)i) + "', 'v', " + ts + ", '" + id + "', 'refs/heads/b"
                    + std::to_string(i % 20) + "', '" + std::to_string(i % 3) + "')");
    }
    sql(db, "COMMIT");
    sqlite3_close(db);

    const std::string cli = CACHESCOPE_CLI;
    std::printf("data dir: %d entries (half merged 2-2.6 KiB, half one 512 B part), 50 families, 20 scopes, 3 repos\n",
                entries);
    std::printf("wall s, cpu s (user + sys) and peak RSS of the child, medians; other work on this machine stretches wall s\n\n");
    std::printf("%-58s %9s %9s %11s %8s\n", "command", "wall s", "cpu s", "max RSS MB", "vs find");
    const Run find = median(5, [&](int) { return runQuiet({"/usr/bin/find", storage, "-type", "f", "-printf", "%s\n"}); });
    row("find STORAGE -type f -printf '%s\\n'", find, find.seconds);

    const std::string report[] = {cli, "actions-cache", "report", data, "--json", "--no-repetition", "--quiet"};
    const std::vector<std::string> reportArgs(std::begin(report), std::end(report));
    const Run cold = median(3, [&](int i) {
        const std::string home = d + "/cold-" + std::to_string(i);
        std::filesystem::create_directories(home);
        setenv("XDG_CACHE_HOME", home.c_str(), 1);
        return runQuiet(reportArgs);
    });
    row("report --no-repetition, cold (no size index: the scan)", cold, find.seconds);
    const std::string warmHome = d + "/cold-0";
    setenv("XDG_CACHE_HOME", warmHome.c_str(), 1);
    const Run warm = median(5, [&](int) { return runQuiet(reportArgs); });
    row("report --no-repetition, warm (size index there: a rescan)", warm, find.seconds);
    const Run ls = median(5, [&](int) {
        return runQuiet({cli, "actions-cache", "ls", data, "--sort", "size", "--limit", "200", "--json", "--quiet"});
    });
    row("ls --sort size --limit 200 --json, warm (rescan + page)", ls, find.seconds);

    // The first page from the warm index, in this process (what the GUI shows first).
    auto cache = cs::actions::ActionsCache::open(cs::actions::resolveDataDir(data));
    cs::actions::EntryQuery q;
    q.order = cs::actions::EntryOrder::SizeLargest;
    const Run page = median(5, [&](int) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto p = cache->entriesPage(q, std::nullopt, 200);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return Run{s, s, 0, p.entries.size() == 200 ? 0 : 1};
    });
    std::printf("%-58s %9.4f %11s\n", "first page of 200 by size from the warm index (in process)", page.seconds, "-");
    return 0;
}
