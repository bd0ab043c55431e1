// cachescope-cli demo [DIR]: makes the demo dataset (snapshots of different
// frame layouts, written by the core) in DIR, by default the user's data
// folder. Idempotent: when DIR/.complete exists it only prints DIR.
#include "Command.h"
#include "DemoDataset.h"

#include "core/jobs/Job.h"
#include "core/snapshot/Snapshot.h"
#include "core/util/File.h"
#include "core/util/Units.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>

namespace cli {

static std::vector<DemoItem>& demoRegistry()
{
    static std::vector<DemoItem> items;
    return items;
}

void registerDemoItem(DemoItem item)
{
    demoRegistry().push_back(std::move(item));
}

std::vector<DemoItem> demoItems()
{
    auto items = demoRegistry();
    std::stable_sort(items.begin(), items.end(), [](const DemoItem& a, const DemoItem& b) { return a.order < b.order; });
    return items;
}

namespace {

constexpr uint64_t kDemoSourceSize = uint64_t(24) << 20;

QString sourcePath(const QString& dir) { return dir + QStringLiteral("/.demo-source"); }

// Mixed content: mostly log-like text, with a stretch of random bytes every
// few MiB, so that the ratio varies from frame to frame.
void writeDemoSource(const QString& path)
{
    static const char* words[] = {"cache", "entry", "restore", "merge", "frame", "zstd", "offset", "chunk",
                                  "mapping", "prefix", "node", "object", "gc", "pack", "upload", "hit", "miss"};
    std::mt19937_64 rng(20261130);
    std::string block;
    cs::File f = cs::File::create(path.toStdString());
    uint64_t written = 0;
    uint64_t line = 0;
    while (written < kDemoSourceSize) {
        block.clear();
        const bool random = (written / (1 << 20)) % 6 == 5;
        if (random) {
            block.resize(1 << 20);
            for (size_t i = 0; i + 8 <= block.size(); i += 8) {
                const uint64_t v = rng();
                std::memcpy(block.data() + i, &v, 8);
            }
        } else {
            while (block.size() < (1 << 20)) {
                block += "2026-11-30T04:" + std::to_string(10 + line % 50) + " job " + std::to_string(line % 977) + ":";
                const int n = 4 + int(rng() % 9);
                for (int i = 0; i < n; ++i) {
                    block += ' ';
                    block += words[rng() % (sizeof words / sizeof *words)];
                }
                block += '\n';
                ++line;
            }
            block.resize(1 << 20);
        }
        f.writeAll(block.data(), block.size());
        written += block.size();
    }
}

QString describe(const QString& path, const cs::SnapshotWriteResult& r)
{
    return QStringLiteral("%1: %2 -> %3, %4 frames%5")
        .arg(path, QString::fromStdString(cs::formatSize(r.inputBytes)), QString::fromStdString(cs::formatSize(r.outputBytes)))
        .arg(r.frames)
        .arg(r.seekTable ? QStringLiteral(", seek table") : QString());
}

QString makeSnapshot(const QString& dir, const QString& name, uint64_t chunk, bool seekTable, int threads)
{
    cs::SnapshotWriteOptions o;
    o.chunk = chunk;
    o.seekTable = seekTable;
    o.threads = threads;
    cs::Job job("demo " + name.toStdString());
    const QString out = dir + QLatin1Char('/') + name;
    return describe(out, cs::writeSnapshot(sourcePath(dir).toStdString(), out.toStdString(), o, job));
}

DemoItemRegistration sized({QStringLiteral("sized-frames.zst"), 10, [](const QString& dir) {
    return makeSnapshot(dir, QStringLiteral("sized-frames.zst"), 1 << 20, false, 2);
}});

DemoItemRegistration seekable({QStringLiteral("seekable.zst"), 20, [](const QString& dir) {
    return makeSnapshot(dir, QStringLiteral("seekable.zst"), 2 << 20, true, 2);
}});

DemoItemRegistration unsized({QStringLiteral("streamed-unsized.zst"), 30, [](const QString& dir) {
    cs::Job job("demo streamed-unsized.zst");
    const QString out = dir + QStringLiteral("/streamed-unsized.zst");
    const auto r = cs::compressStreamUnsized(sourcePath(dir).toStdString(), out.toStdString(), 3, job);
    return QStringLiteral("%1: %2 -> %3, one frame without a content size")
        .arg(out, QString::fromStdString(cs::formatSize(r.inputBytes)), QString::fromStdString(cs::formatSize(r.outputBytes)));
}});

DemoItemRegistration small({QStringLiteral("small-frames.zst"), 40, [](const QString& dir) {
    return makeSnapshot(dir, QStringLiteral("small-frames.zst"), 64 << 10, false, 2);
}});

// A 64 MiB sparse file with 4 MiB of data: its holes become hole markers.
DemoItemRegistration sparse({QStringLiteral("sparse.zst"), 50, [](const QString& dir) {
    const QString src = dir + QStringLiteral("/.demo-sparse");
    {
        cs::File in = cs::File::openRead(sourcePath(dir).toStdString());
        cs::File f = cs::File::create(src.toStdString());
        std::string buf(1 << 20, '\0');
        for (int i = 0; i < 4; ++i) {
            in.readAt(buf.data(), buf.size(), uint64_t(i) << 20);
            f.writeAt(buf.data(), buf.size(), uint64_t(i) * (16 << 20) + (3 << 20));
        }
        f.truncate(uint64_t(64) << 20);
    }
    cs::SnapshotWriteOptions o;
    cs::Job job("demo sparse.zst");
    const QString out = dir + QStringLiteral("/sparse.zst");
    QString line;
    try {
        line = describe(out, cs::writeSnapshot(src.toStdString(), out.toStdString(), o, job));
    } catch (...) {
        QFile::remove(src);
        throw;
    }
    QFile::remove(src);
    return line;
}});

int runDemo(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Makes a demo dataset in DIR (default: the user's data folder): snapshots of different frame layouts "
        "written by the core. Does nothing but print DIR when DIR/.complete exists."));
    p.addPositionalArgument(QStringLiteral("DIR"), QStringLiteral("folder to fill"), QStringLiteral("[DIR]"));
    int code = Ok;
    if (!parseOrExit(p, args, code))
        return code;
    const QStringList pos = p.positionalArguments();
    if (pos.size() > 1) {
        printError(QStringLiteral("demo wants at most one folder (see --help)"));
        return Usage;
    }
    const QString dir = QDir::cleanPath(QFileInfo(pos.isEmpty()
        ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/demo")
        : pos[0]).absoluteFilePath());
    const QString complete = dir + QStringLiteral("/.complete");
    if (QFileInfo::exists(complete)) {
        printOut(dir + QLatin1Char('\n'));
        return Ok;
    }
    if (!QDir().mkpath(dir)) {
        printError(QStringLiteral("%1: cannot create the folder").arg(dir));
        return Failure;
    }
    try {
        writeDemoSource(sourcePath(dir));
        for (const DemoItem& item : demoItems())
            printOut(QStringLiteral("created %1\n").arg(item.create(dir)));
    } catch (const std::exception& e) {
        QFile::remove(sourcePath(dir));
        printError(QString::fromUtf8(e.what()));
        return Failure;
    }
    QFile::remove(sourcePath(dir));
    cs::writeFileAtomic(complete.toStdString(), "cachescope demo dataset\n");
    printOut(dir + QLatin1Char('\n'));
    return Ok;
}

CommandRegistration reg({QStringLiteral("demo"), QStringLiteral("make a demo dataset (snapshots of different layouts)"), runDemo});

} // namespace
} // namespace cli
