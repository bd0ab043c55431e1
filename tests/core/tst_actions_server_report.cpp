// `actions-cache report` (core/entries/ServerReport.h) on the fixture
// data dir (every state, common/ActionsCacheFixture.h), each figure checked
// against a count made without cachescope: SQL through SQLite's C API on the
// server's database, file sizes summed from `find -printf %s`, and the
// verify findings. The JSON document keeps issue 28's contract; --csv writes
// the same figures; the server's data is not changed.
#include "common/ActionsCacheFixture.h"
#include "common/TestSupport.h"
#include "common/TreeHash.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/entries/ServerReport.h"
#include "core/jobs/Job.h"
#include "core/store/Chunker.h"
#include "core/store/Store.h"
#include "core/util/Sha256.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <map>
#include <set>

#include <sqlite3.h>

using namespace cs;
using namespace cs::actions;
using namespace cs::entries;
using testsupport::ActionsCacheFixture;

namespace {

// One integer from SQL on the server's database (read-only).
qint64 sqlCount(const QString& db, const QString& sql)
{
    sqlite3* h = nullptr;
    sqlite3_open_v2(db.toUtf8().constData(), &h, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* st = nullptr;
    qint64 v = -1;
    if (sqlite3_prepare_v2(h, sql.toUtf8().constData(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

// Bytes of the regular files below path, as find(1) reports them.
uint64_t findBytes(const QString& path)
{
    const auto r = testsupport::run(QStringLiteral("find"), {path, "-type", "f", "-printf", "%s\n"});
    uint64_t sum = 0;
    for (const QByteArray& line : r.out.split('\n'))
        if (!line.isEmpty())
            sum += line.toULongLong();
    return sum;
}

// The blob of a folder as find sees it: merged (when the entry is merged), else its parts.
uint64_t blobBytes(const QString& folder, bool merged)
{
    if (merged)
        return findBytes(folder + "/merged");
    return QDir(folder + "/parts").exists() ? findBytes(folder + "/parts") : 0;
}

// The exact repetition figure, made without the report's code: the
// store's chunker over each blob, SHA-256 per chunk, the bytes of the
// distinct chunks.
struct ExactChunks {
    uint64_t total = 0, unique = 0;
    std::set<std::string> distinct;
};
ExactChunks exactChunks(const QVector<QByteArray>& blobs, const store::ChunkerParams& params = {})
{
    ExactChunks x;
    for (const QByteArray& b : blobs) {
        store::Chunker c(params);
        const auto* p = reinterpret_cast<const uint8_t*>(b.constData());
        size_t n = size_t(b.size()), start = 0, at = 0;
        while (at < n) {
            bool cut = false;
            at += c.feed(p + at, n - at, cut);
            if (cut || at == n) {
                if (x.distinct.insert(Sha256::hex(Sha256::of(p + start, at - start))).second)
                    x.unique += at - start;
                x.total += at - start;
                start = at;
            }
        }
    }
    return x;
}

ServerReport reportOf(const ActionsCacheFixture& f, int retentionDays, size_t retentionList = kDefaultRetentionList)
{
    auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()));
    Job job("report");
    job.start();
    ReportOptions options;
    options.retentionDays = retentionDays;
    options.retentionList = retentionList;
    options.repetition = false;
    return buildServerReport(*cache, options, job);
}

} // namespace

class TestActionsServerReport : public QObject {
    Q_OBJECT

    QTemporaryDir cacheHome_;

    // Only the entries a test adds: the fixture's rows and folders go.
    static bool clearFixture(ActionsCacheFixture& f)
    {
        f.exec("DELETE FROM cache_entries; DELETE FROM storage_locations; DELETE FROM uploads");
        for (const QString& folder : QDir(f.storageDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            if (!QDir(f.storageDir() + "/" + folder).removeRecursively())
                return false;
        return true;
    }

    // Five random runs R0..R4 of `bytes` each, from seeds seed..seed+4.
    static QVector<QByteArray> randomRuns(int bytes, uint64_t seed)
    {
        QVector<QByteArray> r;
        for (uint64_t i = 0; i < 5; ++i)
            r.push_back(testsupport::randomBytes(bytes, seed + i));
        return r;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(cacheHome_.isValid());
        qputenv("XDG_CACHE_HOME", cacheHome_.path().toUtf8());
    }

    void figuresMatchSqlAndFind()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        const ServerReport r = reportOf(f, 30);
        const QString db = f.dbPath();
        QCOMPARE(qint64(r.entries), sqlCount(db, "SELECT count(*) FROM cache_entries"));
        uint64_t total = 0;
        std::map<std::string, uint64_t> perKey;
        for (const auto& e : f.entries()) {
            const bool merged = e.state == "merged" || e.state == "parts deleted";
            const uint64_t b = blobBytes(f.storageDir() + "/" + e.folder, merged);
            perKey[e.key.toStdString()] = b;
            total += b;
        }
        QCOMPARE(r.bytes, total);
        // No fixture key ends in a hash: each is its own family, with its blob's bytes.
        QCOMPARE(r.families.size(), perKey.size());
        for (const auto& g : r.families)
            QCOMPARE(g.bytes, perKey.at(g.name));
        QVERIFY(std::is_sorted(r.families.begin(), r.families.end(),
                               [](const GroupFigure& a, const GroupFigure& b) { return a.bytes > b.bytes; }));
        QCOMPARE(r.scopes.size(), size_t(1));
        QCOMPARE(qint64(r.scopes[0].entries),
                 sqlCount(db, "SELECT count(*) FROM cache_entries WHERE scope = 'refs/heads/main'"));
        QCOMPARE(r.repos.size(), size_t(1));
        QCOMPARE(r.repos[0].name, std::string("1"));

        // Never downloaded: rows with a NULL lastDownloadedAt, with their blobs' bytes.
        QCOMPARE(qint64(r.neverDownloadedEntries),
                 sqlCount(db, "SELECT count(*) FROM cache_entries e JOIN storage_locations l ON l.id = e.locationId "
                              "WHERE l.lastDownloadedAt IS NULL"));
        QCOMPARE(r.neverDownloadedBytes, perKey.at("buildkit-unmerged-12-parts") + perKey.at("macos-never-downloaded"));
        uint64_t aged = 0, agedBytes = 0;
        for (const auto& b : r.age) {
            aged += b.entries;
            agedBytes += b.bytes;
        }
        QCOMPARE(aged + r.neverDownloadedEntries, r.entries);
        QCOMPARE(agedBytes + r.neverDownloadedBytes, r.bytes);
        // Downloaded 2 days ago (1001) and 1 day ago (1002) fall in 1-7 days; 2 h ago (1004) in 0-1.
        QCOMPARE(r.age[0].entries, uint64_t(1));
        QCOMPARE(r.age[1].entries, uint64_t(2));

        // Past 30 days: only 1005 (written 40 days ago, never downloaded).
        const qint64 cutoff = QDateTime::currentMSecsSinceEpoch() - 30LL * 86400 * 1000;
        QCOMPARE(qint64(r.pastRetentionEntries),
                 sqlCount(db, QString("SELECT count(*) FROM cache_entries e JOIN storage_locations l ON l.id = "
                                      "e.locationId WHERE coalesce(l.lastDownloadedAt, e.updatedAt) < %1")
                                  .arg(cutoff)));
        QCOMPARE(r.pastRetention.size(), size_t(1));
        QCOMPARE(r.pastRetention[0].key, std::string("macos-never-downloaded"));
        QCOMPARE(r.pastRetention[0].reason, RetentionReason::NeverDownloaded);
        QCOMPARE(r.pastRetentionBytes, perKey.at("macos-never-downloaded"));

        // Health: the verify findings counted, bytes from find.
        QCOMPARE(r.orphanFolders, uint64_t(1));
        QCOMPARE(r.orphanBytes, findBytes(f.storageDir() + "/" + ActionsCacheFixture::orphanFolder()));
        QCOMPARE(qint64(r.unfinishedUploads), sqlCount(db, "SELECT count(*) FROM uploads"));
        QCOMPARE(r.unfinishedUploadBytes, findBytes(f.storageDir() + "/7001"));
        QCOMPARE(qint64(r.unfinishedMerges),
                 sqlCount(db, "SELECT count(*) FROM storage_locations l JOIN cache_entries e ON e.locationId = l.id "
                              "WHERE l.mergeStartedAt IS NOT NULL AND l.mergedAt IS NULL"));
        QCOMPARE(r.stalledMerges, uint64_t(1));
        QCOMPARE(r.missingObjects, uint64_t(0));
        auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()));
        Job v("verify");
        std::map<std::string, uint64_t> counted;
        for (const auto& finding : cache->verify(v))
            ++counted[findingKindName(finding.kind)];
        QCOMPARE(r.findings, counted);
    }

    void retentionReasonsFollowTheServersCleanup()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        // One day: 1001 (downloaded 2 days ago) is eligible for the cleanup;
        // 1005 and 1003 were never downloaded, which the cleanup never selects.
        const ServerReport r = reportOf(f, 1);
        std::map<std::string, RetentionReason> reasons;
        for (const auto& k : r.pastRetention)
            reasons[k.key] = k.reason;
        QCOMPARE(reasons.at("linux-cargo-merged"), RetentionReason::AwaitingCleanup);
        QCOMPARE(reasons.at("macos-never-downloaded"), RetentionReason::NeverDownloaded);
        QCOMPARE(reasons.at("buildkit-unmerged-12-parts"), RetentionReason::NeverDownloaded);
        QVERIFY(!reasons.count("windows-merge-stalled"));   // downloaded 2 h ago
        QCOMPARE(r.pastRetention.size(), size_t(r.pastRetentionEntries));
        QCOMPARE(r.pastRetentionByReason[0] + r.pastRetentionByReason[1], r.pastRetentionEntries);
        QCOMPARE(r.pastRetentionBytesByReason[0] + r.pastRetentionBytesByReason[1], r.pastRetentionBytes);
        QCOMPARE(r.pastRetentionByReason[int(RetentionReason::AwaitingCleanup)], r.eligibleForCleanup);
        // A bounded list keeps the oldest, in order; the counts still cover every entry.
        QVERIFY(r.pastRetention.size() >= 3);
        const ServerReport two = reportOf(f, 1, 2);
        QCOMPARE(two.pastRetention.size(), size_t(2));
        QCOMPARE(two.pastRetention[0].id, r.pastRetention[0].id);
        QCOMPARE(two.pastRetention[1].id, r.pastRetention[1].id);
        QCOMPARE(two.pastRetentionEntries, r.pastRetentionEntries);
        QCOMPARE(two.pastRetentionBytes, r.pastRetentionBytes);
        QCOMPARE(reportOf(f, 1, 0).pastRetention.size(), size_t(0));
        const qint64 cutoff = QDateTime::currentMSecsSinceEpoch() - 86400LL * 1000;
        // What the server's query selects (tasks/cleanup/cache-entries.ts): lastDownloadedAt < cutoff.
        QCOMPARE(qint64(r.eligibleForCleanup),
                 sqlCount(f.dbPath(), QString("SELECT count(*) FROM storage_locations l JOIN cache_entries e ON "
                                              "e.locationId = l.id WHERE l.lastDownloadedAt < %1")
                                          .arg(cutoff)));
    }

    // serverReportFromJson (what `cachescope --render-report` draws the
    // CLI's --plot from) reads back the reasons, the bounded list, the
    // health counts past the contract, the notes and the index figures.
    void jsonReadsBackTheReasonsAndTheList()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        const ServerReport r = reportOf(f, 1, 2);
        QVERIFY(r.pastRetentionEntries > 2);
        const ServerReport back = serverReportFromJson(serverReportJson(r), "report.json");
        QCOMPARE(back.eligibleForCleanup, r.eligibleForCleanup);
        for (int k = 0; k < 2; ++k) {
            QCOMPARE(back.pastRetentionByReason[k], r.pastRetentionByReason[k]);
            QCOMPARE(back.pastRetentionBytesByReason[k], r.pastRetentionBytesByReason[k]);
        }
        QVERIFY(r.pastRetentionByReason[int(RetentionReason::NeverDownloaded)] > 0);
        QVERIFY(r.pastRetentionByReason[int(RetentionReason::AwaitingCleanup)] > 0);
        QCOMPARE(back.pastRetention.size(), size_t(2));
        for (size_t i = 0; i < 2; ++i) {
            QCOMPARE(back.pastRetention[i].id, r.pastRetention[i].id);
            QCOMPARE(back.pastRetention[i].key, r.pastRetention[i].key);
            QCOMPARE(back.pastRetention[i].bytes, r.pastRetention[i].bytes);
            QCOMPARE(back.pastRetention[i].lastUsedMs, r.pastRetention[i].lastUsedMs);
            QCOMPARE(back.pastRetention[i].reason, r.pastRetention[i].reason);
            QCOMPARE(back.pastRetention[i].explanation, r.pastRetention[i].explanation);
        }
        QCOMPARE(back.orphanFolders, r.orphanFolders);
        QCOMPARE(back.stalledMerges, r.stalledMerges);
        QCOMPARE(back.findings, r.findings);
        QCOMPARE(back.compressionNote, r.compressionNote);
        QCOMPARE(back.repetitionNote, r.repetitionNote);
        QCOMPARE(back.index.rowsRead, r.index.rowsRead);
        QCOMPARE(back.index.foldersListed, r.index.foldersListed);
        QCOMPARE(back.nowMs, r.nowMs);
        // A JSON of the contract alone (no list, no reasons) still reads.
        Json bare = serverReportJson(r);
        bare["past_retention"].erase("by_reason");
        bare["past_retention"].erase("list");
        const ServerReport contract = serverReportFromJson(bare, "bare.json");
        QCOMPARE(contract.pastRetentionEntries, r.pastRetentionEntries);
        QCOMPARE(contract.pastRetention.size(), size_t(0));
    }

