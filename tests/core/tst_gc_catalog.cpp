// The GC's catalog protocol on a catalog.db with the store's GC tables (made
// here with the same columns as the store's migration 1, so this test does
// not depend on the store module): epoch and running flag, chunk rows of
// collected chunks deleted (and only those), runs recorded with their stats,
// dry runs, cancel, crash recovery, history and comparison.
#include "common/TestSupport.h"
#include "core/GcTestPack.h"

#include "core/util/Error.h"

#include <QDir>

#include <csignal>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace cs;
using namespace gctest;

namespace {

// The tables of the store's migration 1 the GC uses, with the version row
// (a catalog without it is refused as foreign).
const char* kSchema = R"SQL(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
INSERT INTO meta(key, value) VALUES('schema_version', '1');
CREATE TABLE entries(id INTEGER PRIMARY KEY, key TEXT NOT NULL, state TEXT NOT NULL, root_offset INTEGER);
CREATE TABLE chunks(sha256 BLOB PRIMARY KEY, offset INTEGER NOT NULL, raw_size INTEGER NOT NULL, stored_size INTEGER NOT NULL);
CREATE TABLE gc_state(id INTEGER PRIMARY KEY CHECK(id = 1), epoch INTEGER NOT NULL DEFAULT 0,
                      running INTEGER NOT NULL DEFAULT 0, split INTEGER NOT NULL DEFAULT 0, started REAL);
INSERT INTO gc_state(id, epoch, running, split, started) VALUES(1, 0, 0, 0, NULL);
CREATE TABLE gc_runs(id INTEGER PRIMARY KEY, started REAL, finished REAL, generation INTEGER, dry_run INTEGER,
                     status TEXT, stats_json TEXT);
)SQL";

class Db {
public:
    explicit Db(const QString& path)
    {
        sqlite3_open(path.toUtf8().constData(), &db_);
        sqlite3_busy_timeout(db_, 10000);
    }
    ~Db() { sqlite3_close(db_); }
    void exec(const std::string& sql)
    {
        char* err = nullptr;
        if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
            const std::string m = err ? err : "?";
            sqlite3_free(err);
            throw std::runtime_error(m);
        }
    }
    int64_t value(const std::string& sql)
    {
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr);
        int64_t v = -1;
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return v;
    }
    std::set<uint64_t> chunkOffsets()
    {
        std::set<uint64_t> out;
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db_, "SELECT offset FROM chunks", -1, &st, nullptr);
        while (sqlite3_step(st) == SQLITE_ROW)
            out.insert(uint64_t(sqlite3_column_int64(st, 0)));
        sqlite3_finalize(st);
        return out;
    }

private:
    sqlite3* db_ = nullptr;
};

// A store folder: DIR/catalog.db + DIR/pack, entries mirrored into the catalog.
struct CatalogStore {
    QTemporaryDir dir;
    std::unique_ptr<ToyStore> toy;
    std::unique_ptr<Db> db;

    CatalogStore()
    {
        toy = std::make_unique<ToyStore>(dir.filePath("pack").toStdString());
        db = std::make_unique<Db>(catalog());
        db->exec(kSchema);
    }
    QString catalog() const { return dir.filePath("catalog.db"); }
    std::string path() const { return dir.path().toStdString(); }

