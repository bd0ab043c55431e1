// The size index (core/actions-cache/SizeIndex.h) on the fixture data dir
// (every state, common/ActionsCacheFixture.h): it lives in the cache folder
// and never in the server's data, its sizes are the files' (checked with
// stat by Qt, not through the storage code), sorting and filtering walk
// every entry page by page, and after the server adds, merges and deletes
// entries a rescan is right (against a fresh listing of every folder) and
// reads only what changed.
#include "common/ActionsCacheFixture.h"
#include "common/IndexChecks.h"
#include "common/TestSupport.h"
#include "common/TreeHash.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/SizeIndex.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"

#include <QDirIterator>
#include <QFileInfo>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fcntl.h>
#include <sys/stat.h>

using namespace cs;
using namespace cs::actions;
using testsupport::ActionsCacheFixture;

namespace {

// Every folder below the storage dir set to an hour ago, so that a scan
// right after the fixture was built does not count them as racy (changed
// in the same 2 s as their listing). Only before the first scan: setting
// the times moves the ctime, which is part of a folder's stamp.
void ageFolders(const QString& storageDir)
{
    const timespec old[2] = {{::time(nullptr) - 3600, 0}, {::time(nullptr) - 3600, 0}};
    QDirIterator it(storageDir, QDir::Dirs | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext())
        ::utimensat(AT_FDCWD, it.next().toUtf8().constData(), old, AT_SYMLINK_NOFOLLOW);
}

// The size of each folder's blob as stat sees it: merged when the row says
// merged (and it is there), else the parts summed. Independent of the storage code.
uint64_t statBlob(const QString& folderPath, bool merged)
{
    if (merged && QFileInfo::exists(folderPath + "/merged"))
        return uint64_t(QFileInfo(folderPath + "/merged").size());
    uint64_t sum = 0;
    for (const QFileInfo& f : QDir(folderPath + "/parts").entryInfoList(QDir::Files))
        sum += uint64_t(f.size());
    return sum;
}

// id -> "size|parts present|state" of every entry, from a fresh listing of every folder.
std::map<std::string, std::string> live(ActionsCache& cache)
{
    std::map<std::string, std::string> out;
    for (const auto& e : cache.entries())
        out[e.id] = std::to_string(e.size) + "|" + std::to_string(e.partsPresent) + "|" + entryStateName(e.state);
    return out;
}

// The same from the index, walked in pages of `pageSize` in `order`.
std::map<std::string, std::string> indexed(ActionsCache& cache, EntryOrder order = EntryOrder::SizeLargest,
                                           size_t pageSize = 2)
{
    std::map<std::string, std::string> out;
    EntryQuery q;
    q.order = order;
    std::optional<EntryCursor> after;
    do {
        auto page = cache.sizeIndex().page(q, after, pageSize);
        for (const auto& e : page.entries)
            out[e.id] = std::to_string(e.size) + "|" + std::to_string(e.partsPresent) + "|" + entryStateName(e.state);
        after = page.next;
    } while (after);
    return out;
}

} // namespace

class TestActionsIndex : public QObject {
    Q_OBJECT

    QTemporaryDir cacheHome_;

private slots:
    void initTestCase()
    {
        QVERIFY(cacheHome_.isValid());
        qputenv("XDG_CACHE_HOME", cacheHome_.path().toUtf8());
    }