    void cliJsonKeepsTheContractAndChangesNothing()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        const auto before = testsupport::hashTree(f.dataDir());
        const QString csv = dir.path() + "/../report-" + QString::number(::getpid()) + ".csv";
        const auto r = testsupport::cli({"actions-cache", "report", f.dataDir(), "--json", "--no-repetition", "--csv", csv});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(testsupport::hashTree(f.dataDir()), before);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        for (const char* k : {"entries", "bytes", "families", "scopes", "repos", "age", "never_downloaded",
                              "past_retention", "compression", "repetition", "health"})
            QVERIFY2(o.contains(k), k);
        const QJsonObject fam = o["families"].toArray()[0].toObject();
        for (const char* k : {"family", "entries", "bytes", "newest_ms", "oldest_ms"})
            QVERIFY2(fam.contains(k), k);
        QVERIFY(o["scopes"].toArray()[0].toObject().contains("scope"));
        QVERIFY(o["repos"].toArray()[0].toObject().contains("repo_id"));
        for (const char* k : {"from_days", "to_days", "entries", "bytes"})
            QVERIFY2(o["age"].toArray()[0].toObject().contains(k), k);
        for (const char* k : {"days", "entries", "bytes"})
            QVERIFY2(o["past_retention"].toObject().contains(k), k);
        QCOMPARE(o["past_retention"].toObject()["days"].toInt(), 30);
        QVERIFY(o["compression"].toObject().contains("formats"));
        QVERIFY(o["compression"].toObject().contains("serial_bytes"));
        for (const char* k : {"total_bytes", "estimated_unique_bytes", "error_bytes"})
            QVERIFY2(o["repetition"].toObject().contains(k), k);
        for (const char* k : {"orphan_bytes", "missing_objects", "unfinished_uploads", "unfinished_upload_bytes",
                              "unfinished_merges"})
            QVERIFY2(o["health"].toObject().contains(k), k);
        QCOMPARE(o["entries"].toInteger(), sqlCount(f.dbPath(), "SELECT count(*) FROM cache_entries"));
        // The CSV: the same totals.
        QFile c(csv);
        QVERIFY(c.open(QIODevice::ReadOnly));
        const QByteArray text = c.readAll();
        c.remove();
        QVERIFY(text.startsWith("section,name,entries,bytes,from_days,to_days\n"));
        QVERIFY2(text.contains("total,," + QByteArray::number(o["entries"].toInteger()) + ","
                               + QByteArray::number(o["bytes"].toInteger())),
                 text.constData());
    }

    // Entries of known overlap (random 3 MiB runs R0..R4: R0R1, R0R2, R1R2,
    // R3, and R0R1 again as stock zstd's single frame): the estimate is the
    // exact figure (the sample holds every chunk under the default memory),
    // which SHA-256 over the same chunker's chunks gives and `import` into a
    // native store confirms (its new chunks).
    void repetitionIsTheExactFigureImportConfirms()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        QVERIFY(clearFixture(f));
        const QVector<QByteArray> r = randomRuns(3 << 20, 500);
        const QVector<QByteArray> blobs{r[0] + r[1], r[0] + r[2], r[1] + r[2], r[3]};
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        auto add = [&](int i, const QByteArray& stored) {
            const QString folder = QString::number(2000 + i);
            QDir().mkpath(f.storageDir() + "/" + folder);
            QVERIFY(testsupport::writeFile(f.storageDir() + "/" + folder + "/merged", stored));
            f.exec(QString("INSERT INTO storage_locations VALUES ('l%1', '%2', 1, %3, %3, %3, NULL);"
                           "INSERT INTO cache_entries (id, key, version, updatedAt, locationId, scope, repoId) VALUES "
                           "('e%1', 'gen-%1', 'v', %3, 'l%1', 'refs/heads/main', '1')")
                       .arg(i).arg(folder).arg(now));
        };
        for (int i = 0; i < blobs.size(); ++i)
            add(i, blobs[i]);
        // The fifth: R0R1 through stock zstd (one frame, no declared size from a pipe).
        const auto z = testsupport::zstd({"-q", "-c", "-3"}, blobs[0]);
        QCOMPARE(z.exitCode, 0);
        add(4, z.out);

        // The exact figure: the same chunker, SHA-256 per chunk, over the decoded blobs.
        std::set<std::string> distinct;
        uint64_t total = 0, unique = 0;
        for (const QByteArray& b : QVector<QByteArray>{blobs[0], blobs[1], blobs[2], blobs[3], blobs[0]}) {
            store::Chunker c;
            const auto* p = reinterpret_cast<const uint8_t*>(b.constData());
            size_t n = size_t(b.size()), start = 0, at = 0;
            while (at < n) {
                bool cut = false;
                at += c.feed(p + at, n - at, cut);
                if (cut || at == n) {
                    const Digest d = Sha256::of(p + start, at - start);
                    if (distinct.insert(Sha256::hex(d)).second)
                        unique += at - start;
                    total += at - start;
                    start = at;
                    if (!cut)
                        break;
                }
            }
        }
        auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()));
        Job job("report");
        job.start();
        const ServerReport rep = buildServerReport(*cache, ReportOptions{}, job);
        QVERIFY(rep.repetitionUnique.has_value());
        QCOMPARE(*rep.repetitionTotal, total);
        QCOMPARE(*rep.repetitionUnique, unique);
        QCOMPARE(*rep.repetitionError, uint64_t(0));
        QCOMPARE(rep.samplingRate, 1.0);
        QVERIFY(unique < total * 3 / 4);   // the overlap is there to find
        // Formats: four raw blobs ("other") and one zstd that restores serially.
        QCOMPARE(rep.formats->at("zstd"), uint64_t(z.out.size()));
        QCOMPARE(rep.formats->at("other"), uint64_t(blobs[0].size() + blobs[1].size() + blobs[2].size() + blobs[3].size()));
        QCOMPARE(*rep.serialBytes, uint64_t(z.out.size()));

        // import stores the raw blobs: its new chunks are the distinct chunks of the four.
        QTemporaryDir target;
        auto st = store::Store::init(target.filePath("store").toStdString());
        Job imp("import");
        imp.start();
        const auto res = cache->importInto(*st, {"e0", "e1", "e2", "e3"}, "actions", 1 << 20, false, imp);
        std::set<std::string> rawDistinct;
        for (const QByteArray& b : QVector<QByteArray>{blobs[0], blobs[1], blobs[2], blobs[3]}) {
            store::Chunker c;
            const auto* p = reinterpret_cast<const uint8_t*>(b.constData());
            size_t n = size_t(b.size()), start = 0, at = 0;
            while (at < n) {
                bool cut = false;
                at += c.feed(p + at, n - at, cut);
                if (cut || at == n) {
                    rawDistinct.insert(Sha256::hex(Sha256::of(p + start, at - start)));
                    start = at;
                }
            }
        }
        QCOMPARE(res.newChunks, uint64_t(rawDistinct.size()));
        QCOMPARE(distinct.size(), rawDistinct.size());   // the zstd entry decodes to R0R1: nothing new
    }

    // The sampling path: small chunks (2 KiB minimum, 8 KiB average) over
    // 112 MiB of blobs of known overlap, and a --memory whose quarter holds
    // fewer fingerprints than there are distinct chunks, so the sample
    // halves its range. The estimate is within its own error and within 5 %
    // of the exact figure (the same chunker and SHA-256 per chunk, computed
    // here); import into a store cutting the same chunks confirms the exact
    // figure (its new chunks' bytes).
    void repetitionSampledIsWithinItsErrorOfTheExactFigure()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        QVERIFY(clearFixture(f));
        const QVector<QByteArray> r = randomRuns(8 << 20, 900);
        const QVector<QByteArray> blobs{r[0] + r[1], r[0] + r[2], r[1] + r[2], r[3], r[3] + r[4], r[0] + r[4] + r[2]};
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        for (int i = 0; i < blobs.size(); ++i) {
            const QString folder = QString::number(3000 + i);
            QDir().mkpath(f.storageDir() + "/" + folder);
            QVERIFY(testsupport::writeFile(f.storageDir() + "/" + folder + "/merged", blobs[i]));
            f.exec(QString("INSERT INTO storage_locations VALUES ('l%1', '%2', 1, %3, %3, %3, NULL);"
                           "INSERT INTO cache_entries (id, key, version, updatedAt, locationId, scope, repoId) VALUES "
                           "('e%1', 'gen-%1', 'v', %3, 'l%1', 'refs/heads/main', '1')")
                       .arg(i).arg(folder).arg(now));
        }
        store::ChunkerParams small;
        small.minSize = 2 << 10;
        small.avgSize = 8 << 10;
        small.maxSize = 32 << 10;
        const ExactChunks exact = exactChunks(blobs, small);
        ReportOptions options;
        options.chunker = small;
        options.memoryBytes = 384 << 10;   // a quarter: 2,048 fingerprints of 48 B
        QVERIFY(exact.distinct.size() > options.memoryBytes / 4 / 48);   // more chunks than the sample holds

        auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()));
        Job job("report");
        job.start();
        const ServerReport rep = buildServerReport(*cache, options, job);
        QVERIFY(rep.repetitionUnique.has_value());
        QCOMPARE(*rep.repetitionTotal, exact.total);
        QVERIFY2(rep.samplingRate < 1.0, qPrintable(QString::number(rep.samplingRate)));   // the path under test
        const double off = double(*rep.repetitionUnique) - double(exact.unique);
        const QString what = QString("estimate %1 of exact %2 (error %3, rate %4, %5 distinct chunks)")
                                 .arg(*rep.repetitionUnique)
                                 .arg(exact.unique)
                                 .arg(*rep.repetitionError)
                                 .arg(rep.samplingRate)
                                 .arg(exact.distinct.size());
        qInfo("%s", qPrintable(what));
        QVERIFY2(std::fabs(off) <= double(*rep.repetitionError), qPrintable(what));
        QVERIFY2(std::fabs(off) <= 0.05 * double(exact.unique), qPrintable(what));
        QVERIFY2(*rep.repetitionError > 0 && *rep.repetitionError <= exact.unique / 10, qPrintable(what));
        QVERIFY(exact.unique < exact.total * 3 / 4);   // the overlap is there to find

        QTemporaryDir target;
        store::StoreOptions so;
        so.chunker = small;
        auto st = store::Store::init(target.filePath("store").toStdString(), so);
        Job imp("import");
        imp.start();
        std::vector<std::string> ids;
        for (int i = 0; i < blobs.size(); ++i)
            ids.push_back("e" + std::to_string(i));
        const auto res = cache->importInto(*st, ids, "actions", 1 << 20, false, imp);
        QCOMPARE(res.newChunks, uint64_t(exact.distinct.size()));
        sqlite3* h = nullptr;
        QCOMPARE(sqlite3_open_v2(target.filePath("store/catalog.db").toUtf8().constData(), &h, SQLITE_OPEN_READONLY,
                                 nullptr),
                 SQLITE_OK);
        sqlite3_stmt* q = nullptr;
        uint64_t stored = 0;
        if (sqlite3_prepare_v2(h, "SELECT coalesce(sum(raw_size), 0) FROM chunks", -1, &q, nullptr) == SQLITE_OK
            && sqlite3_step(q) == SQLITE_ROW)
            stored = uint64_t(sqlite3_column_int64(q, 0));
        sqlite3_finalize(q);
        sqlite3_close(h);
        QCOMPARE(stored, exact.unique);
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestActionsServerReport)
#include "tst_actions_server_report.moc"
