// First restore, put and merge of the store set against the stock tools that
// do the same work on the same bytes, in the same run:
//
//   single:     `cachescope-cli store get --wait` of one unmerged entry of
//               P x 1 MiB parts (stream + merge, until the process exits =
//               merged) and `store get` without --wait (it returns at
//               delivery; "merged" is when the merge behind it let go of
//               merges.lock), vs `zstd -3 -T2 FILE` and `cat PARTS > OUT`;
//   concurrent: N unmerged entries of 96 x 1 MiB parts restored at once by
//               one process (a thread each, like a cache server) vs
//               `zstd -3 -T2` of the N files and N concurrent `cat`s;
//   put:        `cachescope-cli store put --wait` of the file (read once into
//               the pack, no parts: Store::putMerged), `store put` (returns
//               once the parts are committed, merges behind: "merged" as
//               above) and `store merge` of an entry put with --no-merge, vs
//               `zstd -3 -T2`;
//   warm:       `store get` of the merged entry (and `store get --verify`)
//               into a new file vs `zstd -d FILE.zst -o OUT` of the same
//               bytes compressed by `zstd -3` (a new file each run too).
//
// Every measured command is a fresh process (posix_spawn); wall from spawn to
// exit, cpu and peak RSS from wait4 (this parent keeps no large buffer, so
// the child's maxrss is its own). "complete" is when the restored file
// appears under its name (the reader can open it; restores rename it into
// place once its bytes are written and their SHA-256 matched): polled every
// millisecond. The tools run alternately within each repetition (the order
// rotates); medians of the repetitions and the ratios are printed.
// Every restored file (and every `cat` and `zstd -d` output) is checked
// against the source's SHA-256 by the stock `sha256sum` after its run,
// outside the timing; a put or merge is checked by a `store get` after it.
//
// --priority fifo runs every measured command under SCHED_FIFO (and this
// program above it while it waits, so its timing is not starved): on a
// machine shared with other people's compiles that approximates the idle
// 2 cores the targets speak of; the commands are short (seconds), and the
// kernel's RT throttling leaves others 5 % meanwhile. Root only.
// The default --dir is per process, so two runs at once do not share it.
//
//   bench_merge [--dir DIR] [--cli PATH] [--mib 800] [--n 16] [--reps 5] [--data text|half|words|words-half]
//               [--only single,concurrent,put,warm] [--priority normal|fifo]
#include "core/jobs/Job.h"
#include "core/pack/FileLock.h"
#include "core/store/Store.h"
#include "core/store/StoreLayout.h"
#include "core/util/Error.h"
#include "BenchOptions.h"
#include "ChildRun.h"
#include "Sha256Check.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
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
std::string selfPath;
bool fifoPriority = false;
int checkedOutputs = 0;

// Build-cache-like bytes, written 1 MiB at a time (the parent stays small):
// "text" = words, with a random 4 KiB stretch for 1 in 64 WORDS, so ~90 % of
//          its bytes are random (zstd -3 ratio ~1.09): nearly incompressible;
// "words" = a random 4 KiB stretch for 1 in 64 4-KiB STRETCHES, so 1/64 of the
//          bytes are random (zstd -3 ratio ~5.3; the words repeat more than
//          real text): the compressible build-cache data of the targets;
// "half" = alternating 1 MiB of "text" and 1 MiB of random bytes (so ~95 %
//          random, zstd -3 ratio ~1.04);
// "words-half" = alternating 1 MiB of "words" and 1 MiB of random bytes: half
//          compressible, half random (zstd -3 ratio ~1.9).
bool wordsData = false;

