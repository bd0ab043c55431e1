// Doubt stops a command (issue 9, part B): a missing control file, a
// generation whose files are gone, an empty, foreign or newer catalog and
// dedup rows past the pack's end are refused with one sentence naming the
// file, and nothing is deleted; read-only commands delete nothing ever.
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include "core/gc/Gc.h"
#include "core/pack/Pack.h"
#include "core/store/Store.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <sqlite3.h>

using namespace cs::store;

using testsupport::errorOf;

namespace {

// Every file under dir with its SHA-256: "nothing changed" is this map equal.
std::map<QString, std::string> treeOf(const QString& dir)
{
    std::map<QString, std::string> files;
    QDir d(dir);
    for (const auto& name : d.entryList(QDir::Files | QDir::NoDotAndDotDot)) {
        if (name.endsWith(".lock"))
            continue; // flock files; their content is empty and irrelevant
        files[name] = testsupport::sha256OfFile(d.filePath(name));
    }
    for (const auto& sub : d.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        for (const auto& [n, h] : treeOf(d.filePath(sub)))
            files[sub + "/" + n] = h;
    return files;
}

struct Fixture {
    QTemporaryDir tmp;
    QString dir = tmp.filePath("s");
    QByteArray merged = testsupport::randomBytes(300000, 1);
    QByteArray unmerged = testsupport::randomBytes(200000, 2);

    Fixture()
    {
        auto store = Store::init(dir.toStdString());
        cs::Job job;
        job.start();
        store->merge(storetest::upload(*store, "merged", merged, 64 << 10).id, job);
        storetest::upload(*store, "unmerged", unmerged, 64 << 10);
    }
    std::string path(const char* rel) const { return (dir + "/" + rel).toStdString(); }
};

// The tree without the catalog and its WAL: opening a store read-write may
// checkpoint (same rows, other bytes); what matters is the pack and parts.
std::map<QString, std::string> dataOf(const QString& dir)
{
    auto t = treeOf(dir);
    for (auto it = t.begin(); it != t.end();)
        it = it->first.startsWith("catalog.db") ? t.erase(it) : std::next(it);
    return t;
}

bool contains(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

} // namespace

class StoreDoubtTest : public QObject {
    Q_OBJECT
private slots:
    void missingControlIsRefusedAndNothingIsDeleted()
    {
        Fixture f;
        QVERIFY(QFile::remove(f.dir + "/pack/control"));
        const auto before = dataOf(f.dir);
        const std::string e = errorOf([&] { Store::open(f.dir.toStdString()); });
        QVERIFY2(contains(e, "pack/control: is missing") && contains(e, "0.suffix") && contains(e, "fsck"), e.c_str());
        // store ls, stats, fsck, gc --dry-run and gc all refuse; none deletes.
        for (const QStringList& args : {QStringList{"store", "ls", f.dir}, QStringList{"store", "stats", f.dir},
                                        QStringList{"store", "fsck", f.dir}, QStringList{"store", "gc", f.dir, "--dry-run"},
                                        QStringList{"store", "gc", f.dir}, QStringList{"store", "fsck", f.dir, "--repair"}}) {
            const auto r = testsupport::cli(args);
            QVERIFY2(r.exitCode == 1, qPrintable(args.join(' ') + ": " + r.err));
            QVERIFY2(r.err.contains("control"), r.err.constData());
        }
        STORE_VERIFY_THROWS(cs::Error, Store::init(f.dir.toStdString()));
        QCOMPARE(dataOf(f.dir), before);
    }

    void controlNamingAGenerationWhoseFilesAreGoneIsRefused()
    {
        Fixture f;
        {
            cs::Job job;
            cs::gc::GcOptions o;
            cs::gc::collectStoreGarbage(f.dir.toStdString(), o, job);
            QCOMPARE(Store::open(f.dir.toStdString())->pack().sizes().generation, uint64_t(1));
        }
        // The generation before is back (a restored backup), the current one's suffix is gone.
        QVERIFY(QFile::rename(f.dir + "/pack/1.suffix", f.dir + "/pack/0.suffix"));
        const auto before = dataOf(f.dir);
        const std::string e = errorOf([&] { Store::open(f.dir.toStdString()); });
        QVERIFY2(contains(e, "generation 1") && contains(e, "1.suffix is missing"), e.c_str());
        const auto r = testsupport::cli({"store", "ls", f.dir});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(dataOf(f.dir), before);   // 0.suffix, 1.prefix, 1.mapping all still there
    }

    void readOnlyCommandsLeaveGcLeftovers()
    {
        Fixture f;
        QVERIFY(testsupport::writeFile(f.dir + "/pack/7.prefix", "left by a GC"));
        const auto before = dataOf(f.dir);
        QCOMPARE(testsupport::cli({"store", "ls", f.dir}).exitCode, 0);
        QCOMPARE(testsupport::cli({"store", "stats", f.dir}).exitCode, 0);
        QCOMPARE(testsupport::cli({"store", "gc", f.dir, "--dry-run"}).exitCode, 0);
        const auto fsck = testsupport::cli({"store", "fsck", f.dir});
        QCOMPARE(fsck.exitCode, 1);
        QVERIFY2(fsck.out.contains("7.prefix") && fsck.out.contains("interrupted GC"), fsck.out.constData());
        QCOMPARE(dataOf(f.dir), before);
        const auto repair = testsupport::cli({"store", "fsck", f.dir, "--repair"});
        QCOMPARE(repair.exitCode, 0);
        QVERIFY(!QFile::exists(f.dir + "/pack/7.prefix"));
        QVERIFY(QFile::exists(f.dir + "/pack/0.suffix"));
    }

    void emptyCatalogIsRefusedEverywhere()
    {
        Fixture f;
        QVERIFY(QFile::resize(f.dir + "/catalog.db", 0));
        QFile::remove(f.dir + "/catalog.db-wal");
        QFile::remove(f.dir + "/catalog.db-shm");
        const auto before = treeOf(f.dir);
        const std::string e = errorOf([&] { Store::open(f.dir.toStdString()); });
        QVERIFY2(contains(e, "catalog.db") && contains(e, "empty database"), e.c_str());
        cs::Job job;
        cs::gc::GcOptions o;
        const std::string g = errorOf([&] { cs::gc::collectStoreGarbage(f.dir.toStdString(), o, job); });
        QVERIFY2(contains(g, "empty database"), g.c_str());
        QCOMPARE(testsupport::cli({"store", "fsck", f.dir, "--repair"}).exitCode, 1);
        QCOMPARE(testsupport::cli({"store", "gc", f.dir}).exitCode, 1);
        STORE_VERIFY_THROWS(cs::Error, Store::init(f.dir.toStdString()));   // the folder holds a pack and parts
        QCOMPARE(treeOf(f.dir), before);
    }

    void foreignDatabaseIsRefusedUnchanged()
    {
        Fixture f;
        QFile::remove(f.dir + "/catalog.db");
        QFile::remove(f.dir + "/catalog.db-wal");
        QFile::remove(f.dir + "/catalog.db-shm");
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open((f.dir + "/catalog.db").toUtf8().constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "CREATE TABLE cache_entries(id TEXT); INSERT INTO cache_entries VALUES('x')", nullptr,
                              nullptr, nullptr),
                 SQLITE_OK);
        sqlite3_close(db);
        const auto before = treeOf(f.dir);
        const std::string e = errorOf([&] { Store::open(f.dir.toStdString()); });
        QVERIFY2(contains(e, "without the store's tables"), e.c_str());
        QCOMPARE(testsupport::cli({"store", "gc", f.dir}).exitCode, 1);
        QCOMPARE(treeOf(f.dir), before);   // not even switched to WAL
    }

    void newerOrDamagedSchemaIsRefusedByEveryCommand()
    {
        Fixture f;
        const std::string db = f.path("catalog.db");
        QVERIFY(storetest::sql(db, "UPDATE meta SET value='99' WHERE key='schema_version'"));
        for (const QStringList& args : {QStringList{"store", "ls", f.dir}, QStringList{"store", "gc", f.dir},
                                        QStringList{"store", "gc", f.dir, "--dry-run"}, QStringList{"store", "fsck", f.dir}}) {
            const auto r = testsupport::cli(args);
            QVERIFY2(r.exitCode == 1 && r.err.contains("newer"), qPrintable(args.join(' ') + ": " + r.err));
        }
        QCOMPARE(storetest::sqlInt(db, "SELECT count(*) FROM gc_runs"), int64_t(0));
        QVERIFY(storetest::sql(db, "UPDATE meta SET value='abc' WHERE key='schema_version'"));
        const std::string e = errorOf([&] { Store::open(f.dir.toStdString()); });
        QVERIFY2(contains(e, "schema_version is 'abc'") && !contains(e, "stoi"), e.c_str());
    }

    void staleDedupRowsStopAPutAndFsckRepairDeletesThem()
    {
        Fixture f;
        // The pack loses its objects (restored from an empty backup).
        QVERIFY(QFile::resize(f.dir + "/pack/0.suffix", 0));
        const QString file = f.tmp.filePath("again.bin");
        QVERIFY(testsupport::writeFile(file, f.merged));
        // A put merged in one pass stores nothing; one as parts keeps its
        // parts (the entry unmerged, restorable) when its merge refuses.
        const auto put = testsupport::cli({"store", "put", "--wait", f.dir, "again", file});
        QCOMPARE(put.exitCode, 1);
        QVERIFY2(put.err.contains("dedup row") && put.err.contains("fsck --repair"), put.err.constData());
        QCOMPARE(put.err.count('\n'), 1);
        const auto parts = testsupport::cli({"store", "put", f.dir, "parts", file, "--no-merge"});
        QVERIFY2(parts.exitCode == 0, parts.err.constData());
        const auto merge = testsupport::cli({"store", "merge", f.dir, "parts"});
        QCOMPARE(merge.exitCode, 1);
        QVERIFY2(merge.err.contains("dedup row") && merge.err.contains("fsck --repair"), merge.err.constData());
        auto store = Store::open(f.dir.toStdString());
        QVERIFY(!store->findEntry("again"));
        const auto unmerged = store->findEntry("parts");
        QVERIFY(unmerged && unmerged->state == EntryState::Unmerged);   // its parts were not deleted
        cs::Job job;
        job.start();
        bool reported = false;
        for (const auto& p : store->fsck(job))
            reported |= contains(p.message, "dedup index row");
        QVERIFY(reported);
        store->removeOrphans(job);
        QCOMPARE(storetest::sqlInt(f.path("catalog.db"), "SELECT count(*) FROM chunks"), int64_t(0));
        store->merge(unmerged->id, job);
        QCOMPARE(storetest::restore(*store, unmerged->id), f.merged);
        const auto reput = testsupport::cli({"store", "put", "--wait", f.dir, "again", file});
        QVERIFY2(reput.exitCode == 0, reput.err.constData());
        QCOMPARE(storetest::restore(*store, store->findEntry("again")->id), f.merged);
    }

    void flippedByteInAnUnmergedPartIsFoundAndNamed()
    {
        Fixture f;
        auto store = Store::open(f.dir.toStdString());
        const auto e = store->findEntry("unmerged");
        QVERIFY(e);
        const QString part = f.dir + "/parts/" + QString::number(e->id) + "/1";
        QByteArray bytes = testsupport::readFile(part);
        bytes[100] = char(bytes[100] ^ 0x20);
        QVERIFY(testsupport::writeFile(part, bytes));
        cs::Job job;
        job.start();
        const auto problems = store->fsck(job);
        QCOMPARE(problems.size(), size_t(1));
        QVERIFY2(contains(problems[0].message, "/1: part 1 does not match the CRC-32C"), problems[0].message.c_str());
        const std::string get = errorOf([&] { storetest::restore(*store, e->id); });
        QVERIFY2(contains(get, "/1: part 1 does not match the CRC-32C"), get.c_str());
    }
};

CACHESCOPE_CORE_TEST_MAIN(StoreDoubtTest)
#include "tst_gc_store_doubt.moc"
