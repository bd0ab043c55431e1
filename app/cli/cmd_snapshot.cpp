// cachescope-cli snapshot create SRC OUT [--chunk SIZE] [--threads N] [--level L] [--seek-table] [--json]
// cachescope-cli snapshot restore SNAP OUT [--threads N] [--memory SIZE] [--json]
#include "Command.h"

#include "core/jobs/Job.h"
#include "core/snapshot/Snapshot.h"
#include "core/util/Error.h"
#include "core/util/Units.h"

#include <QJsonObject>

#include <zstd.h>

#include <csignal>

namespace cli {
namespace {

cs::Job* g_runningJob = nullptr;

// Ctrl-C cancels the job, so the temp output is removed like on any cancel.
extern "C" void cancelOnSignal(int)
{
    if (g_runningJob)
        g_runningJob->cancel();
}

struct SignalCancel {
    explicit SignalCancel(cs::Job& job)
    {
        g_runningJob = &job;
        std::signal(SIGINT, cancelOnSignal);
        std::signal(SIGTERM, cancelOnSignal);
    }
    ~SignalCancel()
    {
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
        g_runningJob = nullptr;
    }
};

bool parseThreads(const QCommandLineParser& p, int& threads, int max)
{
    if (!p.isSet(QStringLiteral("threads")))
        return true;
    bool ok = false;
    threads = p.value(QStringLiteral("threads")).toInt(&ok);
    if (!ok || threads < 1 || threads > max) {
        printError(QStringLiteral("--threads wants a number from 1 to %1, not '%2'").arg(max).arg(p.value(QStringLiteral("threads"))));
        return false;
    }
    return true;
}

// Runs an operation that writes out; prints its one-sentence error (or that
// out was not written on cancel) and returns false when it did not complete.
template <typename Fn> bool runReported(const QString& out, Fn&& fn)
{
    try {
        fn();
        return true;
    } catch (const cs::Cancelled&) {
        printError(QStringLiteral("cancelled; %1 was not written").arg(out));
    } catch (const std::exception& e) {
        printError(QString::fromUtf8(e.what()));
    }
    return false;
}

QString seconds(double s) { return QString::number(s, 'f', 3); }
QString mbps(uint64_t bytes, double s) { return s > 0 ? QString::number(double(bytes) / 1e6 / s, 'f', 1) : QStringLiteral("-"); }

int runCreate(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Writes SRC as a snapshot: independent zstd frames of at most SIZE input bytes, each declaring its "
        "content size and carrying a checksum, in input order. Holes of a sparse SRC stay holes on restore."));
    p.addPositionalArgument(QStringLiteral("SRC"), QStringLiteral("file to snapshot"));
    p.addPositionalArgument(QStringLiteral("OUT"), QStringLiteral("snapshot to write"));
    p.addOption({QStringLiteral("chunk"), QStringLiteral("input bytes per frame (default 8MiB, 1KiB..1GiB)"), QStringLiteral("SIZE")});
    p.addOption({QStringLiteral("threads"), QStringLiteral("compression workers (default 1)"), QStringLiteral("N")});
    p.addOption({QStringLiteral("level"), QStringLiteral("zstd level (default 3)"), QStringLiteral("L")});
    p.addOption({QStringLiteral("seek-table"), QStringLiteral("append a seek table (zstd seekable format)")});
    p.addOption({QStringLiteral("json"), QStringLiteral("print the result as JSON")});
    int code = Ok;
    if (!parseOrExit(p, args, code, 2, QStringLiteral("snapshot create wants SRC and OUT")))
        return code;
    const QStringList pos = p.positionalArguments();
    cs::SnapshotWriteOptions o;
    if (p.isSet(QStringLiteral("chunk"))) {
        const auto size = cs::parseSize(p.value(QStringLiteral("chunk")).toStdString());
        if (!size || *size < cs::kMinSnapshotChunk || *size > cs::kMaxSnapshotChunk) {
            printError(QStringLiteral("--chunk wants a size from 1KiB to 1GiB, not '%1'").arg(p.value(QStringLiteral("chunk"))));
            return Usage;
        }
        o.chunk = *size;
    }
    if (!parseThreads(p, o.threads, 256))
        return Usage;
    if (p.isSet(QStringLiteral("level"))) {
        bool ok = false;
        o.level = p.value(QStringLiteral("level")).toInt(&ok);
        if (!ok || o.level < ZSTD_minCLevel() || o.level > ZSTD_maxCLevel()) {
            printError(QStringLiteral("--level wants a zstd level from %1 to %2, not '%3'")
                           .arg(ZSTD_minCLevel()).arg(ZSTD_maxCLevel()).arg(p.value(QStringLiteral("level"))));
            return Usage;
        }
    }
    o.seekTable = p.isSet(QStringLiteral("seek-table"));

