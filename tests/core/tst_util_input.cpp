// InputFile and openSeekableInput: no input can make an open wait, a
// stream's read waits in slices that see a cancel, and a FIFO with no
// writer yet is not mistaken for an empty stream. FIFOs and device nodes
// are made here in a temp folder (mknod with /dev/null's numbers): the
// machine's own /dev is never opened.
#include "common/OutputTargets.h"
#include "common/TestSupport.h"

#include "core/util/Error.h"
#include "core/util/InputFile.h"

#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

using cs::InputFile;
using testsupport::errorOf;
using testsupport::FifoWriter;
using testsupport::makeNullDevice;

namespace {

QString makeFifo(const QTemporaryDir& tmp)
{
    const QString fifo = tmp.filePath("fifo");
    if (::mkfifo(fifo.toLocal8Bit().constData(), 0600) != 0)
        return {};
    return fifo;
}

} // namespace

class TestUtilInput : public QObject {
    Q_OBJECT
private slots:
    void regularFileIsReadWithItsSize()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath("in");
        const QByteArray bytes = testsupport::randomBytes(200000, 3);
        QVERIFY(testsupport::writeFile(path, bytes));
        InputFile in = InputFile::open(path.toStdString());
        QVERIFY(in.regular());
        QCOMPARE(in.size(), uint64_t(bytes.size()));
        QCOMPARE(in.path(), path.toStdString());
        QByteArray got(bytes.size() + 10, '\0');
        size_t n = 0;
        while (const size_t m = in.readSome(got.data() + n, size_t(got.size()) - n))
            n += m;
        QCOMPARE(qsizetype(n), bytes.size());
        QVERIFY(got.left(bytes.size()) == bytes);
        QByteArray at(10, '\0');
        in.file().readAt(at.data(), 10, 1000);   // offsets work
        QVERIFY(at == bytes.mid(1000, 10));
    }

    // The open of a FIFO for reading waits for a writer; InputFile's does
    // not. The first read then waits, and gets what the writer sends (not
    // an empty stream: an O_NONBLOCK read would have returned 0 at once).
    void fifoOpensAtOnceAndReadsWhatComesLater()
    {
        QTemporaryDir tmp;
        const QString fifo = makeFifo(tmp);
        QVERIFY(!fifo.isEmpty());
        // The writer comes only after the reader has waited three slices.
        std::atomic<int> slices{0};
        InputFile in;
        QVERIFY2(testsupport::finishesOrUnblock(fifo, [&] { in = InputFile::open(fifo.toStdString(), [&] { ++slices; }); }),
                 "the open of a FIFO without a writer waited");
        QVERIFY(!in.regular());
        QCOMPARE(in.size(), uint64_t(0));
        std::thread later([&] {
            while (slices < 3)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            const int fd = ::open(fifo.toLocal8Bit().constData(), O_WRONLY | O_CLOEXEC);
            if (fd >= 0) {
                (void)!::write(fd, "late", 4);
                ::close(fd);
            }
        });
        QByteArray got(16, '\0');
        const size_t n = in.readSome(got.data(), size_t(got.size()));
        later.join();
        QVERIFY(slices >= 3);
        QCOMPARE(got.left(qsizetype(n)), QByteArray("late"));
        QCOMPARE(in.readSome(got.data(), size_t(got.size())), size_t(0));   // the writer closed: the end
    }

    // A stream with nothing to read: the cancel check runs while the read
    // waits, and what it throws ends the read.
    void cancelCheckStopsTheWaitForData_data()
    {
        QTest::addColumn<bool>("writerSilent");
        QTest::newRow("no writer yet") << false;
        QTest::newRow("writer sends nothing") << true;
    }
    void cancelCheckStopsTheWaitForData()
    {
        QFETCH(bool, writerSilent);
        QTemporaryDir tmp;
        const QString fifo = makeFifo(tmp);
        QVERIFY(!fifo.isEmpty());
        int checks = 0;
        InputFile in = InputFile::open(fifo.toStdString(), [&] {
            if (++checks == 5)
                throw cs::Cancelled();
        });
        std::unique_ptr<FifoWriter> writer;
        if (writerSilent)
            writer = std::make_unique<FifoWriter>(fifo, QByteArray(), 60000);
        bool cancelled = false;
        char buf[64];
        const bool finished = testsupport::finishesOrUnblock(fifo, [&] {
            try {
                in.readSome(buf, sizeof buf);
            } catch (const cs::Cancelled&) {
                cancelled = true;
            }
        });
        QVERIFY2(finished, "the read did not see the cancel");
        QVERIFY(cancelled);
        QCOMPARE(checks, 5);
    }

    // A stream is read to its end, every byte in order.
    void fifoStreamsEverything()
    {
        QTemporaryDir tmp;
        const QString fifo = makeFifo(tmp);
        QVERIFY(!fifo.isEmpty());
        const QByteArray bytes = testsupport::randomBytes(3 << 20, 9);
        InputFile in = InputFile::open(fifo.toStdString());
        FifoWriter writer(fifo, bytes);
        QByteArray got;
        std::vector<char> buf(100000);
        while (const size_t n = in.readSome(buf.data(), buf.size()))
            got.append(buf.data(), qsizetype(n));
        QCOMPARE(got.size(), bytes.size());
        QVERIFY(got == bytes);
    }

    // Commands that read at offsets: a FIFO (no writer, so a blocking open
    // would never return) and a character device are refused at once, a
    // folder too; a regular file is opened.
    void seekableInputRefusesStreamsAtOnce()
    {
        QTemporaryDir tmp;
        const QString fifo = makeFifo(tmp);
        QVERIFY(!fifo.isEmpty());
        std::string err;
        QVERIFY2(testsupport::finishesOrUnblock(fifo, [&] { err = errorOf([&] { cs::openSeekableInput(fifo.toStdString(), "it reads at offsets"); }); }),
                 "openSeekableInput waited on a FIFO");
        QCOMPARE(err, fifo.toStdString() + ": is a pipe (FIFO), not a regular file: it reads at offsets and needs a "
                                           "seekable file (save the stream to a file first)");

        const QString dev = tmp.filePath("null");
        QVERIFY(makeNullDevice(dev));
        err = errorOf([&] { cs::openSeekableInput(dev.toStdString(), "it reads at offsets"); });
        QVERIFY2(err.find(dev.toStdString() + ": is a character device, not a regular file") == 0, err.c_str());

        err = errorOf([&] { cs::openSeekableInput(tmp.path().toStdString(), "it reads at offsets"); });
        QCOMPARE(err, tmp.path().toStdString() + ": is a folder, not a file");
        err = errorOf([&] { InputFile::open(tmp.path().toStdString()); });
        QCOMPARE(err, tmp.path().toStdString() + ": is a folder, not a file");

        const QString missing = tmp.filePath("missing");
        err = errorOf([&] { InputFile::open(missing.toStdString()); });
        QVERIFY2(err.find(missing.toStdString() + ": cannot open for reading") == 0, err.c_str());

        const QString file = tmp.filePath("file");
        QVERIFY(testsupport::writeFile(file, "0123456789"));
        cs::File f = cs::openSeekableInput(file.toStdString(), "it reads at offsets");
        QCOMPARE(f.size(), uint64_t(10));
    }

    void standardInputNames()
    {
        for (const char* name : {"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
            QVERIFY(cs::isStandardInputName(name));
        for (const char* name : {"", "--", "./-", "/dev/stdout", "stdin"})
            QVERIFY(!cs::isStandardInputName(name));
    }
};

QTEST_GUILESS_MAIN(TestUtilInput)
#include "tst_util_input.moc"
