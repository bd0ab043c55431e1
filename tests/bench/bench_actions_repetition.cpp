// The repetition estimate of `actions-cache report` (issue 28 targets:
// within 5 % of the exact figure, in at most 1.2x the time of `zstd -dc`
// of the same archives).
//
// Makes a data dir (SQLite + folders, the server's layout) of V versions of
// one cache, each stored as `zstd -3` of S MiB of text-like bytes in 64 KiB
// blocks: version v keeps each block of v-1 and changes it with
// probability --change (a new block from a new seed), as a dependency cache
// does between runs. While making them, the exact figure: the decoded bytes
// cut by the native store's chunker (core/store/Chunker.h) and the bytes
// of the distinct chunks by SHA-256 (what a deduplicating store of the
// decoded archives keeps). Then, medians of --runs:
//   - `zstd -dc` of every blob to /dev/null, one after the other;
//   - `cachescope-cli actions-cache report --json` (the decode pass, with
//     the size index warm), its estimate and error against the exact figure;
// and once `import` into a native store, whose chunks (the store's
// chunks.raw_size) are of the blobs as stored: the zstd bytes, not the
// decoded ones (import keeps blobs as they are), printed for contrast.
//
//   bench_actions_repetition [--mib TOTAL] [--versions V] [--change P] [--runs K] [--memory BYTES] [--dir DIR]
//     (defaults: 1024 MiB decoded in 8 versions, 0.05, 3 runs, the CLI's 256 MiB, under /tmp)
#include "BenchOptions.h"
#include "ChildRun.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/jobs/Job.h"
#include "core/store/Chunker.h"
#include "core/store/Store.h"
#include "core/util/Json.h"
#include "core/util/Sha256.h"

#include <QCoreApplication>
#include <QDir>
#include <QTemporaryDir>

#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr size_t kBlock = 64 << 10;

