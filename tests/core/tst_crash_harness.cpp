// Crash harness: cachescope-cli processes doing an upload (store put: one
// pass into the pack), a re-put that replaces an entry (merged in one pass,
// and as parts with --no-merge), a merge, an eviction, a GC and an
// actions-cache merge are SIGKILLed at named kill points
// (CACHESCOPE_STORE_KILL_AT / CACHESCOPE_GC_KILL_AT point:n, every pass n
// until the point is no longer reached) and at random
// moments (SIGKILL after a random delay within the operation's own duration).
// Each run starts from a fresh copy of a template store (or data dir). After each kill:
//  - `store fsck` is clean, or reports only orphaned parts (files a crash
//    between a commit and its cleanup leaves), and is clean after --repair;
//  - every entry committed before the operation is listed with the SHA-256
//    of the bytes that were put (an independent hash kept by this test), and
//    fsck decoded every merged one against it; unmerged ones and the ones the
//    operation touched are restored with `store get` and hashed.
//  - actions-cache: a merge afterwards completes and every entry's merged
//    object is its blob (the fixture's own bytes).
// Short mode (ctest): the first passes of every point and a few random
// moments per operation. Long mode (CACHESCOPE_CRASH_LONG=1, for a release):
// every pass of every point and many more random moments. Prints how many
// distinct points were hit.
#include "common/ActionsCacheFixture.h"
#include "common/TestSupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QSet>
#include <QThread>

#include <sqlite3.h>
#include <sys/wait.h>

#include <csignal>

#include <filesystem>
#include <map>
#include <random>

using namespace testsupport;

namespace {

const bool kLong = qEnvironmentVariableIntValue("CACHESCOPE_CRASH_LONG") != 0;

struct Outcome {
    bool killed = false;    // died of SIGKILL (ours or a kill point's)
    int exitCode = -1;
    QByteArray err;
};

// Runs the CLI; with killVar set, `point:n` in it; with delayMs >= 0, SIGKILL
// after that many milliseconds unless it finished first.
Outcome runCli(const QStringList& args, const QString& killVar = {}, const QString& spec = {}, int delayMs = -1)
{
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    if (!killVar.isEmpty())
        env.insert(killVar, spec);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(CACHESCOPE_CLI), args);
    if (!p.waitForStarted(30000))
        return {};
    if (delayMs >= 0 && !p.waitForFinished(delayMs)) {
        p.kill();
        p.waitForFinished(30000);
        return {true, -1, p.readAllStandardError()};
    }
    p.waitForFinished(120000);
    const bool crashed = p.exitStatus() == QProcess::CrashExit;
    return {crashed, crashed ? -1 : p.exitCode(), p.readAllStandardError()};
}

// Runs several CLI commands at once (verification reads only): on two shared
// cores most of a short command is waiting for its turn.
std::vector<ProcessResult> cliAll(const std::vector<QStringList>& commands)
{
    std::vector<std::unique_ptr<QProcess>> ps;
    for (const auto& args : commands) {
        ps.push_back(std::make_unique<QProcess>());
        ps.back()->start(QStringLiteral(CACHESCOPE_CLI), args);
    }
    std::vector<ProcessResult> out;
    for (auto& p : ps) {
        p->waitForFinished(120000);
        out.push_back({p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1, p->readAllStandardOutput(),
                       p->readAllStandardError()});
    }
    return out;
}

void copyTree(const QString& from, const QString& to)
{
    namespace fs = std::filesystem;
    fs::remove_all(to.toStdString());
    fs::copy(from.toStdString(), to.toStdString(), fs::copy_options::recursive);
}

QByteArray content(qsizetype size, uint64_t seed, const QByteArray& shared)
{
    // Half shared with other entries (dedup), half their own.
    QByteArray b = shared.left(size / 2) + randomBytes(size - size / 2, seed);
    return b;
}

} // namespace

