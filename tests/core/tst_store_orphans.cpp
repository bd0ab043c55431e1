// Orphaned parts: a CLI process is SIGKILLed (CACHESCOPE_STORE_KILL_AT) inside
// evict, re-put, merge and the orphan removal itself. Then fsck must report
// exactly the part folders/files no row references (truth: what is on disk
// under the ids whose rows are gone), `store fsck --repair` must remove
// exactly those, every live entry must restore byte-exact (SHA-256), and the
// parts of an upload in progress in another process are never touched.
#include "common/TestSupport.h"
#include "core/StoreTestSupport.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace cs;
using namespace storetest;

namespace {

constexpr qsizetype kPart = 64 << 10;

struct Live {
    int64_t id = 0;
    std::string key;
    QByteArray data;
};

// Every file under parts/ (relative path -> size), folders listed as "<dir>/".
std::map<QString, qint64> partsListing(const QString& storeDir)
{
    std::map<QString, qint64> out;
    const QString root = storeDir + "/parts";
    QDirIterator it(root, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        const QFileInfo fi = it.fileInfo();
        const QString rel = QDir(root).relativeFilePath(fi.filePath());
        out[fi.isDir() ? rel + "/" : rel] = fi.isDir() ? 0 : fi.size();
    }
    return out;
}

qint64 bytesUnder(const QString& path)
{
    const QFileInfo fi(path);
    if (fi.isFile())
        return fi.size();
    qint64 n = 0;
    QDirIterator it(path, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        n += it.fileInfo().size();
    }
    return n;
}

// Runs the CLI with a kill point; true when it died of SIGKILL.
bool cliKilledAt(const QString& point, const QStringList& args)
{
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("CACHESCOPE_STORE_KILL_AT", point);
    p.setProcessEnvironment(env);
    p.start(CACHESCOPE_CLI, args);
    if (!p.waitForFinished(60000))
        return false;
    if (p.exitStatus() != QProcess::CrashExit)
        qWarning() << "not killed:" << p.exitCode() << p.readAllStandardError();
    return p.exitStatus() == QProcess::CrashExit;
}

std::set<QString> orphanPaths(const std::vector<store::FsckProblem>& problems, bool* others = nullptr)
{
    std::set<QString> out;
    for (const auto& p : problems) {
        if (p.path.empty()) {
            if (others)
                *others = true;
            qWarning() << "not an orphan:" << p.message.c_str();
            continue;
        }
        out.insert(QString::fromStdString(p.path));
    }
    return out;
}

class Fixture {
public:
    QTemporaryDir tmp;
    QString dir = tmp.filePath("store");
    std::vector<Live> live;

    Fixture() { store::Store::init(dir.toStdString()); }
    std::unique_ptr<store::Store> open() { return store::Store::open(dir.toStdString()); }
    QString partsDir(int64_t id) const { return dir + "/parts/" + QString::number(id); }

    // Uploads (unmerged, several parts), optionally merges.
    Live add(store::Store& s, const std::string& key, qsizetype size, uint64_t seed, bool merge)
    {
        Live l{0, key, testsupport::randomBytes(size, seed)};
        l.id = upload(s, key, l.data, kPart, 3).id;
        if (merge) {
            Job job;
            job.start();
            s.merge(l.id, job);
        }
        return l;
    }

    // Every live entry restores byte-exact (SHA-256 of what came out).
    bool allRestore()
    {
        auto s = open();
        for (const auto& l : live) {
            const auto row = s->findEntry(l.key);
            if (!row || row->id != l.id) {
                qWarning() << "entry" << l.key.c_str() << "is gone";
                return false;
            }
            if (sha256Hex(restore(*s, l.id)) != sha256Hex(l.data)) {
                qWarning() << "entry" << l.key.c_str() << "does not restore";
                return false;
            }
        }
        return true;
    }

