// cachescope-cli snapshot create SRC OUT [--chunk SIZE] [--threads N] [--level L] [--seek-table] [--json]
// cachescope-cli snapshot restore SNAP OUT [--threads N] [--memory SIZE] [--json]
#include "CancelledOutput.h"
#include "CommandTree.h"
#include "SignalCancel.h"
#include "TerminalProgress.h"

#include "core/jobs/Job.h"
#include "core/snapshot/Snapshot.h"
#include "core/util/Error.h"
#include "core/util/OutputFile.h"
#include "core/util/Units.h"

#include <zstd.h>

#include <sys/stat.h>

namespace cli {
namespace {

std::string mbps(uint64_t bytes, double s) { return s > 0 ? fixed(double(bytes) / 1e6 / s, 1) : "-"; }

uint64_t fileSize(const std::string& path)
{
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? uint64_t(st.st_size) : 0;
}

// "-" reads standard input (sequentially, like a pipe).
std::string inputPath(const std::string& path) { return path == "-" ? "/dev/stdin" : path; }

CLI::Option* addThreads(CLI::App* c, int& threads, const std::string& what, int max)
{
    return c->add_option("--threads", threads, what + " (default 1, 1.." + std::to_string(max) + ")")
        ->type_name("N")
        ->transform(range(1, max));
}

struct CreateArgs {
    std::string src, out;
    std::optional<uint64_t> chunk;
    int threads = 1;
    int level = 3;
    bool seekTable = false;
    bool json = false;
    bool quiet = false;
};

int runCreate(const CreateArgs& a)
{
    cs::SnapshotWriteOptions o;
    if (a.chunk)
        o.chunk = *a.chunk;
    o.threads = a.threads;
    o.level = a.level;
    o.seekTable = a.seekTable;
    cs::Job job("snapshot create");
    SignalCancel sc(job);
    TerminalProgress progress(job, fileSize(inputPath(a.src)), a.quiet);
    cs::SnapshotWriteResult r;
    job.start(); // the clock of the rate and the time left
    CancelledOutput(a.out).run(sc, [&] { r = cs::writeSnapshot(inputPath(a.src), a.out, o, job); });
    cs::keepSummaryOutOfData(a.out);
    progress.clear();
    if (a.json) {
        Json j = Json::object();
        j["source"] = a.src;
        j["snapshot"] = a.out;
        j["chunk"] = o.chunk;
        j["threads"] = o.threads;
        j["level"] = o.level;
        j["input_bytes"] = r.inputBytes;
        j["output_bytes"] = r.outputBytes;
        j["ratio"] = r.ratio();
        j["frames"] = r.frames;
        j["data_frames"] = r.dataFrames;
        j["hole_frames"] = r.holeFrames;
        j["hole_bytes"] = r.holeBytes;
        j["seek_table"] = r.seekTable;
        j["wall_seconds"] = r.wallSeconds;
        j["cpu_seconds"] = r.cpuSeconds;
        printJson(j);
    } else {
        printSummary(a.src + " -> " + a.out + ": " + cs::formatSize(r.inputBytes) + " -> " + cs::formatSize(r.outputBytes) +
                         " (ratio " + fixed(r.ratio(), 3) + "), " + std::to_string(r.frames) + " frames (" +
                         std::to_string(r.dataFrames) + " data, " + std::to_string(r.holeFrames) + " hole" +
                         (r.seekTable ? ", seek table" : "") + "), " + fixed(r.wallSeconds, 3) + " s, " +
                         mbps(r.inputBytes, r.wallSeconds) + " MB/s, " + fixed(r.cpuSeconds, 3) + " CPU s\n",
                     a.out == "-");
    }
    return Ok;
}

struct RestoreArgs {
    std::string snap, out;
    int threads = 1;
    std::optional<uint64_t> memory;
    bool json = false;
    bool quiet = false;
};

int runRestore(const RestoreArgs& a)
{
    cs::SnapshotRestoreOptions o;
    o.threads = a.threads;
    if (a.memory)
        o.memoryBudget = *a.memory;
    cs::Job job("snapshot restore");
    SignalCancel sc(job);
    TerminalProgress progress(job, fileSize(a.snap), a.quiet);
    cs::SnapshotRestoreResult r;
    job.start();
    CancelledOutput(a.out).run(sc, [&] { r = cs::restoreSnapshot(a.snap, a.out, o, job); });
    cs::keepSummaryOutOfData(a.out);
    progress.clear();
    if (a.json) {
        Json j = Json::object();
        j["snapshot"] = a.snap;
        j["output"] = a.out;
        j["threads"] = o.threads;
        j["input_bytes"] = r.inputBytes;
        j["output_bytes"] = r.outputBytes;
        j["zstd_frames"] = r.zstdFrames;
        j["skippable_frames"] = r.skippableFrames;
        j["sized_frames"] = r.sizedFrames;
        j["streamed_frames"] = r.streamedFrames;
        j["hole_bytes"] = r.holeBytes;
        j["seek_table"] = r.seekTable;
        j["wall_seconds"] = r.wallSeconds;
        j["cpu_seconds"] = r.cpuSeconds;
        printJson(j);
    } else {
        printSummary(a.snap + " -> " + a.out + ": " + std::to_string(r.zstdFrames) + " zstd frames (" +
                         std::to_string(r.sizedFrames) + " in parallel, " + std::to_string(r.streamedFrames) +
                         " streamed), " + cs::formatSize(r.outputBytes) + " written (" + cs::formatSize(r.holeBytes) +
                         " left as holes), " + fixed(r.wallSeconds, 3) + " s, " + mbps(r.outputBytes, r.wallSeconds) +
                         " MB/s, " + fixed(r.cpuSeconds, 3) + " CPU s\n",
                     a.out == "-");
    }
    return Ok;
}

TreeRegistration regSnapshot("", "snapshot", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("snapshot", "Write a file as sized zstd frames, or decode one in parallel");
    c->require_subcommand(1);
    return c;
});

TreeRegistration regCreate("snapshot", "create", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("create", "Write SRC as a snapshot of independent sized, checksummed zstd frames");
    c->footer("Frames of at most SIZE input bytes, each declaring its content size and carrying a checksum, in input "
              "order. Holes of a sparse SRC stay holes on restore. SRC may be a pipe, or - for standard input (read "
              "sequentially, no hole detection). OUT is written through OUT.tmp-XXXXXX and renamed at the end; on "
              "failure or Ctrl-C nothing is left.");
    auto a = std::make_shared<CreateArgs>();
    addPath(c, "SRC", a->src, "File to snapshot (- for standard input)");
    addPath(c, "OUT", a->out, "Snapshot to write");
    addSizeOption(c, "chunk", a->chunk, "Input bytes per frame (default 8MiB, 1KiB..1GiB)", cs::kMinSnapshotChunk,
                  cs::kMaxSnapshotChunk);
    addThreads(c, a->threads, "Compression workers", 256);
    c->add_option("--level", a->level, "zstd level (default 3)")
        ->type_name("L")
        ->transform(range(ZSTD_minCLevel(), ZSTD_maxCLevel()));
    c->add_flag("--seek-table", a->seekTable, "Append a seek table (zstd seekable format)");
    c->add_flag("--json", a->json, "Print the result as JSON");
    addQuiet(c, a->quiet);
    onRun(c, [a] { return runCreate(*a); });
    return c;
});

TreeRegistration regRestore("snapshot", "restore", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("restore", "Decode SNAP (a snapshot or any zstd file) into OUT in parallel");
    c->footer("Frames that declare their size are decoded by N threads straight into place, frames without one "
              "serially; checksums are verified; holes are kept. OUT is written through OUT.tmp-XXXXXX and renamed "
              "at the end.");
    auto a = std::make_shared<RestoreArgs>();
    addPath(c, "SNAP", a->snap, "Snapshot or zstd file to decode");
    addPath(c, "OUT", a->out, "File to write");
    addThreads(c, a->threads, "Decoding threads", cs::kMaxRestoreThreads);
    addSizeOption(c, "memory", a->memory, "Frame buffers of all threads together (default 256MiB, at least 8MiB)",
                  cs::kMinRestoreMemoryBudget);
    c->add_flag("--json", a->json, "Print the result as JSON");
    addQuiet(c, a->quiet);
    onRun(c, [a] { return runRestore(*a); });
    return c;
});

} // namespace
} // namespace cli
