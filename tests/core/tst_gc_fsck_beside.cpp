// fsck reads one consistent view (issue 22): run back to back beside
// uploads, merges, evictions and GCs of a healthy store (each with its own
// Store, as separate processes would), it reports nothing. Before, an entry
// read as unmerged whose merge committed meanwhile was reported as
// "parts/N/0: part 0 is missing"; a part folder a merge was removing, an
// evicted entry whose objects a GC collected, and a dedup row a GC deleted
// were findings too.
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include "core/gc/Gc.h"

#include <QTemporaryDir>

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <thread>

using namespace cs::store;

class FsckBesideTest : public QObject {
    Q_OBJECT
private slots:
    void fsckBesideMergePutEvictAndGcFindsNothing()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("s").toStdString();
        Store::init(dir);
        // CACHESCOPE_FSCK_BESIDE_SECONDS makes a longer run (default 6 s).
        const double seconds = qEnvironmentVariableIsSet("CACHESCOPE_FSCK_BESIDE_SECONDS")
                                   ? qEnvironmentVariable("CACHESCOPE_FSCK_BESIDE_SECONDS").toDouble()
                                   : 6.0;
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(int64_t(seconds * 1000));
        std::atomic<bool> stop{false};
        std::mutex m;
        std::deque<std::pair<int64_t, std::string>> toMerge;
        std::vector<std::string> mergedKeys;
        std::vector<std::string> errors;
        auto error = [&](const std::string& what) {
            std::lock_guard g(m);
            errors.push_back(what);
        };
        std::atomic<int> puts{0}, merges{0}, gcs{0};

        std::thread putter([&] {
            try {
                auto store = Store::open(dir);
                for (int n = 0; !stop; ++n) {
                    // Parts of 16 KiB: merges take long enough to be seen mid-way.
                    const QByteArray data = testsupport::randomBytes(120000 + 997 * (n % 7), uint64_t(100 + n));
                    const std::string key = "p" + std::to_string(n);
                    const auto row = storetest::upload(*store, key, data, 16 << 10, 2);
                    std::lock_guard g(m);
                    toMerge.push_back({row.id, key});
                    ++puts;
                }
            } catch (const std::exception& e) {
                error(std::string("put: ") + e.what());
            }
        });
        std::thread merger([&] {
            try {
                auto store = Store::open(dir);
                cs::Job job;
                job.start();
                while (!stop) {
                    std::optional<std::pair<int64_t, std::string>> next;
                    {
                        std::lock_guard g(m);
                        if (!toMerge.empty()) {
                            next = toMerge.front();
                            toMerge.pop_front();
                        }
                    }
                    if (!next) {
                        std::this_thread::sleep_for(std::chrono::milliseconds(2));
                        continue;
                    }
                    try {
                        store->merge(next->first, job);
                        ++merges;
                        std::lock_guard g(m);
                        mergedKeys.push_back(next->second);
                    } catch (const cs::Error& e) {
                        // evicted before its merge came: the collector's doing
                        const std::string w = e.what();
                        if (w.find("removed") == std::string::npos && w.find("does not exist") == std::string::npos)
                            throw;
                    }
                }
            } catch (const std::exception& e) {
                error(std::string("merge: ") + e.what());
            }
        });
        std::thread collector([&] {
            try {
                auto store = Store::open(dir);
                cs::Job job;
                job.start();
                for (int n = 0; !stop; ++n) {
                    // Evict every other merged entry, then collect what they held.
                    EvictPolicy p;
                    {
                        std::lock_guard g(m);
                        for (size_t k = 0; k < mergedKeys.size(); k += 2)
                            p.keys.push_back(mergedKeys[k]);
                    }
                    if (!p.keys.empty())
                        store->evict(p, job);
                    cs::Job g;
                    try {
                        cs::gc::collectStoreGarbage(dir, {}, g);
                        ++gcs;
                    } catch (const cs::Error& e) {
                        // fsck holds the GC lock for a moment to list leftovers
                        if (std::string(e.what()).find("another GC is running") == std::string::npos)
                            throw;
                    }
                    std::this_thread::sleep_for(std::chrono::milliseconds(150));
                }
            } catch (const std::exception& e) {
                error(std::string("gc: ") + e.what());
            }
        });

        int runs = 0;
        std::vector<std::string> findings;
        {
            auto store = Store::open(dir);
            while (std::chrono::steady_clock::now() < until || runs < 10) {
                cs::Job job;
                job.start();
                for (const auto& p : store->fsck(job))
                    findings.push_back("run " + std::to_string(runs) + ": " + p.message);
                ++runs;
            }
        }
        stop = true;
        putter.join();
        merger.join();
        collector.join();
        qInfo("%d fsck runs beside %d puts, %d merges, %d GCs", runs, int(puts), int(merges), int(gcs));
        QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
        QVERIFY2(findings.empty(), findings.empty() ? "" : findings.front().c_str());
        QVERIFY(merges > 0 && gcs > 0);
        // Quiet again: still nothing (only merged and unmerged entries, no stale upload).
        auto store = Store::open(dir);
        cs::Job job;
        job.start();
        const auto last = store->fsck(job);
        QVERIFY2(last.empty(), last.empty() ? "" : last.front().message.c_str());
    }
};

CACHESCOPE_CORE_TEST_MAIN(FsckBesideTest)
#include "tst_gc_fsck_beside.moc"
