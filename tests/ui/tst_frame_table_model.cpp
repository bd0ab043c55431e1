// FrameTableModel: passes QAbstractItemModelTester on a real layout of a file
// written by stock zstd, agrees with `zstd -lv`, sorts through its
// permutation (persistent indexes follow), and handles 100,000 frames.
#include "FrameFixtures.h"
#include "core/frames/FrameLayout.h"
#include "core/jobs/Job.h"
#include "ui/charts/ChartExport.h"
#include "ui/frames/FrameTableModel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QApplication>

#include <algorithm>
#include <functional>
#include <random>

using ui::FrameTableModel;

class TestFrameTableModel : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    static std::shared_ptr<const cs::PackedFrames> pack(const std::vector<cs::FrameInfo>& frames)
    {
        auto packed = std::make_shared<cs::PackedFrames>();
        for (const cs::FrameInfo& f : frames)
            packed->append(f);
        return packed;
    }

    static std::shared_ptr<const cs::PackedFrames> scan(const QString& path)
    {
        cs::Job job("scan");
        return pack(cs::scanFrames(path.toStdString(), {}, job).frames);
    }

    static std::shared_ptr<const cs::PackedFrames> synthetic(size_t n)
    {
        auto frames = std::make_shared<std::vector<cs::FrameInfo>>(n);
        std::mt19937_64 rng(42);
        uint64_t offset = 0;
        for (size_t i = 0; i < n; ++i) {
            cs::FrameInfo& f = (*frames)[i];
            f.index = i;
            f.offset = offset;
            if (i % 10 == 9) {
                f.kind = cs::FrameKind::Skippable;
                f.magic = 0x184D2A50;
                f.role = cs::SkippableRole::PzstdSize;
                f.compressedSize = 12;
            } else {
                f.magic = 0xFD2FB528;
                f.compressedSize = 100 + rng() % 1000000;
                if (i % 3)
                    f.contentSize = f.compressedSize * (1 + rng() % 5);
                f.windowSize = uint64_t(1) << (10 + rng() % 17);
                f.checksum = i % 2;
            }
            offset += f.compressedSize;
        }
        return pack(*frames);
    }

    static qulonglong raw(const FrameTableModel& m, int row, int column)
    {
        return m.data(m.index(row, column), ui::RawValueRole).toULongLong();
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void realLayoutPassesTheModelTester()
    {
        const QString path = fixtures::writeMixedFrames(dir_.path());
        const fixtures::ZstdCounts truth = fixtures::zstdList(path);
        QCOMPARE(truth.zstdFrames, 3);
        QCOMPARE(truth.skippableFrames, 1);

        FrameTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFrames(scan(path));
        QCOMPARE(model.rowCount(), truth.zstdFrames + truth.skippableFrames);
        QCOMPARE(model.columnCount(), int(FrameTableModel::ColumnCount));

        qulonglong sum = 0;
        int zstd = 0, skippable = 0, unsized = 0;
        for (int r = 0; r < model.rowCount(); ++r) {
            sum += raw(model, r, FrameTableModel::CompressedSize);
            const QString kind = model.data(model.index(r, FrameTableModel::Kind), ui::RawValueRole).toString();
            (kind == QLatin1String("zstd") ? zstd : skippable)++;
            if (model.data(model.index(r, FrameTableModel::ContentSize)).toString() == QLatin1String("unknown"))
                ++unsized;
        }
        QCOMPARE(qint64(sum), truth.compressedSize);
        QCOMPARE(zstd, truth.zstdFrames);
        QCOMPARE(skippable, truth.skippableFrames);
        QCOMPARE(unsized, 1);  // the frame zstd streamed from stdin
        QCOMPARE(model.data(model.index(0, FrameTableModel::ContentSize), ui::RawValueRole).toULongLong(), 300000ull);
        QCOMPARE(model.data(model.index(1, FrameTableModel::Checksum)).toString(), QStringLiteral("no"));

        for (int c = 0; c < model.columnCount(); ++c) {
            model.sort(c, Qt::DescendingOrder);
            model.sort(c, Qt::AscendingOrder);
        }
        model.sort(FrameTableModel::Index, Qt::AscendingOrder);
        for (int r = 0; r < model.rowCount(); ++r)
            QCOMPARE(raw(model, r, FrameTableModel::Index), qulonglong(r));
    }

    void sortKeepsPersistentIndexes()
    {
        FrameTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFrames(synthetic(500));
        const QPersistentModelIndex p(model.index(123, FrameTableModel::Offset));
        model.sort(FrameTableModel::CompressedSize, Qt::DescendingOrder);
        QVERIFY(p.isValid());
        QCOMPARE(raw(model, p.row(), FrameTableModel::Index), 123ull);
        QCOMPARE(model.rowOfFrame(123), p.row());
        QCOMPARE(p.column(), int(FrameTableModel::Offset));
    }

    void hundredThousandFramesSort()
    {
        const size_t n = 100000;
        FrameTableModel model;
        model.setFrames(synthetic(n));
        QCOMPARE(model.rowCount(), int(n));

        model.sort(FrameTableModel::CompressedSize, Qt::DescendingOrder);
        for (int r = 1; r < int(n); ++r)
            QVERIFY(raw(model, r - 1, FrameTableModel::CompressedSize) >= raw(model, r, FrameTableModel::CompressedSize));
        // Ties keep frame order (stable sort over the permutation).
        for (int r = 1; r < int(n); ++r)
            if (raw(model, r - 1, FrameTableModel::CompressedSize) == raw(model, r, FrameTableModel::CompressedSize))
                QVERIFY(raw(model, r - 1, FrameTableModel::Index) < raw(model, r, FrameTableModel::Index));
        for (size_t i = 0; i < n; i += 997)
            QCOMPARE(raw(model, model.rowOfFrame(i), FrameTableModel::Index), qulonglong(i));

        model.sort(FrameTableModel::ContentSize, Qt::AscendingOrder);
        // Unsized and skippable frames (no content size) come first.
        QCOMPARE(model.data(model.index(0, FrameTableModel::ContentSize), ui::RawValueRole).toString(), QString());
        model.sort(FrameTableModel::Offset, Qt::AscendingOrder);
        for (int r = 1; r < int(n); ++r)
            QVERIFY(raw(model, r - 1, FrameTableModel::Offset) < raw(model, r, FrameTableModel::Offset));

        // The model keeps its sort when new frames arrive.
        model.sort(FrameTableModel::Offset, Qt::DescendingOrder);
        model.setFrames(synthetic(1000));
        QCOMPARE(raw(model, 0, FrameTableModel::Index), 999ull);
    }

    // A table of more frames than a page shows them a page at a time, in the
    // sort order; a frame's row is on its page only; a new sort order starts
    // at its first page.
    void pagesOfFrames()
    {
        FrameTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFrames(synthetic(1050));
        QCOMPARE(model.rowCount(), 1050);
        QCOMPARE(model.pageCount(), size_t(1));
        model.setPageRows(100);
        QCOMPARE(model.pageCount(), size_t(11));
        QCOMPARE(model.frameCount(), size_t(1050));
        QCOMPARE(model.rowCount(), 100);
        QCOMPARE(model.rowOfFrame(99), 99);
        QCOMPARE(model.rowOfFrame(100), -1);
        QSignalSpy paged(&model, &FrameTableModel::pageChanged);
        model.setPage(3);
        QCOMPARE(paged.size(), 1);
        QCOMPARE(raw(model, 0, FrameTableModel::Index), 300ull);
        QCOMPARE(model.rowOfFrame(305), 5);
        QCOMPARE(model.rowOfFrame(5), -1);
        QCOMPARE(model.positionOfFrame(5), size_t(5));
        QCOMPARE(model.positionOfFrame(5000), size_t(1050));
        model.setPage(99);   // clamped to the last page, of 50 rows
        QCOMPARE(model.page(), size_t(10));
        QCOMPARE(model.rowCount(), 50);
        QCOMPARE(raw(model, 49, FrameTableModel::Index), 1049ull);

        // Descending file order holds no permutation and still pages.
        model.sort(FrameTableModel::Index, Qt::DescendingOrder);
        QCOMPARE(model.page(), size_t(0));
        QCOMPARE(model.rowCount(), 100);
        QCOMPARE(raw(model, 0, FrameTableModel::Index), 1049ull);
        QCOMPARE(model.positionOfFrame(1049), size_t(0));
        QCOMPARE(model.positionOfFrame(0), size_t(1049));

        model.sort(FrameTableModel::CompressedSize, Qt::DescendingOrder);
        std::vector<qulonglong> sizes;
        for (size_t page = 0; page < model.pageCount(); ++page) {
            model.setPage(page);
            for (int r = 0; r < model.rowCount(); ++r) {
                sizes.push_back(raw(model, r, FrameTableModel::CompressedSize));
                QCOMPARE(model.positionOfFrame(model.frameIndexAt(r)), page * 100 + size_t(r));
            }
        }
        QCOMPARE(sizes.size(), size_t(1050));
        QVERIFY(std::is_sorted(sizes.begin(), sizes.end(), std::greater<>()));
    }

    void csvExportHasEveryRow()
    {
        const QString path = fixtures::writeSizedFrames(dir_.path(), 4);
        FrameTableModel model;
        model.setFrames(scan(path));
        const QString csv = dir_.filePath(QStringLiteral("frames.csv"));
        QString error;
        QVERIFY2(ui::exportCsv(&model, csv, &error), qPrintable(error));
        const QList<QByteArray> lines = testsupport::readFile(csv).trimmed().split('\n');
        QCOMPARE(lines.size(), model.rowCount() + 1);
        QVERIFY(lines[0].startsWith("#,Offset,Kind,Compressed"));
        QVERIFY(lines[1].startsWith("0,0,zstd,"));
        QVERIFY(!ui::exportCsv(&model, dir_.filePath(QStringLiteral("frames.txt")), &error));
        QVERIFY(error.contains(QStringLiteral("frames.txt")));
        QVERIFY(!ui::exportCsv(&model, QStringLiteral("/nonexistent-dir/frames.csv"), &error));
        QVERIFY(error.contains(QStringLiteral("/nonexistent-dir/frames.csv")));
    }
};

CACHESCOPE_TEST_MAIN(TestFrameTableModel)
#include "tst_frame_table_model.moc"