    cs::Job job("snapshot create");
    SignalCancel sc(job);
    cs::SnapshotWriteResult r;
    if (!runReported(pos[1], [&] { r = cs::writeSnapshot(pos[0].toStdString(), pos[1].toStdString(), o, job); }))
        return Failure;
    if (p.isSet(QStringLiteral("json"))) {
        QJsonObject j;
        j[QStringLiteral("source")] = pos[0];
        j[QStringLiteral("snapshot")] = pos[1];
        j[QStringLiteral("chunk")] = double(o.chunk);
        j[QStringLiteral("threads")] = o.threads;
        j[QStringLiteral("level")] = o.level;
        j[QStringLiteral("input_bytes")] = double(r.inputBytes);
        j[QStringLiteral("output_bytes")] = double(r.outputBytes);
        j[QStringLiteral("ratio")] = r.ratio();
        j[QStringLiteral("frames")] = double(r.frames);
        j[QStringLiteral("data_frames")] = double(r.dataFrames);
        j[QStringLiteral("hole_frames")] = double(r.holeFrames);
        j[QStringLiteral("hole_bytes")] = double(r.holeBytes);
        j[QStringLiteral("seek_table")] = r.seekTable;
        j[QStringLiteral("wall_seconds")] = r.wallSeconds;
        j[QStringLiteral("cpu_seconds")] = r.cpuSeconds;
        printJson(QJsonDocument(j));
    } else {
        printOut(QStringLiteral("%1 -> %2: %3 -> %4 (ratio %5), %6 frames (%7 data, %8 hole%9), %10 s, %11 MB/s, %12 CPU s\n")
                     .arg(pos[0], pos[1], QString::fromStdString(cs::formatSize(r.inputBytes)),
                          QString::fromStdString(cs::formatSize(r.outputBytes)), QString::number(r.ratio(), 'f', 3))
                     .arg(r.frames).arg(r.dataFrames).arg(r.holeFrames)
                     .arg(r.seekTable ? QStringLiteral(", seek table") : QString())
                     .arg(seconds(r.wallSeconds), mbps(r.inputBytes, r.wallSeconds), seconds(r.cpuSeconds)));
    }
    return Ok;
}

