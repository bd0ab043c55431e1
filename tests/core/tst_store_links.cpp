// Links planted inside a store (StoreLayout): nothing is ever opened, written
// or deleted through them. Each case runs twice: with openat2 and with the
// component-by-component openat fallback older kernels get.
#include "common/OutputTargets.h"
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include "core/pack/Pack.h"
#include "core/util/Folder.h"

#include <memory>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <sys/stat.h>
#include <unistd.h>

using namespace cs::store;

using testsupport::errorOf;

namespace {

// A folder outside the store with files an attacker wants removed, and how
// to check that they are all still there.
struct Victim {
    QString dir;
    explicit Victim(const QTemporaryDir& tmp) : dir(tmp.filePath("victim"))
    {
        QDir().mkpath(dir);
        for (const char* name : {"0", "1", "2", "keep.txt", "5.suffix", "old.tmp", "control"})
            testsupport::writeFile(dir + "/" + name, QByteArray("precious ") + name);
    }
    bool intact() const
    {
        for (const char* name : {"0", "1", "2", "keep.txt", "5.suffix", "old.tmp", "control"})
            if (testsupport::readFile(dir + "/" + name) != QByteArray("precious ") + name)
                return false;
        return QDir(dir).entryList(QDir::Files).size() == 7;
    }
};

// A store in tmp with one upload reserved whose parts folder is a link to
// the victim's folder: the upload's id and the link's path.
struct LinkedUpload {
    std::unique_ptr<Store> store;
    int64_t id = 0;
    QString parts;
    LinkedUpload(const QTemporaryDir& tmp, const Victim& victim) : store(Store::init(tmp.filePath("s").toStdString()))
    {
        id = store->reserve("k", "", "");
        parts = QString::fromStdString(store->dir() + "/parts/" + std::to_string(id));
        if (!QFile::link(victim.dir, parts))
            qFatal("cannot plant the link %s", qPrintable(parts));
    }
};

bool isLink(const QString& path) { return QFileInfo(path).isSymLink(); }

} // namespace

class TestStoreLinks : public QObject {
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

    // issue 9: `store evict` with parts/<id> a symlink to a folder deleted
    // every file in the target.
    void evictWithLinkedPartsFolderDeletesNothingOutside()
    {
        QTemporaryDir tmp;
        const Victim victim(tmp);
        const std::string dir = tmp.filePath("s").toStdString();
        auto store = Store::init(dir);
        const EntryRow e = storetest::upload(*store, "k", testsupport::randomBytes(5000, 1), 2000, 1);
        const QString parts = QString::fromStdString(dir + "/parts/" + std::to_string(e.id));
        QVERIFY(QDir(parts).removeRecursively());
        QVERIFY(QFile::link(victim.dir, parts));
        cs::Job job;
        job.start();
        EvictPolicy p;
        p.keys = {"k"};
        const EvictResult r = store->evict(p, job);
        QCOMPARE(r.evicted.size(), size_t(1));
        QVERIFY(victim.intact());
        QVERIFY(!QFileInfo::exists(parts) && !isLink(parts));   // the link itself went
    }

    // The same through commit of a replacing entry and abort (removeParts).
    void abortWithLinkedPartsFolderDeletesNothingOutside()
    {
        QTemporaryDir tmp;
        const Victim victim(tmp);
        LinkedUpload u(tmp, victim);
        u.store->abortUpload(u.id);
        QVERIFY(victim.intact());
        QVERIFY(!isLink(u.parts));
    }

    // A part written through a planted link would land outside the store.
    void writePartRefusesLinkedPartsFolder()
    {
        QTemporaryDir tmp;
        const Victim victim(tmp);
        LinkedUpload u(tmp, victim);
        const std::string err = errorOf([&] { u.store->writePart(u.id, 7, "x", 1); });
        QVERIFY2(err.find("symbolic link") != std::string::npos, err.c_str());
        QVERIFY2(err.find(u.parts.toStdString()) != std::string::npos, err.c_str());
        QVERIFY(victim.intact());
        QVERIFY(!QFileInfo::exists(victim.dir + "/7"));
    }

