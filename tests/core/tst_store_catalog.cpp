// The catalog connection: commits are fsynced (synchronous=FULL) except
// inside Catalog::withoutFsync, which restores FULL however it ends. The open
// modes: a read-only open of a foreign database changes no byte of its
// folder, creates no -wal/-shm and leaves its journal mode as it was.
#include "common/TestSupport.h"
#include "common/TreeHash.h"
#include "core/store/Catalog.h"
#include "core/util/Error.h"

#include <QFileInfo>
#include <QTemporaryDir>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace cs;
using namespace cs::store;

namespace {

// A database written the way better-sqlite3 leaves it (rollback journal,
// "delete") or in WAL mode, by SQLite directly and closed.
void makeDatabase(const QString& path, const char* journalMode)
{
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
    const std::string sql = std::string("PRAGMA journal_mode=") + journalMode
                            + "; CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);"
                              " INSERT INTO t(v) VALUES ('a'), ('b'), ('c');";
    QCOMPARE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    QCOMPARE(sqlite3_close(db), SQLITE_OK);
}

int64_t rowsOf(Catalog& c)
{
    auto q = c.prepare("SELECT count(*) FROM t");
    return q.step() ? q.i64(0) : -1;
}

} // namespace

class TestStoreCatalog : public QObject {
    Q_OBJECT
private slots:
    void readOnlyChangesNoByteOfADeleteModeDatabase()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("sqlite.db");
        makeDatabase(path, "delete");
        QCOMPARE(Catalog::journalModeOnDisk(path.toStdString()), std::string("delete"));
        const auto before = testsupport::hashTree(dir.path());
        {
            Catalog c(path.toStdString(), OpenMode::ReadOnly);
            QVERIFY(c.readOnly());
            QCOMPARE(rowsOf(c), int64_t(3));
            {
                Transaction read(c, Transaction::Deferred);
                QCOMPARE(rowsOf(c), int64_t(3));
            }
            // Writes are refused, by us and by SQLite.
            QVERIFY_THROWS_EXCEPTION(cs::Error, Transaction(c, Transaction::Immediate));
            QVERIFY_THROWS_EXCEPTION(cs::Error, c.exec("INSERT INTO t(v) VALUES ('d')"));
            QVERIFY_THROWS_EXCEPTION(cs::Error, c.exec("PRAGMA journal_mode=WAL; CREATE TABLE u(x)"));
            c.withoutFsync([&] { QCOMPARE(rowsOf(c), int64_t(3)); });
        }
        QCOMPARE(testsupport::treeDifferences(before, testsupport::hashTree(dir.path())), QStringList());
        QVERIFY(!QFile::exists(path + "-wal"));
        QVERIFY(!QFile::exists(path + "-shm"));
        QVERIFY(!QFile::exists(path + "-journal"));
        QCOMPARE(Catalog::journalModeOnDisk(path.toStdString()), std::string("delete"));
    }

    void readOnlyCreatesNoWalFilesForAClosedWalDatabase()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("sqlite.db");
        makeDatabase(path, "wal");
        QVERIFY(!QFile::exists(path + "-wal")); // SQLite removes them on the last close
        QCOMPARE(Catalog::journalModeOnDisk(path.toStdString()), std::string("wal"));
        const auto before = testsupport::hashTree(dir.path());
        {
            Catalog c(path.toStdString(), OpenMode::ReadOnly);
            QCOMPARE(rowsOf(c), int64_t(3));
        }
        QCOMPARE(testsupport::treeDifferences(before, testsupport::hashTree(dir.path())), QStringList());
    }

    void readOnlySeesWhatALiveWalWriterCommitted()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("sqlite.db");
        makeDatabase(path, "wal");
        // A "server" connection that stays open keeps -wal and -shm, with
        // committed rows still in the WAL.
        sqlite3* server = nullptr;
        QCOMPARE(sqlite3_open(path.toUtf8().constData(), &server), SQLITE_OK);
        QCOMPARE(sqlite3_exec(server, "PRAGMA wal_autocheckpoint=0; INSERT INTO t(v) VALUES ('d')", nullptr, nullptr,
                              nullptr),
                 SQLITE_OK);
        QVERIFY(QFile::exists(path + "-wal"));
        {
            Catalog c(path.toStdString(), OpenMode::ReadOnly);
            QCOMPARE(rowsOf(c), int64_t(4));
        }
        QCOMPARE(sqlite3_close(server), SQLITE_OK);
    }

    void readOnlyOfAMissingOrForeignFileIsOneErrorAndCreatesNothing()
    {
        QTemporaryDir dir;
        const QString missing = dir.filePath("nothing.db");
        try {
            Catalog c(missing.toStdString(), OpenMode::ReadOnly);
            QFAIL("opened a missing database");
        } catch (const cs::Error& e) {
            QVERIFY2(QString(e.what()).contains("nothing.db: no such database"), e.what());
        }
        QVERIFY(QDir(dir.path()).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden));

        const QString garbage = dir.filePath("garbage.db");
        QVERIFY(testsupport::writeFile(garbage, QByteArray(4096, 'x')));
        const auto before = testsupport::hashTree(dir.path());
        try {
            Catalog c(garbage.toStdString(), OpenMode::ReadOnly);
            QFAIL("opened a file that is not a database");
        } catch (const cs::Error& e) {
            QVERIFY2(QString(e.what()).contains("garbage.db: not an SQLite database"), e.what());
        }
        QCOMPARE(testsupport::treeDifferences(before, testsupport::hashTree(dir.path())), QStringList());
    }

    void readOnlyRefusesAHotJournalAndLeavesIt()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("sqlite.db");
        makeDatabase(path, "delete");
        // A writer that dies mid-transaction (after its cache spilled to the
        // file) leaves a hot journal.
        const pid_t child = ::fork();
        if (child == 0) {
            sqlite3* db = nullptr;
            sqlite3_open(path.toUtf8().constData(), &db);
            sqlite3_exec(db,
                         "PRAGMA cache_size=1; BEGIN; UPDATE t SET v = v || 'x'; CREATE TABLE big(x); "
                         "INSERT INTO big SELECT randomblob(4000) FROM (WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL "
                         "SELECT i + 1 FROM r WHERE i < 200) SELECT i FROM r)",
                         nullptr, nullptr, nullptr);
            ::_exit(0);
        }
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY(QFile::exists(path + "-journal"));
        const auto before = testsupport::hashTree(dir.path());
        try {
            Catalog c(path.toStdString(), OpenMode::ReadOnly);
            QFAIL("read a database with a hot journal");
        } catch (const cs::Error& e) {
            QVERIFY2(QString(e.what()).contains("sqlite.db: has a hot journal"), e.what());
        }
        QCOMPARE(testsupport::treeDifferences(before, testsupport::hashTree(dir.path())), QStringList());
    }

    void foreignWriteKeepsTheJournalMode()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("sqlite.db");
        makeDatabase(path, "delete");
        {
            Catalog c(path.toStdString(), OpenMode::ForeignWrite);
            Transaction tx(c, Transaction::Immediate);
            c.exec("INSERT INTO t(v) VALUES ('d')");
            tx.commit();
            QCOMPARE(rowsOf(c), int64_t(4));
            QCOMPARE(c.synchronousMode(), 2);
        }
        QCOMPARE(Catalog::journalModeOnDisk(path.toStdString()), std::string("delete"));
        QVERIFY(!QFile::exists(path + "-wal"));
        QVERIFY(!QFile::exists(path + "-shm"));
        QVERIFY_THROWS_EXCEPTION(cs::Error, Catalog(dir.filePath("absent.db").toStdString(), OpenMode::ForeignWrite));
        QVERIFY(!QFile::exists(dir.filePath("absent.db")));
    }

    void nativeModesUseWal()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("catalog.db").toStdString();
        {
            Catalog c(path, OpenMode::Create);
            c.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
        }
        QCOMPARE(Catalog::journalModeOnDisk(path), std::string("wal"));
        Catalog c(path, OpenMode::ReadWrite);
        QCOMPARE(c.synchronousMode(), 2);
    }

    // Each command opens the catalog, commits and closes. The closing
    // connection empties the WAL (else the next open reads every frame ever
    // written, and the file grows with each command) and keeps 1 MiB
    // allocated past its end for a full disk; nothing committed is lost, and
    // a connection left open beside it reads on.
    void closingEmptiesTheWalAndKeepsItsSpace()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("catalog.db").toStdString();
        const QString wal = dir.filePath("catalog.db-wal");
        {
            Catalog c(path, OpenMode::Create);
            c.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
        }
        Catalog reader(path, OpenMode::ReadWrite);
        const std::string text(3000, 'x'); // about a page per row
        for (int i = 0; i < 100; ++i) {
            Catalog c(path, OpenMode::ReadWrite);
            c.exec("INSERT INTO t(v) VALUES ('" + text + "')");
            QVERIFY(QFileInfo(wal).size() > 0);
        }
        struct stat st{};
        QCOMPARE(::stat(wal.toLocal8Bit().constData(), &st), 0);
        QCOMPARE(st.st_size, off_t(0));
        QVERIFY2(st.st_blocks * 512 >= (1 << 20), qPrintable(QString::number(st.st_blocks)));
        auto q = reader.prepare("SELECT count(*), sum(length(v)) FROM t");
        QVERIFY(q.step());
        QCOMPARE(q.i64(0), int64_t(100));
        QCOMPARE(q.i64(1), int64_t(100 * 3000));
    }

    void withoutFsyncRelaxesOnlyInside()
    {
        QTemporaryDir dir;
        Catalog c(dir.filePath("catalog.db").toStdString(), true);
        QCOMPARE(c.synchronousMode(), 2);
        c.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v REAL)");
        int inside = -1;
        c.withoutFsync([&] {
            inside = c.synchronousMode();
            Transaction tx(c, Transaction::Immediate);
            c.exec("INSERT INTO t(v) VALUES (1.5)");
            tx.commit();
        });
        QCOMPARE(inside, 1);
        QCOMPARE(c.synchronousMode(), 2);
        // The write is there, in this connection and in another one.
        Catalog other(dir.filePath("catalog.db").toStdString(), false);
        auto q = other.prepare("SELECT count(*) FROM t");
        QVERIFY(q.step());
        QCOMPARE(q.i64(0), int64_t(1));
    }

    void fullIsRestoredWhenTheWorkThrows()
    {
        QTemporaryDir dir;
        Catalog c(dir.filePath("catalog.db").toStdString(), true);
        QVERIFY_THROWS_EXCEPTION(cs::Error, c.withoutFsync([&] {
            Transaction tx(c, Transaction::Immediate);
            throw cs::Error("boom");
        }));
        QCOMPARE(c.synchronousMode(), 2);
        // And the rolled-back transaction left the connection usable.
        c.exec("CREATE TABLE t(id INTEGER PRIMARY KEY)");
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestStoreCatalog)
#include "tst_store_catalog.moc"
