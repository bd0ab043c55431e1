// Faults (issue 9, part B): a failed merge gives back what it appended, a
// failed or dead GC does not leave dedup off, stale uploads are reported and
// reaped, and a full disk (a 4 MiB tmpfs mounted for the test) still lets
// eviction and a GC dry run free space, with no 'uploading' row left by a
// failed put. Two writers with separate Store objects doing put, merge, GC,
// evict and get side by side see no spurious failure.
#include "common/TestSupport.h"
#include "StoreTestSupport.h"
#include "common/SmallDisk.h"

#include "core/gc/Gc.h"
#include "core/pack/FileLock.h"
#include "core/pack/Pack.h"
#include "core/store/Store.h"
#include "core/store/StoreTesting.h"
#include "core/util/Escape.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <sys/mount.h>

#include <atomic>
#include <cstring>
#include <chrono>
#include <thread>

using namespace cs::store;
using testsupport::SmallDisk;

class StoreFaultsTest : public QObject {
    Q_OBJECT
private slots:
    void failedMergeGivesItsAppendsBack()
    {
        QTemporaryDir tmp;
        StoreOptions o;
        o.testHooks = cs::store::testing::beforeMergeCommit([](int64_t) { throw cs::Error("injected failure before the commit"); });
        auto store = Store::init(tmp.filePath("s").toStdString(), o);
        const QByteArray data = testsupport::randomBytes(400000, 3);
        const EntryRow e = storetest::upload(*store, "k", data, 100000);
        const uint64_t end = store->pack().end();
        cs::Job job;
        job.start();
        STORE_VERIFY_THROWS(cs::Error, store->merge(e.id, job));
        QCOMPARE(store->pack().end(), end);   // nothing left appended
        QCOMPARE(QFileInfo(tmp.filePath("s/pack/0.suffix")).size(), qint64(end));
        QVERIFY(store->entry(e.id)->state == EntryState::Unmerged);
        store.reset();
        auto again = Store::open(tmp.filePath("s").toStdString());
        again->merge(e.id, job);
        QCOMPARE(storetest::restore(*again, e.id), data);
    }