class CrashHarness : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString templ_, gcTempl_, acTempl_, work_;
    std::map<QString, QByteArray> entries_;      // committed in the template: key -> bytes
    QVector<FixtureEntry> acEntries_;            // actions-cache entries and their blobs
    QByteArray newBytes_, replaceBytes_;
    QSet<QString> namedHits_, randomHits_;
    std::mt19937_64 rng_{20261130};
    int orphanRepairs_ = 0;
    int verifications_ = 0;
    int operationsRun_ = 0;     // exercise() and actionsCacheMerge() calls

    QString put(const QString& store, const QString& key, const QByteArray& bytes, bool merge)
    {
        const QString f = tmp_.filePath(QStringLiteral("in-") + key);
        writeFile(f, bytes);
        QStringList args{QStringLiteral("store"), QStringLiteral("put"), QStringLiteral("--wait"), store, key, f, QStringLiteral("--part-size"),
                         QStringLiteral("32KiB")};
        if (!merge)
            args << QStringLiteral("--no-merge");
        const auto r = cli(args);
        return r.exitCode == 0 ? QString() : QString::fromUtf8(r.err);
    }

    // The store in `dir` after a kill: fsck clean (after repairing orphans),
    // the committed entries there with their bytes. `must`: keys that must be
    // there with these bytes; `may`: keys that may be there, with one of the
    // given contents; `restore`: keys to restore with `store get` besides the
    // unmerged ones.
    void verifyStore(const QString& dir, const std::map<QString, QByteArray>& must,
                     const std::map<QString, QList<QByteArray>>& may, const QString& what)
    {
        // fsck and ls together; ls reads the catalog only, so it sees the
        // same rows whether or not fsck repairs orphans meanwhile (it does not
        // without --repair).
        auto first = cliAll({{QStringLiteral("store"), QStringLiteral("fsck"), dir, QStringLiteral("--json")},
                             {QStringLiteral("store"), QStringLiteral("ls"), dir, QStringLiteral("--json")}});
        const auto& fsck = first[0];
        const auto& ls = first[1];
        if (fsck.exitCode != 0) {
            const auto problems = QJsonDocument::fromJson(fsck.out)[QStringLiteral("problems")].toArray();
            QVERIFY2(!problems.isEmpty(), qPrintable(what + ": fsck failed: " + fsck.err));
            for (const auto& p : problems)
                QVERIFY2(!p[QStringLiteral("path")].isNull(),
                         qPrintable(what + ": fsck problem that is not an orphan: " + p[QStringLiteral("message")].toString()));
            ++orphanRepairs_;
            const auto repair = cli({QStringLiteral("store"), QStringLiteral("fsck"), dir, QStringLiteral("--repair")});
            QVERIFY2(repair.exitCode == 0, qPrintable(what + ": fsck --repair: " + repair.out + repair.err));
        }
        QVERIFY2(ls.exitCode == 0, qPrintable(what + ": ls: " + ls.err));
        std::map<QString, QJsonObject> listed;
        for (const auto& e : QJsonDocument::fromJson(ls.out).array()) {
            const QJsonObject o = e.toObject();
            if (o[QStringLiteral("state")].toString() != QLatin1String("uploading"))
                listed[o[QStringLiteral("key")].toString()] = o;
        }
        auto shaOf = [](const QByteArray& b) { return cs::Sha256::hex(cs::Sha256::of(b.constData(), size_t(b.size()))); };
        auto shaMatches = [&](const QJsonObject& o, const QList<QByteArray>& allowed) {
            for (const auto& b : allowed)
                if (o[QStringLiteral("sha256")].toString().toStdString() == shaOf(b))
                    return true;
            return false;
        };
        // Merged entries: fsck decoded each against its listed SHA-256, which
        // must be ours. Unmerged ones and those the operation touched are
        // restored (all at once) and hashed here.
        std::vector<std::pair<QString, QList<QByteArray>>> toRestore;
        // Short mode restores one unmerged entry per run, in turn (fsck
        // checked the parts of all of them); long mode restores every one.
        int unmerged = 0;
        ++verifications_;
        for (const auto& [key, bytes] : must) {
            QVERIFY2(listed.count(key), qPrintable(what + ": committed entry " + key + " was lost"));
            QVERIFY2(shaMatches(listed[key], {bytes}), qPrintable(what + ": " + key + " lists another SHA-256"));
            if (listed[key][QStringLiteral("state")].toString() != QLatin1String("merged")
                && (kLong || unmerged++ == verifications_ % 2))
                toRestore.push_back({key, {bytes}});
        }
        for (const auto& [key, allowed] : may) {
            if (!listed.count(key))
                continue;
            QVERIFY2(shaMatches(listed[key], allowed), qPrintable(what + ": " + key + " lists another SHA-256"));
            toRestore.push_back({key, allowed});
        }
        // Merged ones at once; unmerged ones one by one, since restoring one
        // merges it and a merge may refuse to run beside another.
        std::vector<QStringList> gets;
        std::vector<size_t> parallel;
        std::vector<ProcessResult> got(toRestore.size());
        for (size_t i = 0; i < toRestore.size(); ++i) {
            const QStringList args{QStringLiteral("store"), QStringLiteral("get"), QStringLiteral("--wait"), dir, toRestore[i].first,
                                   tmp_.filePath(QStringLiteral("restored-%1").arg(i))};
            if (listed[toRestore[i].first][QStringLiteral("state")].toString() == QLatin1String("merged")) {
                gets.push_back(args);
                parallel.push_back(i);
            } else {
                got[i] = cli(args);
            }
        }
        const auto many = cliAll(gets);
        for (size_t j = 0; j < parallel.size(); ++j)
            got[parallel[j]] = many[j];
        for (size_t i = 0; i < toRestore.size(); ++i) {
            QVERIFY2(got[i].exitCode == 0, qPrintable(what + ": get " + toRestore[i].first + ": " + got[i].err));
            const std::string sha = sha256OfFile(tmp_.filePath(QStringLiteral("restored-%1").arg(i)));
            bool ok = false;
            for (const auto& b : toRestore[i].second)
                ok = ok || sha == shaOf(b);
            QVERIFY2(ok, qPrintable(what + ": " + toRestore[i].first + " restored to other bytes"));
        }
    }

    struct Op {
        QString name;
        QString templ;
        QStringList args;     // %S is replaced by the work store
        QString killVar;
        QStringList points;
        std::map<QString, QByteArray> must;
        std::map<QString, QList<QByteArray>> may;
    };

    QStringList argsFor(const Op& op, const QString& dir) const
    {
        QStringList a = op.args;
        for (auto& s : a)
            if (s == QLatin1String("%S"))
                s = dir;
        return a;
    }

    // Every pass of every named point (short mode: the first few), then
    // random moments; verifies after each.
    void exercise(const Op& op)
    {
        ++operationsRun_;
        const int maxPass = kLong ? 10000 : 4;
        for (const QString& point : op.points) {
            for (int n = 1; n <= maxPass; ++n) {
                copyTree(op.templ, work_);
                const QString spec = point + QLatin1Char(':') + QString::number(n);
                const Outcome o = runCli(argsFor(op, work_), op.killVar, spec);
                if (!o.killed) {
                    QVERIFY2(n > 1, qPrintable(op.name + ": kill point '" + point + "' was never reached: " + o.err));
                    QVERIFY2(o.exitCode == 0, qPrintable(op.name + ": " + o.err));
                    break;
                }
                namedHits_.insert(op.name + QLatin1Char('|') + spec);
                verifyStore(work_, op.must, op.may, op.name + " killed at " + spec);
                if (QTest::currentTestFailed())
                    return;
            }
        }
        // Random moments within the operation's own duration.
        copyTree(op.templ, work_);
        QElapsedTimer t;
        t.start();
        const Outcome full = runCli(argsFor(op, work_));
        const int duration = int(t.elapsed());
        QVERIFY2(!full.killed && full.exitCode == 0, qPrintable(op.name + ": " + full.err));
        const int wanted = kLong ? 60 : 10;
        const qsizetype before = randomHits_.size();
        for (int attempt = 0; randomHits_.size() - before < wanted && attempt < wanted * 3; ++attempt) {
            copyTree(op.templ, work_);
            const int delay = int(std::uniform_int_distribution<int>(1, std::max(2, duration))(rng_));
            const Outcome o = runCli(argsFor(op, work_), {}, {}, delay);
            if (o.killed) {
                randomHits_.insert(op.name + QStringLiteral("|after %1 ms").arg(delay));
            } else {
                QVERIFY2(o.exitCode == 0, qPrintable(op.name + ": " + o.err));
            }
            verifyStore(work_, op.must, op.may, op.name + QStringLiteral(" killed after %1 ms").arg(delay));
            if (QTest::currentTestFailed())
                return;
        }
    }

