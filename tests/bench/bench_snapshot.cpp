// Snapshot benchmark against the stock zstd tool, on a 512 MiB file of mixed
// text and random data (generated once into the work folder and reused):
//  - decode: `cachescope-cli snapshot restore` with 1 and 2 threads against
//    `zstd -d` of the same snapshot, and `pzstd -d -p 2` of pzstd's own file
//    of the same input (pzstd decodes only what pzstd wrote in parallel):
//    wall, cpu and peak RSS;
//  - write: `cachescope-cli snapshot create` with 1 and 2 workers (8 MiB
//    chunks, level 3) against `zstd -3`, `zstd -3 -T2` and `pzstd -3 -p 2`:
//    throughput and ratio;
//  - memory: peak RSS (ru_maxrss from wait4) of `snapshot create --threads 1`
//    at 8 MiB chunks, and of `cachescope-cli --version` as the baseline.
// Every figure is the median of N runs (default 5), each a child process;
// the commands of a group run interleaved (A B C A B C ...).
// The last run's output of every decoder is checked against the input's
// SHA-256 by the stock `sha256sum`, outside the timing.
// Files go to /dev/shm/cachescope-bench when /dev/shm is there (tmpfs: the
// figures measure the tools, not the writeback of a disk shared with other
// work), else /tmp/cachescope-bench; --dir picks another folder.
//
// --priority fifo runs every measured command under SCHED_FIFO, as
// bench_merge does (FifoPriority.h).
//
// usage: bench_snapshot [--dir DIR] [--runs N] [--size MiB] [--only write,decode,memory] [--priority normal|fifo]
#include "BenchOptions.h"
#include "ChildRun.h"
#include "Sha256Check.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using bench::median;

namespace {

bool fifoPriority = false;

// A measured command: stdout to /dev/null, under SCHED_FIFO with --priority fifo.
bench::ChildRun runChild(const std::vector<std::string>& argv)
{
    return bench::runChild(argv, {.fifo = fifoPriority});
}

struct Series {
    std::string label;
    double wall = 0, cpu = 0, rssMiB = 0;
};

struct Command {
    std::string label;
    std::vector<std::string> argv;
    std::string removeBefore;   // output to delete before each run
};

// Runs the commands in rounds (A B C A B C ...) so that a change of machine
// load over time hits every command alike; medians per command.
std::vector<Series> measureInterleaved(const std::vector<Command>& commands, int runs)
{
    std::vector<std::vector<double>> walls(commands.size()), cpus(commands.size()), rss(commands.size());
    for (int i = 0; i < runs; ++i) {
        for (size_t c = 0; c < commands.size(); ++c) {
            if (!commands[c].removeBefore.empty())
                ::unlink(commands[c].removeBefore.c_str());
            const bench::ChildRun s = runChild(commands[c].argv);
            walls[c].push_back(s.wall);
            cpus[c].push_back(s.cpu);
            rss[c].push_back(s.rssMiB);
        }
    }
    std::vector<Series> out;
    for (size_t c = 0; c < commands.size(); ++c) {
        Series s{commands[c].label, median(walls[c]), median(cpus[c]), median(rss[c])};
        std::printf("  %-46s wall %7.3f s  cpu %7.3f s  maxrss %7.1f MiB\n", s.label.c_str(), s.wall, s.cpu, s.rssMiB);
        out.push_back(s);
    }
    std::fflush(stdout);
    return out;
}

uint64_t fileSize(const std::string& path)
{
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
}

// Mixed content: 1 MiB stretches, three of log-like text for one of random bytes.
void generateInput(const std::string& path, uint64_t size)
{
    static const char* words[] = {"cache", "entry", "restore", "merge", "frame", "zstd", "offset", "chunk", "mapping",
                                  "prefix", "node", "object", "gc", "pack", "upload", "hit", "miss", "key", "version"};
    std::mt19937_64 rng(512);
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
        std::perror(path.c_str());
        std::exit(1);
    }
    std::string block;
    uint64_t line = 0;
    for (uint64_t done = 0; done < size; done += 1 << 20) {
        block.clear();
        if ((done >> 20) % 4 == 3) {
            block.resize(1 << 20);
            for (size_t i = 0; i < block.size(); i += 8) {
                const uint64_t v = rng();
                std::memcpy(block.data() + i, &v, 8);
            }
        } else {
            while (block.size() < (1 << 20)) {
                block += "2026-11-30 ";
                block += std::to_string(line * 7919 % 86400);
                block += " worker-" + std::to_string(line % 13) + ":";
                const int n = 3 + int(rng() % 10);
                for (int i = 0; i < n; ++i) {
                    block += ' ';
                    block += words[rng() % (sizeof words / sizeof *words)];
                    if (rng() % 5 == 0)
                        block += "=" + std::to_string(rng() % 100000);
                }
                block += '\n';
                ++line;
            }
            block.resize(1 << 20);
        }
        std::fwrite(block.data(), 1, block.size(), f);
    }
    std::fclose(f);
}

} // namespace

