// The catalog connection: commits are fsynced (synchronous=FULL) except
// inside Catalog::withoutFsync, which restores FULL however it ends.
#include "common/TestSupport.h"
#include "core/store/Catalog.h"
#include "core/util/Error.h"

#include <QTemporaryDir>

using namespace cs;
using namespace cs::store;

class TestStoreCatalog : public QObject {
    Q_OBJECT
private slots:
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
