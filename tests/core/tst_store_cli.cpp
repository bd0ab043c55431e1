// `cachescope-cli store ...` end to end: init, put (merged and --no-merge),
// ls --json, get with restore keys, merge --all, evict --dry-run --json,
// stats --json, usage errors. Bytes are checked with SHA-256 of the files.
#include "common/TestSupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

class StoreCliTest : public QObject {
    Q_OBJECT

private slots:
    void endToEnd()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath("store");
        const QString a = tmp.filePath("a.bin"), b = tmp.filePath("b.bin");
        QVERIFY(testsupport::writeFile(a, testsupport::textBytes(5 << 20, 1)));
        QVERIFY(testsupport::writeFile(b, testsupport::randomBytes(3 << 20, 2)));
        QCOMPARE(testsupport::cli({"store", "init", dir}).exitCode, 0);
        auto put = testsupport::cli({"store", "put", "--wait", dir, "linux-deps-1", a, "--part-size", "300k", "--parallel", "3", "--version", "v1"});
        QVERIFY2(put.exitCode == 0, put.err.constData());
        put = testsupport::cli({"store", "put", dir, "\xF0\x9F\x9A\x80 emoji", b, "--no-merge", "--version", "v1"});
        QVERIFY2(put.exitCode == 0, put.err.constData());

        const auto ls = testsupport::cli({"store", "ls", dir, "--json"});
        QCOMPARE(ls.exitCode, 0);
        const QJsonArray rows = QJsonDocument::fromJson(ls.out).array();
        QCOMPARE(rows.size(), 2);
        QCOMPARE(rows[0].toObject()["key"].toString(), QStringLiteral("linux-deps-1"));
        QCOMPARE(rows[0].toObject()["state"].toString(), QStringLiteral("merged"));
        QCOMPARE(rows[0].toObject()["parts"].toInt(), 0);   // read once into the pack: no parts
        QCOMPARE(rows[0].toObject()["sha256"].toString().toStdString(), testsupport::sha256OfFile(a));
        QCOMPARE(rows[1].toObject()["key"].toString(), QString::fromUtf8("\xF0\x9F\x9A\x80 emoji"));
        QCOMPARE(rows[1].toObject()["state"].toString(), QStringLiteral("unmerged"));
        QCOMPARE(rows[1].toObject()["parts"].toInt(), 3);
        QVERIFY(rows[1].toObject()["last_access"].isNull());
        for (const char* field : {"id", "version", "scope", "size", "created"})
            QVERIFY(rows[0].toObject().contains(QLatin1String(field)));

        // get: restore-key prefix match, in the right version only.
        const QString out = tmp.filePath("out.bin");
        auto get = testsupport::cli({"store", "get", "--wait", dir, "linux-deps-2", out, "--restore-key", "linux-deps-", "--version", "v1", "--json"});
        QVERIFY2(get.exitCode == 0, get.err.constData());
        QCOMPARE(QJsonDocument::fromJson(get.out).object()["matched_by"].toString(), QStringLiteral("restore-key-prefix"));
        QCOMPARE(testsupport::sha256OfFile(out), testsupport::sha256OfFile(a));
        auto miss = testsupport::cli({"store", "get", "--wait", dir, "linux-deps-1", out});   // version '' has nothing
        QCOMPARE(miss.exitCode, 1);
        QVERIFY2(miss.err.contains("(the key exists with --version 'v1'"), miss.err.constData()); // and says where it is

        auto merge = testsupport::cli({"store", "merge", dir, "--all", "--json"});
        QCOMPARE(merge.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(merge.out).array().size(), 1);
        QCOMPARE(testsupport::cli({"store", "get", "--wait", dir, "\xF0\x9F\x9A\x80 emoji", out, "--version", "v1"}).exitCode, 0);
        QCOMPARE(testsupport::sha256OfFile(out), testsupport::sha256OfFile(b));

        auto stats = testsupport::cli({"store", "stats", dir, "--json"});
        const QJsonObject st = QJsonDocument::fromJson(stats.out).object();
        QCOMPARE(st["entries"].toInt(), 2);
        QCOMPARE(st["merged_entries"].toInt(), 2);
        QCOMPARE(st["unmerged_bytes"].toInt(), 0);
        QCOMPARE(qint64(st["logical_bytes"].toDouble()), qint64((5 << 20) + (3 << 20)));
        QVERIFY(st["stored_bytes"].toDouble() > 0 && st["stored_bytes"].toDouble() <= st["pack_bytes"].toDouble());

        auto dry = testsupport::cli({"store", "evict", dir, "--max-size", "4MiB", "--dry-run", "--json"});
        QCOMPARE(dry.exitCode, 0);
        const QJsonObject d = QJsonDocument::fromJson(dry.out).object();
        QVERIFY(d["dry_run"].toBool());
        QCOMPARE(d["entries"].toArray().size(), 1);
        QCOMPARE(QJsonDocument::fromJson(testsupport::cli({"store", "ls", dir, "--json"}).out).array().size(), 2);
        QCOMPARE(testsupport::cli({"store", "evict", dir, "--key", "linux-deps-1"}).exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(testsupport::cli({"store", "ls", dir, "--json"}).out).array().size(), 1);
        QCOMPARE(testsupport::cli({"store", "fsck", dir}).exitCode, 0);
    }

    void usageErrors()
    {
        QTemporaryDir tmp;
        QCOMPARE(testsupport::cli({"store"}).exitCode, 2);
        QCOMPARE(testsupport::cli({"store", "frobnicate", tmp.path()}).exitCode, 2);
        QCOMPARE(testsupport::cli({"store", "put", "--wait", tmp.path()}).exitCode, 2);
        QCOMPARE(testsupport::cli({"store", "evict", tmp.path()}).exitCode, 2);
        QCOMPARE(testsupport::cli({"store", "merge", tmp.path()}).exitCode, 2);
        QCOMPARE(testsupport::cli({"store", "put", "--wait", tmp.path(), "k", "f", "--part-size", "lots"}).exitCode, 2);
        const auto notStore = testsupport::cli({"store", "ls", tmp.filePath("missing")});
        QCOMPARE(notStore.exitCode, 1);
        QVERIFY(notStore.err.contains("not a cachescope store"));
        QVERIFY(testsupport::cli({"store", "--help"}).out.contains("fsck"));
    }
};

CACHESCOPE_CORE_TEST_MAIN(StoreCliTest)
#include "tst_store_cli.moc"
