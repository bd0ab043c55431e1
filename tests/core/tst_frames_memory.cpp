// What the frame views hold for a file of millions of frames (issue 22).
// `cachescope-cli frames FILE`, the human table, held every row of its table
// before printing (3 M empty skippable frames: 2.93 GB); it now prints page
// by page, and its peak RSS (the child's own, common/ChildRss.h) stays under
// 64 MiB on 1 M and 10 M frames. PackedFrames, the GUI's 32-byte record of
// a frame, gives back every field a scan gave it.
#include "common/ChildRss.h"
#include "common/HostileFrames.h"
#include "common/TestSupport.h"

#include "core/frames/FrameLayout.h"
#include "core/frames/PackedFrames.h"
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
    QString hostile(qint64 n) const { return hostileFramesFile(dir_.path(), n); }

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

    // Every field a view shows survives packing, on frames of every kind
    // (stock zstd: sized, unsized, single segment, checksums or not, a
    // dictionary-free window; a seek table and pzstd size frames).
    void packedFramesGiveBackWhatTheScanGave()
    {
        QByteArray file;
        const QByteArray text = textBytes(300000, 3);
        writeFile(path(QStringLiteral("in.txt")), text);
        file += zstd({QStringLiteral("-q"), QStringLiteral("-c"), path(QStringLiteral("in.txt"))}).out;
        file += zstd({QStringLiteral("-q"), QStringLiteral("-c"), QStringLiteral("--no-check")}, text.left(5000)).out;
        file += zstd({QStringLiteral("-q"), QStringLiteral("-c"), QStringLiteral("--long=27")}, text).out;
        file += QByteArray("\x50\x2a\x4d\x18\x04\0\0\0\x10\0\0\0", 12);   // a pzstd size frame
        writeFile(path(QStringLiteral("x.txt")), QByteArray("x"));
        file += zstd({QStringLiteral("-q"), QStringLiteral("-c"), QStringLiteral("-19"), path(QStringLiteral("x.txt"))}).out;
        const QString f = path(QStringLiteral("kinds.zst"));
        QVERIFY(writeFile(f, file));
        QCOMPARE(zstd({QStringLiteral("-t"), QStringLiteral("-q"), f}).exitCode, 0);
        cs::FrameScanOptions options;
        options.blocks = true;
        cs::Job job("scan");
        const cs::FrameLayout layout = cs::scanFrames(f.toStdString(), options, job);
        QCOMPARE(layout.frames.size(), size_t(5));
        cs::PackedFrames packed;
        for (const cs::FrameInfo& frame : layout.frames)
            packed.append(frame);
        QCOMPARE(packed.size(), layout.frames.size());
        QCOMPARE(packed.end(), uint64_t(file.size()));
        for (size_t i = 0; i < layout.frames.size(); ++i) {
            const cs::FrameInfo& a = layout.frames[i];
            const cs::FrameInfo b = packed.at(i);
            QCOMPARE(b.index, a.index);
            QCOMPARE(b.offset, a.offset);
            QCOMPARE(b.kind, a.kind);
            QCOMPARE(b.magic, a.magic);
            QCOMPARE(b.role, a.role);
            QCOMPARE(b.headerSize, a.headerSize);
            QCOMPARE(b.windowSize, a.windowSize);
            QCOMPARE(b.dictionaryId, a.dictionaryId);
            QCOMPARE(b.contentSize, a.contentSize);
            QCOMPARE(b.singleSegment, a.singleSegment);
            QCOMPARE(b.checksum, a.checksum);
            QCOMPARE(b.compressedSize, a.compressedSize);
            for (int t = 0; t < 3; ++t)
                QCOMPARE(b.blocks[t], a.blocks[t]);
            QCOMPARE(packed.frameHolding(a.offset), i);
            QCOMPARE(packed.frameHolding(a.offset + a.compressedSize - 1), i);
        }
        QVERIFY(layout.frames[4].singleSegment);   // its window is its content size

        // What no record field holds goes to the side table, and comes back.
        cs::FrameInfo big;
        big.index = packed.size();
        big.offset = packed.end();
        big.magic = 0xFD2FB528;
        big.windowSize = (uint64_t(1) << 20) + 3;   // no descriptor gives it
        big.blocks[2] = uint64_t(1) << 25;
        big.compressedSize = 100;
        packed.append(big);
        QCOMPARE(packed.at(big.index).windowSize, big.windowSize);
        QCOMPARE(packed.at(big.index).blocks[2], big.blocks[2]);
        // A frame that does not follow the last is refused.
        cs::FrameInfo gap = big;
        gap.index = packed.size();
        gap.offset = packed.end() + 1;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, packed.append(gap));
    }
};

CACHESCOPE_CORE_TEST_MAIN(FramesMemoryTest)
#include "tst_frames_memory.moc"