private slots:
    void initTestCase()
    {
        QVERIFY(tmp_.isValid());
        templ_ = tmp_.filePath(QStringLiteral("template"));
        gcTempl_ = tmp_.filePath(QStringLiteral("template-gc"));
        acTempl_ = tmp_.filePath(QStringLiteral("template-ac"));
        work_ = tmp_.filePath(QStringLiteral("work"));
        QCOMPARE(cli({QStringLiteral("store"), QStringLiteral("init"), templ_}).exitCode, 0);
        const QByteArray shared = randomBytes(200000, 1);
        for (int i = 0; i < 4; ++i)
            entries_[QStringLiteral("merged-%1").arg(i)] = content(150000 + i * 10007, 10 + uint64_t(i), shared);
        for (int i = 0; i < 2; ++i)
            entries_[QStringLiteral("unmerged-%1").arg(i)] = content(120000 + i * 9001, 20 + uint64_t(i), shared);
        for (const auto& [key, bytes] : entries_) {
            const QString err = put(templ_, key, bytes, key.startsWith(QLatin1String("merged")));
            QVERIFY2(err.isEmpty(), qPrintable(err));
        }
        newBytes_ = content(160000, 30, shared);
        replaceBytes_ = content(140000, 31, shared);

        // For the GC: two entries evicted, so it has objects to drop and live
        // ranges to copy.
        copyTree(templ_, gcTempl_);
        QCOMPARE(cli({QStringLiteral("store"), QStringLiteral("evict"), gcTempl_, QStringLiteral("--key"),
                      QStringLiteral("merged-1"), QStringLiteral("--key"), QStringLiteral("unmerged-0")})
                     .exitCode,
                 0);
        QCOMPARE(cli({QStringLiteral("store"), QStringLiteral("merge"), gcTempl_, QStringLiteral("--all")}).exitCode, 0);

        // An actions-cache server's data dir with an entry in every state.
        QDir().mkpath(acTempl_);
        testsupport::ActionsCacheFixture fixture(acTempl_);
        acEntries_ = fixture.entries();
    }

    void upload()
    {
        const QString in = tmp_.filePath(QStringLiteral("new-entry"));
        QVERIFY(writeFile(in, newBytes_));
        Op op{QStringLiteral("put"), templ_,
              {QStringLiteral("store"), QStringLiteral("put"), QStringLiteral("--wait"), QStringLiteral("%S"), QStringLiteral("new"), in,
               QStringLiteral("--part-size"), QStringLiteral("32KiB")},
              QStringLiteral("CACHESCOPE_STORE_KILL_AT"),
              {QStringLiteral("put appended")},
              entries_,
              {{QStringLiteral("new"), {newBytes_}}}};
        exercise(op);
    }

    void replace()
    {
        const QString in = tmp_.filePath(QStringLiteral("replacement"));
        QVERIFY(writeFile(in, replaceBytes_));
        std::map<QString, QByteArray> must = entries_;
        must.erase(QStringLiteral("merged-0"));
        Op op{QStringLiteral("re-put"), templ_,
              {QStringLiteral("store"), QStringLiteral("put"), QStringLiteral("--wait"), QStringLiteral("%S"), QStringLiteral("merged-0"), in,
               QStringLiteral("--part-size"), QStringLiteral("32KiB")},
              QStringLiteral("CACHESCOPE_STORE_KILL_AT"),
              {QStringLiteral("put appended"), QStringLiteral("replace remove")},
              must,
              {{QStringLiteral("merged-0"), {entries_[QStringLiteral("merged-0")], replaceBytes_}}}};
        exercise(op);
        // The old or the new bytes, never neither: re-put replaces in one transaction.
        const auto ls = cli({QStringLiteral("store"), QStringLiteral("ls"), work_, QStringLiteral("--json")});
        QVERIFY(ls.out.contains("\"merged-0\""));
    }

    // A re-put as parts (--no-merge) replacing an unmerged entry: its commit
    // deletes the old row, then the old parts one by one.
    void replaceAsParts()
    {
        const QString in = tmp_.filePath(QStringLiteral("replacement"));
        QVERIFY(writeFile(in, replaceBytes_));
        std::map<QString, QByteArray> must = entries_;
        must.erase(QStringLiteral("unmerged-1"));
        Op op{QStringLiteral("re-put --no-merge"), templ_,
              {QStringLiteral("store"), QStringLiteral("put"), QStringLiteral("--wait"), QStringLiteral("%S"), QStringLiteral("unmerged-1"), in,
               QStringLiteral("--part-size"), QStringLiteral("32KiB"), QStringLiteral("--no-merge")},
              QStringLiteral("CACHESCOPE_STORE_KILL_AT"),
              {QStringLiteral("parts written"), QStringLiteral("replace remove"), QStringLiteral("part removed")},
              must,
              {{QStringLiteral("unmerged-1"), {entries_[QStringLiteral("unmerged-1")], replaceBytes_}}}};
        exercise(op);
    }

    void merge()
    {
        Op op{QStringLiteral("merge"), templ_,
              {QStringLiteral("store"), QStringLiteral("merge"), QStringLiteral("%S"), QStringLiteral("--all")},
              QStringLiteral("CACHESCOPE_STORE_KILL_AT"),
              {QStringLiteral("merge appended"), QStringLiteral("merge remove"), QStringLiteral("part removed")},
              entries_,
              {}};
        exercise(op);
    }

    void evict()
    {
        std::map<QString, QByteArray> must = entries_;
        must.erase(QStringLiteral("merged-2"));
        must.erase(QStringLiteral("unmerged-1"));
        Op op{QStringLiteral("evict"), templ_,
              {QStringLiteral("store"), QStringLiteral("evict"), QStringLiteral("%S"), QStringLiteral("--key"),
               QStringLiteral("merged-2"), QStringLiteral("--key"), QStringLiteral("unmerged-1")},
              QStringLiteral("CACHESCOPE_STORE_KILL_AT"),
              {QStringLiteral("evict remove"), QStringLiteral("part removed")},
              must,
              {{QStringLiteral("merged-2"), {entries_[QStringLiteral("merged-2")]}},
               {QStringLiteral("unmerged-1"), {entries_[QStringLiteral("unmerged-1")]}}}};
        exercise(op);
    }

    void gc()
    {
        std::map<QString, QByteArray> must = entries_;
        must.erase(QStringLiteral("merged-1"));
        must.erase(QStringLiteral("unmerged-0"));
        Op op{QStringLiteral("gc"), gcTempl_,
              {QStringLiteral("store"), QStringLiteral("gc"), QStringLiteral("%S")},
              QStringLiteral("CACHESCOPE_GC_KILL_AT"),
              {QStringLiteral("open"), QStringLiteral("traverse"), QStringLiteral("write mapping"), QStringLiteral("copy"),
               QStringLiteral("copy prefix"), QStringLiteral("suffix"), QStringLiteral("before control"),
               QStringLiteral("after control"), QStringLiteral("cleanup")},
              must,
              {}};
        exercise(op);
        // A GC after the crashed one completes and keeps every entry.
        QCOMPARE(cli({QStringLiteral("store"), QStringLiteral("gc"), work_}).exitCode, 0);
        verifyStore(work_, must, {}, QStringLiteral("gc after a crashed gc"));
    }

    // actions-cache merge (--write) on a data dir of every state
    // (tests/common/ActionsCacheFixture.h), killed at its named points
    // (CACHESCOPE_ACTIONS_KILL_AT) and at random moments. After each kill a
    // second merge must complete and every entry's merged object must be its
    // blob: no entry lost, none merged to other bytes.
    void actionsCacheMerge()
    {
        ++operationsRun_;
        const QString data = work_;
        auto verify = [&](const QString& what) {
            const auto again = cli({QStringLiteral("actions-cache"), QStringLiteral("merge"), data, QStringLiteral("--write"),
                                    QStringLiteral("--force")});
            QVERIFY2(again.exitCode == 0, qPrintable(what + ": merge after the crash: " + again.err));
            const QString storage = data + QStringLiteral("/storage/filesystem/");
            for (const auto& e : acEntries_)
                QVERIFY2(readFile(storage + e.folder + QStringLiteral("/merged")) == e.blob,
                         qPrintable(what + ": entry in folder " + e.folder + " lost or merged to other bytes"));
        };
        const QStringList args{QStringLiteral("actions-cache"), QStringLiteral("merge"), QStringLiteral("%S"),
                               QStringLiteral("--write"), QStringLiteral("--force")};
        const int maxPass = kLong ? 10000 : 3;
        for (const QString& point : {QStringLiteral("merge-started"), QStringLiteral("part-copied"),
                                     QStringLiteral("merged-synced"), QStringLiteral("merged-published"),
                                     QStringLiteral("merged-at-set"), QStringLiteral("part-deleted"),
                                     QStringLiteral("parts-folder-deleted"), QStringLiteral("parts-deleted-at-set")}) {
            for (int n = 1; n <= maxPass; ++n) {
                copyTree(acTempl_, work_);
                const QString spec = point + QLatin1Char(':') + QString::number(n);
                QStringList a = args;
                a[2] = work_;
                const Outcome o = runCli(a, QStringLiteral("CACHESCOPE_ACTIONS_KILL_AT"), spec);
                if (!o.killed) {
                    QVERIFY2(n > 1, qPrintable("actions-cache merge: kill point '" + point + "' was never reached: " + o.err));
                    QVERIFY2(o.exitCode == 0, qPrintable("actions-cache merge: " + o.err));
                    break;
                }
                namedHits_.insert(QStringLiteral("actions-cache merge|") + spec);
                verify(QStringLiteral("actions-cache merge killed at ") + spec);
                if (QTest::currentTestFailed())
                    return;
            }
        }
        // Random moments (these found the hot journal, hotJournalOfAKilledWrite()).
        copyTree(acTempl_, work_);
        QElapsedTimer t;
        t.start();
        QStringList a = args;
        a[2] = work_;
        QCOMPARE(runCli(a).exitCode, 0);
        const int duration = int(t.elapsed());
        const qsizetype before = randomHits_.size();
        const int wanted = kLong ? 100 : 8;
        for (int attempt = 0; randomHits_.size() - before < wanted && attempt < wanted * 3; ++attempt) {
            copyTree(acTempl_, work_);
            const int delay = int(std::uniform_int_distribution<int>(1, std::max(2, duration))(rng_));
            if (runCli(a, {}, {}, delay).killed)
                randomHits_.insert(QStringLiteral("actions-cache merge|after %1 ms").arg(delay));
            verify(QStringLiteral("actions-cache merge killed after %1 ms").arg(delay));
            if (QTest::currentTestFailed())
                return;
        }
    }

    // The finding of the random kills above, made deterministic: a writer of
    // the server's database SIGKILLed inside its transaction leaves a hot
    // rollback journal. Read-only commands say so in one sentence and change
    // nothing; a merge with --write rolls it back and completes.
    void hotJournalOfAKilledWrite()
    {
        QTemporaryDir dir;
        testsupport::ActionsCacheFixture f(dir.path());
        const QByteArray db = f.dbPath().toUtf8();
        const pid_t pid = ::fork();
        if (pid == 0) {
            sqlite3* h = nullptr;
            if (sqlite3_open(db.constData(), &h) != SQLITE_OK)
                ::_exit(2);
            // A one-page cache spills the change into the database file, so
            // the journal holds pages a reader must not skip.
            sqlite3_exec(h, "PRAGMA cache_size=1; BEGIN IMMEDIATE; UPDATE storage_locations SET mergeStartedAt = 1; "
                            "UPDATE cache_entries SET key = key || randomblob(3000);",
                         nullptr, nullptr, nullptr);
            ::kill(::getpid(), SIGKILL);
            ::_exit(3);
        }
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        const QString journal = f.dbPath() + QStringLiteral("-journal");
        QVERIFY(QFileInfo(journal).size() > 0);
        const QByteArray before = readFile(f.dbPath());

        const auto ls = cli({QStringLiteral("actions-cache"), QStringLiteral("ls"), f.dataDir()});
        QCOMPARE(ls.exitCode, 1);
        QCOMPARE(ls.err.count('\n'), 1);
        QVERIFY2(ls.err.contains("hot journal") && ls.err.contains(f.dbPath().toUtf8()), ls.err.constData());
        QCOMPARE(readFile(f.dbPath()), before);  // a read-only command changed nothing
        QVERIFY(QFileInfo(journal).size() > 0);

        const auto merge = cli({QStringLiteral("actions-cache"), QStringLiteral("merge"), f.dataDir(),
                                QStringLiteral("--write"), QStringLiteral("--force")});
        QVERIFY2(merge.exitCode == 0, merge.err.constData());
        QVERIFY(!QFileInfo(journal).exists() || QFileInfo(journal).size() == 0);
        for (const auto& e : f.entries())
            QVERIFY2(readFile(f.storageDir() + QLatin1Char('/') + e.folder + QStringLiteral("/merged")) == e.blob,
                     qPrintable(e.folder));
        const auto after = cli({QStringLiteral("actions-cache"), QStringLiteral("ls"), f.dataDir(), QStringLiteral("--json")});
        QVERIFY2(after.exitCode == 0, after.err.constData());
        for (const auto& e : f.entries())  // the killed transaction was rolled back: keys as they were
            QVERIFY2(after.out.contains(("\"" + e.key + "\"").toUtf8()), qPrintable(e.key));
    }

    void cleanupTestCase()
    {
        const qsizetype total = namedHits_.size() + randomHits_.size();
        qInfo("crash harness (%s mode): %lld distinct kill points hit: %lld named (point:pass), %lld random moments; "
              "%d runs left orphans that fsck --repair removed",
              kLong ? "long" : "short", qlonglong(total), qlonglong(namedHits_.size()), qlonglong(randomHits_.size()),
              orphanRepairs_);
        if (operationsRun_ == 7)  // not when one test function was picked on the command line
            QVERIFY2(total >= 100, qPrintable(QStringLiteral("only %1 distinct points were hit").arg(total)));
    }
};

CACHESCOPE_CORE_TEST_MAIN(CrashHarness)
#include "tst_crash_harness.moc"
