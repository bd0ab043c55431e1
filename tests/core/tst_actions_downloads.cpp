// An in-flight download never fails because of a cachescope write (issue
// 21). This test plays the server's download side, as v9.4.7 does it
// (lib/storage.ts download(), the filesystem adapter, better-sqlite3 with
// its 5 s busy timeout), in threads of this process, while cachescope-cli
// (another process, as an operator runs it beside the server) merges,
// evicts and reaps the same entries:
//   - read the location joined to the entry; none: a miss;
//   - bump lastDownloadedAt;
//   - mergedAt set: stream merged;
//   - mergeStartedAt set: check the parts are there, stream them one by one;
//   - else: mergeStartedAt = now, stream the parts to the client and into
//     merged (written in place), then mergedAt, then partsDeletedAt and the
//     parts folder, as its own merge does.
// A missing first object is the server's "stale cache entry" (a 404, the
// client's miss): a failure when the entry's row is still there afterwards
// (the entry was not evicted, so the client missed a cache it should have
// hit). Anything after the first byte went out (a part that vanished, a
// short or wrong read) is a failed download. Each slot of entries has one
// download thread, so the server's own parts deletion never races its own
// downloads here (it would in the real server, without cachescope).
#include "common/ActionsCacheFixture.h"
#include "common/TestSupport.h"

#include <QDir>
#include <QProcess>
#include <QUuid>

#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <mutex>
#include <random>
#include <thread>

using testsupport::ActionsCacheFixture;

namespace {

int64_t nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

struct ServerEntry {
    QString id, key, folder;
    QByteArray blob;
    int partCount = 0;
};

// The server's half: its connection (one per call here; better-sqlite3's
// single connection behaves the same for these statements) and its storage.
class ServerPlay {
public:
    ServerPlay(QString db, QString storage) : db_(std::move(db)), storage_(std::move(storage)) {}

    struct Outcome {
        bool hit = false, miss = false, failed = false;
        QString why;
    };

    // A new entry, as completeUpload leaves it: unmerged, parts 0..n-1.
    ServerEntry save(const QString& key, int parts, int partSize, uint64_t seed, int64_t updatedAt)
    {
        ServerEntry e;
        e.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
        e.key = key;
        e.folder = QString::number(1000000 + seed);
        e.partCount = parts;
        QDir().mkpath(storage_ + "/" + e.folder + "/parts");
        for (int i = 0; i < parts; ++i) {
            const QByteArray p = testsupport::randomBytes(partSize, seed * 100 + uint64_t(i));
            testsupport::writeFile(storage_ + "/" + e.folder + "/parts/" + QString::number(i), p);
            e.blob += p;
        }
        const QString loc = QUuid::createUuid().toString(QUuid::WithoutBraces);
        exec(QString("BEGIN IMMEDIATE; INSERT INTO storage_locations (id, folderName, partCount) VALUES ('%1', '%2', %3); "
                     "INSERT INTO cache_entries (id, key, version, scope, repoId, updatedAt, locationId) VALUES "
                     "('%4', '%5', 'v1', 'refs/heads/main', '1', %6, '%1'); COMMIT")
                 .arg(loc, e.folder)
                 .arg(parts)
                 .arg(e.id, key)
                 .arg(updatedAt));
        return e;
    }

    // An unfinished upload, idle since createdAt, with parts on disk.
    void upload(int64_t id, int64_t createdAt, std::optional<int64_t> lastPart, int parts)
    {
        QDir().mkpath(storage_ + "/" + QString::number(id) + "/parts");
        for (int i = 0; i < parts; ++i)
            testsupport::writeFile(storage_ + "/" + QString::number(id) + "/parts/" + QString::number(i), "part");
        exec(QString("INSERT INTO uploads (id, key, version, scope, repoId, createdAt, lastPartUploadedAt, folderName, "
                     "startedPartUploadCount, finishedPartUploadCount) VALUES (%1, 'up-%1', 'v1', 'refs/heads/main', "
                     "'1', %2, %3, '%1', %4, %4)")
                 .arg(id)
                 .arg(createdAt)
                 .arg(lastPart ? QString::number(*lastPart) : QString("NULL"))
                 .arg(parts));
    }

