// bench_actions_cache [ENTRIES] [PARTS]: `actions-cache ls` and `verify` on a
// cache-server data dir of ENTRIES entries (default 5000; half merged, half
// unmerged with PARTS parts of 4 KiB, default 8) plus one row claiming
// 10,000,000 parts, against stock `find STORAGE -type f -printf '%s\n'` on
// the same storage folder: the floor for anything that sizes entries from
// their files. Medians of 5 runs, wall time and peak RSS.
#include <sqlite3.h>

#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "BenchOptions.h"
#include "ChildRun.h"

extern char** environ;

namespace {

using Run = bench::ChildRun;

// The run with the median wall time of 5 (its RSS and exit code with it).
Run median(const std::vector<std::string>& argv, int runs = 5)
{
    std::vector<Run> rs;
    for (int i = 0; i < runs; ++i)
        rs.push_back(bench::runChild(argv, {.mayFail = true}));
    std::sort(rs.begin(), rs.end(), [](const Run& a, const Run& b) { return a.wall < b.wall; });
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

} // namespace

int main(int argc, char** argv)
{
    int entries = 5000, parts = 8;
    CLI::App app{"actions-cache ls and verify of a server data dir against find on its storage folder",
                 "bench_actions_cache"};
    app.add_option("entries", entries, "entries, half merged")->check(CLI::Range(2, 1 << 24))->capture_default_str();
    app.add_option("parts", parts, "parts of 4 KiB per unmerged entry")->check(CLI::Range(1, 1 << 16))->capture_default_str();
    if (const int exit = bench::parseOrExit(app, argc, argv); exit >= 0)
        return exit;
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString(), storage = d + "/storage/filesystem";
    std::filesystem::create_directories(storage);
    sqlite3* db = nullptr;
    sqlite3_open((d + "/sqlite.db").c_str(), &db);
    // The v9.4.7 columns (lib/migrations.ts), rollback journal as better-sqlite3 leaves it.
    sql(db, "BEGIN; CREATE TABLE storage_locations (id text primary key, folderName text not null, partCount integer "
            "not null, mergeStartedAt bigint, mergedAt bigint, partsDeletedAt bigint, lastDownloadedAt bigint);"
            "CREATE TABLE cache_entries (id text primary key, key text not null, version text not null, updatedAt "
            "bigint not null, locationId text not null, scope text not null, repoId text not null);"
            "CREATE TABLE uploads (id bigint primary key, key text not null, version text not null, createdAt bigint "
            "not null, lastPartUploadedAt bigint, folderName text not null, finishedPartUploadCount integer not null "
            "default 0, startedPartUploadCount integer not null default 0, scope text not null, repoId text not null)");
    const long long old = 1700000000000LL;
    for (int i = 0; i < entries; ++i) {
        const std::string folder = std::to_string(1000000000 + i), id = "loc-" + std::to_string(i);
        const bool merged = i % 2 == 0;
        std::filesystem::create_directories(storage + "/" + folder + "/parts");
        if (merged) {
            writeFile(storage + "/" + folder + "/merged", size_t(parts) * 4096, unsigned(i));
            std::filesystem::remove(storage + "/" + folder + "/parts");
        } else {
            for (int p = parts - 1; p >= 0; --p)
                writeFile(storage + "/" + folder + "/parts/" + std::to_string(p), 4096, unsigned(i + p));
        }
        const std::string ts = std::to_string(old + i);
        const std::string claimed = i == 1 ? "10000000" : std::to_string(parts);
        sql(db, "INSERT INTO storage_locations VALUES ('" + id + "', '" + folder + "', " + claimed + ", "
                    + (merged ? ts + ", " + ts + ", " + ts : "NULL, NULL, NULL") + ", NULL)");
        sql(db, "INSERT INTO cache_entries VALUES ('e-" + std::to_string(i) + "', 'key-" + std::to_string(i)
                    + "', 'v', " + ts + ", '" + id + "', 's', '1')");
    }
    sql(db, "COMMIT");
    sqlite3_close(db);

    const std::string cli = CACHESCOPE_CLI;
    std::printf("data dir: %d entries (half merged, half %d parts of 4 KiB), one row claiming 10,000,000 parts\n",
                entries, parts);
    std::printf("medians of 5 runs (other work on this machine makes these noisy)\n\n");
    std::printf("%-44s %10s %12s %8s\n", "command", "wall s", "max RSS MB", "vs find");
    const Run find = median({"/usr/bin/find", storage, "-type", "f", "-printf", "%s\n"});
    std::printf("%-44s %10.3f %12.1f %8s\n", "find STORAGE -type f -printf '%s\\n'", find.wall,
                find.rssMiB, "1.00");
    for (const char* cmd : {"ls", "verify"}) {
        const Run r = median({cli, "actions-cache", cmd, d, "--json"});
        std::printf("%-44s %10.3f %12.1f %8.2f%s\n", (std::string("cachescope-cli actions-cache ") + cmd + " --json").c_str(),
                    r.wall, r.rssMiB, r.wall / find.wall,
                    r.exitCode == 0 || (r.exitCode == 1 && std::string(cmd) == "verify") ? "" : "  (failed)");
    }
    return 0;
}
