// What a command cancelled by Ctrl-C or SIGTERM says it left at its output
// (app/cli/CancelledOutput.h), from what is at the path before and after:
// a regular file is replaced atomically, so it is either as it was or
// complete; a FIFO, device or standard output was written in place. The
// commands' own sentences are checked through a terminal in
// tst_store_outputs and tst_snapshot_outputs.
#include "common/OutputTargets.h"
#include "common/TestSupport.h"

#include "CancelledOutput.h"

#include "core/util/OutputFile.h"

#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

class TestCliCancelledOutput : public QObject {
    Q_OBJECT
private slots:
    void missingOutputNotWritten()
    {
        QTemporaryDir tmp;
        const std::string out = tmp.filePath("out").toStdString();
        const cli::CancelledOutput c(out);
        QCOMPARE(c.outcome(), out + " was not written");
    }

    void existingFileLeftAsItWas()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath("out");
        QVERIFY(testsupport::writeFile(path, "old"));
        const cli::CancelledOutput c(path.toStdString());
        {
            cs::OutputFile out = cs::OutputFile::open(path.toStdString());
            out.writeAll("new", 3);
        }   // cancelled: no commit
        QCOMPARE(c.outcome(), path.toStdString() + " was left as it was");
        QCOMPARE(testsupport::readFile(path), QByteArray("old"));
    }

    // The cancel came after the output was made final (a store get whose
    // merge was still running): the file is the new, complete one.
    void replacedFileWrittenCompletely_data()
    {
        QTest::addColumn<bool>("existed");
        QTest::newRow("replacing a file") << true;
        QTest::newRow("a new file") << false;
    }
    void replacedFileWrittenCompletely()
    {
        QFETCH(bool, existed);
        QTemporaryDir tmp;
        const QString path = tmp.filePath("out");
        if (existed)
            QVERIFY(testsupport::writeFile(path, "old"));
        const cli::CancelledOutput c(path.toStdString());
        cs::writeFileAtomic(path.toStdString(), "new");
        QCOMPARE(c.outcome(), path.toStdString() + " was written completely before the cancel");
    }

    void fifoAndDeviceWrittenInPlace()
    {
        QTemporaryDir tmp;
        const QString fifo = tmp.filePath("fifo"), dev = tmp.filePath("null");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        QVERIFY(testsupport::makeNullDevice(dev));
        for (const QString& path : {fifo, dev, QString("-")})
            QCOMPARE(cli::CancelledOutput(path.toStdString()).outcome(),
                     path.toStdString() + " (written in place) got only what was sent before the cancel");
    }
};

QTEST_GUILESS_MAIN(TestCliCancelledOutput)
#include "tst_cli_cancelled_output.moc"
