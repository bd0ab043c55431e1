// The restore scenario of a CI cache server: N unmerged entries of 96 x 1 MiB
// parts restored concurrently (first restore = stream + merge), then again
// warm (parallel decode of merged entries); every restore's SHA-256 is
// checked by the store. Each measured run is a child process, so its
// peak RSS (wait4 rusage) is its own (a fresh exec of this program). Warm single-entry restores are set
// against stock `zstd -d` of the same bytes compressed with `zstd -3`.
//
//   bench_restore [--dir DIR] [--n 4,8,16] [--reps 5] [--parts 96]
//
// Prints medians of the repetitions (figures in docs/benchmarks.md).
#include "core/jobs/Job.h"
#include "core/store/Store.h"
#include "core/util/Error.h"
#include "BenchOptions.h"
#include "ChildRun.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using namespace cs::store;
using bench::median;
using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kPart = 1 << 20;

// Build-cache-like bytes: text-ish runs (compress ~3-4x) with some random
// stretches (object files, already compressed assets).
std::string entryBytes(size_t size, uint64_t seed)
{
    static const char* words[] = {"static", "const", "return", "include", "namespace", "template", "void", "int",
                                  "std::vector", "node_modules", "package", "import", "export", "function", "class", "if"};
    std::string s;
    s.reserve(size + 64);
    std::mt19937_64 rng(seed);
    while (s.size() < size) {
        if (rng() % 64 == 0) {
            for (int i = 0; i < 4096 && s.size() < size; i += 8) {
                const uint64_t v = rng();
                s.append(reinterpret_cast<const char*>(&v), 8);
            }
        } else {
            s += words[rng() % 16];
            s += (rng() % 10 == 0) ? '\n' : ' ';
        }
    }
    s.resize(size);
    return s;
}

struct ChildResult {
    double wall = 0;
    double maxRssMiB = 0;
    bool ok = false;
};

std::string selfPath;

// This process's peak RSS (VmHWM; fresh after exec, unlike a fork's rusage).
double peakRssMiB()
{
    FILE* f = std::fopen("/proc/self/status", "r");
    char line[256];
    double kb = -1;
    while (f && std::fgets(line, sizeof line, f))
        if (std::strncmp(line, "VmHWM:", 6) == 0)
            kb = std::atof(line + 6);
    if (f)
        std::fclose(f);
    return kb / 1024.0;
}

// Runs `bench_restore --child DIR MERGE IDS` as a fresh process (exec, so its
// peak RSS is only its own) and returns the wall time and peak RSS it printed.
ChildResult inChild(const std::string& dir, const std::vector<int64_t>& ids, bool expectMerge)
{
    std::string list;
    for (int64_t id : ids)
        list += (list.empty() ? "" : ",") + std::to_string(id);
    const std::string out = dir + ".child-out";
    const bench::ChildRun run =
        bench::runChild({selfPath, "--child", dir, expectMerge ? "1" : "0", list}, {.stdoutPath = out, .mayFail = true});
    ChildResult r;
    r.wall = -1;
    std::ifstream(out) >> r.wall >> r.maxRssMiB;
    fs::remove(out);
    r.ok = run.exitCode == 0 && r.wall >= 0;
    return r;
}

// Restores every entry concurrently (one thread each) to /dev/null.
double restoreAll(const std::string& dir, const std::vector<int64_t>& ids, bool expectMerge)
{
    auto store = Store::open(dir);
    std::vector<std::thread> threads;
    std::vector<std::string> errors(ids.size());
    std::vector<char> merged(ids.size(), 0);
    const auto t0 = Clock::now();
    for (size_t i = 0; i < ids.size(); ++i)
        threads.emplace_back([&, i] {
            try {
                cs::Job job;
                job.start();
                merged[i] = store->restoreEntryToFile(ids[i], "/dev/null", job).mergedNow;
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
        });
    for (auto& t : threads)
        t.join();
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    for (size_t i = 0; i < ids.size(); ++i) {
        if (!errors[i].empty())
            throw cs::Error("restore of entry " + std::to_string(ids[i]) + " failed: " + errors[i]);
        if (bool(merged[i]) != expectMerge)
            throw cs::Error("entry " + std::to_string(ids[i]) + (expectMerge ? " was not merged" : " was merged again"));
    }
    return wall;
}

// Through the shell, as the command line is written.
double timeCommand(const std::string& cmd)
{
    return bench::runChild({"/bin/sh", "-c", cmd}).wall;
}

} // namespace