int runRestore(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Decodes SNAP (a snapshot or any zstd file) into OUT: frames that declare their size are decoded by N "
        "threads straight into place, frames without one serially; checksums are verified; holes are kept."));
    p.addPositionalArgument(QStringLiteral("SNAP"), QStringLiteral("snapshot or zstd file to decode"));
    p.addPositionalArgument(QStringLiteral("OUT"), QStringLiteral("file to write"));
    p.addOption({QStringLiteral("threads"), QStringLiteral("decoding threads (default 1, at most 64)"), QStringLiteral("N")});
    p.addOption({QStringLiteral("memory"), QStringLiteral("frame buffers of all threads together (default 256MiB, at least 8MiB)"),
                 QStringLiteral("SIZE")});
    p.addOption({QStringLiteral("json"), QStringLiteral("print the result as JSON")});
    int code = Ok;
    if (!parseOrExit(p, args, code, 2, QStringLiteral("snapshot restore wants SNAP and OUT")))
        return code;
    const QStringList pos = p.positionalArguments();
    cs::SnapshotRestoreOptions o;
    if (!parseThreads(p, o.threads, cs::kMaxRestoreThreads))
        return Usage;
    if (p.isSet(QStringLiteral("memory"))) {
        const auto size = cs::parseSize(p.value(QStringLiteral("memory")).toStdString());
        if (!size || *size < cs::kMinRestoreMemoryBudget) {
            printError(QStringLiteral("--memory wants a size of at least 8MiB, not '%1'").arg(p.value(QStringLiteral("memory"))));
            return Usage;
        }
        o.memoryBudget = *size;
    }
    cs::Job job("snapshot restore");
    SignalCancel sc(job);
    cs::SnapshotRestoreResult r;
    if (!runReported(pos[1], [&] { r = cs::restoreSnapshot(pos[0].toStdString(), pos[1].toStdString(), o, job); }))
        return Failure;
    if (p.isSet(QStringLiteral("json"))) {
        QJsonObject j;
        j[QStringLiteral("snapshot")] = pos[0];
        j[QStringLiteral("output")] = pos[1];
        j[QStringLiteral("threads")] = o.threads;
        j[QStringLiteral("input_bytes")] = double(r.inputBytes);
        j[QStringLiteral("output_bytes")] = double(r.outputBytes);
        j[QStringLiteral("zstd_frames")] = double(r.zstdFrames);
        j[QStringLiteral("skippable_frames")] = double(r.skippableFrames);
        j[QStringLiteral("sized_frames")] = double(r.sizedFrames);
        j[QStringLiteral("streamed_frames")] = double(r.streamedFrames);
        j[QStringLiteral("hole_bytes")] = double(r.holeBytes);
        j[QStringLiteral("seek_table")] = r.seekTable;
        j[QStringLiteral("wall_seconds")] = r.wallSeconds;
        j[QStringLiteral("cpu_seconds")] = r.cpuSeconds;
        printJson(QJsonDocument(j));
    } else {
        printOut(QStringLiteral("%1 -> %2: %3 zstd frames (%4 in parallel, %5 streamed), %6 written (%7 left as holes), %8 s, %9 MB/s, %10 CPU s\n")
                     .arg(pos[0], pos[1]).arg(r.zstdFrames).arg(r.sizedFrames).arg(r.streamedFrames)
                     .arg(QString::fromStdString(cs::formatSize(r.outputBytes)), QString::fromStdString(cs::formatSize(r.holeBytes)),
                          seconds(r.wallSeconds), mbps(r.outputBytes, r.wallSeconds), seconds(r.cpuSeconds)));
    }
    return Ok;
}

int runSnapshot(const QStringList& args)
{
    const QString usage = QStringLiteral(
        "usage: cachescope-cli snapshot create SRC OUT [--chunk SIZE] [--threads N] [--level L] [--seek-table] [--json]\n"
        "       cachescope-cli snapshot restore SNAP OUT [--threads N] [--memory SIZE] [--json]\n");
    if (args.size() >= 2 && (args[1] == QLatin1String("--help") || args[1] == QLatin1String("-h"))) {
        printOut(usage);
        return Ok;
    }
    if (args.size() < 2) {
        printError(QStringLiteral("snapshot wants 'create' or 'restore' (see --help)"));
        return Usage;
    }
    QStringList rest = args.mid(2);
    rest.prepend(args[0] + QLatin1Char(' ') + args[1]);
    if (args[1] == QLatin1String("create"))
        return runCreate(rest);
    if (args[1] == QLatin1String("restore"))
        return runRestore(rest);
    printError(QStringLiteral("unknown snapshot action '%1': use create or restore").arg(args[1]));
    return Usage;
}

CommandRegistration reg({QStringLiteral("snapshot"), QStringLiteral("write a file as sized zstd frames, or decode one in parallel"),
                         runSnapshot});

} // namespace
} // namespace cli