    void deadGcDoesNotLeaveDedupOff()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray data = testsupport::randomBytes(300000, 4);
        cs::Job job;
        job.start();
        store->merge(storetest::upload(*store, "a", data).id, job);
        // A GC set running=1 and died (or failed to clear it on a full disk): no one holds the GC lock.
        QVERIFY(storetest::sql(store->catalogPath(), "UPDATE gc_state SET epoch=epoch+1, running=1, split="
                                                          + std::to_string(store->pack().end()) + " WHERE id=1"));
        const MergeResult m = store->merge(storetest::upload(*store, "b", data).id, job);
        QCOMPARE(m.newChunks, uint64_t(0));
        QCOMPARE(storetest::sqlInt(store->catalogPath(), "SELECT running FROM gc_state"), int64_t(0));
    }

    void staleUploadsAreReportedAndReaped()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const int64_t stale = store->reserve("stale");
        store->writePart(stale, 0, "abc", 3);
        const int64_t fresh = store->reserve("fresh");   // an upload in progress stays
        QVERIFY(storetest::sql(store->catalogPath(), "UPDATE entries SET created=created-3*86400 WHERE id="
                                                          + std::to_string(stale)));
        cs::Job job;
        job.start();
        const auto problems = store->fsck(job);
        QCOMPARE(problems.size(), size_t(1));
        QCOMPARE(problems[0].entryId, stale);
        QVERIFY2(problems[0].message.find("stale upload") != std::string::npos, problems[0].message.c_str());
        store->removeOrphans(job);
        QVERIFY(!store->entry(stale));
        QVERIFY(store->entry(fresh));
        QVERIFY(!QFile::exists(tmp.filePath("s/parts/" + QString::number(stale))));
        QVERIFY(store->fsck(job).empty());
    }

    void fullDiskStillEvictsAndDryRuns()
    {
        SmallDisk disk("4m");
        QVERIFY2(disk.mounted, disk.error.c_str());
        const QString dir = disk.path + "/s";
        QByteArray keep = testsupport::randomBytes(600000, 5);
        {
            auto store = Store::init(dir.toStdString());
            cs::Job job;
            job.start();
            store->merge(storetest::upload(*store, "keep", keep).id, job);
            store->merge(storetest::upload(*store, "old", testsupport::randomBytes(600000, 6)).id, job);
            storetest::upload(*store, "parts", testsupport::randomBytes(500000, 7));
        }
        const QString big = disk.tmp.filePath("big.bin");
        QVERIFY(testsupport::writeFile(big, testsupport::randomBytes(1500000, 8)));
        disk.fill();
        // A put fails and leaves no 'uploading' row behind.
        const auto put = testsupport::cli({"store", "put", "--wait", dir, "new", big});
        QCOMPARE(put.exitCode, 1);
        QCOMPARE(storetest::sqlInt((dir + "/catalog.db").toStdString(),
                                   "SELECT count(*) FROM entries WHERE state='uploading'"),
                 int64_t(0));
        const qint64 suffix = QFileInfo(dir + "/pack/0.suffix").size();
        // What frees space works: a GC dry run says what, eviction frees the parts.
        const auto dry = testsupport::cli({"store", "gc", dir, "--dry-run"});
        QVERIFY2(dry.exitCode == 0, dry.err.constData());
        const auto evict = testsupport::cli({"store", "evict", dir, "--key", "old", "--key", "parts"});
        QVERIFY2(evict.exitCode == 0, evict.err.constData());
        QVERIFY(!QFile::exists(dir + "/parts/3"));
        QCOMPARE(QFileInfo(dir + "/pack/0.suffix").size(), suffix);
        QVERIFY(QFile::remove(disk.path + "/filler"));
        const auto gc = testsupport::cli({"store", "gc", dir});
        QVERIFY2(gc.exitCode == 0, gc.err.constData());
        auto store = Store::open(dir.toStdString());
        QCOMPARE(storetest::restore(*store, store->findEntry("keep")->id), keep);
        cs::Job job;
        job.start();
        QVERIFY(store->fsck(job).empty());
    }

    // A warm restore whose output disk fills up while the decoding threads
    // write (SerialWrites): one error naming the output, exit 1, nothing left
    // on the disk; restored to a disk with room it is byte-exact.
    void warmRestoreOntoAFullDiskFailsCleanly()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath("s");
        const QByteArray data = testsupport::textBytes(3000000, 11) + testsupport::randomBytes(1500000, 12);
        {
            auto store = Store::init(dir.toStdString());
            storetest::upload(*store, "k", data, 1 << 20);
            cs::Job job;
            job.start();
            store->merge(store->findEntry("k")->id, job);
            QVERIFY(store->findEntry("k")->state == EntryState::Merged);
        }
        SmallDisk disk("1m");
        QVERIFY2(disk.mounted, disk.error.c_str());
        const QString out = disk.path + "/out.bin";
        for (const char* verify : {"", "--verify"}) {
            QStringList args{"store", "get", "--wait", dir, "k", out};
            if (*verify)
                args << verify;
            const auto r = testsupport::cli(args);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("out.bin") && r.err.contains("No space left on device"), r.err.constData());
            QCOMPARE(r.err.count('\n'), 1);
            QCOMPARE(QDir(disk.path).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList());
        }
        const QString good = tmp.filePath("good.bin");
        const auto r = testsupport::cli({"store", "get", "--wait", dir, "k", good, "--verify"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(testsupport::readFile(good) == data);
    }

    void gcOnAFullDiskFailsCleanly()
    {
        SmallDisk disk("4m");
        QVERIFY2(disk.mounted, disk.error.c_str());
        const QString dir = disk.path + "/s";
        const QByteArray keep = testsupport::randomBytes(900000, 9);
        {
            auto store = Store::init(dir.toStdString());
            cs::Job job;
            job.start();
            store->merge(storetest::upload(*store, "keep", keep).id, job);
            store->merge(storetest::upload(*store, "gone", testsupport::randomBytes(300000, 10)).id, job);
            EvictPolicy p;
            p.keys = {"gone"};
            store->evict(p, job);
        }
        disk.fill();
        const auto gc = testsupport::cli({"store", "gc", dir});
        QCOMPARE(gc.exitCode, 1);
        const std::string db = (dir + "/catalog.db").toStdString();
        QCOMPARE(storetest::sqlInt(db, "SELECT running FROM gc_state"), int64_t(0));
        // A failure is recorded when the catalog can still take a row; here
        // its first write (gc_state) may already fail: then no run at all.
        QCOMPARE(storetest::sqlInt(db, "SELECT count(*) FROM gc_runs WHERE status<>'failed'"), int64_t(0));
        QVERIFY(!QFile::exists(dir + "/pack/1.prefix"));
        QVERIFY(QFile::remove(disk.path + "/filler"));
        auto store = Store::open(dir.toStdString());
        cs::Job job;
        job.start();
        // Dedup works again: the same bytes append nothing.
        QCOMPARE(store->merge(storetest::upload(*store, "again", keep).id, job).newChunks, uint64_t(0));
        QCOMPARE(storetest::restore(*store, store->findEntry("keep")->id), keep);
    }

    void twoWritersSideBySideSeeNoSpuriousFailure()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("s").toStdString();
        Store::init(dir);
        std::atomic<bool> stop{false};
        std::atomic<int> failures{0};
        std::mutex errorsMutex;
        std::vector<std::string> errors;
        std::mutex dataMutex;
        std::map<std::string, QByteArray> committed;   // key -> bytes, never evicted
        auto record = [&](const std::exception& e) {
            ++failures;
            std::lock_guard g(errorsMutex);
            errors.push_back(e.what());
        };
        // Writer: puts shared keys (merged by either side), restores them.
        auto writer = [&](int who) {
            auto store = Store::open(dir);
            cs::Job job;
            job.start();
            for (int i = 0; !stop; ++i) {
                try {
                    const std::string key = "k" + std::to_string(who) + "-" + std::to_string(i);
                    const QByteArray data = testsupport::randomBytes(150000 + i * 1000, uint64_t(who * 1000 + i % 5));
                    const EntryRow e = storetest::upload(*store, key, data, 50000, 2);
                    {
                        std::lock_guard g(dataMutex);
                        committed[key] = data;
                    }
                    store->merge(e.id, job);
                    std::map<std::string, QByteArray> snapshot;
                    {
                        std::lock_guard g(dataMutex);
                        snapshot = committed;
                    }
                    for (const auto& [k, bytes] : snapshot) {
                        const auto row = store->findEntry(k);
                        if (!row)
                            throw cs::Error("committed entry " + k + " is gone");
                        store->merge(row->id, job);   // often the other writer's entry, maybe merging right now
                        if (storetest::restore(*store, row->id) != bytes)
                            throw cs::Error("entry " + k + " restored wrong bytes");
                    }
                    // Something to evict, then GC.
                    const EntryRow t = storetest::upload(*store, "tmp" + std::to_string(who), data.left(20000));
                    store->merge(t.id, job);
                    EvictPolicy p;
                    p.keys = {"tmp" + std::to_string(who)};
                    store->evict(p, job);
                    cs::gc::GcOptions o;
                    try {
                        cs::gc::collectStoreGarbage(dir, o, job);
                    } catch (const cs::Error& e) {
                        // One GC at a time is the documented rule.
                        if (std::string(e.what()).find("another GC is running") == std::string::npos)
                            throw;
                    }
                } catch (const std::exception& e) {
                    record(e);
                }
            }
        };
        std::thread a(writer, 1), b(writer, 2);
        std::this_thread::sleep_for(std::chrono::seconds(4));
        stop = true;
        a.join();
        b.join();
        QVERIFY2(failures == 0, errors.empty() ? "" : errors.front().c_str());
        auto store = Store::open(dir);
        cs::Job job;
        job.start();
        QVERIFY(committed.size() >= 2);
        for (const auto& [k, bytes] : committed)
            QCOMPARE(storetest::sha256Hex(storetest::restore(*store, store->findEntry(k)->id)), storetest::sha256Hex(bytes));
        QVERIFY(store->fsck(job).empty());
    }

    void controlCharactersAreEscapedInHumanOutput()
    {
        QCOMPARE(cs::escapeControl("plain key/é"), std::string("plain key/é"));
        QCOMPARE(cs::escapeControl("a\nb\x1b[31m\\c\x7f\xff\xc2\x9b"), std::string("a\\nb\\e[31m\\\\c\\x7F\\xFF\\u{009B}"));
        QTemporaryDir tmp;
        const QString dir = tmp.filePath("s");
        const std::string hostile = "evil\nmerged       1 KiB   1  forged row\x1b]0;title\x07";
        {
            auto store = Store::init(dir.toStdString());
            storetest::upload(*store, hostile, "bytes");
        }
        const auto ls = testsupport::cli({"store", "ls", dir});
        QCOMPARE(ls.exitCode, 0);
        QCOMPARE(ls.out.count('\n'), 2);   // the header and one row
        QVERIFY(!ls.out.contains('\x1b') && !ls.out.contains('\x07'));
        QVERIFY(ls.out.contains("evil\\nmerged"));
        const auto json = testsupport::cli({"store", "ls", dir, "--json"});
        QVERIFY(json.out.contains("evil\\nmerged"));   // JSON's own escape: the exact key
        const auto miss = testsupport::cli({"store", "get", "--wait", dir, "no\nsuch\x1b[2J", tmp.filePath("out")});
        QCOMPARE(miss.exitCode, 1);
        QCOMPARE(miss.err.count('\n'), 1);
        QVERIFY(!miss.err.contains('\x1b'));
    }
};

CACHESCOPE_CORE_TEST_MAIN(StoreFaultsTest)
#include "tst_gc_store_faults.moc"
