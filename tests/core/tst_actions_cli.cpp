// `cachescope-cli actions-cache` on a server data dir (common/ActionsCacheFixture.h):
// every read-only command leaves the whole data dir byte-identical (no
// -wal/-shm, journal mode unchanged), the JSON fields of the contract, verify
// exits 1 on findings, writes need --write and a quiet server (or --force),
// usage errors exit 2, damage is one sentence, and a merge killed at every
// named point leaves data the server can serve and a re-run completes.
// The ways of naming the data (DATA_DIR, --db/--storage with or without it,
// the old DB STORAGE form) read the same; long commands draw progress on a
// terminal only. import returns once every entry is committed and merges
// behind (store merge --wait-background waits), or first with --wait.
#include "common/ActionsCacheFixture.h"
#include "common/Pty.h"
#include "common/TestSupport.h"
#include "common/TreeHash.h"

#include "core/store/Catalog.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>

using testsupport::ActionsCacheFixture;
using testsupport::cli;

namespace {

QJsonObject jsonOf(const testsupport::ProcessResult& r)
{
    QJsonParseError err;
    const auto doc = QJsonDocument::fromJson(r.out, &err);
    if (err.error != QJsonParseError::NoError)
        qWarning() << "not JSON:" << r.out.left(400) << r.err;
    return doc.object();
}

void checkUnchanged(const ActionsCacheFixture& f, const testsupport::TreeHash& before, const QString& what)
{
    QCOMPARE(testsupport::treeDifferences(before, testsupport::hashTree(f.dataDir())), QStringList());
    QVERIFY2(!QFile::exists(f.dbPath() + "-wal") && !QFile::exists(f.dbPath() + "-shm"), qPrintable(what));
    QCOMPARE(cs::store::Catalog::journalModeOnDisk(f.dbPath().toStdString()), std::string("delete"));
}

testsupport::ProcessResult cliWithEnv(const QStringList& args, const QString& name, const QString& value)
{
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(name, value);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(CACHESCOPE_CLI), args);
    p.waitForFinished(120000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

} // namespace

class TestActionsCli : public QObject {
    Q_OBJECT
private slots:
    void readOnlyCommandsChangeNoByte()
    {
        QTemporaryDir dir, elsewhere;
        ActionsCacheFixture f(dir.path());
        const QString d = f.dataDir();
        const auto before = testsupport::hashTree(d);
        const QList<QStringList> commands = {
            {"ls", d},
            {"ls", d, "--json"},
            {"ls", f.dbPath(), f.storageDir()}, // the old positional form
            {"ls", "--db", f.dbPath(), "--storage", f.storageDir(), d},
            {"verify", d},
            {"verify", d, "--json"},
            {"merge", d},
            {"merge", d, "--json"},
            {"evict", d, "--unused-for", "1h"},
            {"evict", d, "--older-than", "1d", "--dry-run", "--json"},
            {"evict", d, "--max-size", "1KiB", "--key", "linux-*"},
            {"import", d, elsewhere.filePath("store"), "--json"},
            // The size index goes to the cache folder (XDG_CACHE_HOME, below), never into d.
            {"ls", d, "--sort", "size", "--limit", "2"},
            {"ls", d, "--min-size", "1", "--state", "merged,unmerged", "--max-parts", "3"},
            {"ls", d, "--scope", "refs/heads/main", "--key", "linux-", "--json"},
            {"report", d, "--no-repetition"},
            {"report", d, "--json", "--retention", "1"},
        };
        qputenv("XDG_CACHE_HOME", elsewhere.filePath("cache").toUtf8());
        for (const auto& c : commands) {
            const auto r = cli(QStringList{"actions-cache"} + c);
            const int want = c[0] == "verify" ? 1 : 0;
            QVERIFY2(r.exitCode == want, qPrintable(c.join(' ') + ": " + r.err));
            checkUnchanged(f, before, c.join(' '));
        }
    }

