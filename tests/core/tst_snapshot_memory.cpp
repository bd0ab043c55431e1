// `snapshot restore` holds no record per frame (issue 22): it held every
// frame's header record until the end (10 M skippable frames in 80 MB:
// 929 MB). The header pass now keeps nothing and the decode takes frames in
// batches, so the child's own peak RSS (common/ChildRss.h) stays under 64 MiB
// on 1 M and 10 M frames. Outputs are checked against stock `zstd -d`.
#include "common/ChildRss.h"
#include "common/HostileFrames.h"
#include "common/TestSupport.h"

#include <QFileInfo>

using namespace testsupport;

namespace {
constexpr long kBoundKiB = 64 * 1024;
}

class SnapshotMemoryTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString path(const QString& name) const { return dir_.filePath(name); }

private slots:
    void restoreMemoryDoesNotGrowWithFrames_data()
    {
        QTest::addColumn<qint64>("frames");
        QTest::newRow("1M") << qint64(1000000);
        QTest::newRow("10M") << qint64(10000000);
    }

    // n empty skippable frames, then a sized frame of 1 MiB of text written
    // by stock zstd.
    void restoreMemoryDoesNotGrowWithFrames()
    {
        QFETCH(qint64, frames);
        const QString src = path(QStringLiteral("text.bin"));
        QVERIFY(writeFile(src, textBytes(1 << 20, 5)));
        const auto z = zstd({QStringLiteral("-q"), QStringLiteral("-c"), src});
        QCOMPARE(z.exitCode, 0);
        const QString snap = path(QStringLiteral("skip.zst"));
        QVERIFY(writeEmptySkippableFrames(snap, frames, z.out));
        const QString out = path(QStringLiteral("restored.bin"));
        const auto r = runMeasured(QStringLiteral(CACHESCOPE_CLI),
                                   {QStringLiteral("snapshot"), QStringLiteral("restore"), snap, out,
                                    QStringLiteral("--threads"), QStringLiteral("2")},
                                   path(QStringLiteral("restore.log")));
        qInfo("snapshot restore, %lld skippable frames: peak RSS %ld KiB", frames, r.maxRssKiB);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.maxRssKiB <= kBoundKiB, qPrintable(QStringLiteral("%1 KiB").arg(r.maxRssKiB)));
        QCOMPARE(sha256OfFile(out), sha256OfFile(src));
        // Stock zstd skips such frames and decodes the same bytes (checked on
        // 10,000 of them: stock zstd takes a minute per million).
        const QString small = path(QStringLiteral("skip-small.zst"));
        QVERIFY(writeEmptySkippableFrames(small, 10000, z.out));
        const auto d = zstd({QStringLiteral("-d"), QStringLiteral("-q"), QStringLiteral("-c"), small});
        QCOMPARE(d.exitCode, 0);
        QCOMPARE(readFile(out), d.out);
    }

    // Sized frames are decoded in parallel a batch at a time: 20,000 frames
    // of 1 KiB (five batches, the last one short) come out byte-exact, in
    // order, with two threads, and with the same bytes as stock zstd.
    void sizedFramesAcrossBatches()
    {
        const QString src = path(QStringLiteral("words.bin"));
        QVERIFY(writeFile(src, textBytes(20000 * 1024 - 333, 9)));
        const QString snap = path(QStringLiteral("words.snap"));
        const auto w = cli({QStringLiteral("snapshot"), QStringLiteral("create"), src, snap, QStringLiteral("--chunk"),
                            QStringLiteral("1KiB"), QStringLiteral("--seek-table")});
        QVERIFY2(w.exitCode == 0, w.err.constData());
        const QString out = path(QStringLiteral("words.out"));
        const auto r = cli({QStringLiteral("snapshot"), QStringLiteral("restore"), snap, out, QStringLiteral("--threads"),
                            QStringLiteral("2"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("\"sized_frames\": 20000"), r.out.constData());
        QCOMPARE(sha256OfFile(out), sha256OfFile(src));
        const auto d = zstd({QStringLiteral("-d"), QStringLiteral("-q"), QStringLiteral("-c"), snap});
        QCOMPARE(d.exitCode, 0);
        QCOMPARE(d.out, readFile(src));
    }
};

CACHESCOPE_CORE_TEST_MAIN(SnapshotMemoryTest)
#include "tst_snapshot_memory.moc"