// The dataset's name as the tables print it.
const char* dataName(bool half) { return half ? (wordsData ? "words-half" : "half random") : wordsData ? "words" : "text"; }
class DataGen {
public:
    DataGen(uint64_t seed, bool half) : rng_(seed), half_(half) {}
    void next(std::vector<char>& out)
    {
        static const char* words[] = {"static", "const", "return", "include", "namespace", "template", "void", "int",
                                      "std::vector", "node_modules", "package", "import", "export", "function", "class", "if"};
        out.clear();
        const bool random = half_ && (block_++ % 2 == 1);
        while (wordsData && !random && out.size() < kPart) {
            const bool stretch = rng_() % 64 == 0;
            for (const size_t end = std::min(out.size() + 4096, kPart); out.size() < end;) {
                if (stretch) {
                    const uint64_t v = rng_();
                    out.insert(out.end(), reinterpret_cast<const char*>(&v), reinterpret_cast<const char*>(&v) + 8);
                } else {
                    const char* w = words[rng_() % 16];
                    out.insert(out.end(), w, w + std::strlen(w));
                    out.push_back((rng_() % 10 == 0) ? '\n' : ' ');
                }
            }
        }
        while (out.size() < kPart) {
            if (random || rng_() % 64 == 0) {
                for (int i = 0; i < (random ? int(kPart) : 4096) && out.size() < kPart; i += 8) {
                    const uint64_t v = rng_();
                    out.insert(out.end(), reinterpret_cast<const char*>(&v), reinterpret_cast<const char*>(&v) + 8);
                }
            } else {
                const char* w = words[rng_() % 16];
                out.insert(out.end(), w, w + std::strlen(w));
                out.push_back((rng_() % 10 == 0) ? '\n' : ' ');
            }
        }
        out.resize(kPart);
    }

private:
    std::mt19937_64 rng_;
    bool half_;
    uint64_t block_ = 0;
};

struct Run : bench::ChildRun {
    double merged = -1;   // a command that merges behind it: when that merge ended (s from the spawn)
};

// Spawns argv (stdout to outPath or /dev/null) and waits; while it runs,
// polls for the paths in watch to exist; complete = when the last appeared.
// With behindStore: after the exit, waits (polling every millisecond) until
// no process holds that store's merges.lock; merged = then. This program is
// a child subreaper (main), so the process the command left merging behind
// it is reparented here and reaped: cpu then adds its time (delivery and
// merge: the command's whole work, comparable with --wait) and peak RSS is
// the larger of the two.
Run spawnAndWait(const std::vector<std::string>& argv, const std::string& outPath = {},
                 const std::vector<std::string>& watch = {}, const std::string& behindStore = {})
{
    const auto t0 = std::chrono::steady_clock::now();
    Run r;
    static_cast<bench::ChildRun&>(r) = bench::runChild(argv, {.stdoutPath = outPath, .fifo = fifoPriority, .watch = watch});
    if (behindStore.empty())
        return r;
    const std::string lease = behindStore + "/" + cs::store::StoreLayout::kMergesLock;
    while (!cs::FileLock::tryLock(lease, cs::FileLock::Exclusive).held())
        ::usleep(1000);
    r.merged = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    struct rusage behind {};
    int status = 0;
    for (pid_t w; (w = ::wait4(-1, &status, 0, &behind)) > 0 || (w < 0 && errno == EINTR);) {
        if (w < 0)
            continue;
        r.cpu += double(behind.ru_utime.tv_sec + behind.ru_stime.tv_sec)
                 + double(behind.ru_utime.tv_usec + behind.ru_stime.tv_usec) / 1e6;
        r.rssMiB = std::max(r.rssMiB, double(behind.ru_maxrss) / 1024.0);
    }
    return r;
}

// Writes `parts` MiB of data to path (when not empty) and, when store is
// given, as an unmerged entry of 1 MiB parts (returns its id).
int64_t makeEntry(Store* store, const std::string& key, const std::string& path, size_t parts, uint64_t seed, bool half)
{
    DataGen gen(seed, half);
    std::vector<char> block;
    FILE* f = path.empty() ? nullptr : std::fopen(path.c_str(), "wb");
    int64_t id = store ? store->reserve(key) : 0;
    for (size_t p = 0; p < parts; ++p) {
        gen.next(block);
        if (f)
            std::fwrite(block.data(), 1, block.size(), f);
        if (store)
            store->writePart(id, uint32_t(p), block.data(), block.size());
    }
    if (f)
        std::fclose(f);
    if (store)
        store->commit(id, uint32_t(parts));
    return id;
}