    // Into two stores, one merged behind the command and one with --wait:
    // the same entries, all merged in the end, restoring the same bytes.
    void importMergesBehindUnlessWait()
    {
        QTemporaryDir dir, elsewhere;
        ActionsCacheFixture f(dir.path());
        const QString behind = elsewhere.filePath("behind"), waited = elsewhere.filePath("waited");
        auto r = cli({"actions-cache", "import", f.dataDir(), behind, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject said = jsonOf(r);
        QVERIFY(said["merging_in_background"].toBool());
        const int entries = int(said["entries"].toInteger());
        QVERIFY(entries > 0);
        QCOMPARE(said["chunks"].toInteger(), 0);
        const auto wait = cli({"store", "merge", behind, "--wait-background"});
        QVERIFY2(wait.exitCode == 0, wait.err.constData());
        const auto rows = [&](const QString& store) {
            return QJsonDocument::fromJson(cli({"store", "ls", store, "--json"}).out).array();
        };
        QCOMPARE(rows(behind).size(), entries);
        for (const auto& v : rows(behind))
            QCOMPARE(v.toObject()["state"].toString(), QStringLiteral("merged"));

        r = cli({"actions-cache", "import", f.dataDir(), waited, "--json", "--wait"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(!jsonOf(r)["merging_in_background"].toBool());
        QVERIFY(jsonOf(r)["chunks"].toInteger() > 0);
        const QJsonArray got = rows(waited);
        QCOMPARE(got.size(), entries);
        for (const auto& v : got) {
            const QJsonObject e = v.toObject();
            QCOMPARE(e["state"].toString(), QStringLiteral("merged"));
            QStringList from;
            for (const QString& store : {behind, waited}) {
                const QString out = elsewhere.filePath("out-" + QFileInfo(store).fileName());
                const auto get = cli({"store", "get", store, e["key"].toString(), out, "--version",
                                      e["version"].toString(), "--scope", e["scope"].toString()});
                QVERIFY2(get.exitCode == 0, get.err.constData());
                from << QString::fromStdString(testsupport::sha256OfFile(out));
                QFile::remove(out);
            }
            QCOMPARE(from[0], from[1]);   // each get checked its entry's SHA-256 too
        }
    }

    // ls's size, parts and state filters, end to end: the same entries as
    // the fixture's own rows and bytes say, the limit counted after them.
    void lsFiltersBySizePartsAndState()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        QTemporaryDir cache;
        qputenv("XDG_CACHE_HOME", cache.path().toUtf8());
        auto keysOf = [&](const QStringList& flags) {
            const auto r = cli(QStringList{"actions-cache", "ls", f.dataDir(), "--json"} + flags);
            QStringList keys;
            if (r.exitCode != 0)
                return QStringList{"exit " + QString::number(r.exitCode) + ": " + r.err};
            for (const auto& v : jsonOf(r)["entries"].toArray())
                keys << v.toObject()["key"].toString();
            keys.sort();
            return keys;
        };
        auto expected = [&](auto keep) {
            QStringList keys;
            for (const auto& fe : f.entries())
                if (keep(fe))
                    keys << fe.key;
            keys.sort();
            return keys;
        };
        qint64 median = f.entries()[f.entries().size() / 2].size;
        // The thresholds split the fixture: neither nothing nor everything.
        const auto big = expected([&](const auto& fe) { return fe.size >= median; });
        QVERIFY(!big.isEmpty() && big.size() < f.entries().size());
        QVERIFY(!expected([&](const auto& fe) { return fe.partCount >= 2 && fe.state == "unmerged"; }).isEmpty());
        QVERIFY(!expected([&](const auto& fe) { return fe.state == "parts deleted"; }).isEmpty());
        QCOMPARE(keysOf({"--min-size", QString::number(median)}),
                 expected([&](const auto& fe) { return fe.size >= median; }));
        QCOMPARE(keysOf({"--max-size", QString::number(median), "--state", "merged,unmerged"}),
                 expected([&](const auto& fe) {
                     return fe.size <= median && (fe.state == "merged" || fe.state == "unmerged");
                 }));
        QCOMPARE(keysOf({"--min-parts", "2", "--state", "unmerged"}),
                 expected([&](const auto& fe) { return fe.partCount >= 2 && fe.state == "unmerged"; }));
        QCOMPARE(keysOf({"--state", "parts-deleted", "--state", "merge-started"}),
                 expected([&](const auto& fe) { return fe.state == "parts deleted" || fe.state == "merge started"; }));
        const auto all = expected([&](const auto& fe) { return fe.size >= 1; });
        QCOMPARE(keysOf({"--min-size", "1", "--limit", "1"}).size(), qsizetype(std::min<qsizetype>(all.size(), 1)));
        QCOMPARE(cli({"actions-cache", "ls", f.dataDir(), "--state", "done"}).exitCode, 2);
        qunsetenv("XDG_CACHE_HOME");
    }

    void lsJsonHasTheContractFields()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        const auto r = cli({"actions-cache", "ls", f.dataDir(), "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject root = jsonOf(r);
        const QJsonArray entries = root["entries"].toArray();
        QCOMPARE(entries.size(), f.entries().size());
        for (const auto& v : entries) {
            const QJsonObject e = v.toObject();
            for (const char* field : {"id", "key", "version", "scope", "repo_id", "size", "parts", "merged", "state",
                                      "folder", "updated_at_ms", "last_downloaded_at_ms"})
                QVERIFY2(e.contains(field), field);
            const auto& fe = f.entry(e["folder"].toString());
            QCOMPARE(e["id"].toString(), fe.id);
            QCOMPARE(e["key"].toString(), fe.key);
            QCOMPARE(e["state"].toString(), fe.state);
            QCOMPARE(e["size"].toInteger(), fe.size);
            QCOMPARE(e["parts"].toInt(), fe.partCount);
            QCOMPARE(e["merged"].toBool(), fe.state == "merged" || fe.state == "parts deleted");
            QCOMPARE(e["repo_id"].toString(), QString("1"));
        }
        const QJsonArray uploads = root["uploads"].toArray();
        QCOMPARE(uploads.size(), 1);
        QCOMPARE(uploads[0].toObject()["id"].toInteger(), ActionsCacheFixture::unfinishedUploadId());
        QCOMPARE(uploads[0].toObject()["started_parts"].toInt(), 3);
        QCOMPARE(uploads[0].toObject()["finished_parts"].toInt(), 2);
    }

    void verifyExitsOneOnFindingsAndZeroWhenClean()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        auto r = cli({"actions-cache", "verify", f.dataDir(), "--json"});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(jsonOf(r)["count"].toInt(), 4);
        r = cli({"actions-cache", "verify", f.dataDir()});
        QVERIFY2(r.out.contains("upload 7001 of key 'upload-never-finished' never finished"), r.out.constData());
        // Clean it: finish the stalled merge, drop the orphans and the upload.
        QCOMPARE(cli({"actions-cache", "merge", f.dataDir(), "--write"}).exitCode, 0);
        f.exec("DELETE FROM uploads; DELETE FROM storage_locations WHERE folderName = '1006'");
        for (const char* folder : {"1006", "9999", "7001"})
            QVERIFY(QDir(f.storageDir() + "/" + folder).removeRecursively());
        r = cli({"actions-cache", "verify", f.dataDir()});
        QVERIFY2(r.exitCode == 0, r.out.constData());
        QVERIFY(r.out.contains("no findings"));
    }

    void mergeWritesOnlyWithWrite()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        const QString id = f.entry("1003").id;
        auto r = cli({"actions-cache", "merge", f.dataDir(), id});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("would merge 12 parts into merged for 'buildkit-unmerged-12-parts'"), r.out.constData());
        QVERIFY(r.out.contains("nothing changed"));
        QVERIFY(!QFile::exists(f.storageDir() + "/1003/merged"));
        r = cli({"actions-cache", "merge", f.dataDir(), id, "--write", "--json", "--parts-grace", "0"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject result = jsonOf(r)["results"].toArray()[0].toObject();
        QCOMPARE(result["merged"].toBool(), true);
        QCOMPARE(result["bytes"].toInteger(), f.entry("1003").size);
        QCOMPARE(testsupport::readFile(f.storageDir() + "/1003/merged"), f.entry("1003").blob);
        QVERIFY(!QFile::exists(f.storageDir() + "/1003/parts"));
        // An unknown id is an error, not a silent no-op.
        r = cli({"actions-cache", "merge", f.dataDir(), "no-such-id", "--write"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("no cache entry with id 'no-such-id'"));
    }

    void evictWritesRowsAndFoldersTogether()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        auto r = cli({"actions-cache", "evict", f.dataDir(), "--older-than", "30d", "--write", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray gone = jsonOf(r)["entries"].toArray();
        QCOMPARE(gone.size(), 1);
        QCOMPARE(gone[0].toObject()["key"].toString(), QString("macos-never-downloaded"));
        QVERIFY(!QFileInfo::exists(f.storageDir() + "/1005"));
        r = cli({"actions-cache", "ls", f.dataDir(), "--json"});
        QCOMPARE(jsonOf(r)["entries"].toArray().size(), f.entries().size() - 1);
    }

    // Counts and words: "1 finding", "1 pending upload", an upload called an
    // upload, a shared location's bytes freed once, pending uploads' bytes
    // in the totals and in --max-size, reap-uploads.
    void wordsCountsAndTotals()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        auto r = cli({"actions-cache", "verify", f.dataDir()});
        QVERIFY2(r.out.contains("(upload 'upload-never-finished') [unfinished-upload]"), r.out.constData());
        QVERIFY2(r.out.endsWith("4 findings\n"), r.out.constData());
        r = cli({"actions-cache", "ls", f.dataDir()});
        QVERIFY2(r.out.contains("5 entries, "), r.out.constData());
        QVERIFY2(r.out.contains("; 1 pending upload, "), r.out.constData());
        // A second entry on 1005's location: evicting both frees its bytes once.
        f.exec("INSERT INTO cache_entries (id, key, version, scope, repoId, updatedAt, locationId) SELECT 'twin', "
               "'macos-twin', version, scope, repoId, updatedAt, locationId FROM cache_entries WHERE key = "
               "'macos-never-downloaded'");
        r = cli({"actions-cache", "evict", f.dataDir(), "--key", "macos-*", "--json"});
        QCOMPARE(jsonOf(r)["entries"].toArray().size(), 2);
        QCOMPARE(jsonOf(r)["bytes"].toInteger(), f.entry("1005").size);
        // The pending upload's parts count against --max-size: a budget the
        // entries alone fit is exceeded once they are added.
        qint64 entriesBytes = 0;
        for (const auto& e : jsonOf(cli({"actions-cache", "ls", f.dataDir(), "--json"}))["entries"].toArray())
            entriesBytes += e.toObject()["size"].toInteger();
        r = cli({"actions-cache", "evict", f.dataDir(), "--max-size", QString::number(entriesBytes), "--json"});
        QVERIFY2(!jsonOf(r)["entries"].toArray().isEmpty(), r.out.constData());
        // reap-uploads: the fixture's upload is 1 h 30 min idle.
        r = cli({"actions-cache", "reap-uploads", f.dataDir()});
        QVERIFY2(r.out.contains("0 uploads, 0 B (nothing changed"), r.out.constData());
        r = cli({"actions-cache", "reap-uploads", f.dataDir(), "--older-than", "1h", "--write", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(jsonOf(r)["uploads"].toArray().size(), 1);
        QVERIFY(!QFileInfo::exists(f.storageDir() + "/7001"));
        QVERIFY2(cli({"actions-cache", "ls", f.dataDir()}).out.contains("; 0 pending uploads, "), "upload row left");
        f.exec("DELETE FROM storage_locations WHERE folderName = '1006'");
        QVERIFY(QDir(f.storageDir() + "/9999").removeRecursively());
        QVERIFY(QDir(f.storageDir() + "/1006").removeRecursively());
        r = cli({"actions-cache", "verify", f.dataDir()});
        QVERIFY2(r.out.endsWith("1 finding\n"), r.out.constData());   // the stalled merge
    }

    void writesRefuseWhileTheServerLooksActive()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        f.exec(QString("UPDATE uploads SET lastPartUploadedAt = %1").arg(QDateTime::currentMSecsSinceEpoch() - 30000));
        const auto before = testsupport::hashTree(f.dataDir());
        for (const QStringList& c : {QStringList{"merge", f.dataDir(), "--write"},
                                     QStringList{"evict", f.dataDir(), "--older-than", "1d", "--write"}}) {
            const auto r = cli(QStringList{"actions-cache"} + c);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("the server looks active: upload 7001 ('upload-never-finished') received a part"),
                     r.err.constData());
            QVERIFY2(r.err.contains("To write: wait 4 min"), r.err.constData());
            QCOMPARE(r.err.count('\n'), 1);
            checkUnchanged(f, before, c.join(' '));
        }
        const auto r = cli({"actions-cache", "evict", f.dataDir(), "--older-than", "30d", "--write", "--force"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(!QFileInfo::exists(f.storageDir() + "/1005"));
    }

    // A --storage that is not this server's: an error naming both halves,
    // never "19 entries, 0 B, parts deleted" and exit 0.
    void aWrongStorageIsAnErrorNamingBothPaths()
    {
        QTemporaryDir dir, other;
        ActionsCacheFixture f(dir.path());
        QDir().mkpath(other.filePath("12345/parts"));   // a folder of some other server
        for (const QString& storage : {other.path(), other.filePath("no-such-folder")}) {
            for (const char* cmd : {"ls", "verify"}) {
                const auto r = cli({"actions-cache", cmd, f.dataDir(), "--storage", storage});
                QVERIFY2(r.exitCode == 1, qPrintable(QString(cmd) + ": " + r.out));
                QVERIFY2(r.err.contains(storage.toUtf8()), r.err.constData());
                QVERIFY2(r.err.contains(f.dbPath().toUtf8()), r.err.constData());
                QCOMPARE(r.err.count('\n'), 1);
            }
        }
        // The right one still opens.
        QCOMPARE(cli({"actions-cache", "ls", f.dataDir(), "--storage", f.storageDir()}).exitCode, 0);
    }

    void usageErrorsExitTwo()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        QCOMPARE(cli({"actions-cache", "evict", f.dataDir()}).exitCode, 2);
        QCOMPARE(cli({"actions-cache", "evict", f.dataDir(), "--older-than", "1d", "--dry-run", "--write"}).exitCode, 2);
        QCOMPARE(cli({"actions-cache", "evict", f.dataDir(), "--older-than", "soon"}).exitCode, 2);
        QCOMPARE(cli({"actions-cache", "ls"}).exitCode, 2);
        QCOMPARE(cli({"actions-cache", "frobnicate", f.dataDir()}).exitCode, 2);
    }

    // Every way of naming the data lists the same entries; --db and --storage
    // need no DATA_DIR, even when the next word (import's STORE) exists.
    void wordFormsReadTheSameData()
    {
        QTemporaryDir dir, elsewhere;
        ActionsCacheFixture f(dir.path());
        const QString d = f.dataDir(), db = f.dbPath(), st = f.storageDir();
        const auto reference = cli({"actions-cache", "ls", d, "--json"});
        QCOMPARE(reference.exitCode, 0);
        for (const QStringList& form : {QStringList{db, st}, QStringList{"--db", db, "--storage", st},
                                        QStringList{"--db", db, "--storage", st, d}, QStringList{db}}) {
            const auto r = cli(QStringList{"actions-cache", "ls"} + form + QStringList{"--json"});
            QVERIFY2(r.exitCode == 0, qPrintable(form.join(' ') + ": " + r.err));
            QCOMPARE(jsonOf(r)["entries"], jsonOf(reference)["entries"]); // uploads carry their age
        }
        // merge in the old form, with an id after DB STORAGE: a plan for that entry only.
        const QString id = f.entry("1003").id;
        auto r = cli({"actions-cache", "merge", db, st, id, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(jsonOf(r)["results"].toArray().size(), 1);
        QCOMPARE(jsonOf(r)["results"].toArray()[0].toObject()["id"].toString(), id);
        // import: STORE exists already and follows --db/--storage alone.
        const QString store = elsewhere.filePath("store");
        QCOMPARE(cli({"store", "init", store}).exitCode, 0);
        r = cli({"actions-cache", "import", "--db", db, "--storage", st, store, id, "--json", "--part-size", "64KiB"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(jsonOf(r)["entries"].toInteger(), 1);
        QCOMPARE(jsonOf(r)["bytes"].toInteger(), f.entry("1003").size);
        // the old form with a STORE after it
        r = cli({"actions-cache", "import", db, st, elsewhere.filePath("store2"), id, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(jsonOf(r)["entries"].toInteger(), 1);
        // Too many or too few words are usage errors naming the problem.
        r = cli({"actions-cache", "ls", d, "surplus"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("unexpected argument 'surplus'") && r.err.contains("--help"), r.err.constData());
        r = cli({"actions-cache", "import", d});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("missing arguments"), r.err.constData());
        r = cli({"actions-cache", "ls", "--db", db});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("give DATA_DIR, or both --db and --storage"), r.err.constData());
    }

    // verify, merge --write, evict --write and import draw progress on a
    // terminal (and not with --quiet); the report follows on a clean line.
    void progressOnATerminal()
    {
        QTemporaryDir dir, elsewhere;
        ActionsCacheFixture f(dir.path());
        const QString d = f.dataDir();
        const QList<QStringList> commands = {{"verify", d},
                                             {"import", d, elsewhere.filePath("store")},
                                             {"evict", d, "--older-than", "30d", "--write", "--force"},
                                             {"merge", d, "--write", "--force"}};
        for (const auto& c : commands) {
            const auto [code, tty] = testsupport::cliOnPty(QStringList{"actions-cache"} + c);
            QVERIFY2(code == (c[0] == "verify" ? 1 : 0), tty.constData());
            QVERIFY2(tty.contains("\ractions-cache " + c[0].toUtf8() + " [") && tty.contains("\033[K"),
                     qPrintable(c.join(' ') + ": " + tty));
            const auto [qcode, quiet] = testsupport::cliOnPty(QStringList{"actions-cache"} + c + QStringList{"--quiet"});
            QVERIFY2(!quiet.contains("\033[K"), qPrintable(c.join(' ') + " --quiet: " + quiet));
            Q_UNUSED(qcode);
        }
        const auto piped = cli({"actions-cache", "verify", d});
        QVERIFY2(!piped.err.contains('\r'), piped.err.constData());
    }

    void damageIsOneSentence()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        QVERIFY(QDir(f.dataDir() + "/storage").removeRecursively());
        auto r = cli({"actions-cache", "ls", f.dataDir()});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains("no such storage folder"), r.err.constData());

        QTemporaryDir dir2;
        ActionsCacheFixture g(dir2.path());
        QFile db(g.dbPath());
        QVERIFY(db.open(QIODevice::ReadWrite));
        db.write(QByteArray(100, '\0'));
        db.close();
        const auto before = testsupport::hashTree(g.dataDir());
        for (const char* cmd : {"ls", "verify", "merge"}) {
            r = cli({"actions-cache", cmd, g.dataDir()});
            QCOMPARE(r.exitCode, 1);
            QCOMPARE(r.err.count('\n'), 1);
            QVERIFY2(r.err.contains(g.dbPath().toUtf8() + ": not an SQLite database"), r.err.constData());
        }
        QCOMPARE(testsupport::treeDifferences(before, testsupport::hashTree(g.dataDir())), QStringList());
    }

    void evictKilledBetweenRowsAndFolderLeavesAnOrphan()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        auto r = cliWithEnv({"actions-cache", "evict", f.dataDir(), "--older-than", "30d", "--write"},
                            "CACHESCOPE_ACTIONS_KILL_AT", "evict-rows-deleted");
        QCOMPARE(r.exitCode, -1);
        // The rows went first: no entry points at a missing folder; the folder is an orphan.
        r = cli({"actions-cache", "verify", f.dataDir(), "--json"});
        QStringList kinds;
        for (const auto& v : jsonOf(r)["findings"].toArray())
            kinds << v.toObject()["kind"].toString() + ":" + v.toObject()["folder"].toString();
        kinds.sort();
        QCOMPARE(kinds, (QStringList{"location-without-entry:1006", "orphan-folder:1005", "orphan-folder:9999",
                                     "stalled-merge:1004", "unfinished-upload:7001"}));
        QCOMPARE(jsonOf(cli({"actions-cache", "ls", f.dataDir(), "--json"}))["entries"].toArray().size(),
                 f.entries().size() - 1);
    }

    void mergeKilledAtEveryPointRecovers_data()
    {
        QTest::addColumn<QString>("point");
        for (const char* p : {"merge-started", "part-copied:5", "merged-synced", "merged-published", "merged-at-set",
                              "part-deleted:3", "parts-folder-deleted", "parts-deleted-at-set"})
            QTest::newRow(p) << p;
    }

    void mergeKilledAtEveryPointRecovers()
    {
        QFETCH(QString, point);
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        const auto& fe = f.entry("1003");
        auto r = cliWithEnv({"actions-cache", "merge", f.dataDir(), fe.id, "--write", "--parts-grace", "0"},
                            "CACHESCOPE_ACTIONS_KILL_AT", point);
        QVERIFY2(r.exitCode == -1, qPrintable("not killed at " + point + ": " + r.err));
        // What the server would serve now is the blob: merged once mergedAt
        // is set, else the parts, all there.
        const auto ls = jsonOf(cli({"actions-cache", "ls", f.dataDir(), "--json"}));
        QJsonObject e;
        for (const auto& v : ls["entries"].toArray())
            if (v.toObject()["folder"].toString() == "1003")
                e = v.toObject();
        if (e["merged"].toBool()) {
            QCOMPARE(testsupport::readFile(f.storageDir() + "/1003/merged"), fe.blob);
        } else {
            for (int i = 0; i < 12; ++i)
                QCOMPARE(testsupport::readFile(f.storageDir() + "/1003/parts/" + QString::number(i)), fe.parts[i]);
        }
        // A re-run finishes (forced: the killed run's mergeStartedAt looks like a running server).
        r = cli({"actions-cache", "merge", f.dataDir(), fe.id, "--write", "--force", "--parts-grace", "0"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(testsupport::readFile(f.storageDir() + "/1003/merged"), fe.blob);
        QCOMPARE(QDir(f.storageDir() + "/1003").entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 QStringList{"merged"});
        const auto after = jsonOf(cli({"actions-cache", "ls", f.dataDir(), "--json"}));
        for (const auto& v : after["entries"].toArray())
            if (v.toObject()["folder"].toString() == "1003")
                QCOMPARE(v.toObject()["state"].toString(), QString("parts deleted"));
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestActionsCli)
#include "tst_actions_cli.moc"
