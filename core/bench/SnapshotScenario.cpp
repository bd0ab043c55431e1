// The `snapshot` scenario: a sparse file of P populated bytes in S logical
// bytes (mixed text and random data in evenly spaced extents) is written as a
// snapshot with 1 and N workers, decoded back with N threads and compared
// byte for byte with the input; the same input goes through stock `zstd`
// (-3 with 1 and N threads, then `zstd -d`) in the same run, and stock
// `zstd -d` must decode our snapshot to the same bytes.
#include "core/bench/Scenarios.h"

#include "core/frames/FrameLayout.h"
#include "core/snapshot/Snapshot.h"
#include "core/util/Error.h"
#include "core/util/File.h"
#include "core/util/Units.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

namespace cs {

namespace {

// Bytes a child read and wrote so far (/proc/<pid>/io), for its throughput.
uint64_t childIoBytes(int pid, bool written)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/io");
    std::string key;
    uint64_t value = 0;
    while (in >> key >> value)
        if (key == (written ? "wchar:" : "rchar:"))
            return value;
    return 0;
}

void makeInput(const std::string& path, uint64_t populated, uint64_t logical, SampleSink& sink, Job& job)
{
    File f = File::create(path);
    f.truncate(logical);
    const uint64_t extents = std::max<uint64_t>(1, std::min<uint64_t>(8, populated / (64 << 10)));
    const uint64_t perExtent = populated / extents;
    const uint64_t stride = logical / extents;
    std::vector<char> buf(1 << 20);
    std::mt19937_64 rng(42);
    static const char* words[] = {"cache ", "entry ", "part ", "merge ", "restore ", "frame ", "zstd ", "pack\n"};
    uint64_t written = 0;
    for (uint64_t e = 0; e < extents; ++e) {
        const uint64_t extentBytes = e + 1 == extents ? populated - perExtent * (extents - 1) : perExtent;
        uint64_t off = e * stride;
        for (uint64_t done = 0; done < extentBytes;) {
            job.checkCancel();
            const size_t n = size_t(std::min<uint64_t>(buf.size(), extentBytes - done));
            // Alternate 1 MiB blocks: 3 of text, 1 of random bytes.
            if ((done >> 20) % 4 == 3) {
                for (size_t i = 0; i + 8 <= n; i += 8) {
                    const uint64_t v = rng();
                    std::memcpy(buf.data() + i, &v, 8);
                }
            } else {
                size_t i = 0;
                while (i < n) {
                    const char* w = words[rng() % 8];
                    const size_t len = std::min(std::strlen(w), n - i);
                    std::memcpy(buf.data() + i, w, len);
                    i += len;
                }
            }
            f.writeAt(buf.data(), n, off + done);
            done += n;
            written += n;
            sink.addBytes(n);
            job.setStepProgress(written, populated);
        }
    }
    f.sync();
}

// Compares two files byte for byte; returns the first differing offset or -1.
int64_t firstDifference(const std::string& a, const std::string& b, SampleSink& sink, Job& job)
{
    File fa = File::openRead(a), fb = File::openRead(b);
    const uint64_t size = fa.size();
    if (fb.size() != size)
        return int64_t(std::min(size, fb.size()));
    std::vector<char> ba(4 << 20), bb(4 << 20);
    for (uint64_t off = 0; off < size;) {
        job.checkCancel();
        const size_t n = size_t(std::min<uint64_t>(ba.size(), size - off));
        fa.readAt(ba.data(), n, off);
        fb.readAt(bb.data(), n, off);
        if (std::memcmp(ba.data(), bb.data(), n) != 0) {
            for (size_t i = 0; i < n; ++i)
                if (ba[i] != bb[i])
                    return int64_t(off + i);
        }
        off += n;
        sink.addBytes(n);
        job.setStepProgress(off, size);
    }
    return -1;
}

uint64_t fileSize(const std::string& path)
{
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
}

class SnapshotScenario : public Scenario {
public:
    std::string name() const override { return "snapshot"; }
    std::string description() const override
    {
        return "Write a sparse file as a snapshot with 1 and N workers, decode it, and compare with stock zstd.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {
            {"populated", ParamKind::Size, "512MiB", "bytes of data in the input file"},
            {"sparse", ParamKind::Size, "2GiB", "logical size of the input file (the rest are holes)"},
            {"workers", ParamKind::Int, "0", "writer workers and decoder threads for the N runs (0 = all cores)"},
            {"chunk", ParamKind::Size, "8MiB", "input bytes per frame"},
            {"level", ParamKind::Int, "3", "zstd level for ours and stock zstd"},
            {"dir", ParamKind::Path, "", "scratch folder (default $TMPDIR or /tmp)"},
            {"zstd", ParamKind::Path, "zstd", "stock zstd program"},
        };
    }