int main(int argc, char** argv)
{
    selfPath = fs::canonical("/proc/self/exe").string();
    if (argc == 5 && std::string(argv[1]) == "--child") {
        std::vector<int64_t> ids;
        for (const char* p = argv[4]; *p;) {
            ids.push_back(std::atoll(p));
            p = std::strchr(p, ',');
            if (!p) break;
            ++p;
        }
        try {
            const double wall = restoreAll(argv[2], ids, std::string(argv[3]) == "1");
            std::printf("%.6f %.1f\n", wall, peakRssMiB());
            return 0;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "bench_restore child: %s\n", e.what());
            return 1;
        }
    }
    std::string base = (fs::temp_directory_path() / "cachescope-bench-restore").string();
    std::vector<int> ns = {4, 8, 16};
    int reps = 5;
    size_t parts = 96;
    CLI::App app{"N concurrent first and warm restores of a CI cache server's entries, and one warm restore "
                 "against zstd -d", "bench_restore"};
    app.add_option("--dir", base, "work folder")->capture_default_str();
    app.add_option("--n", ns, "concurrent entries, one run per figure")
        ->delimiter(',')
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--reps", reps, "repetitions (medians)")->check(CLI::PositiveNumber)->capture_default_str();
    app.add_option("--parts", parts, "1 MiB parts per entry")->check(CLI::Range(1, 1 << 20))->capture_default_str();
    if (const int exit = bench::parseOrExit(app, argc, argv); exit >= 0)
        return exit;
    const size_t entrySize = parts * kPart;
    const double entryMB = double(entrySize) / 1e6;
    std::printf("restore benchmark: entries of %zu x 1 MiB parts, %d repetitions, %u hardware threads\n", parts, reps,
                std::thread::hardware_concurrency());
    std::printf("%4s | %9s %9s %9s | %9s %9s %9s | %9s\n", "N", "cold s", "cold MB/s", "cold RSS", "warm s",
                "warm MB/s", "warm RSS", "RSS bound");
    try {
        int maxN = *std::max_element(ns.begin(), ns.end());
        std::vector<std::string> datas;
        for (int i = 0; i < maxN; ++i)
            datas.push_back(entryBytes(entrySize, uint64_t(i) + 1));
        for (int n : ns) {
            std::vector<double> coldWall, coldRss, warmWall, warmRss;
            for (int rep = 0; rep < reps; ++rep) {
                const std::string dir = base + "/n" + std::to_string(n);
                fs::remove_all(dir);
                std::vector<int64_t> ids;
                {
                    auto store = Store::init(dir);
                    for (int i = 0; i < n; ++i) {
                        const int64_t id = store->reserve("bench-" + std::to_string(i) + "-" + std::to_string(rep));
                        // Parts arrive in reverse order, like a concurrent upload finishing out of order.
                        for (size_t p = parts; p-- > 0;)
                            store->writePart(id, uint32_t(p), datas[size_t(i)].data() + p * kPart, kPart);
                        store->commit(id, uint32_t(parts));
                        ids.push_back(id);
                    }
                }
                const ChildResult cold = inChild(dir, ids, true);
                const ChildResult warm = inChild(dir, ids, false);
                if (!cold.ok || !warm.ok)
                    throw cs::Error("a restore run failed");
                coldWall.push_back(cold.wall);
                coldRss.push_back(cold.maxRssMiB);
                warmWall.push_back(warm.wall);
                warmRss.push_back(warm.maxRssMiB);
            }
            const double total = entryMB * n;
            std::printf("%4d | %9.2f %9.0f %8.1fM | %9.2f %9.0f %8.1fM | %8.0fM\n", n, median(coldWall),
                        total / median(coldWall), median(coldRss), median(warmWall), total / median(warmWall),
                        median(warmRss), 64.0 + 8.0 * n);
            std::fflush(stdout);
        }

        // One entry warm vs stock zstd -d of the same bytes (zstd -3).
        const std::string dir = base + "/single";
        fs::remove_all(dir);
        fs::create_directories(dir);
        const std::string raw = dir + "/entry.bin", zst = dir + "/entry.bin.zst";
        {
            FILE* f = std::fopen(raw.c_str(), "wb");
            std::fwrite(datas[0].data(), 1, datas[0].size(), f);
            std::fclose(f);
        }
        timeCommand(std::string(ZSTD_PROGRAM) + " -q -f -3 " + raw + " -o " + zst);
        int64_t id = 0;
        {
            auto store = Store::init(dir + "/store");
            cs::Job job;
            job.start();
            id = store->putFile("single", raw, job, {}, {}, kPart, 4).id;
        }
        if (!inChild(dir + "/store", {id}, true).ok)
            throw cs::Error("merge of the single entry failed");
        std::vector<double> ours, theirs, ourRss;
        for (int rep = 0; rep < reps; ++rep) {
            const ChildResult r = inChild(dir + "/store", {id}, false);
            if (!r.ok)
                throw cs::Error("warm restore failed");
            ours.push_back(r.wall);
            ourRss.push_back(r.maxRssMiB);
            theirs.push_back(timeCommand(std::string(ZSTD_PROGRAM) + " -q -d -c " + zst + " > /dev/null"));
        }
        const double mbOurs = entryMB / median(ours), mbZstd = entryMB / median(theirs);
        std::printf("\nwarm restore of one %.0f MB entry to /dev/null: %.0f MB/s (%.3f s, RSS %.1f MiB); "
                    "zstd -d -c > /dev/null: %.0f MB/s (%.3f s); ratio %.2fx\n",
                    entryMB, mbOurs, median(ours), median(ourRss), mbZstd, median(theirs), mbOurs / mbZstd);
        fs::remove_all(base);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_restore: %s\n", e.what());
        return 1;
    }
    return 0;
}