    void scanWritesOnlyTheCacheFolder()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        const auto before = testsupport::hashTree(f.dataDir());
        auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()));
        const IndexRefreshStats st = cache->refreshIndex();
        QVERIFY(st.full);
        QCOMPARE(testsupport::hashTree(f.dataDir()), before);
        const QString index = QString::fromStdString(cache->sizeIndex().path());
        QVERIFY2(index.startsWith(cacheHome_.path() + "/cachescope/actions-index/"), qPrintable(index));
        QVERIFY(QFileInfo::exists(index));
        QCOMPARE(st.entries, uint64_t(f.entries().size()));
        // Folders: the five entries', 1006, the upload's 7001 and the orphan 9999.
        QCOMPARE(st.folders, uint64_t(8));
    }

    void cacheFolderInsideTheDataIsRefused()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        const auto before = testsupport::hashTree(f.dataDir());
        const QByteArray saved = qgetenv("XDG_CACHE_HOME");
        for (const QString& inside : {f.dataDir() + "/cache", f.storageDir() + "/x"}) {
            qputenv("XDG_CACHE_HOME", inside.toUtf8());
            auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()));
            try {
                cache->refreshIndex();
                QFAIL("an index inside the data dir was accepted");
            } catch (const Error& e) {
                QVERIFY2(QString(e.what()).contains("inside the server's data"), e.what());
                QVERIFY2(QString(e.what()).contains("XDG_CACHE_HOME"), e.what());
            }
        }
        qputenv("XDG_CACHE_HOME", saved);
        QCOMPARE(testsupport::hashTree(f.dataDir()), before);
    }

    void sizesAreTheFilesAndEveryOrderWalksEveryEntry()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()));
        cache->refreshIndex();
        for (const auto& fe : f.entries()) {
            EntryQuery q;
            q.keyPrefix = fe.key.toStdString();
            const auto page = cache->entriesPage(q, std::nullopt, 10);
            QCOMPARE(page.entries.size(), size_t(1));
            const bool merged = fe.state == "merged" || fe.state == "parts deleted";
            QCOMPARE(page.entries[0].size, statBlob(f.storageDir() + "/" + fe.folder, merged));
            QCOMPARE(page.entries[0].size, uint64_t(fe.size));
        }
        testsupport::checkEveryIndexOrder(*cache, f);
        if (QTest::currentTestFailed())
            return;
        EntryQuery other;
        other.scope = "refs/heads/other";
        other.order = EntryOrder::SizeLargest;
        QCOMPARE(cache->entriesPage(other, std::nullopt, 10).entries.size(), size_t(0));
        EntryQuery repo;
        repo.repoId = "1";
        repo.keyPrefix = "linux-";
        repo.order = EntryOrder::SizeSmallest;
        const auto linux = cache->entriesPage(repo, std::nullopt, 10).entries;
        QCOMPARE(linux.size(), size_t(2));
        QVERIFY(linux[0].size <= linux[1].size);
    }

    // Size, parts and state filters over every entry, through the index,
    // against the fixture's own bytes and rows (sizes checked against the
    // files above), in pages of 2 so that a filter holds across pages.
    void filtersBySizePartsAndStateOverEveryEntry()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()));
        cache->refreshIndex();
        testsupport::checkEveryIndexFilter(*cache, f);
    }

    void rescansAfterTheServerAddsMergesAndDeletes()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        ageFolders(f.storageDir());
        auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()));
        IndexRefreshStats st = cache->refreshIndex();
        QCOMPARE(indexed(*cache), live(*cache));

        // Nothing changed: the merge-started row (1004) is read again, and
        // its folder and the upload's (7001) relisted; no other folder.
        st = cache->refreshIndex();
        QVERIFY(!st.full);
        QCOMPARE(st.rowsRead, uint64_t(1));
        QCOMPARE(st.foldersListed, uint64_t(2));
        QCOMPARE(st.foldersStamped, uint64_t(8));   // every folder's stamp; the other six: that is all
        QCOMPARE(st.idsRead, uint64_t(5));
        QCOMPARE(indexed(*cache), live(*cache));

        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        // The server adds an entry (upload 1010 finished: a location and an entry row).
        QDir().mkpath(f.storageDir() + "/1010/parts");
        QVERIFY(testsupport::writeFile(f.storageDir() + "/1010/parts/0", testsupport::randomBytes(5000, 1)));
        QVERIFY(testsupport::writeFile(f.storageDir() + "/1010/parts/1", testsupport::randomBytes(777, 2)));
        f.exec(QString("INSERT INTO storage_locations VALUES ('loc-1010', '1010', 2, NULL, NULL, NULL, NULL);"
                       "INSERT INTO cache_entries (id, key, version, updatedAt, locationId, scope, repoId) VALUES "
                       "('e-1010', 'added-key', 'v', %1, 'loc-1010', 'refs/heads/main', '1')").arg(now));
        QTest::qSleep(2100);   // past the racy window: the change is older than 2 s when listed
        st = cache->refreshIndex();
        QCOMPARE(st.rowsRead, uint64_t(2));         // the new row, and 1004 again
        QCOMPARE(st.foldersListed, uint64_t(3));    // 1010, 1004, 7001
        QCOMPARE(indexed(*cache), live(*cache));
        QCOMPARE(live(*cache)["e-1010"], std::string("5777|2|unmerged"));

        // The server merges 1003 on a download: merged written, rows stamped, parts deleted.
        const testsupport::FixtureEntry& e3 = f.entry("1003");
        QVERIFY(testsupport::writeFile(f.storageDir() + "/1003/merged", e3.blob));
        QVERIFY(QDir(f.storageDir() + "/1003/parts").removeRecursively());
        f.exec(QString("UPDATE storage_locations SET mergeStartedAt = %1, mergedAt = %1, partsDeletedAt = %1, "
                       "lastDownloadedAt = %1 WHERE folderName = '1003'").arg(now));
        QTest::qSleep(2100);   // past the racy window: the change is older than 2 s when listed
        st = cache->refreshIndex();
        QCOMPARE(st.rowsRead, uint64_t(3));         // 1003 changed, 1010 within the slack, 1004
        QCOMPARE(st.foldersListed, uint64_t(4));    // 1003, 1010, 1004, 7001
        QCOMPARE(indexed(*cache), live(*cache));
        QCOMPARE(live(*cache)[e3.id.toStdString()], std::to_string(e3.blob.size()) + "|0|parts deleted");

        // The server's cleanup deletes 1005 (rows first, then the folder).
        const std::string gone = f.entry("1005").id.toStdString();
        f.exec("DELETE FROM cache_entries WHERE locationId IN (SELECT id FROM storage_locations WHERE folderName = '1005');"
               "DELETE FROM storage_locations WHERE folderName = '1005'");
        QVERIFY(QDir(f.storageDir() + "/1005").removeRecursively());
        QTest::qSleep(2100);   // past the racy window: the change is older than 2 s when listed
        st = cache->refreshIndex();
        QCOMPARE(st.entriesDeleted, uint64_t(1));
        QCOMPARE(st.entries, uint64_t(5));
        QVERIFY(!indexed(*cache).count(gone));
        QCOMPARE(indexed(*cache), live(*cache));
        QVERIFY(!cache->sizeIndex().listing("1005"));

        // An orphan folder gains a part behind the rows' back: only its stamp tells.
        QVERIFY(testsupport::writeFile(f.storageDir() + "/9999/parts/1", testsupport::randomBytes(100, 3)));
        QTest::qSleep(2100);   // past the racy window: the change is older than 2 s when listed
        st = cache->refreshIndex();
        QVERIFY(cache->sizeIndex().listing("9999").has_value());
        QCOMPARE(cache->sizeIndex().listing("9999")->parts.size(), size_t(2));
    }

    void indexedVerifyFindsWhatVerifyFinds()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()));
        Job a("verify"), b("verify indexed");
        auto kinds = [](const std::vector<Finding>& fs) {
            std::multiset<std::string> out;
            for (const auto& x : fs)
                out.insert(std::string(findingKindName(x.kind)) + ":" + x.folder + ":" + std::to_string(x.bytes));
            return out;
        };
        QCOMPARE(kinds(cache->verifyIndexed(b)), kinds(cache->verify(a)));
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestActionsIndex)
#include "tst_actions_index.moc"
