// Sorting the cache-server entries table by size over every entry (issue
// 28 target: a 1,000,000-entry catalog sorted by size shows its first page
// in at most 300 ms with the size index warm, and the GUI thread stalls at
// most 50 ms).
//
// Makes the catalog (bench/ScaleCatalog.h: N rows in the server's schema)
// on a PostgreSQL 15 this program starts (tests/common/TestServers.h), or
// in SQLite with --sqlite, and a storage folder where every (N/M)-th entry
// has its folder with one part (a sparse file of a pseudo-random size up
// to 2 GiB; the others' folders are missing, size 0, as after a lost
// disk). Builds the size index once (the first scan, timed), rescans it
// (timed), then opens the deployment in a cache-server document and, for
// each run, sorts the entries table by size (largest first, then smallest
// first), timing the click to the first page painted and, with a
// StallMonitor (a 10 ms heartbeat's lateness), the GUI thread's longest
// stall from the click until the model is idle again (the first sort also
// runs the one rescan per read), and beside it the longest event-loop turn
// in the GUI thread's own CPU time (testsupport::BusyProbe: what the GUI
// thread did, without the time it waited for a CPU on a loaded machine).
// The waits run a real event loop (blocking between events, as exec()
// does), not QTest::qWaitFor's sleeps of 10 ms between two passes. Between runs the table goes back to key
// order. Checks the first row is the largest (smallest) size. Prints each
// run, the medians and maxima, and the load average.
//
//   bench_actions_sort [--entries N] [--sized M] [--runs K] [--sqlite] [--dir DIR]
//     (defaults: 1,000,000 entries, 10,000 sized, 5 runs, PostgreSQL, under /tmp;
//     QT_QPA_PLATFORM=offscreen unless DISPLAY is set)
#include "bench/ScaleCatalog.h"
#include "common/BusyProbe.h"
#include "common/LoadAverage.h"
#include "common/TestServers.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/SizeIndex.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/remote/PgConnection.h"
#include "ui/actions/ActionsBrowser.h"
#include "ui/actions/ActionsDocument.h"
#include "ui/actions/ActionsEntryModel.h"
#include "ui/shell/StallMonitor.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QHeaderView>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

int usage()
{
    std::fprintf(stderr, "usage: bench_actions_sort [--entries N] [--sized M] [--runs K] [--sqlite] [--dir DIR]\n");
    return 2;
}

double secondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

template <typename T>
T median(std::vector<T> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? T{} : v[v.size() / 2];
}

// The size of sized entry i's one part: pseudo-random, 1 KiB .. 2 GiB.
uint64_t partSize(uint64_t i)
{
    uint64_t x = i * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    return 1024 + x % (uint64_t(2) << 30);
}

// Runs the event loop (blocking in it, as the application's exec() does)
// until done() holds, checked every 2 ms; false after timeoutMs.
template <typename Done>
bool runUntil(Done done, int timeoutMs = 600000)
{
    if (done())
        return true;
    QEventLoop loop;
    QTimer check;
    QElapsedTimer clock;
    clock.start();
    bool ok = false;
    QObject::connect(&check, &QTimer::timeout, &loop, [&] {
        if (done()) {
            ok = true;
            loop.quit();
        } else if (clock.elapsed() > timeoutMs) {
            loop.quit();
        }
    });
    check.start(2);
    loop.exec();
    return ok;
}

struct Sort {
    double firstPageMs = 0;   // click to the first page painted
    int stallMs = 0;          // longest GUI stall from the click until the model is idle (heartbeat lateness)
    double busyMs = 0;        // the longest event-loop turn in the GUI thread's CPU time, over the same span
    double turnWallMs = 0;    // the same turn in wall time (more when the thread blocked or waited for a CPU)
    double idleMs = 0;        // click until the model is idle (the rescan, on the first sort)
    bool right = false;       // the first row has the expected size
};

} // namespace

int run(QApplication& app);

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    try {
        return run(app);   // returns through the destructors: the PostgreSQL it started stops
    } catch (const cs::Error& e) {
        std::fprintf(stderr, "bench_actions_sort: %s\n", e.what());
        return 1;
    }
}

