// The PostgreSQL connection against a real server started here (Debian's
// postgresql-15 in a temp folder).
#include "common/TestServers.h"
#include "common/TestSupport.h"

#include "core/remote/PgConnection.h"
#include "core/util/Error.h"

using namespace cs::remote;

class TestRemotePg : public QObject {
    Q_OBJECT

    testsupport::PgTestServer server_;

private slots:
    void initTestCase()
    {
        QString why;
        QVERIFY2(server_.start(&why), qPrintable("cannot start the PostgreSQL test server: " + why));
    }

    void queriesWithParametersAndNulls()
    {
        auto c = PgConnection::connect(server_.conninfo().toStdString());
        c->exec("CREATE TABLE t (id bigint PRIMARY KEY, name text, at bigint)");
        c->exec("INSERT INTO t VALUES ($1, $2, $3), ($4, $5, NULL)",
                {"1", "key\nwith 'quotes' and ; DROP TABLE t", "1700000000000", "9007199254740993", "b"});
        const PgResult r = c->exec("SELECT id, name, at FROM t ORDER BY id");
        QCOMPARE(r.rows(), 2);
        QCOMPARE(r.i64(0, 0), int64_t(1));
        QCOMPARE(r.text(0, 1), std::string("key\nwith 'quotes' and ; DROP TABLE t"));
        QCOMPARE(r.optI64(0, 2), std::optional<int64_t>(1700000000000));
        QCOMPARE(r.i64(1, 0), int64_t(9007199254740993)); // exact beyond 2^53
        QVERIFY(!r.optI64(1, 2).has_value());
        QCOMPARE(c->exec("UPDATE t SET at = 1 WHERE id > $1", {"0"}).affected(), int64_t(2));
    }

    void readOnlyTransactionsRefuseWrites()
    {
        auto c = PgConnection::connect(server_.conninfo().toStdString());
        c->exec("CREATE TABLE IF NOT EXISTS ro (id bigint)");
        {
            PgTransaction tx(*c, PgTransaction::ReadOnly);
            QCOMPARE(c->exec("SELECT count(*) FROM ro").i64(0, 0), int64_t(0));
            try {
                c->exec("INSERT INTO ro VALUES (1)");
                QFAIL("a write inside a read-only transaction succeeded");
            } catch (const cs::Error& e) {
                QVERIFY2(std::string(e.what()).find("read-only transaction") != std::string::npos, e.what());
            }
        } // rolled back
        QCOMPARE(c->exec("SELECT count(*) FROM ro").i64(0, 0), int64_t(0));
        {
            PgTransaction tx(*c, PgTransaction::ReadWrite);
            c->exec("INSERT INTO ro VALUES (1)");
            tx.commit();
        }
        QCOMPARE(c->exec("SELECT count(*) FROM ro").i64(0, 0), int64_t(1));
    }

    void errorsNameTheDatabaseNeverThePassword()
    {
        try {
            PgConnection::connect(server_.conninfo("no_such_db").toStdString() + " password=hunter2secret");
            QFAIL("connected to a missing database");
        } catch (const cs::Error& e) {
            const std::string m = e.what();
            QVERIFY2(m.find("no_such_db") != std::string::npos, m.c_str());
            QVERIFY2(m.find("hunter2secret") == std::string::npos, m.c_str());
        }
        QCOMPARE(redactConninfo("postgres://u:pa55@h:5432/db"), std::string("postgres://u@h:5432/db"));
        QCOMPARE(redactConninfo("host=h password='a b' dbname=x"), std::string("host=h password=*** dbname=x"));
        auto c = PgConnection::connect(server_.conninfo().toStdString());
        QVERIFY2(c->describe().find("postgres://postgres@") == 0, c->describe().c_str());
        try {
            c->exec("SELECT * FROM missing_table");
            QFAIL("a query of a missing table succeeded");
        } catch (const cs::Error& e) {
            QVERIFY2(std::string(e.what()).find("missing_table") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("postgres://") == 0, e.what());
        }
    }

    void urlFormConnects()
    {
        auto c = PgConnection::connect(server_.url().toStdString());
        QCOMPARE(c->exec("SELECT 1").i64(0, 0), int64_t(1));
    }
};

QTEST_GUILESS_MAIN(TestRemotePg)
#include "tst_remote_pg.moc"
