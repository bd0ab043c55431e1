// Benchmark: `cachescope-cli frames FILE --json` against `zstd -lv FILE` on a
// ~1 GiB file of many zstd frames (8 MiB chunks of mixed text and random
// data, each a frame that declares its size and carries a checksum; no seek
// table, so both tools walk every block header). The file is made once with
// libzstd under /tmp and reused. Prints the median wall time of 5 runs of
// each (after one warm-up run each, so both read from the page cache) and the
// ratio; the target is at most 1.2x.
//
// usage: bench_frames [FILE] [--runs N]
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "core/frames/FrameLayout.h"
#include "core/jobs/Job.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QStringList>

#include "BenchOptions.h"
#include "ChildRun.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using bench::median;

namespace {

constexpr uint64_t kTargetSize = 1024ull * 1024 * 1024;
constexpr size_t kChunk = 8 * 1024 * 1024;

void fillChunk(std::vector<char>& buf, std::mt19937_64& rng)
{
    static const char* words[] = {"cache", "entry", "part", "merge", "restore", "frame", "zstd", "pack",
                                  "object", "offset", "mapping", "prefix", "suffix", "node", "chunk", "gc"};
    // Alternate 64 KiB runs of text and random bytes: 1 in 4 runs is text.
    size_t i = 0;
    while (i < buf.size()) {
        const size_t run = std::min<size_t>(64 * 1024, buf.size() - i);
        if (rng() % 4 == 0) {
            size_t j = 0;
            while (j < run) {
                const char* w = words[rng() % 16];
                for (; *w && j < run; ++w)
                    buf[i + j++] = *w;
                if (j < run)
                    buf[i + j++] = ' ';
            }
        } else {
            for (size_t j = 0; j + 8 <= run; j += 8) {
                const uint64_t v = rng();
                memcpy(&buf[i + j], &v, 8);
            }
        }
        i += run;
    }
}

bool makeFile(const std::string& path)
{
    const std::string tmp = path + ".part";
    FILE* out = std::fopen(tmp.c_str(), "wb");
    if (!out)
        return false;
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
    std::vector<char> in(kChunk), dst(ZSTD_compressBound(kChunk));
    std::mt19937_64 rng(20261130);
    uint64_t written = 0;
    int frames = 0;
    while (written < kTargetSize) {
        fillChunk(in, rng);
        const size_t n = ZSTD_compress2(cctx, dst.data(), dst.size(), in.data(), in.size());
        if (ZSTD_isError(n) || std::fwrite(dst.data(), 1, n, out) != n) {
            std::fclose(out);
            ZSTD_freeCCtx(cctx);
            return false;
        }
        written += n;
        ++frames;
    }
    ZSTD_freeCCtx(cctx);
    if (std::fclose(out) != 0)
        return false;
    std::printf("made %s: %d frames, %llu bytes\n", path.c_str(), frames, (unsigned long long)written);
    return std::rename(tmp.c_str(), path.c_str()) == 0;
}

struct Timing {
    double wallMs;
    double cpuMs;   // user + sys of the child: less sensitive to other load on the machine
};

// The child's own rusage (ChildRun.h), its output and errors to /dev/null.
Timing runOnce(const QString& program, const QStringList& args)
{
    std::vector<std::string> argv{program.toStdString()};
    for (const auto& a : args)
        argv.push_back(a.toStdString());
    bench::ChildRun r;
    try {
        r = bench::runChild(argv, {.quietStderr = true});
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_frames: %s\n", e.what());
        std::exit(1);
    }
    return {r.wall * 1e3, r.cpu * 1e3};
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    int runs = 5;
    std::string path = "/tmp/cachescope-bench-frames-1GiB.zst";
    CLI::App options{"cachescope-cli frames against zstd -lv on a 1 GiB file of 161 frames", "bench_frames"};
    options.add_option("file", path, "the file (made when missing)")->capture_default_str();
    options.add_option("--runs", runs, "interleaved runs (medians)")->check(CLI::PositiveNumber)->capture_default_str();
    if (const int exit = bench::parseOrExit(options, argc, argv); exit >= 0)
        return exit;
    const QString file = QString::fromStdString(path);
    if (!QFileInfo::exists(file) && !makeFile(file.toStdString())) {
        std::fprintf(stderr, "bench_frames: cannot write %s\n", qPrintable(file));
        return 1;
    }
    const QString cli = QStringLiteral(CACHESCOPE_CLI);
    const QString zstd = QStringLiteral(ZSTD_PROGRAM);
    const QStringList ourArgs{QStringLiteral("frames"), file, QStringLiteral("--json")};
    const QStringList zstdArgs{QStringLiteral("-lv"), file};
    runOnce(cli, ourArgs); // warm-up: page cache and dynamic loader
    runOnce(zstd, zstdArgs);
    std::vector<double> ours, theirs, oursCpu, theirsCpu;
    for (int i = 0; i < runs; ++i) { // interleaved so both see the same machine load
        const Timing a = runOnce(cli, ourArgs);
        const Timing b = runOnce(zstd, zstdArgs);
        ours.push_back(a.wallMs);
        oursCpu.push_back(a.cpuMs);
        theirs.push_back(b.wallMs);
        theirsCpu.push_back(b.cpuMs);
    }
    if (qEnvironmentVariableIsSet("BENCH_VERBOSE"))
        for (int i = 0; i < runs; ++i)
            std::printf("run %d: ours %.2f ms (cpu %.2f), zstd %.2f ms (cpu %.2f)\n", i, ours[size_t(i)], oursCpu[size_t(i)],
                        theirs[size_t(i)], theirsCpu[size_t(i)]);
    const double a = median(ours), b = median(theirs);
    std::printf("file: %s (%.1f MiB)\n", qPrintable(file), double(QFileInfo(file).size()) / (1024.0 * 1024.0));
    std::printf("cachescope-cli frames FILE --json: median wall %.1f ms, cpu %.1f ms (%d runs)\n", a, median(oursCpu), runs);
    std::printf("zstd -lv FILE:                     median wall %.1f ms, cpu %.1f ms (%d runs)\n", b, median(theirsCpu), runs);
    std::printf("wall ratio (ours / zstd): %.2fx (target <= 1.2x); cpu ratio %.2fx\n", a / b,
                median(oursCpu) / median(theirsCpu));

    // The scan alone, in this process: what the frames code costs without
    // the CLI's process start (dynamic loading of its libraries).
    std::vector<double> inProcess;
    size_t frames = 0;
    for (int i = 0; i < runs; ++i) {
        cs::Job job("frames");
        QElapsedTimer t;
        t.start();
        frames = cs::scanFrames(file.toStdString(), {}, job).frames.size();
        inProcess.push_back(double(t.nsecsElapsed()) / 1e6);
    }
    std::printf("scanFrames() in process (%zu frames): median wall %.1f ms\n", frames, median(inProcess));
    const Timing start = runOnce(cli, {QStringLiteral("--version")});
    std::printf("cachescope-cli --version (process start alone): wall %.1f ms, cpu %.1f ms\n", start.wallMs, start.cpuMs);
    return 0;
}