    ResultTable run(const Params& p, SampleSink& sink, Job& job) override
    {
        const uint64_t populated = p.size("populated");
        const uint64_t logical = p.size("sparse");
        if (logical < populated)
            throw Error("parameter sparse=" + p.raw("sparse") + " is smaller than populated=" + p.raw("populated"));
        if (logical == 0)
            throw Error("parameter sparse must be larger than 0");
        int workers = int(p.integer("workers"));
        if (workers <= 0)
            workers = std::max(1, int(std::thread::hardware_concurrency()));
        const int level = int(p.integer("level"));
        const std::string zstd = findProgram(p.text("zstd"));
        if (zstd.empty())
            throw Error("stock zstd not found (parameter zstd=" + p.text("zstd") + ")");
        const std::string N = std::to_string(workers);

        job.setSteps({"prepare input", "write 1 worker", "write " + N + " workers", "decode " + N + " threads",
                      "verify decode", "frame layout", "zstd -" + std::to_string(level) + " -T1",
                      "zstd -" + std::to_string(level) + " -T" + N, "zstd -d", "zstd -d ours"},
                     {2, 4, 3, 2, 1, 0.3, 4, 3, 2, 2});
        ScratchDir dir(p.text("dir").empty() ? tempRoot() : p.text("dir"), "cachescope-bench-snapshot");
        const std::string input = dir.file("input"), snap1 = dir.file("one.snap"), snapN = dir.file("n.snap"),
                          decoded = dir.file("decoded"), z1 = dir.file("t1.zst"), zN = dir.file("tn.zst"),
                          zdec = dir.file("zstd-decoded"), zours = dir.file("zstd-decoded-ours");
        ResultTable table;
        const double mb = double(logical) / 1e6;

        struct Measure { double wall, cpu; uint64_t peak; };
        auto measure = [&](const std::string& step, const std::function<void()>& fn) {
            job.beginStep(step);
            sink.resetBytes();
            sink.resetPeakRss();
            const double cpu0 = processCpuSeconds();
            const double t0 = sink.now();
            fn();
            return Measure{sink.now() - t0, processCpuSeconds() - cpu0, sink.peakRss()};
        };
        auto addOurs = [&](const std::string& label, const Measure& m) {
            table.add(label + " MB/s", m.wall > 0 ? mb / m.wall : 0, "MB/s");
            table.add(label + " cores", m.wall > 0 ? m.cpu / m.wall : 0, "cores");
            table.add(label + " peak RSS", double(m.peak) / 1e6, "MB");
        };
        // Stock zstd in a child: throughput from its /proc/<pid>/io counters.
        auto runZstd = [&](const std::string& step, std::vector<std::string> argv, const std::string& in,
                           const std::string& out, bool countWritten) {
            job.beginStep(step);
            sink.resetBytes();
            uint64_t last = 0;
            double lastT = 0;
            ChildResult r = runChild(argv, in, out, job, {}, 3600, [&](int pid) {
                if (sink.now() - lastT < 0.1)
                    return;
                lastT = sink.now();
                const uint64_t io = childIoBytes(pid, countWritten);
                if (io > last) {
                    sink.addBytes(io - last);
                    last = io;
                }
                const uint64_t rss = rssBytesOf(pid);
                if (rss)
                    sink.add("zstd RSS MB", double(rss) / 1e6);
                job.setStepProgress(std::min(1.0, double(last) / double(logical)));
            });
            if (r.exitCode != 0)
                throw Error(step + " failed with exit code " + std::to_string(r.exitCode));
            return r;
        };
        auto addStock = [&](const std::string& label, const ChildResult& r) {
            table.add(label + " MB/s", r.wallSeconds > 0 ? mb / r.wallSeconds : 0, "MB/s");
            table.add(label + " cores", r.wallSeconds > 0 ? r.cpuSeconds / r.wallSeconds : 0, "cores");
            table.add(label + " peak RSS", double(r.maxRssBytes) / 1e6, "MB");
        };

        measure("prepare input", [&] { makeInput(input, populated, logical, sink, job); });

        SnapshotWriteOptions wo;
        wo.chunk = p.size("chunk");
        wo.level = level;
        wo.threads = 1;
        SnapshotWriteResult w1, wN;
        const Measure m1 = measure("write 1 worker", [&] {
            SubJob sub(job, sink, logical);
            w1 = writeSnapshot(input, snap1, wo, sub.job());
        });
        addOurs("write 1 worker", m1);
        wo.threads = workers;
        const Measure mN = measure("write " + N + " workers", [&] {
            SubJob sub(job, sink, logical);
            wN = writeSnapshot(input, snapN, wo, sub.job());
        });
        addOurs("write " + N + " workers", mN);
        table.add("ratio ours", wN.ratio(), "x");

        SnapshotRestoreOptions ro;
        ro.threads = std::min(workers, kMaxRestoreThreads);
        const Measure md = measure("decode " + N + " threads", [&] {
            SubJob sub(job, sink, logical);
            restoreSnapshot(snapN, decoded, ro, sub.job());
        });
        addOurs("decode " + N + " threads", md);

        job.beginStep("verify decode");
        sink.resetBytes();
        const int64_t diff = firstDifference(input, decoded, sink, job);
        if (diff >= 0)
            throw Error(decoded + " at offset " + std::to_string(diff) + ": decoded snapshot differs from the input");
        table.addText("decoded equals input", "yes");

        job.beginStep("frame layout");
        {
            SubJob sub(job, sink, 0);
            const FrameLayout layout = scanFrames(snapN, {}, sub.job());
            table.add("frames", double(layout.summary.zstdFrames + layout.summary.skippableFrames), "");
            table.add("sized frames", double(layout.summary.sizedFrames), "");
            table.add("largest frame", double(layout.summary.largestFrameSize) / 1e6, "MB");
            table.addText("frame layout", std::to_string(layout.summary.zstdFrames) + " zstd + " +
                                              std::to_string(layout.summary.skippableFrames) + " skippable frames, " +
                                              (layout.summary.parallel.splittable ? "splittable into " : "not splittable, ") +
                                              std::to_string(layout.summary.parallel.pieces) + " pieces");
        }
        const std::string lv = "-" + std::to_string(level);
        const ChildResult z1r = runZstd("zstd " + lv + " -T1", {zstd, "-q", "-f", lv, "-T1", "-c"}, input, z1, false);
        addStock("zstd " + lv + " -T1", z1r);
        const ChildResult zNr =
            runZstd("zstd " + lv + " -T" + N, {zstd, "-q", "-f", lv, "-T" + N, "-c"}, input, zN, false);
        addStock("zstd " + lv + " -T" + N, zNr);
        table.add("ratio zstd", fileSize(zN) ? double(logical) / double(fileSize(zN)) : 0, "x");
        const ChildResult zd = runZstd("zstd -d", {zstd, "-q", "-d", "-f", zN, "-o", zdec}, "", "", true);
        addStock("zstd -d", zd);
        runZstd("zstd -d ours", {zstd, "-q", "-d", "-f", snapN, "-o", zours}, "", "", true);
        sink.resetBytes();
        const int64_t diff2 = firstDifference(input, zours, sink, job);
        if (diff2 >= 0)
            throw Error(snapN + " at offset " + std::to_string(diff2) + ": stock zstd -d decodes it differently from the input");
        table.addText("stock zstd decodes ours", "yes");

        table.add("input logical", double(logical) / 1e6, "MB");
        table.add("input populated", double(populated) / 1e6, "MB");
        table.add("snapshot size", double(wN.outputBytes) / 1e6, "MB");
        table.add("decode speedup vs zstd -d", zd.wallSeconds > 0 && md.wall > 0 ? zd.wallSeconds / md.wall : 0, "x");
        table.add("write speedup vs zstd -T" + N, zNr.wallSeconds > 0 && mN.wall > 0 ? zNr.wallSeconds / mN.wall : 0, "x");
        return table;
    }
};

} // namespace

std::unique_ptr<Scenario> makeSnapshotScenario() { return std::make_unique<SnapshotScenario>(); }

} // namespace cs
