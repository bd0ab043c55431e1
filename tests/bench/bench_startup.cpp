// Benchmark: what a command costs before it does anything, the process
// start of cachescope-cli side by side with zstd's (issue 24's targets):
//   cachescope-cli --version      against zstd --version     (target <= 2x)
//   cachescope-cli frames FILE    against zstd -lv FILE      (target <= 1.5x)
// on a 1 MiB zstd file (made here under /tmp with the zstd program). The
// two commands of a pair run alternately, after warm-up runs, so both see
// the same load and page cache; prints the median wall and CPU (user + sys,
// from wait4) of each, the ratio of the wall medians, and the load average.
//
// usage: bench_startup [--runs N] [--cli PATH] [--priority fifo]
#include "BenchOptions.h"
#include "ChildRun.h"

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using bench::median;

namespace {

struct Pair {
    std::string name;
    std::vector<std::string> ours, reference;
    double target;
};

std::string makeFile()
{
    const std::string raw = "/tmp/cachescope-bench-startup.bin", zst = raw + ".zst";
    std::ifstream have(zst);
    if (have)
        return zst;
    std::mt19937_64 rng(24);
    std::string data(1 << 20, '\0');
    for (size_t i = 0; i < data.size(); ++i)   // half text-like, half random: compresses to ~0.6 MiB
        data[i] = (i / 4096) % 2 ? char(rng()) : char('a' + rng() % 8);
    std::ofstream(raw, std::ios::binary).write(data.data(), std::streamsize(data.size()));
    bench::runChild({ZSTD_PROGRAM, "-q", "-f", raw, "-o", zst});
    std::remove(raw.c_str());
    return zst;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app("Process start of cachescope-cli against zstd (--version, frames of a 1 MiB file)", "bench_startup");
    int runs = 41;
    std::string cli = CACHESCOPE_CLI;
    bool fifo = false;
    app.add_option("--runs", runs, "Runs of each command (after 3 warm-up runs)")->check(CLI::Range(1, 100000));
    app.add_option("--cli", cli, "The cachescope-cli to measure");
    bench::addPriorityOption(app, &fifo);
    if (const int rc = bench::parseOrExit(app, argc, argv); rc >= 0)
        return rc;
    try {
        const std::string file = makeFile();
        const std::vector<Pair> pairs = {
            {"--version", {cli, "--version"}, {ZSTD_PROGRAM, "--version"}, 2.0},
            {"frames of 1 MiB", {cli, "frames", file}, {ZSTD_PROGRAM, "-lv", file}, 1.5},
        };
        bench::ChildOptions o;
        o.fifo = fifo;
        o.quietStderr = true;   // zstd --version writes to stderr
        std::printf("load average before: %s\n", bench::loadAverage().c_str());
        for (const Pair& p : pairs) {
            for (int i = 0; i < 3; ++i) {
                bench::runChild(p.ours, o);
                bench::runChild(p.reference, o);
            }
            std::vector<double> oursWall, oursCpu, refWall, refCpu;
            for (int i = 0; i < runs; ++i) {
                const bench::ChildRun a = bench::runChild(p.ours, o);
                const bench::ChildRun b = bench::runChild(p.reference, o);
                oursWall.push_back(a.wall);
                oursCpu.push_back(a.cpu);
                refWall.push_back(b.wall);
                refCpu.push_back(b.cpu);
            }
            const double ratio = median(oursWall) / median(refWall);
            std::printf("%-16s cachescope-cli %.2f ms wall (%.2f ms CPU), zstd %.2f ms wall (%.2f ms CPU): "
                        "%.2fx, target <= %.1fx %s (median of %d, load average %s)\n",
                        p.name.c_str(), median(oursWall) * 1e3, median(oursCpu) * 1e3, median(refWall) * 1e3,
                        median(refCpu) * 1e3, ratio, p.target, ratio <= p.target ? "met" : "MISSED", runs,
                        bench::loadAverage().c_str());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_startup: %s\n", e.what());
        return 1;
    }
    return 0;
}