std::vector<std::string> partPaths(const std::string& storeDir, int64_t id, size_t parts)
{
    std::vector<std::string> v;
    for (size_t p = 0; p < parts; ++p)
        v.push_back(storeDir + "/parts/" + std::to_string(id) + "/" + std::to_string(p));
    return v;
}

// Throws unless path holds the bytes whose SHA-256 is digest (sha256sum).
void checkSame(const std::string& digest, const std::string& path, const std::string& what)
{
    if (!bench::sameSha256(digest, path))
        throw cs::Error(what + ": " + path + " differs from its source (SHA-256)");
    ++checkedOutputs;
}

struct Series {
    std::map<std::string, std::vector<Run>> runs;
    std::vector<std::string> order;
    void add(const std::string& name, const Run& r)
    {
        if (!runs.count(name))
            order.push_back(name);
        runs[name].push_back(r);
    }
    double med(const std::string& name, double Run::*field) const
    {
        std::vector<double> v;
        for (const auto& r : runs.at(name))
            v.push_back(r.*field);
        return median(v);
    }
    void print(double mb, const std::string& reference) const
    {
        std::printf("  %-50s %8s %8s %9s %9s %9s %9s %8s\n", "", "wall s", "cpu s", "MB/s", "complete", "merged",
                    "peak RSS", "ratio");
        const double ref = med(reference, &Run::wall);
        for (const auto& name : order) {
            const double w = med(name, &Run::wall), c = med(name, &Run::complete), m = med(name, &Run::merged);
            char complete[32] = "", merged[32] = "";
            if (c >= 0)
                std::snprintf(complete, sizeof complete, "%.2f s", c);
            if (m >= 0)
                std::snprintf(merged, sizeof merged, "%.2f s", m);
            std::printf("  %-50s %8.2f %8.2f %9.0f %9s %9s %8.1fM %7.2fx\n", name.c_str(), w, med(name, &Run::cpu),
                        mb / w, complete, merged, med(name, &Run::rssMiB), ref / w);
        }
        std::printf("  (ratio = %s wall / this wall: >= 1 is as fast or faster; wall = until the command returned; "
                    "medians of %zu)\n",
                    reference.c_str(), runs.begin()->second.size());
        std::fflush(stdout);
    }
};

std::string cli = CACHESCOPE_CLI;   // --cli: another tree's build, to compare old and new in one way
const std::string zstd = ZSTD_PROGRAM;

void single(const std::string& base, size_t mib, int reps, bool half)
{
    const std::string raw = base + "/entry.bin";
    makeEntry(nullptr, {}, raw, mib, 1, half);
    const std::string digest = bench::sha256sum(raw);
    Series s;
    for (int rep = 0; rep < reps; ++rep) {
        const std::string storeDir = base + "/store";
        fs::remove_all(storeDir);
        int64_t id = 0;
        {
            auto store = Store::init(storeDir);
            id = makeEntry(store.get(), "single", {}, mib, 1, half);
        }
        const std::string out = base + "/out.bin";
        // cat first (ours deletes the parts); then zstd and ours alternate.
        std::vector<std::string> catArgs = {"/bin/cat"};
        for (const auto& p : partPaths(storeDir, id, mib))
            catArgs.push_back(p);
        s.add("cat PARTS > OUT", spawnAndWait(catArgs, out));
        checkSame(digest, out, "cat");
        fs::remove(out);
        auto runZstd = [&] {
            s.add("zstd -3 -T2 FILE", spawnAndWait({zstd, "-q", "-f", "-3", "-T2", raw, "-o", out + ".zst"}));
            fs::remove(out + ".zst");
        };
        auto runOurs = [&] {
            s.add("store get --wait (first restore: stream + merge)",
                  spawnAndWait({cli, "store", "get", "--wait", storeDir, "single", out}, {}, {out}));
            checkSame(digest, out, "first restore");
            fs::remove(out);
        };
        if (rep % 2) {
            runOurs();
            runZstd();
        } else {
            runZstd();
            runOurs();
        }
        // The same first restore returning at delivery: a fresh unmerged
        // entry (the one above is merged now), its parts warmed by a cat as
        // for the first.
        fs::remove_all(storeDir);
        {
            auto store = Store::init(storeDir);
            id = makeEntry(store.get(), "single", {}, mib, 1, half);
        }
        std::vector<std::string> warmArgs = {"/bin/cat"};
        for (const auto& p : partPaths(storeDir, id, mib))
            warmArgs.push_back(p);
        spawnAndWait(warmArgs);
        s.add("store get (returns at delivery, merge behind)",
              spawnAndWait({cli, "store", "get", storeDir, "single", out}, {}, {out}, storeDir));
        checkSame(digest, out, "first restore returning at delivery");
        fs::remove(out);
    }
    std::printf("\nsingle entry, %zu x 1 MiB parts (%s), load average %s\n", mib, dataName(half),
                bench::loadAverage().c_str());
    s.print(double(mib * kPart) / 1e6, "zstd -3 -T2 FILE");
    fs::remove(raw);
}

