// What the frame views hold for a file of millions of frames (issue 22).
// `cachescope-cli frames FILE`, the human table, held every row of its table
// before printing (3 M empty skippable frames: 2.93 GB); it now prints page
// by page, and its peak RSS (the child's own, common/ChildRss.h) stays under
// 64 MiB on 1 M and 10 M frames.
#include "common/ChildRss.h"
#include "common/HostileFrames.h"
#include "common/TestSupport.h"

#include "core/frames/FrameLayout.h"
#include "core/jobs/Job.h"

#include <QFileInfo>
#include <QRegularExpression>

using namespace testsupport;

namespace {
constexpr long kBoundKiB = 64 * 1024;
}

class FramesMemoryTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString path(const QString& name) const { return dir_.filePath(name); }

    // n empty skippable frames and an empty zstd frame written by stock zstd.
    QString hostile(qint64 n)
    {
        const QString f = path(QStringLiteral("skip-%1.zst").arg(n));
        if (QFileInfo::exists(f))
            return f;
        const auto z = zstd({QStringLiteral("-q"), QStringLiteral("-c")}, QByteArray(""));
        if (z.exitCode != 0 || !writeEmptySkippableFrames(f, n, z.out))
            return {};
        return f;
    }

private slots:
    void humanTableMemoryIsBounded_data()
    {
        QTest::addColumn<qint64>("frames");
        QTest::newRow("1M") << qint64(1000000);
        QTest::newRow("10M") << qint64(10000000);
    }

    void humanTableMemoryIsBounded()
    {
        QFETCH(qint64, frames);
        const QString file = hostile(frames);
        QVERIFY(!file.isEmpty());
        {
            // Stock zstd reads what the generator writes (on 10,000 frames:
            // it takes a minute for a million, most of it in system calls).
            const QString small = hostile(10000);
            QCOMPARE(zstd({QStringLiteral("-t"), QStringLiteral("-q"), small}).exitCode, 0);
            const auto list = zstd({QStringLiteral("-lv"), small});
            QVERIFY2(list.out.contains("# Skippable Frames: 10000"), list.out.constData());
        }
        // The 10 M-frame table is 650 MB of text: it goes to /dev/null.
        const QString out = frames <= 1000000 ? path(QStringLiteral("table.txt")) : QStringLiteral("/dev/null");
        const auto r = runMeasured(QStringLiteral(CACHESCOPE_CLI), {QStringLiteral("frames"), file}, out);
        qInfo("frames (human table), %lld frames: peak RSS %ld KiB", frames, r.maxRssKiB);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.maxRssKiB <= kBoundKiB, qPrintable(QStringLiteral("%1 KiB").arg(r.maxRssKiB)));
        if (out == QLatin1String("/dev/null"))
            return;

        // Every frame has its row, and later pages line up with the first.
        const QByteArray text = readFile(out);
        const QList<QByteArray> lines = text.split('\n');
        QVERIFY(lines.size() > frames);
        QVERIFY2(lines[0].trimmed().startsWith("#"), lines[0].constData());
        const QByteArray first = lines[1];
        const QByteArray lastSkippable = lines[size_t(frames)];
        const QByteArray zstdRow = lines[size_t(frames) + 1];
        QVERIFY2(first.trimmed().startsWith("0 "), first.constData());
        QVERIFY2(lastSkippable.trimmed().startsWith(QByteArray::number(frames - 1) + ' '), lastSkippable.constData());
        QVERIFY2(zstdRow.trimmed().startsWith(QByteArray::number(frames) + ' '), zstdRow.constData());
        QCOMPARE(first.indexOf("skip:"), lastSkippable.indexOf("skip:"));
        QCOMPARE(first.indexOf("skip:"), zstdRow.indexOf("zstd"));
        QCOMPARE(lines[0].indexOf("kind"), first.indexOf("skip:"));
        QVERIFY(text.contains("frames:       1 zstd (1 sized, 0 unsized), " + QByteArray::number(frames) + " skippable\n"));
        QCOMPARE(text.count("skip:other"), qsizetype(frames));
    }

    // A short table is the one it always was: widths from its own cells.
    void shortTableKeepsItsWidths()
    {
        const QString file = hostile(3);
        const auto r = cli({QStringLiteral("frames"), file});
        QCOMPARE(r.exitCode, 0);
        const QList<QByteArray> lines = r.out.split('\n');
        QVERIFY2(lines[0].startsWith("#  offset  kind"), lines[0].constData());
        QVERIFY2(lines[1].startsWith("0       0  skip:other"), lines[1].constData());
    }
};

CACHESCOPE_CORE_TEST_MAIN(FramesMemoryTest)
#include "tst_frames_memory.moc"