int benchMain(int argc, char** argv)
{
    struct statvfs vfs {};
    const bool shm = ::statvfs("/dev/shm", &vfs) == 0 && uint64_t(vfs.f_bavail) * vfs.f_frsize > (uint64_t(3) << 30);
    std::string dir = shm ? "/dev/shm/cachescope-bench" : "/tmp/cachescope-bench";
    int runs = 5;
    uint64_t sizeMiB = 512;
    std::string only = "write,decode,memory";
    CLI::App app{"snapshot create and restore against zstd and pzstd on a file of mixed text and random bytes",
                 "bench_snapshot"};
    app.add_option("--dir", dir, "work folder")->capture_default_str();
    app.add_option("--runs", runs, "runs of each command (medians)")->check(CLI::PositiveNumber)->capture_default_str();
    app.add_option("--size", sizeMiB, "MiB of input")->check(CLI::Range(1, 1 << 20))->capture_default_str();
    app.add_option("--only", only, "comma-separated: write, decode, memory")->capture_default_str();
    bench::addPriorityOption(app, &fifoPriority);
    if (const int exit = bench::parseOrExit(app, argc, argv); exit >= 0)
        return exit;
    if (fifoPriority && !bench::FifoScope(true, bench::kFifoParentPriority).ok()) {
        std::fprintf(stderr, "--priority fifo: cannot use SCHED_FIFO (needs root or CAP_SYS_NICE)\n");
        return 2;
    }
    ::mkdir(dir.c_str(), 0755);
    const std::string cli = CACHESCOPE_CLI, zstd = ZSTD_PROGRAM, pzstd = PZSTD_PROGRAM;
    const bool havePzstd = !pzstd.empty() && ::access(pzstd.c_str(), X_OK) == 0;
    const std::string input = dir + "/mixed-" + std::to_string(sizeMiB) + "M.bin";
    const uint64_t size = sizeMiB << 20;
    if (fileSize(input) != size) {
        std::printf("generating %s ...\n", input.c_str());
        generateInput(input, size);
    }
    const std::string ours = dir + "/ours.zst", stock = dir + "/stock.zst", out = dir + "/decoded.bin";
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    std::printf("snapshot benchmark: %s (%llu MiB mixed text and random), %d runs each, medians; %ld cores; priority %s\n",
                input.c_str(), (unsigned long long)sizeMiB, runs, cores, fifoPriority ? "SCHED_FIFO" : "normal");
    double load[3] = {0, 0, 0};
    getloadavg(load, 3);
    std::printf("tools: %s, %s; load average at start %.2f %.2f %.2f\n\n", cli.c_str(), zstd.c_str(), load[0], load[1],
                load[2]);

    const double mb = double(size) / 1e6;
    // pzstd's own file of the same input: written by the write group, or once
    // here when only decoding (pzstd -d runs in parallel only on what pzstd wrote).
    const std::string pz = dir + "/pzstd.zst";
    auto prepare = [&](const std::string& path, const std::vector<std::string>& argv) {
        if (fileSize(path) == 0)
            runChild(argv);
    };

    if (only.find("write") != std::string::npos) {
        // Each command writes its own output, so the sizes can be read afterwards.
        std::printf("write (level 3; ours: 8 MiB chunks)\n");
        const std::string ours1 = dir + "/ours-1w.zst", stockT2 = dir + "/stock-T2.zst";
        std::vector<Command> commands = {
            {"cachescope snapshot create --threads 1", {cli, "snapshot", "create", input, ours1, "--threads", "1"}, ours1},
            {"cachescope snapshot create --threads 2", {cli, "snapshot", "create", input, ours, "--threads", "2"}, ours},
            {"zstd -3", {zstd, "-3", "-q", "-f", input, "-o", stock}, stock},
            {"zstd -3 -T2", {zstd, "-3", "-T2", "-q", "-f", input, "-o", stockT2}, stockT2}};
        if (havePzstd)
            commands.push_back({"pzstd -3 -p 2", {pzstd, "-3", "-p", "2", "-q", "-f", input, "-o", pz}, pz});
        const auto w = measureInterleaved(commands, runs);
        const Series &w1 = w[0], &w2 = w[1], &z1 = w[2], &z2 = w[3];
        const uint64_t oursSize = fileSize(ours), stockSize = fileSize(stock), stockSizeT2 = fileSize(stockT2);
        ::unlink(ours1.c_str());
        ::unlink(stockT2.c_str());
        ::unlink(stock.c_str());
        const double rOurs = double(size) / double(oursSize), rStock = double(size) / double(stockSize),
                     rStockT2 = double(size) / double(stockSizeT2);
        std::printf("  throughput MB/s: ours 1w %.1f, ours 2w %.1f, zstd -3 %.1f, zstd -3 -T2 %.1f\n", mb / w1.wall,
                    mb / w2.wall, mb / z1.wall, mb / z2.wall);
        std::printf("  ratio: ours %.4f (%llu B), zstd -3 %.4f (%llu B), zstd -3 -T2 %.4f (%llu B); ours vs -T2: %+.2f %% (target within 1 %%)\n",
                    rOurs, (unsigned long long)oursSize, rStock, (unsigned long long)stockSize, rStockT2,
                    (unsigned long long)stockSizeT2, (rOurs / rStockT2 - 1) * 100);
        std::printf("  speed ours 1w / zstd -3: %.2fx; ours 2w / zstd -3 -T2: %.2fx (target >= 1.4x); cpu ours 2w / zstd -3 -T2: %.2f\n",
                    z1.wall / w1.wall, z2.wall / w2.wall, w2.cpu / z2.cpu);
        if (havePzstd)
            std::printf("  pzstd -3 -p 2: %.1f MB/s, ratio %.4f; ours 2w / pzstd: %.2fx\n", mb / w[4].wall,
                        double(size) / double(fileSize(pz)), w[4].wall / w2.wall);
        std::printf("\n");
    }

    if (only.find("decode") != std::string::npos) {
        // Decode the same snapshot (ours, 8 MiB sized frames, from the 2-worker write)
        // with zstd -d and ours; pzstd -d -p 2 decodes its own file of the same input.
        prepare(ours, {cli, "snapshot", "create", input, ours, "--threads", "2"});
        if (havePzstd)
            prepare(pz, {pzstd, "-3", "-p", "2", "-q", "-f", input, "-o", pz});
        std::printf("decode %s (%llu bytes)\n", ours.c_str(), (unsigned long long)fileSize(ours));
        const std::string out1 = dir + "/decoded-1t.bin", out2 = dir + "/decoded-2t.bin", outP = dir + "/decoded-pz.bin";
        std::vector<Command> commands = {
            {"zstd -d", {zstd, "-d", "-q", "-f", ours, "-o", out}, out},
            {"cachescope snapshot restore --threads 1", {cli, "snapshot", "restore", ours, out1, "--threads", "1"}, out1},
            {"cachescope snapshot restore --threads 2", {cli, "snapshot", "restore", ours, out2, "--threads", "2"}, out2}};
        if (havePzstd)
            commands.push_back({"pzstd -d -p 2 (of pzstd's own file)", {pzstd, "-d", "-p", "2", "-q", "-f", pz, "-o", outP}, outP});
        const auto d = measureInterleaved(commands, runs);
        const Series &dz = d[0], &d1 = d[1], &d2 = d[2];
        const std::string digest = bench::sha256sum(input);
        for (const auto& c : commands)
            if (!bench::sameSha256(digest, c.removeBefore)) {
                std::fprintf(stderr, "%s: %s differs from the input (SHA-256)\n", c.label.c_str(), c.removeBefore.c_str());
                return 1;
            }
        std::printf("  every decoder's output matched the input's SHA-256 (sha256sum)\n");
        ::unlink(out1.c_str());
        ::unlink(out2.c_str());
        ::unlink(outP.c_str());
        ::unlink(out.c_str());
        std::printf("  throughput MB/s: zstd -d %.1f, ours 1t %.1f, ours 2t %.1f\n", mb / dz.wall, mb / d1.wall, mb / d2.wall);
        std::printf("  speed vs zstd -d: ours 1t %.2fx, ours 2t %.2fx (target >= 1.8x); cpu seconds ours 2t / zstd -d %.2f\n",
                    dz.wall / d1.wall, dz.wall / d2.wall, d2.cpu / dz.cpu);
        if (havePzstd) {
            const Series& dp = d[3];
            std::printf("  pzstd -d -p 2: %.1f MB/s; ours 2t / pzstd: %.2fx (target >= 1.0x); peak RSS ours 2t %.1f MiB, pzstd %.1f MiB (target: less)\n",
                        mb / dp.wall, dp.wall / d2.wall, d2.rssMiB, dp.rssMiB);
        }
        std::printf("\n");
    }

    if (only.find("memory") != std::string::npos) {
        // Memory of one writer worker.
        std::printf("memory (maxrss of the child)\n");
        const auto m = measureInterleaved({{"cachescope-cli --version", {cli, "--version"}, {}},
                                           {"cachescope snapshot create --threads 1 (8 MiB)",
                                            {cli, "snapshot", "create", input, ours, "--threads", "1", "--chunk", "8MiB"}, ours}},
                                          runs);
        const Series &base = m[0], &mem = m[1];
        std::printf("  one writer worker: %.1f MiB peak, %.1f MiB above the %.1f MiB baseline (target <= 26 MiB)\n",
                    mem.rssMiB, mem.rssMiB - base.rssMiB, base.rssMiB);
    }
    ::unlink(ours.c_str());
    ::unlink(pz.c_str());
    getloadavg(load, 3);
    std::printf("\nload average at the end %.2f %.2f %.2f\n", load[0], load[1], load[2]);
    return 0;
}

int main(int argc, char** argv)
{
    try {
        return benchMain(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_snapshot: %s\n", e.what());
        return 1;
    }
}