void put(const std::string& base, size_t mib, int reps, bool half)
{
    const std::string raw = base + "/entry.bin";
    makeEntry(nullptr, {}, raw, mib, 1, half);
    const std::string digest = bench::sha256sum(raw), out = base + "/out.bin";
    Series s;
    const std::string storeDir = base + "/store";
    auto checkStored = [&](const std::string& what) {
        spawnAndWait({cli, "store", "get", "--wait", storeDir, "k", out, "-q"});
        checkSame(digest, out, what);
        fs::remove(out);
    };
    for (int rep = 0; rep < reps; ++rep) {
        auto runZstd = [&] {
            s.add("zstd -3 -T2 FILE", spawnAndWait({zstd, "-q", "-f", "-3", "-T2", raw, "-o", raw + ".zst"}));
            fs::remove(raw + ".zst");
        };
        auto runPut = [&] {
            fs::remove_all(storeDir);
            Store::init(storeDir);
            s.add("store put --wait FILE (one pass, no parts)",
                  spawnAndWait({cli, "store", "put", "--wait", storeDir, "k", raw}));
            checkStored("store get after store put");
        };
        auto runPutBehind = [&] {
            fs::remove_all(storeDir);
            Store::init(storeDir);
            s.add("store put FILE (returns at commit, merge behind)",
                  spawnAndWait({cli, "store", "put", storeDir, "k", raw}, {}, {}, storeDir));
            checkStored("store get after store put (merged behind)");
        };
        auto runMerge = [&] {
            fs::remove_all(storeDir);
            {
                auto store = Store::init(storeDir);
                cs::Job job;
                job.start();
                store->putFile("k", raw, job, {}, {}, kPart, 2);
            }
            s.add("store merge (of an unmerged entry)", spawnAndWait({cli, "store", "merge", storeDir, "k"}));
            checkStored("store get after store merge");
        };
        const std::vector<std::function<void()>> fns = {runZstd, runPut, runPutBehind, runMerge};
        for (size_t i = 0; i < fns.size(); ++i)
            fns[(i + size_t(rep)) % fns.size()]();
    }
    fs::remove_all(storeDir);
    std::printf("\nput and merge of one %zu MiB file (%s), load average %s\n", mib, dataName(half),
                bench::loadAverage().c_str());
    s.print(double(mib * kPart) / 1e6, "zstd -3 -T2 FILE");
    fs::remove(raw);
}

