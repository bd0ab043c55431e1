// Memory bound of snapshot restore: frame buffers of all decoding threads stay
// within a budget (default 256 MiB) whatever the frames declare and however
// many threads are asked for. It used to hold threads x declared size: 1.98 GB
// for 32 frames declaring 60 MiB each at --threads 32. Frames are written by
// stock zstd; every output is checked with SHA-256; the child's own peak RSS
// is measured (common/ChildRss.h).
#include "common/ChildRss.h"
#include "common/TestSupport.h"

#include "core/jobs/Job.h"
#include "core/snapshot/Snapshot.h"
#include "core/util/Error.h"

#include <QFileInfo>

using namespace testsupport;

class SnapshotBoundsTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString path(const QString& name) const { return dir_.filePath(name); }

    // One stock-zstd frame of `size` zero bytes (content size declared: the
    // input is a file), repeated n times. The output is n x size zeros.
    QString zeroFrames(qsizetype size, int n)
    {
        const QString src = path(QStringLiteral("zeros-%1").arg(size));
        if (!QFileInfo::exists(src) && !writeFile(src, QByteArray(size, '\0')))
            return {};
        const auto r = zstd({QStringLiteral("-q"), QStringLiteral("-c"), src});
        if (r.exitCode != 0)
            return {};
        const QString f = path(QStringLiteral("zeros-%1-x%2.zst").arg(size).arg(n));
        writeFile(f, r.out.repeated(n));
        return f;
    }

    static std::string zerosSha(qsizetype bytes)
    {
        cs::Sha256 h;
        const QByteArray block(1 << 20, '\0');
        for (qsizetype left = bytes; left > 0; left -= block.size())
            h.update(block.constData(), size_t(std::min<qsizetype>(left, block.size())));
        return cs::Sha256::hex(h.finish());
    }

private slots:
    void threadsTimesFrameSizeStaysWithinBudget()
    {
        constexpr qsizetype kFrame = 4 << 20;
        constexpr int kFrames = 24;
        const QString one = zeroFrames(kFrame, 1);
        const QString many = zeroFrames(kFrame, kFrames);
        QVERIFY(!one.isEmpty() && !many.isEmpty());
        const QString cli = QStringLiteral(CACHESCOPE_CLI);
        const auto base = runMeasured(cli, {QStringLiteral("snapshot"), QStringLiteral("restore"), one,
                                            path(QStringLiteral("one.out")), QStringLiteral("--threads"), QStringLiteral("1")},
                                      path(QStringLiteral("one.log")));
        const auto big = runMeasured(cli, {QStringLiteral("snapshot"), QStringLiteral("restore"), many,
                                           path(QStringLiteral("many.out")), QStringLiteral("--threads"),
                                           QString::number(kFrames), QStringLiteral("--memory"), QStringLiteral("16MiB")},
                                     path(QStringLiteral("many.log")));
        QCOMPARE(base.exitCode, 0);
        QCOMPARE(big.exitCode, 0);
        qInfo("peak RSS: 1 frame of 4 MiB %ld KiB; %d frames at --threads %d --memory 16MiB: %ld KiB", base.maxRssKiB,
              kFrames, kFrames, big.maxRssKiB);
        // Unbounded, 24 threads held 24 x 4 MiB = 96 MiB. GCC 12's
        // ThreadSanitizer keeps 4 shadow bytes per byte touched: in the tsan
        // preset the frames in flight cost 5 times their size (44 MiB
        // measured at --memory 16MiB; unbounded would be 480 MiB).
#if defined(__SANITIZE_THREAD__)
        constexpr long kTouchedFactor = 5;
#else
        constexpr long kTouchedFactor = 1;
#endif
        QVERIFY2(big.maxRssKiB - base.maxRssKiB <= 16 * 1024 * kTouchedFactor,
                 qPrintable(QStringLiteral("%1 KiB above one frame").arg(big.maxRssKiB - base.maxRssKiB)));
        QCOMPARE(QFileInfo(path(QStringLiteral("many.out"))).size(), kFrame * kFrames);
        QCOMPARE(sha256OfFile(path(QStringLiteral("many.out"))), zerosSha(kFrame * kFrames));
    }

    // Frames share a budget that fits a few at a time; a frame larger than the
    // whole budget is streamed; the bytes are right either way.
    void budgetDecidesParallelOrStreamed()
    {
        const QString mid = zeroFrames(3 << 20, 10);     // 3 MiB each: two at a time in 8 MiB
        const QString huge = zeroFrames(12 << 20, 2);    // 12 MiB each: more than the budget
        QVERIFY(!mid.isEmpty() && !huge.isEmpty());
        for (const auto& [file, frames, size] : {std::tuple{mid, 10, qsizetype(3 << 20)}, std::tuple{huge, 2, qsizetype(12 << 20)}}) {
            cs::SnapshotRestoreOptions o;
            o.threads = 8;
            o.memoryBudget = 8 << 20;
            cs::Job job;
            const QString out = file + QStringLiteral(".out");
            const auto r = cs::restoreSnapshot(file.toStdString(), out.toStdString(), o, job);
            QCOMPARE(r.zstdFrames, uint64_t(frames));
            const bool fits = size + 1024 <= qsizetype(o.memoryBudget);
            QCOMPARE(r.sizedFrames, fits ? uint64_t(frames) : 0u);
            QCOMPARE(r.streamedFrames, fits ? 0u : uint64_t(frames));
            QCOMPARE(sha256OfFile(out), zerosSha(size * frames));
        }
    }

    void threadAndBudgetRanges()
    {
        const QString f = zeroFrames(1 << 20, 2);
        QVERIFY(!f.isEmpty());
        const QString out = path(QStringLiteral("range.out"));
        for (const QStringList& bad : {QStringList{QStringLiteral("--threads"), QStringLiteral("65")},
                                       QStringList{QStringLiteral("--threads"), QStringLiteral("256")},
                                       QStringList{QStringLiteral("--threads"), QStringLiteral("0")},
                                       QStringList{QStringLiteral("--memory"), QStringLiteral("1MiB")},
                                       QStringList{QStringLiteral("--memory"), QStringLiteral("lots")}}) {
            const auto r = testsupport::cli(QStringList{QStringLiteral("snapshot"), QStringLiteral("restore"), f, out} + bad);
            QCOMPARE(r.exitCode, 2);
            QCOMPARE(r.err.count('\n'), 1);
            QVERIFY2(r.err.contains(bad[0].toUtf8()), r.err.constData());
            QVERIFY(!QFileInfo::exists(out));
        }
        const auto ok = testsupport::cli({QStringLiteral("snapshot"), QStringLiteral("restore"), f, out,
                                          QStringLiteral("--threads"), QStringLiteral("64"), QStringLiteral("--memory"),
                                          QStringLiteral("8MiB")});
        QVERIFY2(ok.exitCode == 0, ok.err.constData());
        QCOMPARE(sha256OfFile(out), zerosSha(2 << 20));
        // The core refuses what the CLI refuses, in one sentence.
        cs::SnapshotRestoreOptions o;
        o.threads = 1;
        o.memoryBudget = 1 << 20;
        cs::Job job;
        try {
            cs::restoreSnapshot(f.toStdString(), path(QStringLiteral("core.out")).toStdString(), o, job);
            QFAIL("a 1 MiB budget was accepted");
        } catch (const cs::Error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("memory budget")), e.what());
        }
    }
};

CACHESCOPE_CORE_TEST_MAIN(SnapshotBoundsTest)
#include "tst_snapshot_bounds.moc"