    // Writes entries and chunk rows as the store would after merges.
    void sync()
    {
        db->exec("DELETE FROM entries");
        for (const auto& [id, e] : toy->entries()) {
            db->exec("INSERT INTO entries(id, key, state, root_offset) VALUES(" + std::to_string(id) + ", 'k"
                     + std::to_string(id) + "', 'merged', " + std::to_string(e.root) + ")");
            for (size_t i = 0; i + 1 < e.objects.size(); ++i) {
                const uint64_t off = e.objects[i];
                const auto h = toy->pack().readHeader(off);
                const std::string hex = Sha256::hex(h.sha256);
                db->exec("INSERT OR IGNORE INTO chunks(sha256, offset, raw_size, stored_size) VALUES(x'" + hex + "', "
                         + std::to_string(off) + ", " + std::to_string(h.rawSize) + ", " + std::to_string(h.totalBytes) + ")");
            }
        }
        // An unmerged entry has no root: it must not count.
        db->exec("INSERT INTO entries(id, key, state, root_offset) VALUES(100000, 'unmerged', 'unmerged', NULL)");
    }
    void evict(int id)
    {
        toy->evict(id);
        db->exec("DELETE FROM entries WHERE id = " + std::to_string(id));
    }
    gc::GcResult gc(bool dryRun = false, std::function<void(const char*)> hook = {}, Job* jobIn = nullptr)
    {
        gc::GcOptions o;
        o.dryRun = dryRun;
        o.hook = std::move(hook);
        Job local;
        Job& job = jobIn ? *jobIn : local;
        return gc::collectStoreGarbage(path(), o, job);
    }
    void fill(std::mt19937_64& rng, int n)
    {
        auto shared = makeChunks(rng, {}, 5, 4000);
        for (int i = 0; i < n; ++i)
            toy->add(makeChunks(rng, shared, 2, 4000));
        sync();
    }
    void checkRestores()
    {
        for (const auto& [id, e] : toy->entries())
            QVERIFY2(toy->restore(e) == e.data, qPrintable(QString("entry %1").arg(id)));
    }
    // Chunk offsets of live entries.
    std::set<uint64_t> liveChunks()
    {
        std::set<uint64_t> s;
        for (const auto& [id, e] : toy->entries())
            for (size_t i = 0; i + 1 < e.objects.size(); ++i)
                s.insert(e.objects[i]);
        return s;
    }
};

} // namespace

class TestGcCatalog : public QObject {
    Q_OBJECT
private slots:
    void runUpdatesCatalog()
    {
        CatalogStore s;
        std::mt19937_64 rng(1);
        s.fill(rng, 30);
        for (int i = 0; i < 30; i += 2)
            s.evict(i);
        const auto live = s.liveChunks();
        const auto r = s.gc();
        QCOMPARE(r.stats.status, std::string("done"));
        QVERIFY(r.runId > 0);
        QCOMPARE(s.db->value("SELECT epoch FROM gc_state"), int64_t(1));
        QCOMPARE(s.db->value("SELECT running FROM gc_state"), int64_t(0));
        QCOMPARE(s.db->value("SELECT split FROM gc_state"), int64_t(r.stats.split));
        QCOMPARE(s.db->chunkOffsets(), live); // exactly the rows of collected chunks went
        QVERIFY(r.stats.chunkRowsDeleted > 0);
        QCOMPARE(r.stats.roots, uint64_t(15));
        s.toy->reopen((s.path() + "/pack"));
        s.toy->forgetCollected();
        s.checkRestores();

        const auto runs = gc::gcHistory(s.catalog().toStdString());
        QCOMPARE(runs.size(), size_t(1));
        QCOMPARE(runs[0].id, r.runId);
        QCOMPARE(runs[0].status, std::string("done"));
        QCOMPARE(runs[0].dryRun, false);
        QCOMPARE(runs[0].generation, uint64_t(1));
        QVERIFY(runs[0].finished >= runs[0].started && runs[0].started > 1e9);
        QCOMPARE(runs[0].stats.toJson(), r.stats.toJson());
    }

