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
                      "zstd -" + std::to_string(level) + " -T" + N, "zstd -d", "zstd -d ours", "verify zstd -d ours"},
                     {2, 4, 3, 2, 1, 0.3, 4, 3, 2, 1, 1});
        ScratchDir dir(p.text("dir").empty() ? tempRoot() : p.text("dir"), "cachescope-bench-snapshot");
        const std::string input = dir.file("input"), snap1 = dir.file("one.snap"), snapN = dir.file("n.snap"),
                          decoded = dir.file("decoded"), z1 = dir.file("t1.zst"), zN = dir.file("tn.zst"),
                          zdec = dir.file("zstd-decoded"), zours = dir.file("zstd-decoded-ours");
        ResultTable table;
        // Speeds count the populated bytes: the holes of the sparse file are
        // skipped by ours and read as zeros by zstd, and are not work.
        const double mb = double(populated) / 1e6;
        const double populatedShare = double(populated) / double(logical);

        struct Measure { double wall, cores; uint64_t peak; };
        auto measure = [&](const std::string& step, PhaseRole role, const std::function<void()>& fn) {
            job.beginStep(step);
            sink.beginPhase(step, role);
            fn();
            const uint64_t peak = sink.peakRss();
            sink.endPhase();
            const Phase& ph = lastPhase(sink.phases());
            return Measure{ph.wall(), ph.cores(), peak};
        };
        auto addOurs = [&](const std::string& label, const Measure& m, int threads) {
            table.add(label + " MB/s", m.wall > 0 ? mb / m.wall : 0, "MB/s");
            table.add(label + " cores", m.cores, "cores");
            table.add(label + " peak RSS", double(m.peak) / 1e6, "MB");
            const std::string why = whyFewerCores(lastPhase(sink.phases()), threads);
            if (!why.empty())
                table.addText(label + " cores, why fewer", why);
        };
        // Stock zstd in a child: throughput from its /proc/<pid>/io counters
        // (scaled to the populated share: zstd reads and writes the holes).
        auto runZstd = [&](const std::string& step, PhaseRole role, std::vector<std::string> argv, const std::string& in,
                           const std::string& out, bool countWritten) {
            job.beginStep(step);
            sink.beginPhase(step, role, "zstd");
            uint64_t last = 0;
            ChildSampler child(sink, "zstd");
            ChildResult r = runChild(argv, in, out, job, {}, 3600, [&](int pid) {
                if (!child.sample(pid))
                    return;
                const uint64_t io = childIoBytes(pid, countWritten);
                if (io > last) {
                    sink.addBytes(uint64_t(double(io - last) * populatedShare));
                    last = io;
                }
                job.setStepProgress(std::min(1.0, double(last) / double(logical)));
            });
            sink.setPhaseCpu(r.userSeconds, r.sysSeconds);
            sink.endPhase();
            if (r.exitCode != 0)
                throw Error(step + " failed with exit code " + std::to_string(r.exitCode));
            return r;
        };
        auto addStock = [&](const std::string& label, const ChildResult& r) {
            table.add(label + " MB/s", r.wallSeconds > 0 ? mb / r.wallSeconds : 0, "MB/s");
            table.add(label + " cores", r.wallSeconds > 0 ? r.cpuSeconds / r.wallSeconds : 0, "cores");
            table.add(label + " peak RSS", double(r.maxRssBytes) / 1e6, "MB");
        };

        measure("prepare input", PhaseRole::Setup, [&] { makeInput(input, populated, logical, sink, job); });

        SnapshotWriteOptions wo;
        wo.chunk = p.size("chunk");
        wo.level = level;
        wo.threads = 1;
        SnapshotWriteResult w1, wN;
        const std::string write1 = "write 1 worker", writeN = "write " + N + " workers", decodeN = "decode " + N + " threads";
        const Measure m1 = measure(write1, PhaseRole::Ours, [&] {
            SubJob sub(job, sink, populated);
            w1 = writeSnapshot(input, snap1, wo, sub.job());
        });
        addOurs(write1, m1, 1);
        wo.threads = workers;
        const Measure mN = measure(writeN, PhaseRole::Ours, [&] {
            SubJob sub(job, sink, populated);
            wN = writeSnapshot(input, snapN, wo, sub.job());
        });
        addOurs(writeN, mN, workers);
        table.add("ratio ours", wN.ratio(), "x");

        SnapshotRestoreOptions ro;
        ro.threads = std::min(workers, kMaxRestoreThreads);
        const Measure md = measure(decodeN, PhaseRole::Ours, [&] {
            SubJob sub(job, sink, populated);
            restoreSnapshot(snapN, decoded, ro, sub.job());
        });
        addOurs(decodeN, md, ro.threads);

        measure("verify decode", PhaseRole::Setup, [&] {
            const int64_t diff = firstDifference(input, decoded, sink, job);
            if (diff >= 0)
                throw Error(decoded + " at offset " + std::to_string(diff) + ": decoded snapshot differs from the input");
        });
        table.addText("decoded equals input", "yes");

        measure("frame layout", PhaseRole::Setup, [&] {
            SubJob sub(job, sink, 0);
            const FrameLayout layout = scanFrames(snapN, {}, sub.job());
            table.add("frames", double(layout.summary.zstdFrames + layout.summary.skippableFrames), "");
            table.add("sized frames", double(layout.summary.sizedFrames), "");
            table.add("largest frame", double(layout.summary.largestFrameSize) / 1e6, "MB");
            table.addText("frame layout", std::to_string(layout.summary.zstdFrames) + " zstd + " +
                                              std::to_string(layout.summary.skippableFrames) + " skippable frames, " +
                                              (layout.summary.parallel.splittable ? "splittable into " : "not splittable, ") +
                                              std::to_string(layout.summary.parallel.pieces) + " pieces");
        });
        const std::string lv = "-" + std::to_string(level);
        const std::string z1label = "zstd " + lv + " -T1", zNlabel = "zstd " + lv + " -T" + N;
        const ChildResult z1r =
            runZstd(z1label, PhaseRole::Reference, {zstd, "-q", "-f", lv, "-T1", "-c"}, input, z1, false);
        addStock(z1label, z1r);
        const ChildResult zNr =
            runZstd(zNlabel, PhaseRole::Reference, {zstd, "-q", "-f", lv, "-T" + N, "-c"}, input, zN, false);
        addStock(zNlabel, zNr);
        table.add("ratio zstd", fileSize(zN) ? double(logical) / double(fileSize(zN)) : 0, "x");
        const ChildResult zd =
            runZstd("zstd -d", PhaseRole::Reference, {zstd, "-q", "-d", "-f", zN, "-o", zdec}, "", "", true);
        addStock("zstd -d", zd);
        // A check, not a figure: stock zstd decodes our snapshot to the input.
        runZstd("zstd -d ours", PhaseRole::Setup, {zstd, "-q", "-d", "-f", snapN, "-o", zours}, "", "", true);
        measure("verify zstd -d ours", PhaseRole::Setup, [&] {
            const int64_t diff2 = firstDifference(input, zours, sink, job);
            if (diff2 >= 0)
                throw Error(snapN + " at offset " + std::to_string(diff2) +
                            ": stock zstd -d decodes it differently from the input");
        });
        table.addText("stock zstd decodes ours", "yes");

        table.add("input logical", double(logical) / 1e6, "MB");
        table.add("input populated", double(populated) / 1e6, "MB");
        table.addText("MB/s counts", "populated bytes only: the " + formatSize(logical) +
                                         " sparse size is a parameter, its holes are not counted");
        table.add("snapshot size", double(wN.outputBytes) / 1e6, "MB");
        table.add("decode speedup vs zstd -d", zd.wallSeconds > 0 && md.wall > 0 ? zd.wallSeconds / md.wall : 0, "x");
        table.add("write speedup vs zstd -T" + N, zNr.wallSeconds > 0 && mN.wall > 0 ? zNr.wallSeconds / mN.wall : 0, "x");

        table.compare(write1 + " MB/s", z1label + " MB/s", z1label, write1);
        table.compare(writeN + " MB/s", zNlabel + " MB/s", zNlabel, writeN);
        table.compare(decodeN + " MB/s", "zstd -d MB/s", "zstd -d", decodeN);
        table.compare(write1 + " peak RSS", z1label + " peak RSS", z1label, write1);
        table.compare(writeN + " peak RSS", zNlabel + " peak RSS", zNlabel, writeN);
        table.compare(decodeN + " peak RSS", "zstd -d peak RSS", "zstd -d", decodeN);
        table.compare("ratio ours", "ratio zstd", zNlabel);
        return table;
    }
};

} // namespace

std::unique_ptr<Scenario> makeSnapshotScenario() { return std::make_unique<SnapshotScenario>(); }

} // namespace cs