    std::vector<store::FsckProblem> fsck()
    {
        auto s = open();
        Job job;
        job.start();
        return s->fsck(job);
    }
};

// Checks `store fsck` (CLI, JSON) reports exactly `expected`, `--repair`
// removes exactly them, and afterwards nothing else under parts/ changed.
void repairRemovesExactly(Fixture& f, const std::set<QString>& expected)
{
    const auto before = partsListing(f.dir);
    auto check = testsupport::cli({"store", "fsck", f.dir, "--json"});
    QCOMPARE(check.exitCode, expected.empty() ? 0 : 1);
    const QJsonObject report = QJsonDocument::fromJson(check.out).object();
    QCOMPARE(report["clean"].toBool(), expected.empty());
    std::set<QString> reported;
    for (const auto& v : report["problems"].toArray()) {
        const QJsonObject p = v.toObject();
        for (const char* k : {"entry_id", "key", "offset", "message", "path", "bytes"})
            QVERIFY2(p.contains(k), k);
        const QString path = p["path"].toString();
        QVERIFY2(!path.isEmpty(), qPrintable(p["message"].toString()));
        QVERIFY(p["message"].toString().contains(path));
        QCOMPARE(qint64(p["bytes"].toDouble()), bytesUnder(path));
        reported.insert(path);
    }
    QCOMPARE(reported, expected);
    auto text = testsupport::cli({"store", "fsck", f.dir});
    QCOMPARE(text.exitCode, expected.empty() ? 0 : 1);
    for (const auto& path : expected)
        QVERIFY2(text.out.contains(path.toUtf8()), text.out.constData());

    auto repair = testsupport::cli({"store", "fsck", f.dir, "--repair", "--json"});
    QCOMPARE(repair.exitCode, 0);
    const QJsonObject r = QJsonDocument::fromJson(repair.out).object();
    QVERIFY(r["clean"].toBool());
    std::set<QString> removed;
    qint64 removedBytes = 0;
    for (const auto& v : r["removed"].toArray()) {
        removed.insert(v.toObject()["path"].toString());
        removedBytes += qint64(v.toObject()["bytes"].toDouble());
    }
    QCOMPARE(removed, expected);
    QCOMPARE(qint64(r["removed_bytes"].toDouble()), removedBytes);
    // Exactly those went: the rest of parts/ is as it was.
    auto after = partsListing(f.dir);
    auto left = before;
    const QString root = f.dir + "/parts/";
    for (auto it = left.begin(); it != left.end();) {
        bool gone = false;
        for (const auto& path : expected) {
            const QString rel = path.mid(root.size());
            if (it->first == rel || it->first == rel + "/" || it->first.startsWith(rel + "/"))
                gone = true;
        }
        it = gone ? left.erase(it) : std::next(it);
    }
    QCOMPARE(after, left);
    QVERIFY(f.fsck().empty());
    QVERIFY(f.allRestore());
}

} // namespace

class TestStoreOrphans : public QObject {
    Q_OBJECT
private slots:
    void killedDuringEvict_data()
    {
        QTest::addColumn<QString>("point");
        QTest::addColumn<int>("foldersLeft");   // of the 3 unmerged evicted entries
        QTest::newRow("before the 1st folder") << "evict remove:1" << 3;
        QTest::newRow("before the 3rd folder") << "evict remove:3" << 1;
        QTest::newRow("inside the 1st folder") << "part removed:2" << 3;
        QTest::newRow("inside the 2nd folder") << "part removed:6" << 2;
    }
    void killedDuringEvict()
    {
        QFETCH(QString, point);
        QFETCH(int, foldersLeft);
        Fixture f;
        std::vector<int64_t> evicted;
        {
            auto s = f.open();
            f.live.push_back(f.add(*s, "live-unmerged", 5 * kPart + 100, 1, false));
            f.live.push_back(f.add(*s, "live-merged", 4 * kPart, 2, true));
            for (int i = 0; i < 3; ++i)
                evicted.push_back(f.add(*s, "old-" + std::to_string(i), 4 * kPart, 10 + i, false).id);
            evicted.push_back(f.add(*s, "old-merged", 3 * kPart, 20, true).id);
            f.live.push_back(f.add(*s, "live-last", 2 * kPart + 7, 3, false));
        }
        QVERIFY(f.fsck().empty());
        QVERIFY(cliKilledAt(point, {"store", "evict", f.dir, "--key", "old-0", "--key", "old-1", "--key", "old-2",
                                    "--key", "old-merged"}));
        // The rows went in one transaction before any folder.
        {
            auto s = f.open();
            for (int64_t id : evicted)
                QVERIFY(!s->entry(id));
        }
        std::set<QString> expected;
        for (int64_t id : evicted)
            if (QFileInfo::exists(f.partsDir(id)))
                expected.insert(f.partsDir(id));
        QCOMPARE(int(expected.size()), foldersLeft);
        if (point.startsWith("part removed"))   // a folder was cut short inside
            QVERIFY(QDir(*expected.begin()).entryList(QDir::Files).size() < 4);
        bool others = false;
        QCOMPARE(orphanPaths(f.fsck(), &others), expected);
        QVERIFY(!others);
        QVERIFY(f.allRestore());
        repairRemovesExactly(f, expected);
    }

