// A github-actions-cache-server data dir (v9.4.7, every state: see
// common/ActionsCacheFixture.h) read through the core: listing and sizes
// from the files, each verify finding, the offline merge byte-exact against
// the parts concatenated in numeric order, eviction, import into a native
// store that restores the same bytes, symlinks refused, bounded work on
// absurd part counts.
#include "common/ActionsCacheFixture.h"
#include "common/OutputTargets.h"
#include "common/TestSupport.h"
#include "common/TreeHash.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/jobs/Job.h"
#include "core/store/Catalog.h"
#include "core/store/Store.h"
#include "core/util/Error.h"

#include <QFile>

#include <chrono>
#include <map>
#include <thread>
#include <set>

#include <sqlite3.h>
#include <sys/stat.h>

using namespace cs;
using namespace cs::actions;
using testsupport::ActionsCacheFixture;

namespace {

DataDirPaths pathsOf(const ActionsCacheFixture& f)
{
    return resolveDataDir(f.dataDir().toStdString());
}

std::map<std::string, ActionsEntry> byFolder(const std::vector<ActionsEntry>& entries)
{
    std::map<std::string, ActionsEntry> m;
    for (const auto& e : entries)
        m[e.folderName] = e;
    return m;
}

std::multiset<std::string> kindsOf(const std::vector<Finding>& findings)
{
    std::multiset<std::string> kinds;
    for (const auto& f : findings)
        kinds.insert(std::string(findingKindName(f.kind)) + ":" + f.folder);
    return kinds;
}

const Finding* findKind(const std::vector<Finding>& findings, FindingKind kind)
{
    for (const auto& f : findings)
        if (f.kind == kind)
            return &f;
    return nullptr;
}

// The findings of the untouched fixture: the states that are problems.
std::multiset<std::string> baseFindings()
{
    return {"stalled-merge:1004", "location-without-entry:1006", "unfinished-upload:7001", "orphan-folder:9999"};
}

} // namespace

class TestActionsCache : public QObject {
    Q_OBJECT
private slots:
    void bothLayoutsResolve()
    {
        for (auto layout : {ActionsCacheFixture::Layout::ServerDefault, ActionsCacheFixture::Layout::Flat}) {
            QTemporaryDir dir;
            ActionsCacheFixture f(dir.path(), layout);
            const DataDirPaths p = pathsOf(f);
            QCOMPARE(QString::fromStdString(p.dbPath), f.dbPath());
            QCOMPARE(QString::fromStdString(p.storageDir), f.storageDir());
            // The sqlite.db itself names the data dir too.
            QCOMPARE(QString::fromStdString(resolveDataDir(f.dbPath().toStdString()).storageDir), f.storageDir());
            auto cache = ActionsCache::open(p);
            QCOMPARE(cache->entries().size(), size_t(f.entries().size()));
        }
    }