    // A part arriving for an upload (uploadPart: started+1, write, finished+1).
    void uploadPart(int64_t id, int index)
    {
        exec(QString("UPDATE uploads SET startedPartUploadCount = startedPartUploadCount + 1 WHERE id = %1").arg(id));
        testsupport::writeFile(storage_ + "/" + QString::number(id) + "/parts/" + QString::number(index), "part");
        exec(QString("UPDATE uploads SET lastPartUploadedAt = %2, finishedPartUploadCount = finishedPartUploadCount + 1 "
                     "WHERE id = %1")
                 .arg(id)
                 .arg(nowMs()));
    }

    Outcome download(const ServerEntry& e, int partPauseMs)
    {
        Outcome o;
        struct Loc {
            QString id, folder;
            int partCount = 0;
            bool mergeStarted = false, merged = false, partsDeleted = false;
        };
        std::optional<Loc> loc;
        query(QString("SELECT l.id, l.folderName, l.partCount, l.mergeStartedAt IS NOT NULL, l.mergedAt IS NOT NULL, "
                      "l.partsDeletedAt IS NOT NULL FROM storage_locations l JOIN cache_entries e ON e.locationId = "
                      "l.id WHERE e.id = '%1'")
                  .arg(e.id),
              [&](sqlite3_stmt* s) {
                  loc = Loc{text(s, 0), text(s, 1), sqlite3_column_int(s, 2), sqlite3_column_int(s, 3) != 0,
                            sqlite3_column_int(s, 4) != 0, sqlite3_column_int(s, 5) != 0};
              });
        if (!loc) {
            o.miss = true;
            return o;
        }
        exec(QString("UPDATE storage_locations SET lastDownloadedAt = %1 WHERE id = '%2'").arg(nowMs()).arg(loc->id));
        const QString dir = storage_ + "/" + loc->folder;
        QByteArray got;
        const auto stale = [&](const QString& what) {
            // The server's ObjectNotFoundError before the response began: a 404.
            o.miss = true;
            if (rowExists(e.id)) {
                o.failed = true;
                o.why = "entry '" + e.key + "' still listed but " + what + " is gone: the client missed it";
            }
            return o;
        };
        const auto broken = [&](const QString& what) {
            o.failed = true;
            o.why = "download of '" + e.key + "' broke after " + QString::number(got.size()) + " bytes: " + what;
            return o;
        };
        const auto readObject = [&](const QString& path) -> std::optional<QString> {
            // fs.access, then createReadStream: a name that is gone fails here.
            QFile f(path);
            if (!f.open(QIODevice::ReadOnly))
                return path.mid(storage_.size() + 1);
            got += f.readAll();
            return std::nullopt;
        };
        const auto partsThere = [&] {
            return QDir(dir + "/parts").entryList(QDir::Files).size() >= loc->partCount;
        };
        if (loc->merged) {
            if (auto missing = readObject(dir + "/merged"))
                return stale(*missing);
        } else {
            if (!partsThere())
                return stale(loc->folder + "/parts");
            const bool serverMerges = !loc->mergeStarted;
            std::optional<QFile> merged;
            if (serverMerges) {
                exec(QString("UPDATE storage_locations SET mergeStartedAt = %1 WHERE id = '%2'").arg(nowMs()).arg(loc->id));
                merged.emplace(dir + "/merged");
                (void)merged->open(QIODevice::WriteOnly | QIODevice::Truncate);
            }
            for (int i = 0; i < loc->partCount; ++i) {
                const qsizetype before = got.size();
                if (auto missing = readObject(dir + "/parts/" + QString::number(i))) {
                    if (serverMerges)
                        exec(QString("UPDATE storage_locations SET mergedAt = NULL, mergeStartedAt = NULL WHERE id = "
                                     "'%1'").arg(loc->id));
                    return i == 0 ? stale(*missing) : broken(*missing + " vanished while streaming");
                }
                if (merged)
                    merged->write(got.constData() + before, got.size() - before);
                std::this_thread::sleep_for(std::chrono::milliseconds(partPauseMs));
            }
            if (serverMerges) {
                merged->close();
                exec(QString("UPDATE storage_locations SET mergedAt = %1 WHERE id = '%2'").arg(nowMs()).arg(loc->id));
                exec(QString("UPDATE storage_locations SET partsDeletedAt = %1 WHERE id = '%2'").arg(nowMs()).arg(loc->id));
                QDir(dir + "/parts").removeRecursively();
            }
        }
        if (got != e.blob)
            return broken("the bytes differ from the entry's (" + QString::number(got.size()) + " of "
                          + QString::number(e.blob.size()) + ")");
        o.hit = true;
        return o;
    }

