// GC side by side with the tools people use (issue 11, target 4): the same
// 150 entries of 8 MiB (each 4 MiB of log-like text, then 4 MiB of random
// bytes) stored three ways, the same half (every odd entry) forgotten, then
// the space reclaimed:
//
//   ours:   `cachescope-cli store put` (merged) per entry, `store evict --key`
//           of the odd ones, measured: `store gc`;
//   restic: one `restic backup` (repository v2, zstd) snapshot per entry,
//           `restic forget` of the odd snapshots, measured: `restic prune`;
//   borg:   one `borg create --compression zstd,3` archive per entry,
//           `borg delete` of the odd archives, measured: `borg compact`;
//   baseline: `cp` of our live bytes (the new prefix GC wrote) to a new
//           file, then `sync FILE`.
//
// The stores are built once; every repetition starts from a copy of each
// (repository and cache), after a `sync`. Every measured command is a fresh
// process: wall from spawn to exit, cpu and peak RSS from wait4; bytes
// reclaimed = the folder's size before - after. Medians of the repetitions.
// After the last repetition every kept entry is restored from our collected
// store (`store get`) and checked against its file's SHA-256 (sha256sum).
//
// --priority fifo runs the measured commands (the three collections and the
// cp + sync) under SCHED_FIFO, as bench_merge does (FifoPriority.h); the
// stores are built at normal priority. The default --dir is per process.
//
//   bench_gc_tools [--dir DIR] [--entries 150] [--mib 8] [--reps 5] [--priority normal|fifo]
#include "core/util/Error.h"
#include "BenchOptions.h"
#include "ChildRun.h"
#include "Sha256Check.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using bench::median;

namespace {

bool fifoPriority = false;

struct Run : bench::ChildRun {
    double reclaimedMiB = 0;
};

// Runs argv with extra environment variables; stdout to outPath (or
// /dev/null); under SCHED_FIFO when measured and --priority fifo. Throws
// when it fails.
Run spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
          const std::string& outPath = {}, bool measured = false)
{
    Run r;
    static_cast<bench::ChildRun&>(r) =
        bench::runChild(argv, {.stdoutPath = outPath, .env = env, .fifo = fifoPriority && measured});
    return r;
}

uint64_t folderBytes(const std::string& dir)
{
    uint64_t n = 0;
    for (const auto& f : fs::recursive_directory_iterator(dir))
        if (f.is_regular_file())
            n += f.file_size();
    return n;
}

void copyTree(const std::string& from, const std::string& to)
{
    fs::remove_all(to);
    spawn({"cp", "-a", from, to});
}

std::string entryName(int i)
{
    char b[16];
    std::snprintf(b, sizeof b, "e%03d", i);
    return b;
}

void writeEntry(const std::string& path, size_t bytes, uint64_t seed)
{
    static const char* words[] = {"INFO", "compile", "link", "src/main.cpp", "warning:", "cache", "hit", "miss",
                                  "target", "ms", "objects", "done", "[1/42]", "gcc", "-O2", "ok"};
    std::mt19937_64 rng(seed);
    std::string s;
    s.reserve(bytes);
    while (s.size() < bytes / 2) {
        s += words[rng() % 16];
        s += (rng() % 12 == 0) ? '\n' : ' ';
    }
    s.resize(bytes / 2);
    while (s.size() < bytes) {
        const uint64_t v = rng();
        s.append(reinterpret_cast<const char*>(&v), 8);
    }
    s.resize(bytes);
    std::ofstream(path, std::ios::binary).write(s.data(), std::streamsize(s.size()));
}

// The snapshot id restic printed in its JSON summary.
std::string resticSnapshotId(const std::string& jsonOut)
{
    std::ifstream f(jsonOut);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string s = ss.str();
    const std::string key = "\"snapshot_id\":\"";
    const auto p = s.rfind(key);
    if (p == std::string::npos)
        throw cs::Error("restic backup printed no snapshot id");
    return s.substr(p + key.size(), s.find('"', p + key.size()) - p - key.size());
}

} // namespace