    void dryRunLeavesStateAndPack()
    {
        CatalogStore s;
        std::mt19937_64 rng(2);
        s.fill(rng, 20);
        s.evict(3);
        s.evict(7);
        const auto rowsBefore = s.db->chunkOffsets();
        const auto packBefore = s.toy->pack().sizes();
        const auto r = s.gc(true);
        QCOMPARE(r.stats.dryRun, true);
        QVERIFY(r.stats.reclaimedBytes > 0);
        QCOMPARE(s.db->value("SELECT epoch FROM gc_state"), int64_t(0));
        QCOMPARE(s.db->value("SELECT running FROM gc_state"), int64_t(0));
        QCOMPARE(s.db->chunkOffsets(), rowsBefore);
        QCOMPARE(s.toy->pack().sizes().total(), packBefore.total());
        QCOMPARE(s.db->value("SELECT dry_run FROM gc_runs WHERE id = " + std::to_string(r.runId)), int64_t(1));
        // An unrecorded dry run (the GUI's refreshes) reports the same and leaves gc_runs alone.
        const int64_t runs = s.db->value("SELECT count(*) FROM gc_runs");
        gc::GcOptions quiet;
        quiet.dryRun = true;
        quiet.recordDryRun = false;
        Job qj;
        const auto q = gc::collectStoreGarbage(s.path(), quiet, qj);
        QCOMPARE(q.stats.reclaimedBytes, r.stats.reclaimedBytes);
        QCOMPARE(s.db->value("SELECT count(*) FROM gc_runs"), runs);
        // A real run afterwards reclaims what the dry run announced.
        const auto real = s.gc();
        QCOMPARE(real.stats.reclaimedBytes, r.stats.reclaimedBytes);
        QCOMPARE(real.stats.liveBytes, r.stats.liveBytes);
        QCOMPARE(real.stats.objectsVisited, r.stats.objectsVisited);
    }

