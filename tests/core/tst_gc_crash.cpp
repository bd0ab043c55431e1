// Crash safety: a child process runs the GC and SIGKILLs itself at a step
// boundary or inside the copy; the parent then opens the pack, which must be
// the old or the new generation with no leftover files, and every live entry
// must restore byte-exact (and a following GC must work).
#include "common/TestSupport.h"
#include "core/GcTestPack.h"

#include "core/util/Error.h"

#include <QDir>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace cs;
using namespace gctest;

class TestGcCrash : public QObject {
    Q_OBJECT
private slots:
    void killedAtEveryStep_data()
    {
        QTest::addColumn<QString>("point");
        QTest::addColumn<int>("nth");
        QTest::addColumn<bool>("swapped");
        QTest::newRow("open") << "open" << 1 << false;
        QTest::newRow("traverse") << "traverse" << 1 << false;
        QTest::newRow("write mapping") << "write mapping" << 1 << false;
        QTest::newRow("copy 1st block") << "copy" << 1 << false;
        QTest::newRow("copy 3rd block") << "copy" << 3 << false;
        QTest::newRow("copy 7th block") << "copy" << 7 << false;
        QTest::newRow("copy prefix") << "copy prefix" << 1 << false;
        QTest::newRow("suffix") << "suffix" << 1 << false;
        QTest::newRow("before control") << "before control" << 1 << false;
        QTest::newRow("after control") << "after control" << 1 << true;
        QTest::newRow("cleanup") << "cleanup" << 1 << true;
    }
    void killedAtEveryStep()
    {
        QFETCH(QString, point);
        QFETCH(int, nth);
        QFETCH(bool, swapped);
        QTemporaryDir dir;
        const QString packDir = dir.filePath("pack");
        ToyStore s(packDir.toStdString());
        std::mt19937_64 rng(77);
        auto shared = makeChunks(rng, {}, 6, 8000);
        for (int i = 0; i < 60; ++i)
            s.add(makeChunks(rng, shared, 3, 8000));
        // A first GC so the crashed one starts from a generation with a prefix.
        for (int i = 0; i < 60; i += 4)
            s.evict(i);
        s.gc();
        s.forgetCollected();
        for (int i = 0; i < 30; ++i)
            s.add(makeChunks(rng, shared, 3, 8000));
        for (int i = 1; i < 90; i += 3)
            s.evict(i);
        const uint64_t generation = s.pack().sizes().generation;

        const std::string at = point.toStdString();
        const pid_t pid = ::fork();
        if (pid == 0) {
            int seen = 0;
            gc::GcOptions o;
            o.roots = s.roots();
            o.copyBufferBytes = 16 << 10; // many blocks, so the copy has inner kill points
            o.hook = [&](const char* p) {
                if (at == p && ++seen == nth)
                    ::raise(SIGKILL);
            };
            Job job;
            try {
                gc::collectGarbage(s.pack(), o, job);
            } catch (...) {
                ::_exit(3);
            }
            ::_exit(4); // the kill point was never reached
        }
        QVERIFY(pid > 0);
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
                 qPrintable(QString("child ended with status %1").arg(status)));

        s.reopen(packDir.toStdString()); // opens the old or the new generation, deletes nothing
        {
            // What the next GC or fsck --repair does first, under the GC lock.
            const FileLock gcLock = s.pack().tryLockGc();
            QVERIFY(gcLock.held());
            s.pack().removeLeftovers();
        }
        const uint64_t now = s.pack().sizes().generation;
        QCOMPARE(now, swapped ? generation + 1 : generation);
        const QString g = QString::number(now);
        QStringList files;
        for (const auto& name : QDir(packDir).entryList(QDir::Files))
            if (!name.endsWith(".lock"))
                files << name;
        files.sort();
        QStringList expected = {"control", g + ".mapping", g + ".prefix", g + ".suffix"};
        expected.sort();
        QCOMPARE(files, expected);
        for (const auto& [id, e] : s.entries())
            QVERIFY2(s.restore(e) == e.data, qPrintable(QString("entry %1 is damaged").arg(id)));
        // And the pack goes on: a GC, then restores again.
        s.gc();
        s.forgetCollected();
        for (const auto& [id, e] : s.entries())
            QVERIFY(s.restore(e) == e.data);
    }

    void envKillPointKillsTheProcess()
    {
        // CACHESCOPE_GC_KILL_AT drives the same kill points without a hook (for CLI crash tests).
        QTemporaryDir dir;
        const QString packDir = dir.filePath("pack");
        ToyStore s(packDir.toStdString());
        std::mt19937_64 rng(5);
        for (int i = 0; i < 10; ++i)
            s.add(makeChunks(rng, {}, 2));
        s.evict(2);
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::setenv("CACHESCOPE_GC_KILL_AT", "before control", 1);
            gc::GcOptions o;
            o.roots = s.roots();
            Job job;
            try {
                gc::collectGarbage(s.pack(), o, job);
            } catch (...) {
                ::_exit(3);
            }
            ::_exit(4);
        }
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        s.reopen(packDir.toStdString());
        QCOMPARE(s.pack().sizes().generation, uint64_t(0));
        for (const auto& [id, e] : s.entries())
            QVERIFY(s.restore(e) == e.data);
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestGcCrash)
#include "tst_gc_crash.moc"