int main(int argc, char** argv)
{
    std::string base = "/dev/shm/cachescope-bench-gc-tools-" + std::to_string(::getpid());
    int entries = 150, reps = 5;
    size_t mib = 8;
    CLI::App app{"GC beside restic prune, borg compact and cp + sync of the live bytes (issue 11, target 4)",
                 "bench_gc_tools"};
    app.add_option("--dir", base, "work folder (default: one per process under /dev/shm)");
    app.add_option("--entries", entries, "entries, every odd one forgotten")->check(CLI::Range(2, 1 << 20))->capture_default_str();
    app.add_option("--mib", mib, "MiB per entry")->check(CLI::Range(1, 1 << 16))->capture_default_str();
    app.add_option("--reps", reps, "repetitions (medians)")->check(CLI::PositiveNumber)->capture_default_str();
    bench::addPriorityOption(app, &fifoPriority);
    if (const int exit = bench::parseOrExit(app, argc, argv); exit >= 0)
        return exit;
    const std::string cli = CACHESCOPE_CLI;
    const std::vector<std::string> resticEnv = {"RESTIC_PASSWORD=bench", "RESTIC_CACHE_DIR=" + base + "/restic-cache"};
    const std::vector<std::string> borgEnv = {"BORG_PASSPHRASE=", "BORG_UNKNOWN_UNENCRYPTED_REPO_ACCESS_IS_OK=yes",
                                              "BORG_CACHE_DIR=" + base + "/borg-cache",
                                              "BORG_CONFIG_DIR=" + base + "/borg-config",
                                              "BORG_SECURITY_DIR=" + base + "/borg-security"};
    try {
        fs::remove_all(base);
        fs::create_directories(base + "/data");
        for (const std::string d : {"restic-cache", "borg-cache", "borg-config", "borg-security"})
            fs::create_directories(base + "/" + d);
        std::printf("bench_gc_tools: %d entries of %zu MiB (half text, half random), every odd one forgotten; "
                    "files in %s; priority %s\n", entries, mib, base.c_str(), fifoPriority ? "SCHED_FIFO" : "normal");
        std::fflush(stdout);
        std::vector<std::string> files;
        for (int i = 0; i < entries; ++i) {
            files.push_back(base + "/data/" + entryName(i));
            writeEntry(files.back(), mib << 20, uint64_t(i) + 1);
        }
        // Ours.
        const std::string store = base + "/store";
        spawn({cli, "store", "init", store});
        for (int i = 0; i < entries; ++i)
            spawn({cli, "store", "put", "--wait", store, entryName(i), files[size_t(i)], "-q"});
        std::vector<std::string> evict = {cli, "store", "evict", store};
        for (int i = 1; i < entries; i += 2) {
            evict.push_back("--key");
            evict.push_back(entryName(i));
        }
        spawn(evict);
        // restic: one snapshot per entry.
        const std::string restic = base + "/restic";
        std::vector<std::string> a = {"restic", "-r", restic, "init", "-q", "--repository-version", "2"};
        spawn(a, resticEnv);
        std::vector<std::string> forget = {"restic", "-r", restic, "forget", "-q"};
        for (int i = 0; i < entries; ++i) {
            const std::string out = base + "/restic.json";
            spawn({"restic", "-r", restic, "backup", "--json", "--tag", entryName(i), files[size_t(i)]}, resticEnv, out);
            if (i % 2)
                forget.push_back(resticSnapshotId(out));
        }
        spawn(forget, resticEnv);
        // borg: one archive per entry.
        const std::string borg = base + "/borg";
        spawn({"borg", "init", "-e", "none", borg}, borgEnv);
        std::vector<std::string> del = {"borg", "delete", borg};
        for (int i = 0; i < entries; ++i) {
            spawn({"borg", "create", "--compression", "zstd,3", borg + "::" + entryName(i), files[size_t(i)]}, borgEnv);
            if (i % 2)
                del.push_back(entryName(i));
        }
        spawn(del, borgEnv);
        for (const std::string d : {"store", "restic", "restic-cache", "borg", "borg-cache", "borg-config", "borg-security"})
            fs::rename(base + "/" + d, base + "/" + d + ".orig");

        std::map<std::string, std::vector<Run>> runs;
        const std::vector<std::string> order = {"cp + sync of the live bytes", "store gc", "restic prune",
                                                "borg compact"};
        std::map<std::string, uint64_t> sizeBefore, sizeAfter;
        for (int rep = 0; rep < reps; ++rep) {
            for (const std::string d :
                 {"store", "restic", "restic-cache", "borg", "borg-cache", "borg-config", "borg-security"})
                copyTree(base + "/" + d + ".orig", base + "/" + d);
            spawn({"sync"});
            auto measure = [&](const std::string& name, const std::string& dir, const std::vector<std::string>& cmd,
                               const std::vector<std::string>& env) {
                const uint64_t before = folderBytes(dir);
                Run r = spawn(cmd, env, {}, true);
                const uint64_t after = folderBytes(dir);
                r.reclaimedMiB = (double(before) - double(after)) / double(1 << 20);
                runs[name].push_back(r);
                sizeBefore[name] = before;
                sizeAfter[name] = after;
            };
            // The tools in a rotating order; cp needs our GC's prefix first.
            std::vector<std::function<void()>> fns = {
                [&] { measure("store gc", store, {cli, "store", "gc", store, "--quiet"}, {}); },
                [&] { measure("restic prune", restic, {"restic", "-r", restic, "prune", "-q"}, resticEnv); },
                [&] { measure("borg compact", borg, {"borg", "compact", borg}, borgEnv); },
            };
            for (size_t i = 0; i < fns.size(); ++i)
                fns[(i + size_t(rep)) % fns.size()]();
            std::string prefix;
            for (const auto& f : fs::directory_iterator(store + "/pack"))
                if (f.path().extension() == ".prefix")
                    prefix = f.path().string();
            if (prefix.empty())
                throw cs::Error("store gc wrote no prefix");
            const std::string copy = base + "/live-copy";
            fs::remove(copy);
            spawn({"sync"});
            Run r = spawn({"sh", "-c", "cp '" + prefix + "' '" + copy + "' && sync '" + copy + "'"}, {}, {}, true);
            r.reclaimedMiB = 0;
            runs["cp + sync of the live bytes"].push_back(r);
            sizeAfter["cp + sync of the live bytes"] = fs::file_size(copy);
            fs::remove(copy);
        }
        // Every kept entry of our collected store, byte for byte.
        const std::string restored = base + "/restored";
        for (int i = 0; i < entries; i += 2) {
            spawn({cli, "store", "get", "--wait", store, entryName(i), restored, "-q"});
            if (!bench::sameSha256(bench::sha256sum(files[size_t(i)]), restored))
                throw cs::Error("after store gc, entry " + entryName(i) + " differs from its file (SHA-256)");
            fs::remove(restored);
        }
        std::printf("\nafter the last store gc, the %d kept entries matched their files' SHA-256 (sha256sum)\n",
                    (entries + 1) / 2);
        std::printf("\nload average %s; medians of %d\n", bench::loadAverage().c_str(), reps);
        std::printf("  %-30s %8s %8s %10s %12s %12s %12s %8s\n", "", "wall s", "cpu s", "peak RSS", "before MiB",
                    "after MiB", "reclaimed", "vs cp");
        const double cpWall = median([&] {
            std::vector<double> v;
            for (const auto& r : runs[order[0]])
                v.push_back(r.wall);
            return v;
        }());
        for (const auto& name : order) {
            std::vector<double> w, c, m, rec;
            for (const auto& r : runs[name]) {
                w.push_back(r.wall);
                c.push_back(r.cpu);
                m.push_back(r.rssMiB);
                rec.push_back(r.reclaimedMiB);
            }
            std::printf("  %-30s %8.3f %8.3f %9.1fM %12.1f %12.1f %11.1fM %7.2fx\n", name.c_str(), median(w),
                        median(c), median(m), double(sizeBefore[name]) / double(1 << 20),
                        double(sizeAfter[name]) / double(1 << 20), median(rec), median(w) / cpWall);
        }
        std::printf("  (vs cp = this wall / cp + sync wall: the target for store gc is <= 2x)\n");
        fs::remove_all(base);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_gc_tools: %s\n", e.what());
        return 1;
    }
    return 0;
}
