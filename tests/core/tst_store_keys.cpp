// Keys are data: path-like keys, a NUL byte, emoji, SQL text are stored and
// found as they are and never become paths; over 4 KiB is refused. Lookup
// follows the Actions cache order (exact, prefix newest, restore keys).
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include "core/util/Error.h"

#include <QDir>
#include <QDirIterator>

using namespace cs::store;

class StoreKeysTest : public QObject {
    Q_OBJECT

private slots:
    void hostileKeys()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const std::vector<std::string> keys = {
            "../../x", "/etc/passwd", std::string("nul\0byte", 8), std::string("nul\0other", 9),
            "\xF0\x9F\x9A\x80 rocket-cache-\xC3\xA9", "'; DROP TABLE entries; --", "%_*?[]", "",
            std::string(kMaxKeyBytes, 'k')};
        std::vector<QByteArray> datas;
        for (size_t i = 0; i < keys.size(); ++i) {
            datas.push_back(testsupport::randomBytes(1000 + qsizetype(i), i + 1));
            storetest::upload(*store, keys[i], datas.back(), 300, 2);
        }
        QCOMPARE(store->countEntries({}), uint64_t(keys.size()));
        for (size_t i = 0; i < keys.size(); ++i) {
            const auto e = store->findEntry(keys[i]);
            QVERIFY2(e, keys[i].c_str());
            QCOMPARE(e->key, keys[i]);
            QCOMPARE(storetest::restore(*store, e->id), datas[i]);
        }
        // Nothing was created outside the store, and every path inside is made of numbers.
        QCOMPARE(QDir(tmp.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList{"s"});
        QDirIterator it(QString::fromStdString(store->dir() + "/parts"), QDir::AllEntries | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString name = it.next();
            bool ok = false;
            QFileInfo(name).fileName().toULongLong(&ok);
            QVERIFY2(ok, qPrintable(name));
        }
        QVERIFY(!QFileInfo::exists(QStringLiteral("/x")) || QFileInfo(QStringLiteral("/x")).lastModified().secsTo(QDateTime::currentDateTime()) > 600);
    }

    void overlongKeyIsRefused()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const std::string longKey(5 * 1024, 'a');
        try {
            store->reserve(longKey);
            QFAIL("a 5 KiB key was accepted");
        } catch (const cs::Error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("4096")), e.what());
        }
        QCOMPARE(store->countEntries({}), uint64_t(0));
        STORE_VERIFY_THROWS(cs::Error, store->lookup(storetest::request(longKey)));
        STORE_VERIFY_THROWS(cs::Error, store->reserve("k", std::string(5000, 'v')));
        // Through the CLI: exit 1 with one sentence.
        QTemporaryDir t2;
        const QString file = t2.filePath("f");
        testsupport::writeFile(file, "abc");
        const auto r = testsupport::cli({"store", "put", "--wait", QString::fromStdString(store->dir()), QString(5000, 'z'), file});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("4096"));
    }

    void nulByteKeysAreDistinct()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        storetest::upload(*store, std::string("a\0b", 3), "one", 10, 1);
        storetest::upload(*store, std::string("a\0c", 3), "two", 10, 1);
        storetest::upload(*store, "a", "three", 10, 1);
        QCOMPARE(storetest::restore(*store, store->findEntry(std::string("a\0b", 3))->id), QByteArray("one"));
        QCOMPARE(storetest::restore(*store, store->findEntry(std::string("a\0c", 3))->id), QByteArray("two"));
        QCOMPARE(storetest::restore(*store, store->findEntry("a")->id), QByteArray("three"));
        const auto m = store->lookup(storetest::request(std::string("a\0", 2)));
        QVERIFY(m);
        QCOMPARE(m->second, std::string("key-prefix"));
        QCOMPARE(m->first.key, std::string("a\0c", 3));   // newest with that prefix
    }

    void lookupOrder()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        auto put = [&](const std::string& key, const std::string& version = "v", const std::string& scope = "main") {
            return storetest::upload(*store, key, QByteArray::fromStdString(key), 64, 1, version, scope).id;
        };
        const int64_t old = put("linux-deps-aaa");
        QTest::qSleep(20);
        const int64_t newer = put("linux-deps-bbb");
        const int64_t exact = put("linux-deps");
        put("linux-deps-zzz", "other-version");
        put("linux-deps-yyy", "v", "other-scope");
        const int64_t fallback = put("fallback-1");
        auto find = [&](const std::string& key, std::vector<std::string> restoreKeys = {}) {
            return store->lookup(storetest::request(key, std::move(restoreKeys), "v", "main"));
        };
        QCOMPARE(find("linux-deps")->first.id, exact);
        QCOMPARE(find("linux-deps")->second, std::string("key"));
        QCOMPARE(find("linux-deps-")->first.id, newer);     // newest with the prefix, within version and scope
        QCOMPARE(find("linux-deps-")->second, std::string("key-prefix"));
        QCOMPARE(find("linux-deps-aaa")->first.id, old);
        QCOMPARE(find("nothing", {"nope", "fallback-1"})->first.id, fallback);
        QCOMPARE(find("nothing", {"nope", "fallback-1"})->second, std::string("restore-key"));
        QCOMPARE(find("nothing", {"fallback"})->second, std::string("restore-key-prefix"));
        QVERIFY(!find("nothing", {"nope"}));
        QVERIFY(!store->lookup(storetest::request("linux-deps-zzz", {}, "v", "main")));
        // Uploading entries never match.
        store->reserve("in-flight", "v", "main");
        QVERIFY(!find("in-flight"));
    }
};

CACHESCOPE_CORE_TEST_MAIN(StoreKeysTest)
#include "tst_store_keys.moc"