    void killedDuringReput_data()
    {
        QTest::addColumn<QString>("point");
        QTest::newRow("before the old folder") << "replace remove";
        QTest::newRow("inside the old folder") << "part removed:3";
    }
    void killedDuringReput()
    {
        QFETCH(QString, point);
        Fixture f;
        int64_t oldId = 0;
        {
            auto s = f.open();
            f.live.push_back(f.add(*s, "other", 3 * kPart, 4, false));
            oldId = f.add(*s, "cache-key", 6 * kPart, 5, false).id;
        }
        const QByteArray fresh = testsupport::randomBytes(2 * kPart + 99, 6);
        QVERIFY(testsupport::writeFile(f.tmp.filePath("fresh"), fresh));
        QVERIFY(cliKilledAt(point, {"store", "put", f.dir, "cache-key", f.tmp.filePath("fresh"), "--no-merge",
                                    "--part-size", QString::number(kPart)}));
        int64_t newId = 0;
        {
            auto s = f.open();
            QVERIFY(!s->entry(oldId));
            const auto row = s->findEntry("cache-key");
            QVERIFY(row && row->id != oldId);
            newId = row->id;
        }
        f.live.push_back({newId, "cache-key", fresh});
        QVERIFY(QFileInfo::exists(f.partsDir(oldId)));
        const std::set<QString> expected{f.partsDir(oldId)};
        QCOMPARE(orphanPaths(f.fsck()), expected);
        QVERIFY(f.allRestore());
        repairRemovesExactly(f, expected);
    }

    void killedAfterMergeCommit()
    {
        Fixture f;
        {
            auto s = f.open();
            f.live.push_back(f.add(*s, "m", 5 * kPart, 7, false));
        }
        QVERIFY(cliKilledAt("merge remove", {"store", "merge", f.dir, "--all"}));
        {
            auto s = f.open();
            QCOMPARE(int(s->entry(f.live[0].id)->state), int(store::EntryState::Merged));
        }
        const auto problems = f.fsck();
        QCOMPARE(problems.size(), size_t(1));
        QCOMPARE(problems[0].entryId, f.live[0].id);   // named: the merged entry it belonged to
        QCOMPARE(orphanPaths(problems), std::set<QString>{f.partsDir(f.live[0].id)});
        QCOMPARE(qint64(*problems[0].bytes), 5 * kPart);
        repairRemovesExactly(f, {f.partsDir(f.live[0].id)});
    }

    void strayFilesOfACommittedEntry()
    {
        // A crash in commit after its transaction leaves temp files of parts
        // written twice; only the committed parts belong to the entry.
        Fixture f;
        {
            auto s = f.open();
            f.live.push_back(f.add(*s, "e", 3 * kPart, 8, false));
        }
        const QString stray = f.partsDir(f.live[0].id) + "/1.tmp.4242.7";
        const QString extra = f.partsDir(f.live[0].id) + "/3";
        QVERIFY(testsupport::writeFile(stray, QByteArray(1000, 'x')));
        QVERIFY(testsupport::writeFile(extra, QByteArray(10, 'y')));
        const auto problems = f.fsck();
        QCOMPARE(orphanPaths(problems), (std::set<QString>{stray, extra}));
        for (const auto& p : problems)
            QCOMPARE(p.entryId, f.live[0].id);
        repairRemovesExactly(f, {stray, extra});
    }