    void cancelResetsRunning()
    {
        CatalogStore s;
        std::mt19937_64 rng(3);
        s.fill(rng, 20);
        s.evict(1);
        const auto rowsBefore = s.db->chunkOffsets();
        Job job;
        bool cancelled = false;
        try {
            s.gc(false, [&](const char* p) { if (std::string(p) == "copy prefix") job.cancel(); }, &job);
        } catch (const Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
        QCOMPARE(s.db->value("SELECT running FROM gc_state"), int64_t(0));
        QCOMPARE(s.db->value("SELECT epoch FROM gc_state"), int64_t(1)); // it did start
        QCOMPARE(s.db->chunkOffsets(), rowsBefore);
        const auto runs = gc::gcHistory(s.catalog().toStdString());
        QCOMPARE(runs.size(), size_t(1));
        QCOMPARE(runs[0].status, std::string("cancelled"));
        QCOMPARE(s.toy->pack().sizes().generation, uint64_t(0));
    }

    void crashLeavesACatalogRightForTheGeneration_data()
    {
        QTest::addColumn<QString>("point");
        QTest::addColumn<int>("generation");
        QTest::addColumn<bool>("running");
        QTest::addColumn<bool>("rowsTrimmed");
        QTest::newRow("suffix") << "suffix" << 0 << true << false;
        QTest::newRow("catalog") << "catalog" << 0 << false << true;
        QTest::newRow("after control") << "after control" << 1 << false << true;
        QTest::newRow("cleanup") << "cleanup" << 1 << false << true;
    }
    void crashLeavesACatalogRightForTheGeneration()
    {
        QFETCH(QString, point);
        QFETCH(int, generation);
        QFETCH(bool, running);
        QFETCH(bool, rowsTrimmed);
        CatalogStore s;
        std::mt19937_64 rng(4);
        s.fill(rng, 20);
        for (int i = 0; i < 20; i += 3)
            s.evict(i);
        const auto live = s.liveChunks();
        const auto rowsBefore = s.db->chunkOffsets();
        QVERIFY(rowsBefore != live);
        const std::string at = point.toStdString();
        const pid_t pid = ::fork();
        if (pid == 0) {
            try {
                s.gc(false, [&](const char* p) { if (at == p) ::raise(SIGKILL); });
            } catch (...) {
                ::_exit(3);
            }
            ::_exit(4);
        }
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY(WIFSIGNALED(status));
        QCOMPARE(s.db->value("SELECT running FROM gc_state") != 0, running);
        QCOMPARE(s.db->chunkOffsets(), rowsTrimmed ? live : rowsBefore);
        s.toy->reopen(s.path() + "/pack");
        QCOMPARE(int(s.toy->pack().sizes().generation), generation);
        // Every remaining chunk row names a readable chunk of the current generation.
        for (uint64_t o : s.db->chunkOffsets())
            QCOMPARE(int(s.toy->pack().readHeader(o).kind), int(pack::ObjectKind::Chunk));
        QCOMPARE(gc::recoverInterruptedGc(s.catalog().toStdString(), s.toy->pack()), running);
        QCOMPARE(s.db->value("SELECT running FROM gc_state"), int64_t(0));
        QVERIFY(!gc::recoverInterruptedGc(s.catalog().toStdString(), s.toy->pack()));
        s.checkRestores();
        // The next GC finishes the job.
        s.gc();
        QCOMPARE(s.db->chunkOffsets(), live);
        s.toy->reopen(s.path() + "/pack");
        s.toy->forgetCollected();
        s.checkRestores();
    }

    void nextGcRecoversACrashBeforeSwap()
    {
        CatalogStore s;
        std::mt19937_64 rng(5);
        s.fill(rng, 10);
        s.evict(2);
        const pid_t pid = ::fork();
        if (pid == 0) {
            try {
                s.gc(false, [](const char* p) { if (std::string(p) == "traverse") ::raise(SIGKILL); });
            } catch (...) {
                ::_exit(3);
            }
            ::_exit(4);
        }
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QCOMPARE(s.db->value("SELECT running FROM gc_state"), int64_t(1));
        const auto r = s.gc();
        QCOMPARE(r.stats.status, std::string("done"));
        QCOMPARE(s.db->value("SELECT running FROM gc_state"), int64_t(0));
        QCOMPARE(s.db->value("SELECT epoch FROM gc_state"), int64_t(2));
        QCOMPARE(s.db->chunkOffsets(), s.liveChunks());
    }

    void mergeDuringGcIsKept()
    {
        // An entry merged during the GC (objects above the split, catalog row
        // committed after the GC started) survives and restores.
        CatalogStore s;
        std::mt19937_64 rng(6);
        s.fill(rng, 15);
        for (int i = 0; i < 15; i += 2)
            s.evict(i);
        ToyStore writer(s.path() + "/pack");
        std::vector<Entry> added;
        Db other(s.catalog());
        const auto r = s.gc(false, [&](const char* p) {
            if (std::string(p) == "traverse" || std::string(p) == "copy prefix") {
                const int id = writer.add(makeChunks(rng, {}, 3, 4000));
                const Entry& e = writer.entries().at(id);
                added.push_back(e);
                other.exec("INSERT INTO entries(key, state, root_offset) VALUES('during', 'merged', "
                           + std::to_string(e.root) + ")");
            }
        });
        QVERIFY(r.stats.appendedDuringGc > 0);
        QCOMPARE(added.size(), size_t(2));
        s.toy->reopen(s.path() + "/pack");
        for (const auto& e : added)
            QVERIFY(s.toy->restore(e) == e.data);
        // The next GC sees them as roots and keeps them too.
        s.gc();
        s.toy->reopen(s.path() + "/pack");
        for (const auto& e : added)
            QVERIFY(s.toy->restore(e) == e.data);
    }

    void historyAndCompare()
    {
        CatalogStore s;
        std::mt19937_64 rng(7);
        s.fill(rng, 20);
        s.evict(1);
        const auto a = s.gc();
        s.toy->reopen(s.path() + "/pack");
        s.toy->forgetCollected();
        for (int i = 2; i < 20; i += 2)
            s.evict(i);
        const auto b = s.gc();
        const auto runs = gc::gcHistory(s.catalog().toStdString());
        QCOMPARE(runs.size(), size_t(2));
        QCOMPARE(runs[0].id, b.runId); // newest first
        const auto ra = gc::gcRun(s.catalog().toStdString(), a.runId);
        const auto rb = gc::gcRun(s.catalog().toStdString(), b.runId);
        const auto rows = gc::compareGcRuns(ra.stats, rb.stats);
        bool sawLive = false;
        for (const auto& row : rows) {
            if (row.figure == "live_bytes") {
                sawLive = true;
                QCOMPARE(row.a, double(a.stats.liveBytes));
                QCOMPARE(row.b, double(b.stats.liveBytes));
                QCOMPARE(row.percent, 100.0 * double(b.stats.liveBytes) / double(a.stats.liveBytes));
            }
        }
        QVERIFY(sawLive);
        QVERIFY_THROWS_EXCEPTION(cs::Error, gc::gcRun(s.catalog().toStdString(), 999));
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestGcCatalog)
#include "tst_gc_catalog.moc"