    void listingStatesAndSizes()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        auto cache = ActionsCache::open(pathsOf(f));
        const auto entries = byFolder(cache->entries());
        QCOMPARE(entries.size(), size_t(5));
        for (const auto& fe : f.entries()) {
            const ActionsEntry& e = entries.at(fe.folder.toStdString());
            QCOMPARE(QString::fromStdString(e.id), fe.id);
            QCOMPARE(QString::fromStdString(e.key), fe.key);
            QCOMPARE(QString::fromLatin1(entryStateName(e.state)), fe.state);
            QCOMPARE(e.partCount, int64_t(fe.partCount));
            QCOMPARE(e.partsPresent, uint64_t(fe.parts.size()));
            QCOMPARE(e.scope, std::string("refs/heads/main"));
            QCOMPARE(e.repoId, std::string("1"));
            if (fe.folder == "1004") // merge stalled: the blob is still the parts, not the partial merged
                QCOMPARE(e.size, uint64_t(fe.size));
            else
                QCOMPARE(e.size, uint64_t(fe.size));
        }
        QVERIFY(entries.at("1001").merged());
        QVERIFY(!entries.at("1003").merged());
        QVERIFY(!entries.at("1003").lastDownloadedAtMs);
        const auto uploads = cache->uploads();
        QCOMPARE(uploads.size(), size_t(1));
        QCOMPARE(uploads[0].row.id, int64_t(7001));
        QCOMPARE(uploads[0].row.startedPartUploadCount, int64_t(3));
        QCOMPARE(uploads[0].row.finishedPartUploadCount, int64_t(2));
        QCOMPARE(uploads[0].partsPresent, uint64_t(2));
        QVERIFY(uploads[0].ageMs >= 90 * 60 * 1000);
    }

    void partsPaneListsPresentAndMissingInNumericOrder()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        QVERIFY(QFile::remove(f.storageDir() + "/1003/parts/10"));
        auto cache = ActionsCache::open(pathsOf(f));
        const auto e = byFolder(cache->entries()).at("1003");
        const auto parts = cache->parts(e);
        QCOMPARE(parts.size(), size_t(12));
        for (size_t i = 0; i < parts.size(); ++i) {
            QCOMPARE(parts[i].index, uint64_t(i));
            QCOMPARE(parts[i].present, i != 10);
            QCOMPARE(parts[i].size, i == 10 ? uint64_t(0) : uint64_t(f.entry("1003").parts[int(i)].size()));
        }
    }

    void verifyReportsTheFixturesProblems()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        auto cache = ActionsCache::open(pathsOf(f));
        Job job("verify");
        const auto findings = cache->verify(job);
        QCOMPARE(kindsOf(findings), baseFindings());
        const Finding* upload = findKind(findings, FindingKind::UnfinishedUpload);
        QVERIFY(upload);
        QCOMPARE(upload->entryId, std::string("7001"));
        QCOMPARE(upload->key, std::string("upload-never-finished"));
        QVERIFY2(QString::fromStdString(upload->message).contains("upload 7001 of key 'upload-never-finished'"),
                 upload->message.c_str());
        QVERIFY2(QString::fromStdString(upload->message).contains("created 2 h ago"), upload->message.c_str());
        const Finding* stalled = findKind(findings, FindingKind::StalledMerge);
        QCOMPARE(stalled->key, std::string("windows-merge-stalled"));
        QVERIFY2(QString::fromStdString(stalled->message).contains("started 2 h ago"), stalled->message.c_str());
        QCOMPARE(findKind(findings, FindingKind::OrphanFolder)->bytes, uint64_t(5000));
        QCOMPARE(findKind(findings, FindingKind::LocationWithoutEntry)->entryId,
                 ActionsCacheFixture::locationWithoutEntryId().toStdString());
    }

    void verifyFindsEachDamage_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("finding");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("also"); // a second finding the damage implies
        QTest::newRow("missing part") << "rm 1003/parts/10" << "missing-parts:1003" << "1 of 12 parts missing (index 10)" << "";
        QTest::newRow("extra part") << "add 1003/parts/12" << "extra-parts:1003" << "beyond the 12 the location claims" << "";
        QTest::newRow("stray name") << "add 1003/parts/007" << "extra-parts:1003" << "not an object the server writes" << "";
        QTest::newRow("merged missing") << "rm 1001/merged" << "merged-missing:1001" << "merged object is missing" << "";
        QTest::newRow("merged wrong size") << "truncate 1002/merged" << "merged-wrong-size:1002" << "is 100 bytes" << "";
        QTest::newRow("parts deleted unmerged")
            << "sql UPDATE storage_locations SET partsDeletedAt = 1 WHERE folderName = '1005'"
            << "parts-deleted-unmerged:1005" << "never merged" << "";
        QTest::newRow("entry without location")
            << "sql INSERT INTO cache_entries VALUES ('e-x', 'k-x', 'v', 5, 'nowhere', 's', 'r')"
            << "entry-without-location:" << "'nowhere', which does not exist" << "";
        QTest::newRow("symlinked part") << "link 1003/parts/4" << "symbolic-link:1003" << "never followed"
                                        << "missing-parts:1003"; // a link is not a part
        QTest::newRow("symlinked folder") << "link 1005" << "symbolic-link:1005" << "symbolic link" << "";
        QTest::newRow("folder name is a path")
            << "sql UPDATE storage_locations SET folderName = '../1001' WHERE folderName = '1005'"
            << "storage-error:../1001" << "is not a plain folder name" << "orphan-folder:1005";
        QTest::newRow("folder is a file") << "file 1005" << "storage-error:1005" << "is not a folder" << "";
    }

    void verifyFindsEachDamage()
    {
        QFETCH(QString, damage);
        QFETCH(QString, finding);
        QFETCH(QString, text);
        QFETCH(QString, also);
        QTemporaryDir dir, outside;
        ActionsCacheFixture f(dir.path());
        const QString what = damage.section(' ', 0, 0), arg = damage.section(' ', 1);
        const QString path = f.storageDir() + "/" + arg;
        if (what == "rm") {
            QVERIFY(QFile::remove(path));
        } else if (what == "add") {
            QVERIFY(testsupport::writeFile(path, "extra"));
        } else if (what == "truncate") {
            QVERIFY(QFile::resize(path, 100));
        } else if (what == "sql") {
            f.exec(arg);
        } else if (what == "file") {
            QVERIFY(QDir(path).removeRecursively());
            QVERIFY(testsupport::writeFile(path, "a file where a folder should be"));
        } else if (what == "link") {
            const QString target = outside.filePath("target");
            QVERIFY(QDir().rename(path, target));
            QVERIFY(QFile::link(target, path));
        }
        auto cache = ActionsCache::open(pathsOf(f));
        Job job("verify");
        const auto findings = cache->verify(job);
        auto expected = baseFindings();
        expected.insert(finding.toStdString());
        if (!also.isEmpty())
            expected.insert(also.toStdString());
        const auto got = kindsOf(findings);
        QVERIFY2(got.count(finding.toStdString()) >= 1, qPrintable(damage));
        bool named = false;
        for (const auto& fi : findings)
            if ((std::string(findingKindName(fi.kind)) + ":" + fi.folder) == finding.toStdString()
                && QString::fromStdString(fi.message + " " + fi.path).contains(text))
                named = true;
        QVERIFY2(named, qPrintable(text));
        // Nothing else appeared.
        for (const auto& k : got)
            QVERIFY2(expected.count(k), k.c_str());
    }

    void absurdPartCountsCostOnlyTheFilesPresent()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        f.exec("UPDATE storage_locations SET partCount = 10000000 WHERE folderName = '1003'");
        auto cache = ActionsCache::open(pathsOf(f));
        const auto e = byFolder(cache->entries()).at("1003");
        QCOMPARE(e.partCount, int64_t(10000000));
        QCOMPARE(e.partsPresent, uint64_t(12));
        QCOMPARE(e.size, uint64_t(f.entry("1003").size));
        QCOMPARE(cache->parts(e, 5).size(), size_t(12 + 5));
        Job job("verify");
        const auto findings = cache->verify(job);
        const Finding* missing = findKind(findings, FindingKind::MissingParts);
        QVERIFY(missing);
        QVERIFY2(QString::fromStdString(missing->message)
                     .contains("9999988 of 10000000 parts missing (index 12, 13, 14, 15, 16 and 9999983 more)"),
                 missing->message.c_str());
        // Merge refuses (parts missing) without looping either.
        const auto plan = cache->planMerge({e.id});
        QCOMPARE(plan.size(), size_t(1));
        QVERIFY(plan[0].error);
    }

    void mergeIsByteExactInNumericOrder()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        // The least readable part decides the merged file's mode.
        QVERIFY(::chmod((f.storageDir() + "/1003/parts/5").toUtf8().constData(), 0600) == 0);
        const auto& fe = f.entry("1003");
        // Lexical order (0, 1, 10, 11, 2, ...) gives other bytes: the test can tell.
        QByteArray lexical;
        for (int i : {0, 1, 10, 11, 2, 3, 4, 5, 6, 7, 8, 9})
            lexical += fe.parts[i];
        QVERIFY(lexical != fe.blob);

        auto cache = ActionsCache::open(pathsOf(f), true);
        const auto plan = cache->planMerge({});
        std::set<std::string> planned;
        for (const auto& r : plan)
            planned.insert(r.key + (r.error ? " refused" : ""));
        // 1003 unmerged, 1004 stalled 2 h ago, 1005 unmerged, 1002 parts left to delete.
        QCOMPARE(planned, (std::set<std::string>{"buildkit-unmerged-12-parts", "windows-merge-stalled",
                                                 "macos-never-downloaded", "linux-node-merged-parts-left"}));
        Job job("merge");
        const auto results = cache->merge({}, job, WriteOptions{false, 0});   // no grace: parts go at once
        QCOMPARE(results.size(), size_t(4));
        for (const auto& r : results)
            QVERIFY2(!r.error, r.action.c_str());

        for (const char* folder : {"1002", "1003", "1004", "1005"}) {
            const auto& e = f.entry(folder);
            const QString merged = f.storageDir() + "/" + folder + "/merged";
            QVERIFY2(testsupport::readFile(merged) == e.blob, folder);
            QVERIFY2(!QFileInfo::exists(f.storageDir() + "/" + folder + "/parts"), folder);
            QCOMPARE(QDir(f.storageDir() + "/" + folder).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                     QStringList{"merged"});
        }
        struct stat st;
        QVERIFY(::stat((f.storageDir() + "/1003/merged").toUtf8().constData(), &st) == 0);
        QCOMPARE(int(st.st_mode & 0777), 0600);
        const auto after = byFolder(cache->entries());
        for (const char* folder : {"1002", "1003", "1004", "1005"}) {
            const auto& e = after.at(folder);
            QCOMPARE(e.state, EntryState::PartsDeleted);
            QVERIFY(e.mergeStartedAtMs && e.mergedAtMs && e.partsDeletedAtMs);
            QCOMPARE(e.size, uint64_t(f.entry(folder).size));
        }
        // The server's data stays in its journal mode.
        QCOMPARE(store::Catalog::journalModeOnDisk(f.dbPath().toStdString()), std::string("delete"));
        QVERIFY(!QFile::exists(f.dbPath() + "-wal"));
        // Only the states that are not about entries are left.
        Job again("verify");
        QCOMPARE(kindsOf(cache->verify(again)),
                 (std::multiset<std::string>{"location-without-entry:1006", "unfinished-upload:7001",
                                             "orphan-folder:9999"}));
    }

    void mergeRefusesLinksAndTouchesNothingOutside()
    {
        QTemporaryDir dir, outside;
        ActionsCacheFixture f(dir.path());
        const QString part = f.storageDir() + "/1003/parts/4", target = outside.filePath("part4");
        QVERIFY(QDir().rename(part, target));
        QVERIFY(QFile::link(target, part));
        const QString victim = outside.filePath("victim");
        QVERIFY(testsupport::writeFile(victim, "not yours"));
        QVERIFY(QFile::link(victim, f.storageDir() + "/1005/merged"));
        const auto before = testsupport::hashTree(outside.path());
        auto cache = ActionsCache::open(pathsOf(f), true);
        Job job("merge");
        const auto results = cache->merge({f.entry("1003").id.toStdString(), f.entry("1005").id.toStdString()}, job);
        QCOMPARE(results.size(), size_t(2));
        for (const auto& r : results) {
            QVERIFY(r.error);
            QVERIFY2(QString::fromStdString(r.action).contains("is a symbolic link"), r.action.c_str());
        }
        QVERIFY(QString::fromStdString(results[0].action + results[1].action).contains(part));
        QCOMPARE(testsupport::treeDifferences(before, testsupport::hashTree(outside.path())), QStringList());
        QVERIFY(QFileInfo(f.storageDir() + "/1005/merged").isSymLink());
    }

    // A FIFO where the server's database should be: SQLite's open (read-only)
    // or its first read (read-write) waited for a writer forever, and Ctrl-C
    // could not stop it. Refused at once, naming it, read-only and writable.
    void fifoDatabaseIsRefusedWithoutWaiting_data()
    {
        QTest::addColumn<bool>("writable");
        QTest::newRow("read-only") << false;
        QTest::newRow("writable") << true;
    }
    void fifoDatabaseIsRefusedWithoutWaiting()
    {
        QFETCH(bool, writable);
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        const DataDirPaths paths = pathsOf(f);
        QVERIFY(QFile::remove(f.dbPath()));
        QVERIFY(::mkfifo(QFile::encodeName(f.dbPath()).constData(), 0600) == 0);
        std::string err;
        const bool finished = testsupport::finishesOrUnblock(f.dbPath(), [&] {
            err = testsupport::errorOf([&] { ActionsCache::open(paths, writable)->entries(); });
        });
        QVERIFY2(finished, "waited on a FIFO as the database");
        QVERIFY2(err.find(f.dbPath().toStdString() + ": is a pipe (FIFO), not a regular file") == 0, err.c_str());
    }

    void linksAndSpecialFilesAreReportedNeverFollowed()
    {
        QTemporaryDir dir, outside;
        ActionsCacheFixture f(dir.path());
        // parts/ of 1003 is a link to a copy outside; part 0 of 1005 a FIFO.
        const QString parts = f.storageDir() + "/1003/parts", target = outside.filePath("parts");
        QVERIFY(QDir().rename(parts, target));
        QVERIFY(QFile::link(target, parts));
        const QString fifo = f.storageDir() + "/1005/parts/0";
        QVERIFY(QFile::remove(fifo));
        QVERIFY(::mkfifo(fifo.toUtf8().constData(), 0644) == 0);
        const auto before = testsupport::hashTree(outside.path());

        auto cache = ActionsCache::open(pathsOf(f), true);
        const auto entries = byFolder(cache->entries());
        QVERIFY2(QString::fromStdString(entries.at("1003").storageError).contains(parts + ": is a symbolic link"),
                 entries.at("1003").storageError.c_str());
        QCOMPARE(entries.at("1005").partsPresent, uint64_t(0));
        Job job("verify");
        const auto kinds = kindsOf(cache->verify(job));
        QCOMPARE(kinds.count("symbolic-link:1003"), size_t(1));
        QCOMPARE(kinds.count("extra-parts:1005"), size_t(1));   // the FIFO is not a part
        QCOMPARE(kinds.count("missing-parts:1005"), size_t(1));
        Job merge("merge");
        for (const auto& r : cache->merge({entries.at("1003").id, entries.at("1005").id}, merge)) {
            QVERIFY(r.error);
            QVERIFY(!r.merged);
        }
        QVERIFY(!QFileInfo::exists(f.storageDir() + "/1005/merged"));
        // Evicting 1003 removes the link, not what it points at.
        Job evict("evict");
        QCOMPARE(cache->evict({{}, {}, {}, {"buildkit-unmerged-12-parts"}}, evict).size(), size_t(1));
        QVERIFY(!QFileInfo::exists(f.storageDir() + "/1003"));
        QCOMPARE(testsupport::treeDifferences(before, testsupport::hashTree(outside.path())), QStringList());
        QCOMPARE(QDir(target).entryList(QDir::Files).size(), 12);
    }

    void readsWaitOutAServersWriteLock()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        // A "server" in the middle of a write: EXCLUSIVE blocks every reader
        // of a rollback-journal database until it commits.
        sqlite3* server = nullptr;
        QCOMPARE(sqlite3_open(f.dbPath().toUtf8().constData(), &server), SQLITE_OK);
        QCOMPARE(sqlite3_exec(server, "BEGIN EXCLUSIVE; UPDATE cache_entries SET key = 'written-under-lock' "
                                      "WHERE id LIKE '%1005'",
                              nullptr, nullptr, nullptr),
                 SQLITE_OK);
        std::thread commit([server] {
            std::this_thread::sleep_for(std::chrono::milliseconds(600));
            sqlite3_exec(server, "COMMIT", nullptr, nullptr, nullptr);
        });
        auto cache = ActionsCache::open(pathsOf(f));
        const auto entries = byFolder(cache->entries()); // waits for the commit, then reads it
        commit.join();
        QCOMPARE(sqlite3_close(server), SQLITE_OK);
        QCOMPARE(entries.at("1005").key, std::string("written-under-lock"));
        QVERIFY(!QFile::exists(f.dbPath() + "-journal"));
    }

    void readsALiveWalDatabaseWithoutChangingIt()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        f.exec("PRAGMA journal_mode=WAL");
        // A "running server": a connection that keeps the WAL with a new entry in it.
        sqlite3* server = nullptr;
        QCOMPARE(sqlite3_open(f.dbPath().toUtf8().constData(), &server), SQLITE_OK);
        QCOMPARE(sqlite3_exec(server,
                              "PRAGMA wal_autocheckpoint=0; UPDATE cache_entries SET key = 'renamed-by-server' "
                              "WHERE id LIKE '%1005'",
                              nullptr, nullptr, nullptr),
                 SQLITE_OK);
        auto cache = ActionsCache::open(pathsOf(f));
        QCOMPARE(byFolder(cache->entries()).at("1005").key, std::string("renamed-by-server"));
        QCOMPARE(sqlite3_close(server), SQLITE_OK);
        // Closed: no -wal left; a read now creates none.
        QVERIFY(!QFile::exists(f.dbPath() + "-wal"));
        const auto before = testsupport::hashTree(f.dataDir());
        QCOMPARE(byFolder(cache->entries()).at("1005").key, std::string("renamed-by-server"));
        Job job("verify");
        cache->verify(job);
        QCOMPARE(testsupport::treeDifferences(before, testsupport::hashTree(f.dataDir())), QStringList());
        QCOMPARE(store::Catalog::journalModeOnDisk(f.dbPath().toStdString()), std::string("wal"));
    }

    void evictByAgeAndBudget()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        auto cache = ActionsCache::open(pathsOf(f), true);
        auto keysOf = [](const std::vector<ActionsEntry>& v) {
            std::set<std::string> s;
            for (const auto& e : v)
                s.insert(e.folderName);
            return s;
        };
        const int64_t day = 24 * 3600 * 1000;
        // Never downloaded: ages from updatedAt (1005 updated 40 days ago).
        QCOMPARE(keysOf(cache->planEvict({30 * day, {}, {}, {}})), (std::set<std::string>{"1005"}));
        // Unused for 36 h: 1001 (downloaded 2 days ago) and 1005; 1003 was updated a day ago.
        QCOMPARE(keysOf(cache->planEvict({{}, day * 3 / 2, {}, {}})), (std::set<std::string>{"1001", "1005"}));
        QCOMPARE(keysOf(cache->planEvict({{}, {}, {}, {"linux-*"}})), (std::set<std::string>{"1001", "1002"}));
        // A budget: least recently used first until the rest fits.
        // A budget: least recently used first until the rest fits; the
        // pending upload's parts take space too.
        uint64_t total = 0;
        for (const auto& e : f.entries())
            total += uint64_t(e.size);
        for (const auto& u : cache->uploads())
            total += u.partBytes;
        QVERIFY(cache->planEvict({{}, {}, total, {}}).empty());
        const auto budget = cache->planEvict({{}, {}, total - 1, {}});
        QCOMPARE(keysOf(budget), (std::set<std::string>{"1005"}));

        Job job("evict");
        const auto gone = cache->evict({{}, day * 3 / 2, {}, {}}, job);
        QCOMPARE(keysOf(gone), (std::set<std::string>{"1001", "1005"}));
        QVERIFY(!QFileInfo::exists(f.storageDir() + "/1001"));
        QVERIFY(!QFileInfo::exists(f.storageDir() + "/1005"));
        QVERIFY(QFileInfo::exists(f.storageDir() + "/1003/parts/11"));
        const auto left = byFolder(cache->entries());
        QCOMPARE(left.size(), size_t(3));
        QVERIFY(!left.count("1001") && !left.count("1005"));
        Job verify("verify");
        QCOMPARE(kindsOf(cache->verify(verify)), baseFindings()); // rows and folders went together
    }

    void evictOfAHostileFolderNameDeletesOnlyTheRows()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        f.exec("UPDATE storage_locations SET folderName = '../../outside' WHERE folderName = '1005'");
        const QString outside = f.dataDir() + "/outside";
        QVERIFY(QDir().mkpath(outside));
        QVERIFY(testsupport::writeFile(outside + "/keep", "keep"));
        auto cache = ActionsCache::open(pathsOf(f), true);
        Job job("evict");
        QCOMPARE(cache->evict({{}, {}, {}, {"macos-never-downloaded"}}, job).size(), size_t(1));
        QCOMPARE(testsupport::readFile(outside + "/keep"), QByteArray("keep"));
        QVERIFY(!byFolder(cache->entries()).count("../../outside"));
    }

    void removeOrphansTakesOnlyOrphans()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        // A file in the storage root is reported, never removed: with
        // --storage naming the data dir it would be the database itself.
        QVERIFY(testsupport::writeFile(f.storageDir() + "/notes.txt", "keep me"));
        auto cache = ActionsCache::open(pathsOf(f), true);
        QCOMPARE(cache->planRemoveOrphans().size(), size_t(2));
        Job job("orphans");
        const auto removed = cache->removeOrphans(job);
        QCOMPARE(removed.size(), size_t(2));
        QVERIFY(!QFileInfo::exists(f.storageDir() + "/9999"));
        QVERIFY(!QFileInfo::exists(f.storageDir() + "/1006"));
        QVERIFY(QFileInfo::exists(f.storageDir() + "/7001/parts/0")); // an upload's folder is not an orphan
        QCOMPARE(testsupport::readFile(f.storageDir() + "/notes.txt"), QByteArray("keep me"));
        Job verify("verify");
        QCOMPARE(kindsOf(cache->verify(verify)),
                 (std::multiset<std::string>{"stalled-merge:1004", "unfinished-upload:7001", "storage-error:notes.txt"}));

        // The data dir named as storage: the database is a file there, never an orphan.
        // It does not even open: that folder holds none of the catalog's folders.
        const auto before = testsupport::hashTree(f.dataDir());
        try {
            ActionsCache::open(resolveDataDir(f.dataDir().toStdString(), {}, f.dataDir().toStdString()), true);
            QFAIL("opened the data dir as its own storage folder");
        } catch (const cs::Error& e) {
            QVERIFY2(QString(e.what()).contains("holds none of the folders the database"), e.what());
        }
        // Built by hand past that check, removeOrphans still refuses.
        ActionsCache wrong(openSqliteCatalog(f.dbPath().toStdString(), true),
                           openFilesystemStorage(f.dataDir().toStdString()));
        Job again("orphans");
        try {
            wrong.removeOrphans(again);
            QFAIL("removed orphans from the wrong storage folder");
        } catch (const cs::Error& e) {
            QVERIFY2(QString(e.what()).contains("is it the right storage folder"), e.what());
        }
        QCOMPARE(testsupport::treeDifferences(before, testsupport::hashTree(f.dataDir())), QStringList());
        for (const auto& fi : wrong.planRemoveOrphans())  // "storage" and sqlite.db are never candidates
            QVERIFY2(fi.folder != "storage" && fi.folder != "sqlite.db", fi.folder.c_str());
        QCOMPARE(store::Catalog::journalModeOnDisk(f.dbPath().toStdString()), std::string("delete"));
    }

    void writesNeedWritableAndAQuietServer()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        {
            auto ro = ActionsCache::open(pathsOf(f));
            Job job("merge");
            QVERIFY_THROWS_EXCEPTION(cs::Error, ro->merge({}, job));
        }
        f.exec(QString("UPDATE uploads SET lastPartUploadedAt = %1").arg(QDateTime::currentMSecsSinceEpoch() - 20000));
        const auto before = testsupport::hashTree(dir.path());
        auto cache = ActionsCache::open(pathsOf(f), true);
        const Activity a = cache->activity();
        QVERIFY(a.active);
        QVERIFY2(QString::fromStdString(a.reason).contains("upload 7001 ('upload-never-finished') received a part"),
                 a.reason.c_str());
        Job job("merge");
        try {
            cache->merge({}, job);
            QFAIL("merged while the server looked active");
        } catch (const cs::Error& e) {
            QVERIFY2(QString(e.what()).contains("the server looks active"), e.what());
        }
        QCOMPARE(testsupport::treeDifferences(before, testsupport::hashTree(dir.path())), QStringList());
        Job forced("merge");
        QCOMPARE(cache->merge({f.entry("1005").id.toStdString()}, forced, {true}).size(), size_t(1));
        QCOMPARE(testsupport::readFile(f.storageDir() + "/1005/merged"), f.entry("1005").blob);
    }

    void importRoundTrip()
    {
        QTemporaryDir dir, target;
        ActionsCacheFixture f(dir.path());
        const auto before = testsupport::hashTree(dir.path());
        auto cache = ActionsCache::open(pathsOf(f));
        auto store = store::Store::init(target.filePath("store").toStdString());
        Job job("import");
        const std::vector<std::string> ids{f.entry("1001").id.toStdString(), f.entry("1003").id.toStdString(),
                                           f.entry("1004").id.toStdString()};
        const auto r = cache->importInto(*store, ids, "actions", 4096, false, job);
        QCOMPARE(r.entries, uint64_t(3));
        QCOMPARE(r.bytes, uint64_t(f.entry("1001").size + f.entry("1003").size + f.entry("1004").size));
        QVERIFY(r.chunks > 0 && r.appendedBytes > 0);
        for (const char* folder : {"1001", "1003", "1004"}) {
            const auto& e = f.entry(folder);
            const auto row = store->findEntry(e.key.toStdString(), e.version.toStdString(), "actions");
            QVERIFY(row);
            const QString out = target.filePath(QString(folder) + ".out");
            Job restore("restore");
            store->restoreEntryToFile(row->id, out.toStdString(), restore);
            QVERIFY2(testsupport::readFile(out) == e.blob, folder);
        }
        QCOMPARE(testsupport::treeDifferences(before, testsupport::hashTree(dir.path())), QStringList());
    }

    // The same key and version saved by repo 1 on main, repo 777, and on
    // refs/heads/feature stay three native entries, each with the server's
    // scope, repo and updatedAt (read back with SQL); a second import
    // stores nothing and skips them all; a row naming a missing location
    // is one named failure and the rest is stored.
    void importKeepsWhoOwnsEachEntry()
    {
        QTemporaryDir dir, target;
        ActionsCacheFixture f(dir.path());
        const auto& base = f.entry("1001");
        const QString key = base.key, version = base.version;
        struct Owner {
            QString id, folder, scope, repo;
            qint64 updatedAt;
            QByteArray blob;
        };
        const QVector<Owner> owners{{"own-777", "8001", "refs/heads/main", "777", 1700000001000, "repo 777's bytes"},
                                    {"own-feat", "8002", "refs/heads/feature", "1", 1700000002000, "feature bytes"}};
        for (const auto& o : owners) {
            QDir().mkpath(f.storageDir() + "/" + o.folder);
            testsupport::writeFile(f.storageDir() + "/" + o.folder + "/merged", o.blob);
            f.exec(QString("INSERT INTO storage_locations (id, folderName, partCount, mergeStartedAt, mergedAt, "
                           "partsDeletedAt) VALUES ('loc-%1', '%2', 1, 1, 1, 1); INSERT INTO cache_entries (id, key, "
                           "version, scope, repoId, updatedAt, locationId) VALUES ('%1', '%3', '%4', '%5', '%6', %7, "
                           "'loc-%1')")
                       .arg(o.id, o.folder, key, version, o.scope, o.repo)
                       .arg(o.updatedAt));
        }
        auto cache = ActionsCache::open(pathsOf(f));
        const std::string storeDir = target.filePath("store").toStdString();
        auto store = store::Store::init(storeDir);
        const std::vector<std::string> ids{base.id.toStdString(), "own-777", "own-feat"};
        Job job("import");
        auto r = cache->importInto(*store, ids, {}, 4096, false, job);
        QCOMPARE(r.entries, uint64_t(3));
        QCOMPARE(r.skipped, uint64_t(0));
        QVERIFY(r.failed.empty());
        // What the native catalog holds for that key, by SQL.
        const auto rows = [&] {
            QStringList out;
            sqlite3* db = nullptr;
            sqlite3_open_v2((storeDir + "/catalog.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
            sqlite3_stmt* st = nullptr;
            sqlite3_prepare_v2(db, ("SELECT scope, repo, CAST(round(created * 1000) AS INTEGER), size FROM entries "
                                    "WHERE key = '" + key.toStdString() + "' ORDER BY repo, scope").c_str(),
                               -1, &st, nullptr);
            while (sqlite3_step(st) == SQLITE_ROW)
                out << QString("%1|%2|%3|%4")
                           .arg(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)),
                                reinterpret_cast<const char*>(sqlite3_column_text(st, 1)))
                           .arg(sqlite3_column_int64(st, 2))
                           .arg(sqlite3_column_int64(st, 3));
            sqlite3_finalize(st);
            sqlite3_close(db);
            return out;
        };
        qint64 baseUpdated = 0;
        for (const auto& e : cache->entries())
            if (e.id == base.id.toStdString())
                baseUpdated = e.updatedAtMs;
        const QStringList want{QString("refs/heads/feature|1|1700000002000|%1").arg(owners[1].blob.size()),
                               QString("refs/heads/main|1|%1|%2").arg(baseUpdated).arg(base.size),
                               QString("refs/heads/main|777|1700000001000|%1").arg(owners[0].blob.size())};
        QCOMPARE(rows(), want);
        // Each restores its own bytes.
        for (const auto& o : owners) {
            const auto row = store->findImported("actions:" + o.id.toStdString() + "@" + std::to_string(o.updatedAt));
            QVERIFY(row);
            QCOMPARE(QString::fromStdString(row->repo), o.repo);
            const QString out = target.filePath(o.id + ".out");
            Job restore("restore");
            store->restoreEntryToFile(row->id, out.toStdString(), restore);
            QCOMPARE(testsupport::readFile(out), o.blob);
        }
        // Again: recognised, nothing stored.
        Job again("import");
        r = cache->importInto(*store, ids, {}, 4096, false, again);
        QCOMPARE(r.entries, uint64_t(0));
        QCOMPARE(r.skipped, uint64_t(3));
        QCOMPARE(rows(), want);
        // A row naming a location that is not there: that entry fails by name, the rest is stored.
        f.exec("INSERT INTO cache_entries (id, key, version, scope, repoId, updatedAt, locationId) VALUES "
               "('lost-entry', 'lost-key', 'v1', 'refs/heads/main', '1', 1700000003000, 'no-such-location')");
        auto fresh = ActionsCache::open(pathsOf(f));
        Job third("import");
        r = fresh->importInto(*store, {"lost-entry", f.entry("1005").id.toStdString()}, {}, 4096, false, third);
        QCOMPARE(r.entries, uint64_t(1));
        QCOMPARE(int(r.failed.size()), 1);
        QCOMPARE(r.failed[0].id, std::string("lost-entry"));
        QCOMPARE(r.failed[0].key, std::string("lost-key"));
        QVERIFY2(r.failed[0].reason.find("no-such-location") != std::string::npos, r.failed[0].reason.c_str());
    }

    void damagedDataIsOneError()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        QVERIFY(QDir(f.dataDir() + "/storage").removeRecursively());
        try {
            ActionsCache::open(pathsOf(f));
            QFAIL("opened without a storage folder");
        } catch (const cs::Error& e) {
            QVERIFY2(QString(e.what()).contains("no such storage folder"), e.what());
        }
        QTemporaryDir dir2;
        ActionsCacheFixture g(dir2.path());
        QFile db(g.dbPath());
        QVERIFY(db.open(QIODevice::ReadWrite));
        db.seek(0);
        db.write(QByteArray(64, 'x'));
        db.close();
        try {
            ActionsCache::open(pathsOf(g));
            QFAIL("opened a damaged database");
        } catch (const cs::Error& e) {
            QVERIFY2(QString(e.what()).contains("sqlite.db: not an SQLite database"), e.what());
        }
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestActionsCache)
#include "tst_actions_cache.moc"
