// Store::putMerged: a regular file read once straight into the pack, its
// entry committed merged with no parts. Checked against an independent
// SHA-256 (QCryptographicHash) and against the parts path (upload + merge):
// the same bytes cut into the same chunks, so a second put of them appends
// no chunk. Re-put replaces; a GC that starts meanwhile makes it read again;
// a cancel or an error leaves the pack and the catalog as they were.
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include "core/store/StoreTesting.h"

#include "core/util/Error.h"

#include <QDir>
#include <QFile>

#include <sys/stat.h>

using namespace cs::store;

namespace {

std::string writeInput(const QTemporaryDir& tmp, const QString& name, const QByteArray& bytes)
{
    const QString path = tmp.filePath(name);
    if (!testsupport::writeFile(path, bytes))
        return {};
    return path.toStdString();
}

bool fsckClean(Store& store)
{
    cs::Job job;
    job.start();
    return store.fsck(job).empty();
}

} // namespace

class StorePutMergedTest : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data()
    {
        storetest::addRoundTripRows(qsizetype(24) << 20);
    }

    void roundTrip()
    {
        QFETCH(QByteArray, data);
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const std::string in = writeInput(tmp, "in", data);
        const std::string truth = storetest::sha256Hex(data);
        cs::Job job;
        job.start();
        const PutResult r = store->putMerged("key", in, job, "v1", "main");
        QCOMPARE(r.entry.state, EntryState::Merged);
        QCOMPARE(r.entry.size, uint64_t(data.size()));
        QCOMPARE(r.entry.sha256, truth);
        QCOMPARE(r.entry.partCount, 0u);
        QCOMPARE(r.entry.version, std::string("v1"));
        QCOMPARE(r.entry.scope, std::string("main"));
        QVERIFY(r.merge.merged);
        QCOMPARE(r.merge.entryId, r.entry.id);
        QCOMPARE(r.merge.newChunks, r.merge.chunks);
        QCOMPARE(r.merge.rootOffset, r.entry.rootOffset);
        QVERIFY(!QDir(QString::fromStdString(store->dir() + "/parts/" + std::to_string(r.entry.id))).exists());

        // Restored byte-exact (to a file, and as a stream), and fsck decodes
        // it against the SHA-256 it lists.
        const QString out = tmp.filePath("out");
        store->restoreToFile(storetest::request("key", {}, "v1", "main"), out.toStdString(), job);
        QCOMPARE(testsupport::sha256OfFile(out), truth);
        QCOMPARE(storetest::restore(*store, r.entry.id), data);
        QVERIFY(fsckClean(*store));

        // The parts path cuts the same chunks: its merge appends none.
        const EntryRow viaParts = storetest::upload(*store, "parts", data, 1 << 20, 3);
        const MergeResult m = store->merge(viaParts.id, job);
        QCOMPARE(m.chunks, r.merge.chunks);
        QCOMPARE(m.newChunks, uint64_t(0));
        QCOMPARE(store->entry(viaParts.id)->sha256, truth);
    }

    void secondPutOfTheSameBytesAppendsNoChunk()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray data = testsupport::textBytes(6 << 20, 3);
        const std::string in = writeInput(tmp, "in", data);
        cs::Job job;
        job.start();
        const PutResult a = store->putMerged("a", in, job);
        const PutResult b = store->putMerged("b", in, job);
        QVERIFY(a.merge.chunks >= 2);
        QCOMPARE(b.merge.chunks, a.merge.chunks);
        QCOMPARE(b.merge.newChunks, uint64_t(0));
        QCOMPARE(storetest::restore(*store, b.entry.id), data);
        QVERIFY(fsckClean(*store));
    }

    // Same key, version and scope: one entry, the new bytes; an unmerged entry
    // it replaces loses its parts.
    void reputReplaces()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray oldBytes = testsupport::randomBytes(3 << 20, 1), newBytes = testsupport::randomBytes(2 << 20, 2);
        const EntryRow old = storetest::upload(*store, "k", oldBytes, 1 << 20, 2, "v", "s");
        const QString oldParts = QString::fromStdString(store->dir() + "/parts/" + std::to_string(old.id));
        QVERIFY(QDir(oldParts).exists());
        cs::Job job;
        job.start();
        const PutResult r = store->putMerged("k", writeInput(tmp, "new", newBytes), job, "v", "s");
        // The old row was the last: its id is never given to the new entry
        // (which would have taken its parts folder for a stale one).
        QVERIFY(r.entry.id != old.id);
        QVERIFY(!store->entry(old.id));
        QVERIFY(!QDir(oldParts).exists());
        QCOMPARE(store->countEntries({}), uint64_t(1));
        QCOMPARE(storetest::restore(*store, r.entry.id), newBytes);
        // Another version is another entry.
        store->putMerged("k", writeInput(tmp, "other", oldBytes), job, "v2", "s");
        QCOMPARE(store->countEntries({}), uint64_t(2));
        QVERIFY(fsckClean(*store));
    }

    // A GC that starts after the objects were appended (the epoch moves
    // before the commit) makes the put read the file again.
    void gcStartedMeanwhileRedoes()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("s").toStdString();
        int bumps = 0;
        StoreOptions options;
        options.testHooks = cs::store::testing::beforeMergeCommit([&](int64_t id) {
            QCOMPARE(id, int64_t(0));
            if (bumps++ == 0)
                QVERIFY(storetest::sql(dir + "/catalog.db", "UPDATE gc_state SET epoch=epoch+1 WHERE id=1"));
        });
        auto store = Store::init(dir, options);
        const QByteArray data = testsupport::textBytes(5 << 20, 4);
        cs::Job job;
        job.start();
        const PutResult r = store->putMerged("k", writeInput(tmp, "in", data), job);
        QCOMPARE(r.merge.redone, 1);
        QCOMPARE(bumps, 2);
        QCOMPARE(storetest::restore(*store, r.entry.id), data);
        QVERIFY(fsckClean(*store));
    }

    // Cancelled halfway: no entry, the pack as it was (what was appended is
    // truncated away), fsck clean.
    void cancelLeavesNothing()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray kept = testsupport::randomBytes(1 << 20, 5);
        cs::Job first;
        first.start();
        store->putMerged("kept", writeInput(tmp, "kept", kept), first);
        const qint64 packBefore = storetest::packBytes(QString::fromStdString(store->dir()));
        cs::Job job;
        job.setListener([&job](const cs::JobStatus& s) {
            if (s.stepFraction > 0.5)
                job.cancel();
        });
        job.start();
        STORE_VERIFY_THROWS(cs::Cancelled, store->putMerged("big", writeInput(tmp, "big", testsupport::randomBytes(24 << 20, 6)), job));
        QCOMPARE(store->countEntries({}), uint64_t(1));
        QCOMPARE(storetest::packBytes(QString::fromStdString(store->dir())), packBefore);
        QCOMPARE(storetest::restore(*store, store->findEntry("kept")->id), kept);
        QVERIFY(fsckClean(*store));
    }

    // What is not a regular file, or is larger than maxBytes: one error naming
    // it, nothing stored.
    void refusesWhatItCannotPut()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const qint64 packBefore = storetest::packBytes(QString::fromStdString(store->dir()));
        cs::Job job;
        job.start();
        const std::string in = writeInput(tmp, "in", testsupport::randomBytes(3 << 20, 7));
        auto errorOf = [&](const std::string& path, std::optional<uint64_t> maxBytes) -> QString {
            try {
                store->putMerged("k", path, job, {}, {}, maxBytes);
            } catch (const cs::Error& e) {
                return QString::fromUtf8(e.what());
            }
            return {};
        };
        const QString tooLarge = errorOf(in, uint64_t(1) << 20);
        QVERIFY2(tooLarge.contains(QString::fromStdString(in)) && tooLarge.contains("limit"), qPrintable(tooLarge));
        const QString folder = errorOf(tmp.path().toStdString(), {});
        QVERIFY2(folder.contains("is a folder"), qPrintable(folder));
        const QString fifo = tmp.filePath("fifo");
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        const QString stream = errorOf(fifo.toStdString(), {});
        QVERIFY2(stream.contains(fifo) && stream.contains("not a regular file"), qPrintable(stream));
        QCOMPARE(store->countEntries({}), uint64_t(0));
        QCOMPARE(storetest::packBytes(QString::fromStdString(store->dir())), packBefore);
        QVERIFY(fsckClean(*store));
    }
};

CACHESCOPE_CORE_TEST_MAIN(StorePutMergedTest)
#include "tst_store_put_merged.moc"
