// Store round trips: upload in shuffled parts from several threads, first
// restore (stream + merge), warm restore (parallel decode), to a file and to
// a stream; a missing part; re-put of a key; the schema.
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include "core/store/StoreTesting.h"

#include "core/pack/Pack.h"
#include "core/util/Error.h"

#include <QDir>
#include <QFile>

#include <chrono>
#include <thread>

using namespace cs::store;

class StoreRoundTripTest : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data()
    {
        storetest::addRoundTripRows(qsizetype(64) << 20);
    }

    void roundTrip()
    {
        QFETCH(QByteArray, data);
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const std::string truth = storetest::sha256Hex(data);
        const EntryRow e = storetest::upload(*store, "key", data, 1 << 20, 4, "v1", "refs/heads/main");
        QCOMPARE(e.state, EntryState::Unmerged);
        QCOMPARE(e.size, uint64_t(data.size()));
        QCOMPARE(e.sha256, truth);
        QCOMPARE(e.partCount, uint32_t((data.size() + (1 << 20) - 1) / (1 << 20)));

        // First restore: streams the parts and merges in the same pass.
        cs::Job job;
        job.start();
        const RestoreRequest req = storetest::request("key", {}, "v1", "refs/heads/main");
        const QString out1 = tmp.filePath("out1");
        const RestoreResult r1 = store->restoreToFile(req, out1.toStdString(), job);
        QVERIFY(r1.mergedNow);
        QCOMPARE(r1.matchedBy, std::string("key"));
        QCOMPARE(testsupport::sha256OfFile(out1), truth);
        QCOMPARE(QFileInfo(out1).size(), data.size());
        const auto merged = store->entry(e.id);
        QCOMPARE(merged->state, EntryState::Merged);
        QVERIFY(!QDir(QString::fromStdString(store->dir() + "/parts/" + std::to_string(e.id))).exists());
        QVERIFY(merged->lastAccess > 0);

        // Warm: parallel decode into a file, and as a stream.
        const QString out2 = tmp.filePath("out2");
        const RestoreResult r2 = store->restoreToFile(req, out2.toStdString(), job);
        QVERIFY(!r2.mergedNow);
        QCOMPARE(testsupport::readFile(out2), data);
        RestoreResult r3;
        QCOMPARE(storetest::restore(*store, e.id, &r3), data);
        QVERIFY(store->fsck(job).empty());
        // No temp files left next to the outputs.
        QCOMPARE(QDir(tmp.path()).entryList(QDir::Files).size(), 2);
    }

    // A first restore renames its output into place once the parts are all
    // out and matched their commit's CRC-32Cs, before the merge commits (the
    // reader does not wait for compression, the pack fsync and the catalog
    // transaction).
    void firstRestoreDeliversBeforeTheMergeCommits()
    {
        QTemporaryDir tmp;
        const QByteArray data = testsupport::textBytes(9 << 20, 11);
        const QString out = tmp.filePath("out");
        QByteArray atCommit;
        bool existedAtCommit = false;
        StoreOptions opts;
        opts.testHooks = cs::store::testing::beforeMergeCommit([&](int64_t) {
            existedAtCommit = QFileInfo::exists(out);
            atCommit = testsupport::readFile(out);
        });
        auto store = Store::init(tmp.filePath("s").toStdString(), opts);
        const EntryRow e = storetest::upload(*store, "k", data, 1 << 20, 2);
        cs::Job job;
        job.start();
        QVERIFY(store->restoreEntryToFile(e.id, out.toStdString(), job).mergedNow);
        QVERIFY(existedAtCommit);
        QCOMPARE(atCommit, data);
        QCOMPARE(store->entry(e.id)->state, EntryState::Merged);
        QCOMPARE(testsupport::readFile(out), data);
        QCOMPARE(QDir(tmp.path()).entryList(QDir::Files), QStringList{"out"});
    }

    // Before the output is handed over, every part is checked against the
    // size and CRC-32C of its commit (the first pass copies the parts; the
    // merge comes behind). A changed part: one sentence naming it, no
    // output, no temp file, nothing appended to the pack, the entry
    // still unmerged. The merge checks the CRCs again on its own pass.
    // Parts without a CRC (catalogs before schema 4) go through the teeing
    // merge and the whole SHA-256 instead.
    // Two changed parts in the middle: the delivery's checker (a thread of
    // its own beside the kernel copy) names the first one, and the copy
    // stops; nothing is handed over, the entry stays unmerged, and once the
    // parts are right again the same restore delivers and merges.
    void firstRestoreNamesTheFirstChangedPart()
    {
        QTemporaryDir tmp;
        const QByteArray data = testsupport::randomBytes(6 << 20, 21);
        auto store = Store::init(tmp.filePath("s").toStdString());
        const EntryRow e = storetest::upload(*store, "k", data, 1 << 20, 2);
        const QString out = tmp.filePath("out");
        for (int index : {3, 1}) {
            QByteArray flipped = data.mid(index << 20, 1 << 20);
            flipped[1000] = char(flipped[1000] ^ 0x40);
            QVERIFY(testsupport::writeFile(tmp.filePath("s/parts/" + QString::number(e.id) + "/" + QString::number(index)),
                                           flipped));
        }
        cs::Job job;
        job.start();
        try {
            store->restoreEntryToFile(e.id, out.toStdString(), job);
            QFAIL("changed parts were restored");
        } catch (const cs::Error& ex) {
            QVERIFY2(QString::fromUtf8(ex.what()).contains("/1: part 1 does not match the CRC-32C"), ex.what());
        }
        QVERIFY(!QFileInfo::exists(out));
        QCOMPARE(QDir(tmp.path()).entryList(QDir::Files), QStringList{});
        QCOMPARE(store->entry(e.id)->state, EntryState::Unmerged);
        for (int index : {1, 3})
            QVERIFY(testsupport::writeFile(tmp.filePath("s/parts/" + QString::number(e.id) + "/" + QString::number(index)),
                                           data.mid(index << 20, 1 << 20)));
        QVERIFY(store->restoreEntryToFile(e.id, out.toStdString(), job).mergedNow);
        QCOMPARE(testsupport::readFile(out), data);
        QCOMPARE(storetest::restore(*store, e.id), data);
    }

    void firstRestoreChecksEveryPartBeforeDelivering()
    {
        QTemporaryDir tmp;
        const QByteArray data = testsupport::textBytes(5 << 20, 12);
        auto store = Store::init(tmp.filePath("s").toStdString());
        const EntryRow e = storetest::upload(*store, "k", data, 1 << 20, 2);
        const QString part = tmp.filePath("s/parts/" + QString::number(e.id) + "/4");
        const QString out = tmp.filePath("out");
        const auto packBytes = [&] { return storetest::packBytes(tmp.filePath("s")); };
        const qint64 packBefore = packBytes();
        QByteArray flipped = data.mid(4 << 20);
        flipped[7] = char(flipped[7] ^ 1);
        QVERIFY(testsupport::writeFile(part, flipped));
        cs::Job job;
        job.start();
        for (int merge = 0; merge < 2; ++merge) {
            std::string why;
            try {
                if (merge)
                    store->merge(e.id, job);
                else
                    store->restoreEntryToFile(e.id, out.toStdString(), job);
            } catch (const cs::Error& ex) {
                why = ex.what();
            }
            QVERIFY2(QString::fromStdString(why).contains("/4: part 4 does not match the CRC-32C"), why.c_str());
            QVERIFY(!QFileInfo::exists(out));
            QCOMPARE(QDir(tmp.path()).entryList(QDir::Files), QStringList{});
            QCOMPARE(store->entry(e.id)->state, EntryState::Unmerged);
            QCOMPARE(packBytes(), packBefore);
        }

        // Without CRCs: the same part is caught by the whole SHA-256.
        QVERIFY(storetest::sql(store->catalogPath(), "UPDATE parts SET crc32c=NULL"));
        try {
            store->restoreEntryToFile(e.id, out.toStdString(), job);
            QFAIL("a changed part without a CRC was restored");
        } catch (const cs::Error& ex) {
            QVERIFY2(QString::fromUtf8(ex.what()).contains("no longer match the size and SHA-256"), ex.what());
        }
        QVERIFY(!QFileInfo::exists(out));
        QCOMPARE(store->entry(e.id)->state, EntryState::Unmerged);
        QVERIFY(testsupport::writeFile(part, data.mid(4 << 20)));
        QVERIFY(store->restoreEntryToFile(e.id, out.toStdString(), job).mergedNow);
        QCOMPARE(testsupport::readFile(out), data);
        QCOMPARE(storetest::restore(*store, e.id), data);
        QVERIFY(store->fsck(job).empty());
    }

    void mergeThenRestoreAcrossReopen()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("s").toStdString();
        const QByteArray data = testsupport::textBytes(5 << 20, 3);
        int64_t id = 0;
        {
            auto store = Store::init(dir);
            id = storetest::upload(*store, "k", data, 300000, 3).id;
            cs::Job job;
            job.start();
            const MergeResult m = store->merge(id, job);
            QVERIFY(m.merged);
            QVERIFY(m.chunks >= 1);
            QCOMPARE(m.newChunks, m.chunks);
            // A second merge is a no-op.
            QVERIFY(!store->merge(id, job).merged);
        }
        auto store = Store::open(dir);
        QCOMPARE(storetest::restore(*store, id), data);
    }

    void missingPartFailsAndChangesNothing()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray data = testsupport::randomBytes(4 << 20, 11);
        const EntryRow partial = storetest::upload(*store, "k", data, 1 << 20, 3, {}, {}, 2);
        for (std::optional<uint32_t> expected : {std::optional<uint32_t>(4), std::optional<uint32_t>()}) {
            try {
                store->commit(partial.id, expected);
                QFAIL("commit with a missing part succeeded");
            } catch (const cs::Error& e) {
                QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("part 2 of 4 is missing")), e.what());
            }
            const auto row = store->entry(partial.id);
            QCOMPARE(row->state, EntryState::Uploading);
            QCOMPARE(store->countEntries(storetest::inState(EntryState::Unmerged)), uint64_t(0));
            QCOMPARE(storetest::sqlInt(store->catalogPath(), "SELECT count(*) FROM parts"), int64_t(0));
        }
        // The last part missing is only detectable with the expected count.
        const EntryRow lastMissing = storetest::upload(*store, "k2", data, 1 << 20, 3, {}, {}, 3);
        STORE_VERIFY_THROWS(cs::Error, store->commit(lastMissing.id, 4));
        // Supplying the part makes the commit work.
        store->writePart(partial.id, 2, data.constData() + (2 << 20), 1 << 20);
        const EntryRow done = store->commit(partial.id, 4);
        QCOMPARE(done.sha256, storetest::sha256Hex(data));
        QCOMPARE(storetest::restore(*store, done.id), data);
        // Writing to a committed upload is refused.
        STORE_VERIFY_THROWS(cs::Error, store->writePart(done.id, 4, "x", 1));
    }

    void reputReplaces()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray a = testsupport::randomBytes(3 << 20, 1);
        const QByteArray b = testsupport::textBytes(2 << 20, 2);
        const QByteArray c = testsupport::textBytes(1 << 20, 5);
        const EntryRow ea = storetest::upload(*store, "same", a, 1 << 20, 2, "v", "s");
        cs::Job job;
        job.start();
        store->merge(ea.id, job);
        const EntryRow eb = storetest::upload(*store, "same", b, 1 << 20, 2, "v", "s");   // replaces a merged entry
        QVERIFY(!store->entry(ea.id));
        QCOMPARE(store->countEntries({}), uint64_t(1));
        const EntryRow ec = storetest::upload(*store, "same", c, 1 << 20, 2, "v", "s");   // replaces an unmerged one
        QVERIFY(!store->entry(eb.id));
        QVERIFY(!QDir(QString::fromStdString(store->dir() + "/parts/" + std::to_string(eb.id))).exists());
        QCOMPARE(store->countEntries({}), uint64_t(1));
        // Another version or scope is another entry.
        storetest::upload(*store, "same", a, 1 << 20, 2, "v2", "s");
        QCOMPARE(store->countEntries({}), uint64_t(2));
        const auto found = store->lookup(storetest::request("same", {}, "v", "s"));
        QVERIFY(found);
        QCOMPARE(found->first.id, ec.id);
        QCOMPARE(storetest::restore(*store, ec.id), c);
    }

    void streamingSinkGetsBytesInOrder()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray data = testsupport::textBytes(9 << 20, 21);
        const EntryRow e = storetest::upload(*store, "k", data, 700000, 4);
        QByteArray first;
        RestoreResult r;
        first = storetest::restore(*store, e.id, &r);   // stream + merge
        QVERIFY(r.mergedNow);
        QCOMPARE(first, data);
        QCOMPARE(storetest::restore(*store, e.id), data);  // decode
    }

    // The parts go to the reader on a thread beside the merge. A reader that
    // fails midway (a full disk, a closed pipe) fails the merge too, whoever
    // is ahead: its error comes out, nothing stays appended to the pack, the
    // entry stays unmerged with its parts, and the next first restore works.
    void firstRestoreFailedDeliveryMergesNothing()
    {
        QTemporaryDir tmp;
        const QByteArray data = testsupport::textBytes(12 << 20, 22);
        auto store = Store::init(tmp.filePath("s").toStdString());
        const EntryRow e = storetest::upload(*store, "k", data, 1 << 20, 2);
        const auto packBytes = [&] { return storetest::packBytes(tmp.filePath("s")); };
        const qint64 packBefore = packBytes();
        // Early (the merge barely started) and late (the merge has read
        // everything and waits for the reader before it commits).
        for (const size_t failAt : {size_t(2) << 20, size_t(12) << 20}) {
            size_t got = 0;
            const Sink sink = [&](const void*, size_t size) {
                if (got + size >= failAt) {
                    if (failAt == size_t(data.size()))
                        std::this_thread::sleep_for(std::chrono::milliseconds(300));
                    throw cs::Error("reader: no space left");
                }
                got += size;
            };
            cs::Job job;
            job.start();
            try {
                store->restoreEntry(e.id, sink, job);
                QFAIL("a failed delivery was reported as a restore");
            } catch (const cs::Error& ex) {
                QCOMPARE(QString::fromUtf8(ex.what()), QString("reader: no space left"));
            }
            QCOMPARE(store->entry(e.id)->state, EntryState::Unmerged);
            QCOMPARE(packBytes(), packBefore);
            QVERIFY(QFileInfo::exists(tmp.filePath("s/parts/" + QString::number(e.id) + "/11")));
        }
        RestoreResult r;
        QCOMPARE(storetest::restore(*store, e.id, &r), data);
        QVERIFY(r.mergedNow);
        QCOMPARE(storetest::restore(*store, e.id), data);
    }

    void schemaHasEveryTable()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        QCOMPARE(store->schemaVersion(), Store::latestSchemaVersion());
        const std::string db = store->catalogPath();
        for (const char* t : {"meta", "entries", "parts", "chunks", "gc_state", "gc_runs", "bench_runs", "bench_samples"})
            QCOMPARE(storetest::sqlInt(db, std::string("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='") + t + "'"),
                     int64_t(1));
        QCOMPARE(storetest::sqlInt(db, "SELECT count(*) FROM gc_state WHERE id=1 AND epoch=0 AND running=0"), int64_t(1));
        QCOMPARE(storetest::sqlInt(db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key='schema_version'"),
                 int64_t(Store::latestSchemaVersion()));
        // Opening again does not re-run migrations.
        store.reset();
        auto again = Store::open(tmp.filePath("s").toStdString());
        QCOMPARE(again->schemaVersion(), Store::latestSchemaVersion());
        STORE_VERIFY_THROWS(cs::Error, Store::open(tmp.filePath("nothing").toStdString()));
    }
};

CACHESCOPE_CORE_TEST_MAIN(StoreRoundTripTest)
#include "tst_store_roundtrip.moc"