void warm(const std::string& base, size_t mib, int reps, bool half)
{
    const std::string raw = base + "/entry.bin", zst = base + "/entry.bin.zst", out = base + "/out.bin";
    makeEntry(nullptr, {}, raw, mib, 1, half);
    const std::string digest = bench::sha256sum(raw);
    spawnAndWait({zstd, "-q", "-f", "-3", raw, "-o", zst});
    const double zstdRatio = double(fs::file_size(raw)) / double(fs::file_size(zst));
    const std::string storeDir = base + "/store";
    fs::remove_all(storeDir);
    Store::init(storeDir);
    spawnAndWait({cli, "store", "put", "--wait", storeDir, "k", raw});
    fs::remove(raw);
    Series s;
    for (int rep = 0; rep < reps; ++rep) {
        auto runZstd = [&] {
            s.add("zstd -d FILE.zst -o OUT", spawnAndWait({zstd, "-q", "-f", "-d", zst, "-o", out}));
            checkSame(digest, out, "zstd -d");
            fs::remove(out);
        };
        auto runOurs = [&] {
            s.add("store get (warm)", spawnAndWait({cli, "store", "get", "--wait", storeDir, "k", out, "-q"}));
            checkSame(digest, out, "warm restore");
            fs::remove(out);
        };
        auto runVerify = [&] {
            s.add("store get --verify (warm, chunk SHA-256s)",
                  spawnAndWait({cli, "store", "get", "--wait", storeDir, "k", out, "-q", "--verify"}));
            checkSame(digest, out, "warm restore --verify");
            fs::remove(out);
        };
        const std::vector<std::function<void()>> fns = {runZstd, runOurs, runVerify};
        for (int i = 0; i < 3; ++i)
            fns[size_t((i + rep) % 3)]();
    }
    fs::remove_all(storeDir);
    fs::remove(zst);
    std::printf("\nwarm restore of one %zu MiB entry (%s, zstd -3 ratio %.2f) into a new file, load average %s\n", mib,
                dataName(half), zstdRatio, bench::loadAverage().c_str());
    s.print(double(mib * kPart) / 1e6, "zstd -d FILE.zst -o OUT");
}

// The child of the concurrent scenario: restores the ids at once to out/i.
int concurrentChild(const std::string& storeDir, const std::string& outDir, const std::string& idList)
{
    std::vector<int64_t> ids;
    for (const char* p = idList.c_str(); *p;) {
        ids.push_back(std::atoll(p));
        p = std::strchr(p, ',');
        if (!p)
            break;
        ++p;
    }
    auto store = Store::open(storeDir);
    std::vector<std::thread> threads;
    std::vector<std::string> errors(ids.size());
    for (size_t i = 0; i < ids.size(); ++i)
        threads.emplace_back([&, i] {
            try {
                cs::Job job;
                job.start();
                if (!store->restoreEntryToFile(ids[i], outDir + "/" + std::to_string(i), job).mergedNow)
                    errors[i] = "was not merged by its first restore";
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
        });
    for (auto& t : threads)
        t.join();
    for (size_t i = 0; i < ids.size(); ++i)
        if (!errors[i].empty()) {
            std::fprintf(stderr, "bench_merge child: entry %lld: %s\n", (long long)ids[i], errors[i].c_str());
            return 1;
        }
    return 0;
}

void concurrent(const std::string& base, int n, int reps, bool half)
{
    const size_t parts = 96;
    std::vector<std::string> raws, digests;
    for (int i = 0; i < n; ++i) {
        raws.push_back(base + "/raw" + std::to_string(i));
        makeEntry(nullptr, {}, raws.back(), parts, uint64_t(i) + 1, half);
        digests.push_back(bench::sha256sum(raws.back()));
    }
    Series s;
    const std::string storeDir = base + "/store", outDir = base + "/out";
    for (int rep = 0; rep < reps; ++rep) {
        fs::remove_all(storeDir);
        fs::remove_all(outDir);
        fs::create_directories(outDir);
        std::vector<int64_t> ids;
        {
            auto store = Store::init(storeDir);
            for (int i = 0; i < n; ++i)
                ids.push_back(makeEntry(store.get(), "c" + std::to_string(i), {}, parts, uint64_t(i) + 1, half));
        }
        std::string script;
        // The parts in their order (a shell glob would put 10 before 2).
        for (int i = 0; i < n; ++i) {
            script += "cat";
            for (const auto& p : partPaths(storeDir, ids[size_t(i)], parts))
                script += " " + p;
            script += " > " + outDir + "/cat" + std::to_string(i) + " & ";
        }
        script += "wait";
        s.add("N concurrent cat PARTS > OUT", spawnAndWait({"/bin/sh", "-c", script}));
        for (int i = 0; i < n; ++i)
            checkSame(digests[size_t(i)], outDir + "/cat" + std::to_string(i), "cat");
        fs::remove_all(outDir);
        fs::create_directories(outDir);
        auto runZstd = [&] {
            std::vector<std::string> a = {zstd, "-q", "-f", "-3", "-T2", "--output-dir-flat", outDir};
            a.insert(a.end(), raws.begin(), raws.end());
            s.add("zstd -3 -T2 of the N files", spawnAndWait(a));
            fs::remove_all(outDir);
            fs::create_directories(outDir);
        };
        auto runOurs = [&] {
            std::string list;
            std::vector<std::string> watch;
            for (int i = 0; i < n; ++i) {
                list += (list.empty() ? "" : ",") + std::to_string(ids[size_t(i)]);
                watch.push_back(outDir + "/" + std::to_string(i));
            }
            s.add("N first restores in one process", spawnAndWait({selfPath, "--child", storeDir, outDir, list}, {}, watch));
            for (int i = 0; i < n; ++i)
                checkSame(digests[size_t(i)], watch[size_t(i)], "concurrent first restore");
            fs::remove_all(outDir);
            fs::create_directories(outDir);
        };
        if (rep % 2) {
            runOurs();
            runZstd();
        } else {
            runZstd();
            runOurs();
        }
    }
    fs::remove_all(storeDir);
    for (const auto& r : raws)
        fs::remove(r);
    std::printf("\nN = %d concurrent entries of %zu x 1 MiB parts (%s), load average %s; RSS bound 64 + 8 N = %d MiB\n",
                n, parts, dataName(half), bench::loadAverage().c_str(), 64 + 8 * n);
    s.print(double(size_t(n) * parts * kPart) / 1e6, "zstd -3 -T2 of the N files");
}

} // namespace

