// Offline access to a github-actions-cache-server's data: a database and
// storage folder laid out as the server writes them are listed, verified,
// merged (merged file == parts concatenated, by SHA-256), evicted and
// imported into a native store that restores the same bytes.
#include "common/TestSupport.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/jobs/Job.h"
#include "core/store/Store.h"
#include "core/util/Error.h"

#include <sqlite3.h>

#include <chrono>

using namespace cs;

namespace {

// The server's schema (its first migration, SQLite driver).
const char* kSchema = R"(
CREATE TABLE storage_locations (id text primary key, folderName text not null, partCount integer not null,
  mergeStartedAt bigint, mergedAt bigint, partsDeletedAt bigint, lastDownloadedAt bigint);
CREATE TABLE cache_entries (id text primary key, key text not null, version text not null, updatedAt bigint not null,
  locationId text not null references storage_locations(id) on delete cascade);
CREATE TABLE uploads (id bigint primary key, key text not null, version text not null, createdAt bigint not null,
  lastPartUploadedAt bigint, folderName text not null);
CREATE INDEX idx_cache_entries_key_version ON cache_entries (key, version);
CREATE INDEX idx_uploads_key_version ON uploads (key, version);
)";

int64_t nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

struct Server {
    QTemporaryDir dir;
    QString db() const { return dir.filePath("sqlite.db"); }
    QString storage() const { return dir.filePath("storage"); }
    sqlite3* handle = nullptr;

    Server()
    {
        QDir().mkpath(storage());
        sqlite3_open(db().toUtf8().constData(), &handle);
        sqlite3_exec(handle, kSchema, nullptr, nullptr, nullptr);
    }
    ~Server() { sqlite3_close(handle); }

    void exec(const QString& sql) { QCOMPARE(sqlite3_exec(handle, sql.toUtf8().constData(), nullptr, nullptr, nullptr), SQLITE_OK); }

    // An entry whose parts are on disk (unmerged) or whose merged file is (merged).
    QByteArray add(const QString& id, const QString& key, const QString& folder, int parts, bool merged, int64_t updated,
                   uint64_t seed)
    {
        QByteArray all;
        QDir().mkpath(storage() + "/" + folder + "/parts");
        for (int i = 0; i < parts; ++i) {
            const QByteArray part = testsupport::randomBytes(100000 + i * 777, seed + uint64_t(i));
            all += part;
            if (!merged)
                testsupport::writeFile(storage() + "/" + folder + "/parts/" + QString::number(i), part);
        }
        if (merged)
            testsupport::writeFile(storage() + "/" + folder + "/merged", all);
        const QString m = merged ? QString::number(updated) : QStringLiteral("NULL");
        exec(QStringLiteral("INSERT INTO storage_locations VALUES ('loc-%1', '%2', %3, %4, %4, %4, NULL)")
                 .arg(id, folder).arg(parts).arg(m));
        exec(QStringLiteral("INSERT INTO cache_entries VALUES ('%1', '%2', 'v1', %3, 'loc-%1')").arg(id, key).arg(updated));
        return all;
    }
};

} // namespace

class TestActionsCache : public QObject {
    Q_OBJECT
private slots:
    void listsVerifiesAndMerges();
    void refusesWhatIsNotAServerDatabase();
    void hostileFolderNamesStayInside();
    void evictsByAge();
    void importsIntoANativeStore();
};

void TestActionsCache::listsVerifiesAndMerges()
{
    Server s;
    const QByteArray a = s.add("a", "linux-deps-1", "111", 3, false, nowMs(), 1);
    const QByteArray b = s.add("b", "linux-deps-0", "222", 2, true, nowMs() - 1000, 10);
    s.add("c", "broken", "333", 2, false, nowMs() - 2000, 20);
    QFile::remove(s.storage() + "/333/parts/1");

    auto cache = actions::ActionsCache::open(s.db().toStdString(), s.storage().toStdString());
    const auto entries = cache->entries();
    QCOMPARE(entries.size(), size_t(3));
    QCOMPARE(QString::fromStdString(entries[0].key), QStringLiteral("linux-deps-1")); // newest first
    QCOMPARE(entries[0].size, uint64_t(a.size()));
    QVERIFY(!entries[0].merged());
    QCOMPARE(entries[1].size, uint64_t(b.size()));
    QVERIFY(entries[1].merged());

    Job job;
    const auto problems = cache->verify(job);
    QCOMPARE(problems.size(), size_t(1));
    QVERIFY(QString::fromStdString(problems[0].message).contains("part 1 of 2 is missing"));
    QVERIFY(QString::fromStdString(problems[0].path).endsWith("333/parts/1"));

    const auto merged = cache->merge({"a"}, job);
    QCOMPARE(merged.size(), size_t(1));
    QVERIFY(merged[0].merged);
    QCOMPARE(testsupport::sha256OfFile(s.storage() + "/111/merged"),
             Sha256::hex(Sha256::of(a.constData(), size_t(a.size()))));
    QVERIFY(!QFileInfo::exists(s.storage() + "/111/parts"));
    QVERIFY(!QFileInfo::exists(s.storage() + "/111/merged.tmp"));
    const auto after = cache->entries();
    QVERIFY(after[0].merged());
    QVERIFY(after[0].partsDeletedAtMs.has_value());
    // Merging the broken entry fails with the path of the missing part and leaves nothing behind.
    try {
        cache->merge({"c"}, job);
        QFAIL("merging an entry with a missing part succeeded");
    } catch (const Error& e) {
        QVERIFY2(QString(e.what()).contains("333/parts/1"), e.what());
    }
    QVERIFY(!QFileInfo::exists(s.storage() + "/333/merged.tmp"));
    QVERIFY(!QFileInfo::exists(s.storage() + "/333/merged"));
    QVERIFY(QFileInfo::exists(s.storage() + "/333/parts/0"));

    // The CLI agrees.
    const auto ls = testsupport::cli({"actions-cache", "ls", s.db(), s.storage(), "--json"});
    QCOMPARE(ls.exitCode, 0);
    const auto doc = QJsonDocument::fromJson(ls.out);
    QCOMPARE(doc.object()["entries"].toArray().size(), 3);
    const auto verify = testsupport::cli({"actions-cache", "verify", s.db(), s.storage()});
    QCOMPARE(verify.exitCode, 1);
}

