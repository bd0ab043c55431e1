// The GC writes the next generation's files (N+1.mapping, N+1.prefix,
// N+1.suffix), the control file, and deletes generation N, all through the
// pack's folder without following links: a link planted at one of those
// names (after the GC removed the leftovers it found at start) makes the GC
// fail with a sentence naming it; the file the link points at is neither
// truncated nor written, and the store keeps every entry byte-exact.
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include "core/gc/Gc.h"
#include "core/jobs/Job.h"
#include "core/pack/Pack.h"
#include "core/util/Folder.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>

using namespace cs::store;

namespace {

QByteArray restore(Store& store, int64_t id)
{
    QByteArray out;
    cs::Job job;
    store.restoreEntry(id, [&](const void* d, size_t n) { out.append(static_cast<const char*>(d), qsizetype(n)); }, job);
    return out;
}

} // namespace

class TestGcLinks : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        QFETCH_GLOBAL(bool, fallback);
        cs::Folder::forceComponentWalk(fallback);
    }
    void cleanup() { cs::Folder::forceComponentWalk(false); }
    void initTestCase_data()
    {
        QTest::addColumn<bool>("fallback");
        QTest::newRow("openat2") << false;
        QTest::newRow("openat-walk") << true;
    }

    void linkAtANextGenerationFileIsNeverWrittenThrough_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("mapping") << QString::fromStdString(cs::pack::mappingFileName(1));
        QTest::newRow("prefix") << QString::fromStdString(cs::pack::prefixFileName(1));
        QTest::newRow("suffix") << QString::fromStdString(cs::pack::suffixFileName(1));
    }
    void linkAtANextGenerationFileIsNeverWrittenThrough()
    {
        QFETCH(QString, name);
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("s").toStdString();
        const QByteArray keep = testsupport::randomBytes(300000, 31);
        const QByteArray gone = testsupport::randomBytes(200000, 32);
        int64_t keepId = 0;
        {
            auto store = Store::init(dir);
            cs::Job job;
            keepId = storetest::upload(*store, "keep", keep, 64 << 10).id;
            store->merge(keepId, job);
            store->merge(storetest::upload(*store, "gone", gone, 64 << 10).id, job);
            EvictPolicy policy;
            policy.keys = {"gone"};
            store->evict(policy, job);
        }
        const QString victim = tmp.filePath("victim");
        QVERIFY(testsupport::writeFile(victim, "precious"));
        const QString planted = QString::fromStdString(dir + "/pack/") + name;
        cs::gc::GcOptions o;
        o.hook = [&](const char* point) {
            // After the GC's own start (leftovers removed): what an attacker
            // with write access to pack/ could plant while it runs.
            if (std::string(point) == "open")
                QFile::link(victim, planted);
        };
        cs::Job job;
        std::string error;
        try {
            const auto r = cs::gc::collectStoreGarbage(dir, o, job);
            error = r.stats.error;
        } catch (const cs::Error& e) {
            error = e.what();
        }
        QVERIFY2(error.find(planted.toStdString() + ": is a symbolic link") != std::string::npos, error.c_str());
        QCOMPARE(testsupport::readFile(victim), QByteArray("precious"));
        QCOMPARE(QFileInfo(victim).size(), qint64(8));
        QVERIFY(!QFileInfo(planted).isSymLink());   // the failed GC removed its own names: the link itself
        // The store is as before: generation 0, the kept entry restores.
        auto store = Store::open(dir);
        QCOMPARE(store->pack().generation()->control.generation, uint64_t(0));
        QCOMPARE(storetest::sha256Hex(restore(*store, keepId)), storetest::sha256Hex(keep));
        // And a GC without the link completes.
        cs::gc::GcOptions plain;
        const auto r = cs::gc::collectStoreGarbage(dir, plain, job);
        QVERIFY2(r.stats.status == "done", r.stats.error.c_str());
        QCOMPARE(storetest::sha256Hex(restore(*Store::open(dir), keepId)), storetest::sha256Hex(keep));
    }

    // Generation N's files are unlinked through the folder after the swap: a
    // link planted in place of one of them goes, its target stays.
    void oldGenerationLinkIsUnlinkedNotFollowed()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("s").toStdString();
        const QByteArray keep = testsupport::randomBytes(100000, 33);
        {
            auto store = Store::init(dir);
            cs::Job job;
            store->merge(storetest::upload(*store, "keep", keep, 32 << 10).id, job);
        }
        const QString victim = tmp.filePath("victim");
        QVERIFY(testsupport::writeFile(victim, "precious"));
        const QString old = QString::fromStdString(dir + "/pack/" + cs::pack::suffixFileName(0));
        cs::gc::GcOptions o;
        o.hook = [&](const char* point) {
            if (std::string(point) == "after control") {
                QFile::remove(old);
                QFile::link(victim, old);
            }
        };
        cs::Job job;
        const auto r = cs::gc::collectStoreGarbage(dir, o, job);
        QVERIFY2(r.stats.status == "done", r.stats.error.c_str());
        QVERIFY(!QFileInfo(old).isSymLink() && !QFileInfo::exists(old));
        QCOMPARE(testsupport::readFile(victim), QByteArray("precious"));
    }
};

QTEST_GUILESS_MAIN(TestGcLinks)
#include "tst_gc_links.moc"