    bool rowExists(const QString& id)
    {
        bool found = false;
        query("SELECT 1 FROM cache_entries WHERE id = '" + id + "'", [&](sqlite3_stmt*) { found = true; });
        return found;
    }
    bool uploadExists(int64_t id)
    {
        bool found = false;
        query("SELECT 1 FROM uploads WHERE id = " + QString::number(id), [&](sqlite3_stmt*) { found = true; });
        return found;
    }

private:
    static QString text(sqlite3_stmt* s, int c) { return QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(s, c))); }

    sqlite3* connect()
    {
        sqlite3* db = nullptr;
        if (sqlite3_open_v2(db_.toUtf8().constData(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
            qFatal("server: cannot open the database");
        sqlite3_busy_timeout(db, 5000);   // better-sqlite3's default
        return db;
    }
    void exec(const QString& sql)
    {
        sqlite3* db = connect();
        char* err = nullptr;
        if (sqlite3_exec(db, sql.toUtf8().constData(), nullptr, nullptr, &err) != SQLITE_OK) {
            const QString why = err ? err : "?";
            sqlite3_free(err);
            sqlite3_close(db);
            qFatal("server SQL failed: %s: %s", qPrintable(why), qPrintable(sql));
        }
        sqlite3_close(db);
    }
    void query(const QString& sql, const std::function<void(sqlite3_stmt*)>& row)
    {
        sqlite3* db = connect();
        sqlite3_stmt* s = nullptr;
        if (sqlite3_prepare_v2(db, sql.toUtf8().constData(), -1, &s, nullptr) != SQLITE_OK)
            qFatal("server SQL failed: %s", sqlite3_errmsg(db));
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW)
            row(s);
        if (rc != SQLITE_DONE)
            qFatal("server SQL failed: %s", sqlite3_errmsg(db));
        sqlite3_finalize(s);
        sqlite3_close(db);
    }

    QString db_, storage_;
};

struct Tally {
    std::mutex lock;
    int downloads = 0, hits = 0, misses = 0;
    QStringList failures;
    void add(const ServerPlay::Outcome& o)
    {
        std::lock_guard<std::mutex> g(lock);
        ++downloads;
        hits += o.hit;
        misses += o.miss && !o.failed;
        if (o.failed)
            failures << o.why;
    }
};

// Rounds of: new entries saved; cachescope merges them while the server's
// first downloads of them run; every third round cachescope evicts entries
// that were idle for the grace while fresh downloads of them start; every
// fifth it reaps stale uploads while a live upload gets parts. Downloads
// go to tally; commands that failed go to cliErrors.
void runHarness(const QString& dataDir, const QString& grace, int rounds, Tally& tally, QStringList& cliErrors)
{
    ServerPlay server(dataDir + "/sqlite.db", dataDir + "/storage/filesystem");
    std::mt19937 rng(21);
    uint64_t seed = 1;
    std::vector<ServerEntry> cold;   // saved a day ago and never downloaded: eviction candidates
    // CACHESCOPE_HARNESS_CLI names another cachescope-cli to play against
    // (an older one, which has neither --parts-grace nor reap-uploads): run
    // by hand to check that the harness fails against the code before issue
    // 21 (docs/actions-cache.md says how; its result is there).
    const QString otherCli = qEnvironmentVariable("CACHESCOPE_HARNESS_CLI");
    const auto runCli = [&](const QStringList& args, const std::function<void()>& meanwhile) {
        QProcess p;
        QStringList all = QStringList{"actions-cache"} + args;
        all.insert(2, dataDir);
        all << "--write" << "--force";
        if (otherCli.isEmpty())
            all << "--parts-grace" << grace;
        p.start(otherCli.isEmpty() ? QStringLiteral(CACHESCOPE_CLI) : otherCli, all);
        p.waitForStarted();
        meanwhile();
        p.waitForFinished(120000);
        if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
            cliErrors << args.join(' ') + ": " + QString::fromUtf8(p.readAllStandardError()).trimmed() + " "
                             + QString::fromUtf8(p.readAllStandardOutput()).trimmed();
    };
    int64_t uploadId = 5000000;
    const int64_t liveUpload = 4999999;
    server.upload(liveUpload, nowMs() - 2 * 86400000LL, nowMs(), 1);
    for (int round = 0; round < rounds; ++round) {
        if (round % 5 == 4 && otherCli.isEmpty()) {
            // reap-uploads: stale uploads go, the live one (a part a moment ago) stays.
            for (int i = 0; i < 2; ++i)
                server.upload(++uploadId, nowMs() - 3 * 86400000LL, std::nullopt, 2);
            std::atomic<bool> done{false};
            std::thread uploader([&] {
                for (int i = 1; !done; ++i) {
                    server.uploadPart(liveUpload, i % 50);
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                }
            });
            runCli({"reap-uploads", "--older-than", "1d"}, [] {});
            done = true;
            uploader.join();
            if (!server.uploadExists(liveUpload))
                cliErrors << "reap-uploads removed an upload that was getting parts";
            continue;
        }
        if (round % 3 == 2 && !cold.empty()) {
            // evict the cold entries by key while first downloads of some of them start.
            std::vector<ServerEntry> victims = cold;
            cold.clear();
            std::vector<std::thread> readers;
            runCli({"evict", "--key", "cold-*"}, [&] {
                for (size_t i = 0; i < victims.size(); i += 2) {
                    const int delay = int(rng() % 40);
                    readers.emplace_back([&, i, delay] {
                        std::this_thread::sleep_for(std::chrono::milliseconds(delay));
                        tally.add(server.download(victims[i], 3));
                    });
                }
            });
            for (auto& t : readers)
                t.join();
            continue;
        }
        // merge: three new entries, downloaded while cachescope merges them.
        std::vector<ServerEntry> fresh;
        QStringList ids;
        for (int i = 0; i < 3; ++i) {
            fresh.push_back(server.save("hot-" + QString::number(round) + "-" + QString::number(i), 16, 48 * 1024,
                                        ++seed, nowMs()));
            ids << fresh.back().id;
        }
        for (int i = 0; i < 2; ++i)
            cold.push_back(server.save("cold-" + QString::number(round) + "-" + QString::number(i), 4, 32 * 1024,
                                       ++seed, nowMs() - 86400000LL));
        std::vector<std::thread> readers;
        runCli(QStringList{"merge"} + ids, [&] {
            // Spread over cachescope-cli's start and its merge: some first
            // downloads merge themselves, some stream the parts cachescope
            // is merging, some read merged.
            for (const auto& e : fresh) {
                const int delay = int(rng() % 200);
                readers.emplace_back([&, delay] {
                    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
                    for (int n = 0; n < 3; ++n)
                        tally.add(server.download(e, 3));
                });
            }
        });
        for (auto& t : readers)
            t.join();
        // A later merge run deletes the parts once the grace has passed; the
        // downloads of these entries have ended by then.
        if (round % 4 == 3)
            runCli({"merge"}, [] {});
    }
}

// The harness on a fresh fixture data dir, its tally printed.
void runOnFixture(const QString& grace, int rounds, Tally& t, QStringList& cliErrors)
{
    QTemporaryDir dir;
    ActionsCacheFixture f(dir.path());
    runHarness(f.dataDir(), grace, rounds, t, cliErrors);
    qInfo("--parts-grace %s: %d downloads: %d hits, %d misses (evicted), %lld failed", qPrintable(grace), t.downloads,
          t.hits, t.misses, (long long)t.failures.size());
}

} // namespace