int main(int argc, char** argv)
{
    selfPath = fs::canonical("/proc/self/exe").string();
    // A command that merges behind it leaves a process that ends after it:
    // reparented here, so its resources are measured (spawnAndWait).
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (argc == 5 && std::string(argv[1]) == "--child")
        return concurrentChild(argv[2], argv[3], argv[4]);
    std::string base = "/dev/shm/cachescope-bench-merge-" + std::to_string(::getpid());
    size_t mib = 800;
    int n = 16, reps = 5;
    bool half = false;
    std::string only = "single,concurrent,put";
    std::string data = "text";
    CLI::App app{"First restore, put, merge and warm restore against zstd and cat on the same bytes (issue 11)",
                 "bench_merge"};
    app.add_option("--dir", base, "work folder (default: one per process under /dev/shm)");
    app.add_option("--cli", cli, "the cachescope-cli to measure (default: this build's)")->capture_default_str();
    app.add_option("--mib", mib, "MiB of the single entry (1 MiB parts)")->check(CLI::Range(1, 1 << 20))->capture_default_str();
    app.add_option("--n", n, "concurrent entries of 96 x 1 MiB")->check(CLI::PositiveNumber)->capture_default_str();
    app.add_option("--reps", reps, "repetitions (medians)")->check(CLI::PositiveNumber)->capture_default_str();
    app.add_option("--data", data, "bytes: text, half, words or words-half")
        ->check(CLI::IsMember({"text", "half", "words", "words-half"}))
        ->capture_default_str();
    app.add_option("--only", only, "comma-separated: single, concurrent, put, warm")->capture_default_str();
    bench::addPriorityOption(app, &fifoPriority);
    if (const int exit = bench::parseOrExit(app, argc, argv); exit >= 0)
        return exit;
    half = data == "half" || data == "words-half";
    wordsData = data == "words" || data == "words-half";
    try {
        fs::remove_all(base);
        fs::create_directories(base);
        std::printf("bench_merge: %s, %u hardware threads, files in %s, priority %s\n", cli.c_str(),
                    std::thread::hardware_concurrency(), base.c_str(), fifoPriority ? "SCHED_FIFO" : "normal");
        if (only.find("single") != std::string::npos)
            single(base, mib, reps, half);
        if (only.find("concurrent") != std::string::npos)
            concurrent(base, n, reps, half);
        if (only.find("put") != std::string::npos)
            put(base, mib, reps, half);
        if (only.find("warm") != std::string::npos)
            warm(base, mib, reps, half);
        fs::remove_all(base);
        std::printf("\n%d outputs matched their source's SHA-256 (sha256sum)\n", checkedOutputs);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_merge: %s\n", e.what());
        return 1;
    }
    return 0;
}
