// GC from the GUI on a 1 GiB store: is the GUI thread ever stalled, and do
// the open views read the new generation after the swap?
//
// Builds (once, kept in DIR) a store of 16 merged entries of SIZE/16 random
// bytes each. Each run evicts the oldest entry, puts and merges a new one (so
// the store stays at SIZE and every GC has SIZE/16 to reclaim), then opens
// the Reachability view and the GC run view side by side, clicks "Run GC",
// and measures with the status bar's StallMonitor (a 10 ms heartbeat's
// lateness) the longest main-thread stall from the click to the end of the
// run; then waits for the Reachability view to re-read the new generation.
//
//   bench_gc_gui [--dir DIR] [--size-mib N] [--reps N]
//     (defaults: a folder under /tmp, 1024 MiB, 3 runs; QT_QPA_PLATFORM=offscreen
//     unless DISPLAY is set)
#include "core/gc/Gc.h"
#include "core/jobs/Job.h"
#include "core/store/Store.h"
#include "core/util/File.h"
#include "ui/gc/GcRunView.h"
#include "ui/gc/ReachabilityView.h"
#include "ui/jobs/JobRunner.h"
#include "ui/shell/StallMonitor.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <cstdio>
#include <random>

using namespace cs;

namespace {

void writeRandomFile(const std::string& path, uint64_t bytes, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    File f = File::create(path);
    std::vector<uint64_t> block(1 << 17); // 1 MiB
    for (uint64_t done = 0; done < bytes;) {
        for (auto& w : block)
            w = rng();
        const uint64_t n = std::min<uint64_t>(bytes - done, block.size() * 8);
        f.writeAll(block.data(), size_t(n));
        done += n;
    }
}

void putEntry(store::Store& s, const QString& dir, int n, uint64_t bytes)
{
    const std::string tmp = (dir + "/entry.tmp").toStdString();
    writeRandomFile(tmp, bytes, uint64_t(n) + 1);
    Job job;
    const auto row = s.putFile("gui-bench/" + std::to_string(n), tmp, job, "v1", "main");
    Job mj;
    s.merge(row.id, mj);
    QFile::remove(QString::fromStdString(tmp));
}

bool waitFor(QSignalSpy& spy, int count, int ms = 120000)
{
    QElapsedTimer t;
    t.start();
    while (spy.count() < count && t.elapsed() < ms)
        spy.wait(int(std::max<qint64>(1, ms - t.elapsed())));
    return spy.count() >= count;
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QString base = QDir::tempPath() + "/bench_gc_gui";
    uint64_t sizeMib = 1024;
    int reps = 3;
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == "--dir" && i + 1 < args.size())
            base = args[++i];
        else if (args[i] == "--size-mib" && i + 1 < args.size())
            sizeMib = std::max<uint64_t>(16, args[++i].toULongLong());
        else if (args[i] == "--reps" && i + 1 < args.size())
            reps = std::max(1, args[++i].toInt());
    }
    constexpr int kEntries = 16;
    const uint64_t entryBytes = (sizeMib << 20) / kEntries;
    QDir().mkpath(base);
    const QString storeDir = base + "/store";
    std::unique_ptr<store::Store> s;
    int next = 0;
    if (QFileInfo::exists(storeDir + "/catalog.db")) {
        s = store::Store::open(storeDir.toStdString());
        store::EntryFilter all;
        next = int(s->countEntries(all)) + 1000; // keys stay unique across invocations
    } else {
        QElapsedTimer t;
        t.start();
        s = store::Store::init(storeDir.toStdString());
        for (; next < kEntries; ++next)
            putEntry(*s, base, next, entryBytes);
        std::printf("built a store of %d entries x %.0f MiB in %.1f s\n", kEntries, double(entryBytes) / 1048576.0,
                    double(t.elapsed()) / 1000.0);
    }

    std::vector<int> stalls;
    for (int rep = 0; rep < reps; ++rep) {
        // Evict the oldest entry, add a new one: SIZE/16 to reclaim.
        {
            store::EntryFilter all;
            const auto rows = s->listEntries(all, store::SortColumn::Created, false, 0, 1);
            if (!rows.empty()) {
                store::EvictPolicy p;
                p.keys = {rows.front().key};
                Job job;
                s->evict(p, job);
            }
            putEntry(*s, base, next++, entryBytes);
        }
        ui::ReachabilityView reach(storeDir);
        QSignalSpy refreshed(&reach, &ui::ReachabilityView::refreshed);
        QSignalSpy refreshFailed(&reach, &ui::ReachabilityView::refreshFailed);
        reach.resize(1200, 600);
        reach.show();
        ui::GcRunView view(storeDir);
        QObject::connect(&view, &ui::GcRunView::storeModified, &reach, &ui::ReachabilityView::storeChanged);
        QSignalSpy history(&view, &ui::GcRunView::historyLoaded);
        QSignalSpy done(&view, &ui::GcRunView::runFinished);
        view.resize(1200, 600);
        view.show();
        if (!waitFor(refreshed, 1) || !waitFor(history, 1)) {
            std::fprintf(stderr, "bench_gc_gui: the views did not load\n");
            return 1;
        }
        ui::StallMonitor monitor;
        monitor.start();
        QTest::mouseClick(view.runButton(), Qt::LeftButton);
        if (!waitFor(done, 1, 600000) || !done.last().at(0).toBool()) {
            std::fprintf(stderr, "bench_gc_gui: the GC did not finish\n");
            return 1;
        }
        const int stall = monitor.longestStallMs();
        monitor.stop();
        const bool reread = waitFor(refreshed, 2);
        const auto& st = view.lastResult()->stats;
        double wall = 0;
        for (const auto& step : st.steps)
            wall += step.wallSeconds;
        std::printf("run %d: GC %.2f s (live %.0f MiB copied, %.0f MiB reclaimed), longest GUI stall %d ms; "
                    "reachability view re-read generation %llu: %s, refresh errors: %d\n",
                    rep + 1, wall, double(st.liveBytes) / 1048576.0, double(st.reclaimedBytes) / 1048576.0, stall,
                    (unsigned long long)reach.packSizes().generation,
                    reread && reach.packSizes().generation == st.generation ? "yes" : "NO", int(refreshFailed.count()));
        stalls.push_back(stall);
    }
    std::sort(stalls.begin(), stalls.end());
    std::printf("longest GUI stall during a GC of a %llu MiB store: median %d ms, max %d ms over %d runs (target < 50 ms)\n",
                (unsigned long long)sizeMib, stalls[stalls.size() / 2], stalls.back(), reps);
    return 0;
}