    void uploadInProgressIsNeverTouched()
    {
        Fixture f;
        auto s = f.open();   // this process uploads while the CLI repairs
        f.live.push_back(f.add(*s, "kept", 3 * kPart, 9, false));
        std::vector<int64_t> gone;
        for (int i = 0; i < 2; ++i)
            gone.push_back(f.add(*s, "gone-" + std::to_string(i), 2 * kPart, 30 + i, false).id);
        const QByteArray data = testsupport::randomBytes(3 * kPart, 10);
        const int64_t up = s->reserve("in-progress");
        s->writePart(up, 2, data.constData() + 2 * kPart, kPart);
        s->writePart(up, 0, data.constData(), kPart);
        // A part being written right now (temp name) and an empty folder level.
        const QString writing = f.partsDir(up) + "/1.tmp.99999.3";
        QVERIFY(testsupport::writeFile(writing, data.mid(kPart, 1000)));
        // Also an upload reserved with no part yet and an empty folder of its own.
        const int64_t empty = s->reserve("empty-upload");
        QVERIFY(QDir().mkpath(f.partsDir(empty)));
        QVERIFY(cliKilledAt("evict remove:1", {"store", "evict", f.dir, "--key", "gone-0", "--key", "gone-1"}));
        const std::set<QString> expected{f.partsDir(gone[0]), f.partsDir(gone[1])};
        const auto uploadFiles = QDir(f.partsDir(up)).entryList(QDir::Files, QDir::Name);
        QCOMPARE(uploadFiles, (QStringList{"0", "1.tmp.99999.3", "2"}));
        repairRemovesExactly(f, expected);
        QCOMPARE(QDir(f.partsDir(up)).entryList(QDir::Files, QDir::Name), uploadFiles);
        QVERIFY(QFileInfo(f.partsDir(empty)).isDir());
        // The upload goes on and commits what it wrote.
        QVERIFY(QFile::remove(writing));
        s->writePart(up, 1, data.constData() + kPart, kPart);
        const auto row = s->commit(up, 3);
        QCOMPARE(row.sha256, sha256Hex(data));
        QCOMPARE(sha256Hex(restore(*s, up)), sha256Hex(data));
        s->abortUpload(empty);
        QVERIFY(!QFileInfo::exists(f.partsDir(empty)));
    }