void TestActionsCache::refusesWhatIsNotAServerDatabase()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("other.db");
    sqlite3* h = nullptr;
    sqlite3_open(db.toUtf8().constData(), &h);
    sqlite3_exec(h, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
    sqlite3_close(h);
    try {
        actions::ActionsCache::open(db.toStdString(), dir.path().toStdString());
        QFAIL("a foreign database was accepted");
    } catch (const Error& e) {
        QVERIFY(QString(e.what()).contains("cache_entries"));
        QVERIFY(QString(e.what()).contains(db));
    }
    const auto r = testsupport::cli({"actions-cache", "ls", db, dir.path()});
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(testsupport::cli({"actions-cache", "ls"}).exitCode, 2);
}

void TestActionsCache::hostileFolderNamesStayInside()
{
    Server s;
    s.add("a", "ok", "111", 1, false, nowMs(), 1);
    s.exec("INSERT INTO storage_locations VALUES ('loc-x', '../../etc', 1, NULL, NULL, NULL, NULL)");
    s.exec("INSERT INTO cache_entries VALUES ('x', 'evil', 'v1', 1, 'loc-x')");
    auto cache = actions::ActionsCache::open(s.db().toStdString(), s.storage().toStdString());
    Job job;
    const auto problems = cache->verify(job);
    QCOMPARE(problems.size(), size_t(1));
    QVERIFY(QString::fromStdString(problems[0].message).contains("not a plain folder name"));
    QVERIFY_THROWS_EXCEPTION(Error, cache->merge({"x"}, job));
}

void TestActionsCache::evictsByAge()
{
    Server s;
    s.add("old", "old-key", "1", 1, true, nowMs() - 40LL * 86400 * 1000, 1);
    s.add("new", "new-key", "2", 1, false, nowMs(), 2);
    auto cache = actions::ActionsCache::open(s.db().toStdString(), s.storage().toStdString());
    Job job;
    actions::ActionsEvictPolicy policy;
    policy.olderThanSeconds = 30.0 * 86400;
    policy.dryRun = true;
    auto gone = cache->evict(policy, job);
    QCOMPARE(gone.size(), size_t(1));
    QCOMPARE(cache->entries().size(), size_t(2));
    policy.dryRun = false;
    gone = cache->evict(policy, job);
    QCOMPARE(QString::fromStdString(gone[0].key), QStringLiteral("old-key"));
    QCOMPARE(cache->entries().size(), size_t(1));
    QVERIFY(!QFileInfo::exists(s.storage() + "/1"));
    QVERIFY(QFileInfo::exists(s.storage() + "/2/parts/0"));
}

void TestActionsCache::importsIntoANativeStore()
{
    Server s;
    const QByteArray a = s.add("a", "key-a", "111", 3, false, nowMs(), 1);
    const QByteArray b = s.add("b", "key-b", "222", 2, true, nowMs(), 10);
    QTemporaryDir storeDir;
    const auto r = testsupport::cli({"actions-cache", "import", s.db(), s.storage(), storeDir.filePath("store"),
                                     "--part-size", "64KiB"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    auto store = store::Store::open(storeDir.filePath("store").toStdString());
    for (const auto& [key, bytes] : {std::pair{"key-a", a}, std::pair{"key-b", b}}) {
        const auto row = store->findEntry(key, "v1", "actions");
        QVERIFY(row.has_value());
        QCOMPARE(row->state, store::EntryState::Merged);
        QCOMPARE(row->sha256, Sha256::hex(Sha256::of(bytes.constData(), size_t(bytes.size()))));
        const QString out = storeDir.filePath(QString::fromLatin1(key));
        Job job;
        store->restoreEntryToFile(row->id, out.toStdString(), job);
        QCOMPARE(testsupport::readFile(out), bytes);
    }
}

CACHESCOPE_CORE_TEST_MAIN(TestActionsCache)
#include "tst_actions_cache.moc"