class TestActionsDownloads : public QObject {
    Q_OBJECT
private slots:
    void noDownloadFailsBesideCachescopeWrites()
    {
        QStringList cliErrors;
        Tally t;
        runOnFixture("1s", 90, t, cliErrors);
        QVERIFY2(cliErrors.isEmpty(), qPrintable(cliErrors.join("\n")));
        QVERIFY2(t.failures.isEmpty(), qPrintable(t.failures.join("\n")));
        QVERIFY(t.hits > 200);
    }

    // The same harness against writes that delete at once (--parts-grace 0:
    // merge deletes the parts right after mergedAt and evict neither skips a
    // recent download nor waits, as cachescope did before): downloads fail,
    // so the harness can tell. A failure is a race the harness loses or
    // wins by timing (under ctest -j 2 one fixture of 30 rounds once saw
    // none): up to three fixtures, and at least one must fail a download.
    void writesWithoutAGraceBreakDownloads()
    {
        QStringList cliErrors;
        Tally t;
        for (int attempt = 0; attempt < 3 && t.failures.isEmpty(); ++attempt)
            runOnFixture("0", 30, t, cliErrors);
        QVERIFY2(!t.failures.isEmpty(), "no download failed in three fixtures although parts were deleted at once");
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestActionsDownloads)
#include "tst_actions_downloads.moc"