void sql(sqlite3* db, const std::string& s)
{
    char* err = nullptr;
    if (sqlite3_exec(db, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::fprintf(stderr, "sqlite: %s in %s\n", err ? err : "?", s.c_str());
        std::exit(1);
    }
}

// A text-like block (words and newlines, about 3.5:1 under zstd -3) from a seed.
void textBlock(uint64_t seed, char* out)
{
    static const char* words[] = {"cache", "entry", "part", "merge", "restore", "frame", "zstd", "pack",
                                  "object", "offset", "mapping", "prefix", "suffix", "node", "chunk", "module",
                                  "index", "lock", "package", "json", "dist", "lib", "src", "test"};
    std::mt19937_64 rng(seed);
    size_t at = 0;
    while (at < kBlock) {
        const uint64_t r = rng();
        const char* w = words[r % 24];
        const size_t n = std::min(std::strlen(w), kBlock - at);
        std::memcpy(out + at, w, n);
        at += n;
        if (at < kBlock)
            out[at++] = (r >> 8) % 12 == 0 ? '\n' : ' ';
    }
}

double fraction(uint64_t a, uint64_t b)
{
    uint64_t x = (a * 0x9E3779B97F4A7C15ull) ^ (b + 0x632BE59BD9B4E019ull);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return double(x >> 11) / double(1ull << 53);
}

std::string slurp(const std::string& path)
{
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    setvbuf(stdout, nullptr, _IOLBF, 0);
    uint64_t mib = 1024, memory = 0;
    int versions = 8, runs = 3;
    double change = 0.05;
    std::string base = QDir::tempPath().toStdString();
    CLI::App cli{"The repetition estimate of actions-cache report against the exact figure and zstd -dc (issue 28)",
                 "bench_actions_repetition"};
    cli.add_option("--mib", mib, "decoded MiB in all")->check(CLI::PositiveNumber)->capture_default_str();
    cli.add_option("--versions", versions, "versions (entries)")->check(CLI::PositiveNumber)->capture_default_str();
    cli.add_option("--change", change, "share of blocks a version changes")->check(CLI::Range(0.0, 1.0))->capture_default_str();
    cli.add_option("--runs", runs, "runs (medians)")->check(CLI::PositiveNumber)->capture_default_str();
    cli.add_option("--memory", memory, "the report's --memory in bytes (default: the CLI's)");
    cli.add_option("--dir", base, "where the data goes")->capture_default_str();
    if (const int exit = bench::parseOrExit(cli, argc, argv); exit >= 0)
        return exit;

    QTemporaryDir tmp(QString::fromStdString(base) + "/bench-repetition-XXXXXX");
    const std::string root = tmp.path().toStdString(), data = root + "/data", storage = data + "/storage";
    std::filesystem::create_directories(storage);
    setenv("XDG_CACHE_HOME", (root + "/xdg-cache").c_str(), 1);
    const size_t blocks = size_t((mib << 20) / uint64_t(versions) / kBlock);
    const std::string zstd = ZSTD_PROGRAM, cliPath = CACHESCOPE_CLI;

    sqlite3* db = nullptr;
    sqlite3_open((data + "/sqlite.db").c_str(), &db);
    sql(db, "CREATE TABLE storage_locations (id text primary key, folderName text not null, partCount integer "
            "not null, mergeStartedAt bigint, mergedAt bigint, partsDeletedAt bigint, lastDownloadedAt bigint);"
            "CREATE TABLE cache_entries (id text primary key, key text not null, version text not null, updatedAt "
            "bigint not null, locationId text not null, scope text not null, repoId text not null);"
            "CREATE INDEX idx_cache_entries_key_version ON cache_entries (key, version);"
            "CREATE TABLE uploads (id bigint primary key, key text not null, version text not null, createdAt bigint "
            "not null, lastPartUploadedAt bigint, folderName text not null, finishedPartUploadCount integer not null "
            "default 0, startedPartUploadCount integer not null default 0, scope text not null, repoId text not null)");

    // Each version: blocks from seeds (block, generation), raw to a file, the exact chunks, then zstd -3.
    std::vector<uint64_t> generation(blocks, 0);
    std::set<std::string> distinct;
    uint64_t total = 0, unique = 0, stored = 0;
    std::vector<std::string> blobs;
    std::vector<char> block(kBlock);
    const auto t0 = std::chrono::steady_clock::now();
    for (int v = 0; v < versions; ++v) {
        const std::string folder = std::to_string(2000000 + v), dir = storage + "/" + folder;
        std::filesystem::create_directories(dir);
        const std::string raw = root + "/raw";
        {
            std::ofstream out(raw, std::ios::binary);
            cs::store::Chunker chunker;
            cs::Sha256 sha;
            uint64_t chunkBytes = 0;
            auto endChunk = [&] {
                const std::string d = cs::Sha256::hex(sha.finish());
                if (distinct.insert(d).second)
                    unique += chunkBytes;
                total += chunkBytes;
                chunkBytes = 0;
            };
            for (size_t b = 0; b < blocks; ++b) {
                if (v > 0 && fraction(uint64_t(v), b) < change)
                    generation[b] = uint64_t(v);
                textBlock(b * 1000003ull + generation[b], block.data());
                out.write(block.data(), std::streamsize(kBlock));
                const auto* p = reinterpret_cast<const uint8_t*>(block.data());
                size_t at = 0;
                while (at < kBlock) {
                    bool cut = false;
                    const size_t n = chunker.feed(p + at, kBlock - at, cut);
                    sha.update(p + at, n);
                    chunkBytes += n;
                    at += n;
                    if (cut)
                        endChunk();
                }
            }
            if (chunkBytes > 0)
                endChunk();
        }
        bench::runChild({zstd, "-q", "-3", "-T2", "-f", "-o", dir + "/merged", raw});
        std::filesystem::remove(raw);
        blobs.push_back(dir + "/merged");
        stored += std::filesystem::file_size(dir + "/merged");
        const std::string id = std::to_string(v);
        sql(db, "INSERT INTO storage_locations VALUES ('loc-" + id + "', '" + folder + "', 1, 1700000000000, "
                    "1700000000000, 1700000000000, NULL);"
                    "INSERT INTO cache_entries VALUES ('e-" + id + "', 'Linux-node-" + std::string(56, 'a') + id
                    + "', 'v', " + std::to_string(1700000000000 + v) + ", 'loc-" + id + "', 'refs/heads/main', '1')");
    }
    sqlite3_close(db);
    std::printf("data: %d versions of %.1f MiB decoded (%.1f MiB in all, %.1f MiB as zstd -3), %.0f %% of 64 KiB "
                "blocks changed per version; made in %.1f s\n",
                versions, double(blocks * kBlock) / 1048576, double(total) / 1048576, double(stored) / 1048576,
                change * 100, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::printf("exact (chunker + SHA-256 over the decoded bytes): %.1f MiB of %.1f MiB unique, %zu distinct chunks\n",
                double(unique) / 1048576, double(total) / 1048576, distinct.size());

    std::vector<double> zstdWall, zstdCpu, reportWall, reportCpu;
    std::string json;
    std::vector<std::string> report = {cliPath, "actions-cache", "report", data, "--json", "--quiet"};
    if (memory)
        report.insert(report.end(), {"--memory", std::to_string(memory)});
    bench::runChild(report);   // the size index: its first scan, not timed
    for (int r = 0; r < runs; ++r) {
        double wall = 0, cpu = 0;
        for (const auto& b : blobs) {
            const auto z = bench::runChild({zstd, "-q", "-dc", b});
            wall += z.wall;
            cpu += z.cpu;
        }
        zstdWall.push_back(wall);
        zstdCpu.push_back(cpu);
        bench::ChildOptions o;
        o.stdoutPath = root + "/report.json";
        const auto rep = bench::runChild(report, o);
        reportWall.push_back(rep.wall);
        reportCpu.push_back(rep.cpu);
        std::printf("run %d: zstd -dc %.2f s wall / %.2f s cpu; report %.2f s wall / %.2f s cpu, %.1f MiB peak RSS; load %s\n",
                    r + 1, wall, cpu, rep.wall, rep.cpu, rep.rssMiB, bench::loadAverage().c_str());
    }
    const cs::Json j = cs::parseJson(slurp(root + "/report.json"), "report.json");
    const auto& rep = j.at("repetition");
    const double estimate = double(rep.at("estimated_unique_bytes").get<uint64_t>());
    const double error = double(rep.at("error_bytes").get<uint64_t>());
    const double off = (estimate - double(unique)) / double(unique) * 100;
    std::printf("estimate %.1f MiB (+/- %.1f MiB, sampling rate %g) of %.1f MiB: %+.2f %% off the exact figure "
                "(target within 5 %%: %s)\n",
                estimate / 1048576, error / 1048576, rep.at("sampling_rate").get<double>(),
                double(rep.at("total_bytes").get<uint64_t>()) / 1048576, off, std::fabs(off) <= 5 ? "yes" : "no");
    const double ratio = bench::median(reportWall) / bench::median(zstdWall);
    std::printf("time: report %.2f s wall (%.2f s cpu), zstd -dc %.2f s wall (%.2f s cpu), medians of %d: %.2fx "
                "(target <= 1.2x: %s); cpu %.2fx\n",
                bench::median(reportWall), bench::median(reportCpu), bench::median(zstdWall), bench::median(zstdCpu),
                runs, ratio, ratio <= 1.2 ? "yes" : "no", bench::median(reportCpu) / bench::median(zstdCpu));

    // import: chunks of the blobs as stored.
    {
        auto cache = cs::actions::ActionsCache::open(cs::actions::resolveDataDir(data));
        auto st = cs::store::Store::init(root + "/store");
        cs::Job job("import");
        job.start();
        std::vector<std::string> ids;
        for (int v = 0; v < versions; ++v)
            ids.push_back("e-" + std::to_string(v));
        const auto t1 = std::chrono::steady_clock::now();
        const auto res = cache->importInto(*st, ids, "actions", 1 << 20, false, job);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
        sqlite3* s = nullptr;
        sqlite3_open_v2((root + "/store/catalog.db").c_str(), &s, SQLITE_OPEN_READONLY, nullptr);
        sqlite3_stmt* q = nullptr;
        uint64_t raw = 0;
        if (sqlite3_prepare_v2(s, "SELECT coalesce(sum(raw_size), 0) FROM chunks", -1, &q, nullptr) == SQLITE_OK
            && sqlite3_step(q) == SQLITE_ROW)
            raw = uint64_t(sqlite3_column_int64(q, 0));
        sqlite3_finalize(q);
        sqlite3_close(s);
        std::printf("import (blobs as stored, zstd bytes): %llu entries, %llu chunks, %llu new, %.1f MiB of %.1f MiB "
                    "unique in the store's chunks, %.1f s\n",
                    (unsigned long long)res.entries, (unsigned long long)res.chunks, (unsigned long long)res.newChunks,
                    double(raw) / 1048576, double(res.bytes) / 1048576, seconds);
    }
    return 0;
}