int run(QApplication& app)
{
    setvbuf(stdout, nullptr, _IOLBF, 0);
    uint64_t entries = 1000000, sized = 10000;
    int runs = 5;
    bool sqlite = false;
    QString base = QDir::tempPath();
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        const QString& a = args[i];
        const bool more = i + 1 < args.size();
        if (a == "--entries" && more)
            entries = args[++i].toULongLong();
        else if (a == "--sized" && more)
            sized = args[++i].toULongLong();
        else if (a == "--runs" && more)
            runs = args[++i].toInt();
        else if (a == "--dir" && more)
            base = args[++i];
        else if (a == "--sqlite")
            sqlite = true;
        else
            return usage();
    }
    if (entries == 0 || runs <= 0 || sized == 0 || sized > entries)
        return usage();

    QTemporaryDir tmp(base + "/bench-actions-sort-XXXXXX");
    qputenv("XDG_CACHE_HOME", tmp.filePath("xdg-cache").toUtf8());
    QCoreApplication::setOrganizationName(QStringLiteral("cachescope-bench-actions-sort"));
    testsupport::PgTestServer pg;
    std::string db;
    auto t0 = Clock::now();
    if (sqlite) {
        QDir().mkpath(tmp.filePath("data"));
        db = tmp.filePath("data/sqlite.db").toStdString();   // the index (xdg-cache) must be outside its folder
        bench::fillSqlite(db, entries, 1);
    } else {
        QString why;
        if (!pg.start(&why)) {
            std::fprintf(stderr, "bench_actions_sort: cannot start PostgreSQL: %s\n", qPrintable(why));
            return 1;
        }
        cs::remote::PgConnection::connect(pg.conninfo().toStdString())->exec("CREATE DATABASE sortbench");
        db = pg.conninfo("sortbench").toStdString();
        bench::fillPg(*cs::remote::PgConnection::connect(db), entries, 1);
    }
    std::printf("catalog: %llu entries on %s, filled in %.1f s\n", (unsigned long long)entries,
                sqlite ? "SQLite" : "PostgreSQL 15", secondsSince(t0));

    // Every (N/M)-th entry has its folder and one part.
    const QString storage = tmp.filePath("data/storage");
    QDir().mkpath(storage);
    t0 = Clock::now();
    const uint64_t step = entries / sized;
    uint64_t largest = 0, smallest = UINT64_MAX;
    // Opening checks the first entries in key order have their folders (is
    // it this server's storage?): those 16 are sized too.
    std::vector<std::pair<std::string, uint64_t>> byKey;
    byKey.reserve(entries);
    for (uint64_t i = 1; i <= entries; ++i)
        byKey.emplace_back("cache-" + std::to_string((i * 2654435761ull) % 4294967296ull), i);
    const size_t first = std::min<size_t>(16, byKey.size());
    std::partial_sort(byKey.begin(), byKey.begin() + ptrdiff_t(first), byKey.end());
    std::vector<uint64_t> chosen;
    for (size_t k = 0; k < first; ++k)
        chosen.push_back(byKey[k].second);
    byKey = {};
    for (uint64_t k = 0; k < sized; ++k)
        chosen.push_back(1 + k * step);
    std::sort(chosen.begin(), chosen.end());
    chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
    for (const uint64_t i : chosen) {
        const QString parts = storage + "/" + QString::number(1000000000ull + i) + "/parts";
        QDir().mkpath(parts);
        const int fd = ::open((parts + "/0").toUtf8().constData(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0 || ::ftruncate(fd, off_t(partSize(i))) != 0) {
            std::fprintf(stderr, "bench_actions_sort: cannot write %s/0\n", qPrintable(parts));
            return 1;
        }
        ::close(fd);
        largest = std::max(largest, partSize(i));
        smallest = std::min(smallest, partSize(i));
    }
    std::printf("storage: %zu folders with one part (sparse), made in %.1f s; the other %llu folders missing\n",
                chosen.size(), secondsSince(t0), (unsigned long long)(entries - chosen.size()));

    cs::actions::DataDirPaths paths;
    paths.dbPath = db;
    paths.storageDir = storage.toStdString();
    {
        auto cache = cs::actions::ActionsCache::open(paths);
        cs::Job job("index");
        job.start();
        t0 = Clock::now();
        const auto first = cache->refreshIndex(&job);
        std::printf("size index: first scan %.1f s (%llu rows, %llu folders listed, %llu stamped)\n", secondsSince(t0),
                    (unsigned long long)first.rowsRead, (unsigned long long)first.foldersListed,
                    (unsigned long long)first.foldersStamped);
        t0 = Clock::now();
        const auto again = cache->refreshIndex(&job);
        std::printf("size index: rescan %.1f s (%llu rows, %llu ids, %llu folders listed, %llu stamped)\n",
                    secondsSince(t0), (unsigned long long)again.rowsRead, (unsigned long long)again.idsRead,
                    (unsigned long long)again.foldersListed, (unsigned long long)again.foldersStamped);
    }

    ui::ActionsDataLocation where;
    where.paths = paths;
    auto* doc = ui::ActionsDocument::openServer(where);
    doc->resize(1300, 800);
    doc->show();
    if (!runUntil([doc] { return doc->isLoaded() && !doc->isReading(); })) {
        std::fprintf(stderr, "bench_actions_sort: the document did not open\n");
        return 1;
    }
    ui::ActionsBrowser* b = doc->browser();
    ui::ActionsEntryModel* m = b->model();
    QTableView* table = b->table();
    auto pause = [](int ms) {
        QElapsedTimer t;
        t.start();
        runUntil([&] { return t.elapsed() >= ms; });
    };
    pause(500);

    auto waitIdle = [m] { return runUntil([m] { return !m->isFetching(); }); };
    std::vector<Sort> sorts;
    for (int run = 0; run < runs; ++run) {
        for (const Qt::SortOrder order : {Qt::DescendingOrder, Qt::AscendingOrder}) {
            // Back to key order, the read's own rows.
            table->sortByColumn(ui::ActionsEntryModel::Key, Qt::AscendingOrder);
            if (!waitIdle())
                return 1;
            pause(200);
            QSignalSpy page(m, &ui::ActionsEntryModel::pageFetched);
            ui::StallMonitor monitor;
            monitor.start();
            testsupport::BusyProbe busy;
            pause(30);   // the heartbeat running before the click
            busy.reset();
            QElapsedTimer t;
            t.start();
            table->horizontalHeader()->setSortIndicator(ui::ActionsEntryModel::Size, order);
            Sort s;
            if (!runUntil([&] { return page.size() > 0; }) || !page.first().at(0).toBool()) {
                std::fprintf(stderr, "bench_actions_sort: no first page\n");
                return 1;
            }
            table->viewport()->repaint();
            s.firstPageMs = double(t.nsecsElapsed()) / 1e6;
            if (!waitIdle())
                return 1;
            s.idleMs = double(t.nsecsElapsed()) / 1e6;
            pause(30);
            s.stallMs = monitor.longestStallMs();
            s.busyMs = busy.longestTurnMs();
            s.turnWallMs = busy.longestTurnWallMs();
            const auto top = b->proxy()->index(0, ui::ActionsEntryModel::Size).data(ui::ActionsEntryModel::SortRole);
            // Smallest first: the entries without a folder (size 0) come first.
            s.right = top.toULongLong() == (order == Qt::DescendingOrder ? largest : 0);
            std::printf("run %d, %s first: first page %.1f ms, longest stall %d ms (longest event-loop turn %.1f ms of "
                        "GUI-thread cpu, %.1f ms wall), idle after %.0f ms, top row %s%s\n",
                        run + 1, order == Qt::DescendingOrder ? "largest" : "smallest", s.firstPageMs, s.stallMs,
                        s.busyMs, s.turnWallMs, s.idleMs, qPrintable(b->proxy()->index(0, ui::ActionsEntryModel::Size).data().toString()),
                        s.right ? "" : " (WRONG)");
            sorts.push_back(s);
        }
    }
    std::vector<double> firsts;
    std::vector<int> stalls;
    std::vector<double> busies;
    bool right = true;
    for (const auto& s : sorts) {
        firsts.push_back(s.firstPageMs);
        stalls.push_back(s.stallMs);
        busies.push_back(s.busyMs);
        right = right && s.right;
    }
    std::printf("sorted by size, %llu entries on %s: first page median %.1f ms, max %.1f ms (target <= 300: %s); "
                "longest stall median %d ms, max %d ms (target <= 50: %s); longest event-loop turn in GUI-thread cpu "
                "median %.1f ms, max %.1f ms; order %s; load average %s\n",
                (unsigned long long)entries, sqlite ? "SQLite" : "PostgreSQL", median(firsts),
                *std::max_element(firsts.begin(), firsts.end()),
                *std::max_element(firsts.begin(), firsts.end()) <= 300 ? "yes" : "no", median(stalls),
                *std::max_element(stalls.begin(), stalls.end()),
                *std::max_element(stalls.begin(), stalls.end()) <= 50 ? "yes" : "no", median(busies),
                *std::max_element(busies.begin(), busies.end()), right ? "right" : "WRONG",
                qPrintable(testsupport::loadAverageText()));
    delete doc;
    return right ? 0 : 1;
}