    // A part file that is a link: merge and restore refuse, nothing is read
    // from the target, fsck names it.
    void linkedPartFileIsNotRead()
    {
        QTemporaryDir tmp;
        const Victim victim(tmp);
        auto store = Store::init(tmp.filePath("s").toStdString());
        const EntryRow e = storetest::upload(*store, "k", testsupport::randomBytes(3000, 2), 1000, 1);
        const QString part = QString::fromStdString(store->dir() + "/parts/" + std::to_string(e.id) + "/1");
        QVERIFY(QFile::remove(part));
        QVERIFY(QFile::link(victim.dir + "/1", part));
        cs::Job job;
        job.start();
        const std::string err = errorOf([&] { store->merge(e.id, job); });
        QVERIFY2(err.find("symbolic link") != std::string::npos, err.c_str());
        cs::Job fsckJob;
        fsckJob.start();
        bool named = false;
        for (const auto& problem : store->fsck(fsckJob))
            named = named || problem.message.find(part.toStdString()) != std::string::npos;
        QVERIFY(named);
        QVERIFY(victim.intact());
    }

    // issue 9: a symlinked pack/ folder: `store ls` deleted files in the link
    // target (generation leftovers, *.tmp). Now opening refuses, naming it.
    void linkedPackFolderIsRefused()
    {
        QTemporaryDir tmp;
        const Victim victim(tmp);
        const std::string dir = tmp.filePath("s").toStdString();
        Store::init(dir).reset();
        const QString pack = QString::fromStdString(dir + "/pack");
        QVERIFY(QDir(pack).removeRecursively());
        QVERIFY(QFile::link(victim.dir, pack));
        const std::string err = errorOf([&] { Store::open(dir); });
        QVERIFY2(err.find(pack.toStdString() + ": is a symbolic link") != std::string::npos, err.c_str());
        QVERIFY(victim.intact());
        // The pack module on its own (GC, the reachability view) refuses too.
        const std::string err2 = errorOf([&] { cs::pack::Pack::open(dir + "/pack", false); });
        QVERIFY2(err2.find("symbolic link") != std::string::npos, err2.c_str());
        QVERIFY(victim.intact());
        QVERIFY(!Store::isStore(dir));
    }

    // A link among a pack's leftovers is unlinked itself, its target stays.
    void packLeftoverLinkIsUnlinkedNotFollowed()
    {
        QTemporaryDir tmp;
        const Victim victim(tmp);
        const std::string dir = tmp.filePath("s").toStdString();
        Store::init(dir).reset();
        const QString leftover = QString::fromStdString(dir + "/pack/7.suffix");
        QVERIFY(QFile::link(victim.dir + "/5.suffix", leftover));
        auto pack = cs::pack::Pack::open(dir + "/pack", false);
        auto gc = pack->tryLockGc();
        QVERIFY(gc.held());
        pack->removeLeftovers();
        QVERIFY(!isLink(leftover));
        QVERIFY(victim.intact());
    }

