// OutputFile: regular files are replaced atomically through an unpredictable
// temp file; devices, FIFOs and standard output are written in place and
// never replaced; a link as the last component is refused unless it leads to
// a device. Device nodes are made here (mknod with /dev/null's numbers inside
// a temp folder): the machine's own /dev is never touched.
#include "common/OutputTargets.h"
#include "common/TestSupport.h"

#include "core/util/Error.h"
#include "core/util/OutputFile.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <thread>

using cs::OutputFile;

using testsupport::lstatOf;
using testsupport::makeNullDevice;
using testsupport::namesIn;

using testsupport::errorOf;

class TestUtilOutput : public QObject {
    Q_OBJECT
private slots:
    void initTestCase_data()
    {
        QTest::addColumn<bool>("namedTemp");
        QTest::newRow("O_TMPFILE") << false;
        QTest::newRow("named-temp") << true;
    }
    void init()
    {
        QFETCH_GLOBAL(bool, namedTemp);
        OutputFile::forceNamedTemp(namedTemp);
    }
    void cleanup() { OutputFile::forceNamedTemp(false); }

    void regularFileIsReplacedKeepingItsMode()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath("out");
        QVERIFY(testsupport::writeFile(path, "old contents"));
        QVERIFY(QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner));
        const ino_t before = lstatOf(path).st_ino;
        OutputFile out = OutputFile::open(path.toStdString());
        QCOMPARE(out.kind(), OutputFile::Kind::Replace);
        QVERIFY(out.seekable());
        out.writeAll("new", 3);
        QCOMPARE(testsupport::readFile(path), QByteArray("old contents"));   // untouched until commit
        out.commit();
        QCOMPARE(testsupport::readFile(path), QByteArray("new"));
        QCOMPARE(lstatOf(path).st_mode & 07777, mode_t(0600));
        QVERIFY(lstatOf(path).st_ino != before);   // a new file renamed over the old one
        QCOMPARE(namesIn(tmp.path()), QStringList{"out"});
    }

    void newFileGetsTheUmaskMode()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath("new");
        const mode_t old = ::umask(027);
        {
            OutputFile out = OutputFile::open(path.toStdString());
            out.writeAll("x", 1);
            out.commit();
        }
        ::umask(old);
        QCOMPARE(lstatOf(path).st_mode & 07777, mode_t(0640));
        QCOMPARE(namesIn(tmp.path()), QStringList{"new"});
    }

    // Failure or cancel: no commit. The temp is gone, the original untouched.
    void withoutCommitNothingChanges()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath("out");
        QVERIFY(testsupport::writeFile(path, "original"));
        {
            OutputFile out = OutputFile::open(path.toStdString());
            out.writeAll("partial", 7);
            QFETCH_GLOBAL(bool, namedTemp);
            if (namedTemp) {
                // The temp is hidden, unpredictable and private while written.
                const QStringList names = namesIn(tmp.path());
                QCOMPARE(names.size(), 2);
                const QString temp = names.at(0) == "out" ? names.at(1) : names.at(0);
                // ".out.cachescope-PID-" and 16 hex digits: tempWriterOf names us.
                const QString head = ".out.cachescope-" + QString::number(::getpid()) + "-";
                QVERIFY2(temp.startsWith(head) && temp.size() == head.size() + 16, qPrintable(temp));
                QCOMPARE(OutputFile::tempWriterOf(temp.toStdString(), "out"), std::optional<pid_t>(::getpid()));
                QCOMPARE(OutputFile::tempWriterOf(temp.toStdString(), "ou"), std::optional<pid_t>());
                QCOMPARE(OutputFile::tempWriterOf(temp.chopped(1).toStdString(), "out"), std::optional<pid_t>());
                QCOMPARE(OutputFile::tempWriterOf("out", "out"), std::optional<pid_t>());
                QCOMPARE(OutputFile::tempWriterOf(".out.cachescope--0123456789abcdef", "out"), std::optional<pid_t>());
                QCOMPARE(lstatOf(tmp.filePath(temp)).st_mode & 07777, mode_t(0600));
            }
        }
        QCOMPARE(testsupport::readFile(path), QByteArray("original"));
        QCOMPARE(namesIn(tmp.path()), QStringList{"out"});
        {
            OutputFile out = OutputFile::open(tmp.filePath("missing").toStdString());
            out.writeAll("partial", 7);
        }
        QCOMPARE(namesIn(tmp.path()), QStringList{"out"});
    }

    void twoTempNamesDiffer()
    {
        QFETCH_GLOBAL(bool, namedTemp);
        if (!namedTemp)
            return;   // O_TMPFILE temps have no name
        QTemporaryDir tmp;
        OutputFile a = OutputFile::open(tmp.filePath("out").toStdString());
        OutputFile b = OutputFile::open(tmp.filePath("out").toStdString());
        QCOMPARE(namesIn(tmp.path()).size(), 2);
    }

    // issue 9: a device node given as output was replaced by a regular file.
    void charDeviceIsWrittenInPlace()
    {
        QTemporaryDir tmp;
        const QString dev = tmp.filePath("null");
        QVERIFY(makeNullDevice(dev));
        const dev_t rdev = lstatOf(dev).st_rdev;
        OutputFile out = OutputFile::open(dev.toStdString());
        QCOMPARE(out.kind(), OutputFile::Kind::InPlace);
        QVERIFY(!out.seekable());
        out.writeAll("abc", 3);
        out.commit();
        QVERIFY(S_ISCHR(lstatOf(dev).st_mode));
        QCOMPARE(lstatOf(dev).st_rdev, rdev);
        QCOMPARE(namesIn(tmp.path()), QStringList{"null"});
    }

    void fifoIsWrittenInPlace()
    {
        QTemporaryDir tmp;
        const QString fifo = tmp.filePath("fifo");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        QByteArray got;
        std::thread reader([&] {
            QFile f(fifo);
            if (f.open(QIODevice::ReadOnly))
                got = f.readAll();
        });
        {
            OutputFile out = OutputFile::open(fifo.toStdString());
            QCOMPARE(out.kind(), OutputFile::Kind::InPlace);
            QVERIFY(!out.seekable());
            out.writeAll("through the pipe", 16);
            out.commit();
        }
        reader.join();
        QCOMPARE(got, QByteArray("through the pipe"));
        QVERIFY(S_ISFIFO(lstatOf(fifo).st_mode));
    }

    // A FIFO whose reader comes late: the open waits, calling cancelCheck
    // while it does (the reader opens only once it was called twice), then
    // 1 MiB goes through a 64 KiB pipe, waiting for room as the reader reads.
    void fifoWaitsForALateReaderWhileCheckingForCancel()
    {
        QTemporaryDir tmp;
        const QString fifo = tmp.filePath("fifo");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        const QByteArray data = testsupport::randomBytes(1 << 20, 31);
        std::atomic<int> checks{0};
        QByteArray got;
        std::thread reader([&] {
            for (int i = 0; i < 3000 && checks.load() < 2; ++i)
                ::usleep(10000);
            QFile f(fifo);
            if (f.open(QIODevice::ReadOnly))
                got = f.readAll();
        });
        {
            OutputFile out = OutputFile::open(fifo.toStdString(), [&] { ++checks; });
            QVERIFY(checks.load() >= 2);   // it waited, and checked while waiting
            QCOMPARE(out.kind(), OutputFile::Kind::InPlace);
            out.writeAll(data.constData(), size_t(data.size()));
            out.commit();
        }
        reader.join();
        QVERIFY(got == data);
        QCOMPARE(namesIn(tmp.path()), QStringList{"fifo"});
    }

    // Before: the open of a FIFO with no reader blocked in the kernel, and a
    // signal handler with SA_RESTART restarted it: Ctrl-C did nothing. Now
    // the wait ends when cancelCheck throws, and nothing is created.
    void cancelWhileTheFifoHasNoReader()
    {
        QTemporaryDir tmp;
        const QString fifo = tmp.filePath("fifo");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        int checks = 0;
        const auto cancelAfterThree = [&] {
            if (++checks == 3)
                throw cs::Cancelled();
        };
        QVERIFY_THROWS_EXCEPTION(cs::Cancelled, OutputFile::open(fifo.toStdString(), cancelAfterThree));
        QCOMPARE(checks, 3);
        QCOMPARE(namesIn(tmp.path()), QStringList{"fifo"});
        QVERIFY(S_ISFIFO(lstatOf(fifo).st_mode));
    }

    // A reader that opened the FIFO but does not read: the pipe fills, and
    // the write waits for room while checking for a cancel (before: a
    // blocking write, restarted after Ctrl-C like the open).
    void cancelWhileThePipeIsFull()
    {
        QTemporaryDir tmp;
        const QString fifo = tmp.filePath("fifo");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        std::atomic<bool> opened{false}, cancel{false}, drain{false};
        qint64 got = 0;
        std::thread reader([&] {
            QFile f(fifo);
            if (!f.open(QIODevice::ReadOnly))
                return;
            opened = true;
            for (int i = 0; i < 3000 && !drain.load(); ++i)
                ::usleep(10000);
            got = f.readAll().size();
        });
        const QByteArray data = testsupport::randomBytes(4 << 20, 32);
        {
            OutputFile out = OutputFile::open(fifo.toStdString(), [&] {
                if (cancel.load())
                    throw cs::Cancelled();
            });
            cancel = true;   // from now on the first wait for room ends the write
            QVERIFY_THROWS_EXCEPTION(cs::Cancelled, out.writeAll(data.constData(), size_t(data.size())));
        }   // closed without commit
        drain = true;
        reader.join();
        QVERIFY(opened.load());
        QVERIFY2(got > 0 && got < data.size(), qPrintable(QString::number(got)));   // what the pipe held
        QCOMPARE(namesIn(tmp.path()), QStringList{"fifo"});
    }

    // "-" and /dev/stdout are descriptor 1, in place (here a pipe put on 1).
    void stdoutNamesWriteToDescriptorOne()
    {
        for (const char* name : {"-", "/dev/stdout"}) {
            int p[2];
            QVERIFY(::pipe(p) == 0);
            const int saved = ::dup(1);
            ::dup2(p[1], 1);
            try {
                OutputFile out = OutputFile::open(name);
                QCOMPARE(out.kind(), OutputFile::Kind::Stdout);
                QVERIFY(!out.seekable());
                out.writeAll("to stdout", 9);
                out.commit();
            } catch (...) {
                ::dup2(saved, 1);
                throw;
            }
            ::dup2(saved, 1);
            ::close(saved);
            ::close(p[1]);
            char buf[32] = {};
            QCOMPARE(::read(p[0], buf, sizeof buf), ssize_t(9));
            ::close(p[0]);
            QCOMPARE(QByteArray(buf), QByteArray("to stdout"));
        }
    }

    // A link as the last component: to a regular file (or nothing) refused,
    // neither the link nor its target changes.
    void linkToRegularFileIsRefused()
    {
        QTemporaryDir tmp;
        const QString target = tmp.filePath("secret");
        QVERIFY(testsupport::writeFile(target, "secret"));
        QVERIFY(QFile::link(target, tmp.filePath("out")));
        QVERIFY(QFile::link(tmp.filePath("nowhere"), tmp.filePath("dangling")));
        for (const char* name : {"out", "dangling"}) {
            const std::string err = errorOf([&] { OutputFile::open(tmp.filePath(name).toStdString()); });
            QVERIFY2(err.find("is a symbolic link") != std::string::npos, err.c_str());
            QVERIFY(S_ISLNK(lstatOf(tmp.filePath(name)).st_mode));
        }
        QCOMPARE(testsupport::readFile(target), QByteArray("secret"));
        QVERIFY(!QFileInfo::exists(tmp.filePath("nowhere")));
    }

    // A link to a device (like /dev/stdout): the device, in place.
    void linkToDeviceWritesTheDevice()
    {
        QTemporaryDir tmp;
        const QString dev = tmp.filePath("null");
        QVERIFY(makeNullDevice(dev));
        QVERIFY(QFile::link(dev, tmp.filePath("out")));
        OutputFile out = OutputFile::open(tmp.filePath("out").toStdString());
        QCOMPARE(out.kind(), OutputFile::Kind::InPlace);
        out.writeAll("x", 1);
        out.commit();
        QVERIFY(S_ISLNK(lstatOf(tmp.filePath("out")).st_mode));
        QVERIFY(S_ISCHR(lstatOf(dev).st_mode));
    }

    void folderIsRefused()
    {
        QTemporaryDir tmp;
        const std::string err = errorOf([&] { OutputFile::open(tmp.path().toStdString()); });
        QVERIFY2(err.find("is a folder") != std::string::npos, err.c_str());
    }

    // Inside a store (openIn): a link is refused, a regular file replaced.
    void openInRefusesLinks()
    {
        QTemporaryDir tmp;
        QVERIFY(testsupport::writeFile(tmp.filePath("target"), "keep"));
        QVERIFY(QFile::link(tmp.filePath("target"), tmp.filePath("control")));
        const cs::Folder folder = cs::Folder::open(tmp.path().toStdString());
        const std::string err = errorOf([&] { cs::writeFileAtomic(folder, "control", "new"); });
        QVERIFY2(err.find("symbolic link") != std::string::npos, err.c_str());
        QCOMPARE(testsupport::readFile(tmp.filePath("target")), QByteArray("keep"));
        cs::writeFileAtomic(folder, "other", "new");
        QCOMPARE(testsupport::readFile(tmp.filePath("other")), QByteArray("new"));
        QCOMPARE(namesIn(tmp.path()), (QStringList{"control", "other", "target"}));
    }
};

QTEST_GUILESS_MAIN(TestUtilOutput)
#include "tst_util_output.moc"