    void killedInsideTheRepair()
    {
        // The removal is crash-safe itself: killed after moving a folder
        // aside, it leaves an orphan (the renamed folder) the next run removes.
        Fixture f;
        std::vector<int64_t> gone;
        {
            auto s = f.open();
            f.live.push_back(f.add(*s, "kept", 2 * kPart, 11, false));
            for (int i = 0; i < 3; ++i)
                gone.push_back(f.add(*s, "gone-" + std::to_string(i), 2 * kPart, 40 + i, false).id);
        }
        QVERIFY(cliKilledAt("evict remove:1", {"store", "evict", f.dir, "--key", "gone-0", "--key", "gone-1", "--key",
                                               "gone-2"}));
        QCOMPARE(f.fsck().size(), size_t(3));
        QVERIFY(cliKilledAt("orphan renamed:2", {"store", "fsck", f.dir, "--repair"}));
        // One folder removed, one moved aside (not removed), one untouched.
        std::set<QString> expected;
        for (const auto& name : QDir(f.dir + "/parts").entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            if (name != QString::number(f.live[0].id))
                expected.insert(f.dir + "/parts/" + name);
        QCOMPARE(expected.size(), size_t(2));
        int renamed = 0;
        for (const auto& p : expected)
            renamed += p.contains(".orphan.") ? 1 : 0;
        QCOMPARE(renamed, 1);
        QCOMPARE(orphanPaths(f.fsck()), expected);
        QVERIFY(f.allRestore());
        repairRemovesExactly(f, expected);
    }

    void repairBesideRunningUploads()
    {
        // Uploads keep reserving, writing parts slowly and committing in this
        // process while the CLI repairs again and again: it removes the
        // orphans, never an upload's part.
        Fixture f;
        std::set<QString> orphans;
        {
            auto s = f.open();
            f.live.push_back(f.add(*s, "kept", 2 * kPart, 50, false));
            std::vector<int64_t> gone;
            for (int i = 0; i < 3; ++i)
                gone.push_back(f.add(*s, "gone-" + std::to_string(i), 2 * kPart, 51 + i, false).id);
            QVERIFY(cliKilledAt("evict remove", {"store", "evict", f.dir, "--key", "gone-0", "--key", "gone-1", "--key",
                                                 "gone-2"}));
            for (int64_t id : gone)
                orphans.insert(f.partsDir(id));
        }
        auto s = f.open();
        std::atomic<bool> stop{false};
        std::mutex m;
        std::vector<Live> uploaded;
        std::string error;
        std::thread uploader([&] {
            try {
                for (int i = 0; !stop || i < 3; ++i) {
                    const QByteArray data = testsupport::randomBytes(3 * kPart + i, 60 + uint64_t(i));
                    const std::string key = "up-" + std::to_string(i);
                    const int64_t id = s->reserve(key);
                    for (uint32_t k = 0; k < 3; ++k) {
                        std::this_thread::sleep_for(std::chrono::milliseconds(3));
                        const qsizetype off = qsizetype(k) * kPart;
                        s->writePart(id, k, data.constData() + off, size_t(kPart));
                    }
                    if (i > 0)
                        s->writePart(id, 3, data.constData() + 3 * kPart, size_t(i));
                    s->commit(id, i > 0 ? 4 : 3);
                    std::lock_guard g(m);
                    uploaded.push_back({id, key, data});
                }
            } catch (const std::exception& e) {
                std::lock_guard g(m);
                error = e.what();
            }
        });
        std::set<QString> removed;
        for (int r = 0; r < 6; ++r) {
            auto repair = testsupport::cli({"store", "fsck", f.dir, "--repair", "--json"});
            const QJsonObject o = QJsonDocument::fromJson(repair.out).object();
            if (repair.exitCode != 0)
                qWarning() << repair.out;
            QCOMPARE(repair.exitCode, 0);
            for (const auto& v : o["removed"].toArray())
                removed.insert(v.toObject()["path"].toString());
        }
        stop = true;
        uploader.join();
        QVERIFY2(error.empty(), error.c_str());
        for (const auto& u : uploaded)
            f.live.push_back(u);
        QVERIFY(uploaded.size() >= 3);
        // The repair removed the orphans and nothing else: an upload never
        // gets an orphan's id (idsAreNeverReused), so none was taken back.
        std::set<QString> liveFolders;
        for (const auto& l : f.live)
            liveFolders.insert(f.partsDir(l.id));
        for (const auto& path : removed)
            QVERIFY2(orphans.count(path), qPrintable(path));
        for (const auto& path : orphans)
            QVERIFY2(removed.count(path) && !liveFolders.count(path), qPrintable(path));
        std::set<QString> folders;
        for (const auto& name : QDir(f.dir + "/parts").entryList(QDir::AllEntries | QDir::NoDotAndDotDot))
            folders.insert(f.dir + "/parts/" + name);
        QCOMPARE(folders, liveFolders);
        QVERIFY(f.fsck().empty());
        QVERIFY(f.allRestore());
    }

    void idsAreNeverReused()
    {
        // SQLite alone gives a deleted last row's id to the next insert, and
        // evict removes the parts folder of the rows it deleted after its
        // commit: a writer whose new upload got that id lost the folder it
        // was writing ("cannot give the new file a name in its folder", two
        // writers in tst_gc_store_faults). So an id is never handed out twice.
        Fixture f;
        auto s = f.open();
        f.live.push_back(f.add(*s, "first", 2 * kPart, 12, false));
        const int64_t lastId = f.add(*s, "last", 2 * kPart, 13, true).id;
        Job job;
        job.start();
        store::EvictPolicy p;
        p.keys = {"last"};
        QCOMPARE(s->evict(p, job).evicted.size(), size_t(1));
        const auto row = upload(*s, "new", testsupport::randomBytes(kPart, 14), kPart, 2);
        QVERIFY2(row.id > lastId, qPrintable(QString("id %1 after evicting %2").arg(row.id).arg(lastId)));
        // store put's path (putMerged) takes ids the same way.
        const QString file = f.tmp.filePath("put-input");
        QVERIFY(testsupport::writeFile(file, testsupport::randomBytes(100, 15)));
        p.keys = {"new"};
        QCOMPARE(s->evict(p, job).evicted.size(), size_t(1));
        QVERIFY(s->putMerged("put", file.toStdString(), job).entry.id > row.id);
    }

    void reusedIdDoesNotInheritStaleParts()
    {
        // A store written before ids were never reused (no 'last_entry_id'
        // in meta) still gives a deleted last row's id to the next upload:
        // an orphaned folder under that id must not mix into the new upload.
        Fixture f;
        int64_t lastId = 0;
        {
            auto s = f.open();
            f.live.push_back(f.add(*s, "first", 2 * kPart, 12, false));
            lastId = f.add(*s, "last", 5 * kPart, 13, false).id;
        }
        QVERIFY(cliKilledAt("evict remove", {"store", "evict", f.dir, "--key", "last"}));
        QCOMPARE(QDir(f.partsDir(lastId)).entryList(QDir::Files).size(), 5);
        QVERIFY(storetest::sql((f.dir + "/catalog.db").toStdString(), "DELETE FROM meta WHERE key='last_entry_id'"));
        auto s = f.open();
        const QByteArray data = testsupport::randomBytes(kPart + 5, 14);
        const auto row = upload(*s, "new", data, kPart, 2);
        QCOMPARE(row.id, lastId);   // the id was reused (else this test proves nothing)
        QCOMPARE(row.partCount, 2u);
        QCOMPARE(sha256Hex(restore(*s, row.id)), sha256Hex(data));
        f.live.push_back({row.id, "new", data});
        QVERIFY(f.fsck().empty());
        QVERIFY(f.allRestore());
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestStoreOrphans)
#include "tst_store_orphans.moc"