    // A control file or catalog that is a link is not read: the store is
    // refused with the link's name, and its target stays.
    void linkedStoreFileIsRefused_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("control") << QStringLiteral("pack/control");
        QTest::newRow("catalog") << QStringLiteral("catalog.db");
    }
    void linkedStoreFileIsRefused()
    {
        QFETCH(QString, name);
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("s").toStdString();
        Store::init(dir).reset();
        const QString file = QString::fromStdString(dir) + QLatin1Char('/') + name;
        QVERIFY(QFile::rename(file, tmp.filePath("elsewhere")));
        QVERIFY(QFile::link(tmp.filePath("elsewhere"), file));
        const std::string err = errorOf([&] { Store::open(dir); });
        QVERIFY2(err.find(file.toStdString() + ": is a symbolic link") != std::string::npos, err.c_str());
        QVERIFY(QFileInfo::exists(tmp.filePath("elsewhere")));
    }

    // SQLite would follow a link at the WAL's name and write through it.
    void linkedCatalogWalIsRefused()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("s").toStdString();
        Store::init(dir).reset();
        const QString victim = tmp.filePath("victim");
        QVERIFY(testsupport::writeFile(victim, "precious"));
        for (const char* suffix : {"-wal", "-shm", "-journal"}) {
            const QString side = QString::fromStdString(dir + "/catalog.db") + suffix;
            QFile::remove(side);
            QVERIFY(QFile::link(victim, side));
            const std::string err = errorOf([&] { Store::open(dir); });
            QVERIFY2(err.find(side.toStdString() + ": is a symbolic link") != std::string::npos, err.c_str());
            QCOMPARE(testsupport::readFile(victim), QByteArray("precious"));
            QVERIFY(QFile::remove(side));
        }
        Store::open(dir).reset();   // without the links it opens
    }

    // A FIFO planted where a store keeps a file: the open of a FIFO (or its
    // first read) waits for a peer that never comes, and a Ctrl-C could not
    // stop it (`store ls` with pack/control a FIFO hung). Now it is refused
    // at once with one sentence naming it; the FIFO stays.
    void fifoInTheStoreIsRefusedWithoutWaiting_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("control") << QStringLiteral("pack/control");
        QTest::newRow("suffix") << QStringLiteral("pack/0.suffix");
        QTest::newRow("part") << QStringLiteral("part");
    }
    void fifoInTheStoreIsRefusedWithoutWaiting()
    {
        QFETCH(QString, name);
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("s").toStdString();
        int64_t id = 0;
        {
            auto store = Store::init(dir);
            id = storetest::upload(*store, "k", testsupport::randomBytes(3000, 2), 1000, 1).id;
        }
        const QString fifo = name == "part" ? QString::fromStdString(dir + "/parts/" + std::to_string(id) + "/1")
                                            : QString::fromStdString(dir) + QLatin1Char('/') + name;
        QVERIFY(QFile::remove(fifo));
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        std::string err;
        const bool finished = testsupport::finishesOrUnblock(fifo, [&] {
            err = errorOf([&] {
                auto store = Store::open(dir);
                cs::Job job;
                job.start();
                store->merge(id, job);   // reads every part
            });
        });
        QVERIFY2(finished, "waited on a FIFO inside the store");
        QVERIFY2(err.find(fifo.toStdString() + ": is not a regular file") != std::string::npos, err.c_str());
        QVERIFY(S_ISFIFO(testsupport::lstatOf(fifo).st_mode));
    }

    // fsck --repair: an orphaned part folder that is a link goes as a link.
    void orphanRepairRemovesTheLinkOnly()
    {
        QTemporaryDir tmp;
        const Victim victim(tmp);
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QString orphanId = QString::fromStdString(store->dir() + "/parts/4242");
        const QString orphanName = QString::fromStdString(store->dir() + "/parts/junk");
        QVERIFY(QFile::link(victim.dir, orphanId));
        QVERIFY(QFile::link(victim.dir, orphanName));
        // A real orphan folder holding a link to a victim file.
        QVERIFY(QDir().mkpath(QString::fromStdString(store->dir() + "/parts/4343")));
        QVERIFY(QFile::link(victim.dir + "/keep.txt", QString::fromStdString(store->dir() + "/parts/4343/0")));
        cs::Job job;
        job.start();
        const OrphanRemoval r = store->removeOrphans(job);
        QCOMPARE(r.removed.size(), size_t(3));
        QVERIFY(!isLink(orphanId) && !isLink(orphanName));
        QVERIFY(!QFileInfo::exists(QString::fromStdString(store->dir() + "/parts/4343")));
        QVERIFY(victim.intact());
    }

    // The user's own path to the store may go through a link: that is theirs.
    void storePathThroughALinkStillOpens()
    {
        QTemporaryDir tmp;
        const std::string real = tmp.filePath("real").toStdString();
        Store::init(real).reset();
        QVERIFY(QFile::link(tmp.filePath("real"), tmp.filePath("alias")));
        auto store = Store::open(tmp.filePath("alias").toStdString());
        const QByteArray data = testsupport::randomBytes(4000, 3);
        const EntryRow e = storetest::upload(*store, "k", data, 1000, 2);
        QCOMPARE(storetest::restore(*store, e.id), data);
    }
};

QTEST_GUILESS_MAIN(TestStoreLinks)
#include "tst_store_links.moc"
