// EntryTableModel: passes QAbstractItemModelTester on a real store (entries
// uploaded as parts, some merged, plus synthetic rows); a store of 100,000
// catalog rows opens with only the pages it shows fetched, rows near the end
// match Store::listEntries, sorting is the catalog's, and the key filter
// (synchronous and off-thread) narrows the count exactly like countEntries;
// deep pages seek from page anchors, and anchors made stale by another
// connection's writes still give the current rows and are rebuilt; an
// entry another process merges reads "merging", one whose merge failed
// says so with the sentence as tooltip.
#include "common/TestSupport.h"
#include "core/jobs/Job.h"
#include "core/store/Store.h"
#include "core/store/StoreTesting.h"
#include "core/util/Error.h"
#include "ui/store/EntryTableModel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QSignalSpy>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

using cs::store::EntryFilter;
using cs::store::SortColumn;
using cs::store::Store;
using ui::EntryTableModel;

class TestEntryTableModel : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString smallDir_, bigDir_;
    static constexpr uint64_t kBig = 100000;

    static QString keyAt(const EntryTableModel& m, int row)
    {
        return m.data(m.index(row, EntryTableModel::Key), EntryTableModel::SortRole).toString();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        smallDir_ = dir_.filePath(QStringLiteral("small"));
        bigDir_ = dir_.filePath(QStringLiteral("big"));
        auto store = Store::init(smallDir_.toStdString());
        const QByteArray shared = testsupport::randomBytes(3 << 20, 7);
        for (int i = 0; i < 4; ++i) {
            const QString file = dir_.filePath(QStringLiteral("in%1").arg(i));
            QVERIFY(testsupport::writeFile(file, shared + testsupport::randomBytes(100000 * (i + 1), uint64_t(i))));
            cs::Job job;
            store->putFile("build/" + std::to_string(i), file.toStdString(), job, "v1", "main", 256 << 10, 2);
        }
        cs::Job merge;
        store->merge(store->findEntry("build/0", "v1", "main")->id, merge);
        store->merge(store->findEntry("build/1", "v1", "main")->id, merge);
        cs::Job gen;
        cs::store::testing::generateSyntheticEntries(*store, 600, gen);

        auto big = Store::init(bigDir_.toStdString());
        cs::Job genBig;
        cs::store::testing::generateSyntheticEntries(*big, kBig, genBig);
    }

    void passesModelTester()
    {
        std::shared_ptr<Store> store = Store::open(smallDir_.toStdString());
        EntryTableModel model(store);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 604);
        QCOMPARE(model.columnCount(), int(EntryTableModel::ColumnCount));
        // Touch every row and role once (pages come and go through the LRU).
        for (int r = 0; r < model.rowCount(); ++r)
            for (int c = 0; c < model.columnCount(); ++c)
                QVERIFY(model.data(model.index(r, c)).isValid());
        model.sort(EntryTableModel::Size, Qt::DescendingOrder);
        model.sort(EntryTableModel::State, Qt::AscendingOrder);
        model.sort(EntryTableModel::LastAccess, Qt::DescendingOrder);
        model.setKeyFilter(QStringLiteral("build/"));
        QCOMPARE(model.rowCount(), 4);
        model.setKeyFilter(QStringLiteral("no such key"));
        QCOMPARE(model.rowCount(), 0);
        model.setKeyFilter({});
        QCOMPARE(model.rowCount(), 604);
        model.refresh();
        QCOMPARE(model.rowCount(), 604);
    }

    void showsStatesOfRealEntries()
    {
        std::shared_ptr<Store> store = Store::open(smallDir_.toStdString());
        EntryTableModel model(store);
        model.setKeyFilter(QStringLiteral("build/"));
        model.sort(EntryTableModel::Key, Qt::AscendingOrder);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.data(model.index(0, EntryTableModel::State)).toString(), QStringLiteral("merged"));
        QCOMPARE(model.data(model.index(2, EntryTableModel::State)).toString(), QStringLiteral("unmerged"));
        const auto e = store->findEntry("build/3", "v1", "main");
        QVERIFY(e);
        QCOMPARE(model.entryIdAt(3), e->id);
        QCOMPARE(model.data(model.index(3, EntryTableModel::Size), EntryTableModel::SortRole).toULongLong(), e->size);
        QCOMPARE(model.data(model.index(3, EntryTableModel::Parts)).toString(), QString::number(e->partCount));
        QCOMPARE(model.data(model.index(3, EntryTableModel::Version)).toString(), QStringLiteral("v1"));
    }

    void hundredThousandRowsNearTheEnd()
    {
        std::shared_ptr<Store> store = Store::open(bigDir_.toStdString());
        EntryTableModel model(store);
        QCOMPARE(model.rowCount(), int(kBig));
        QCOMPARE(model.pageFetches(), uint64_t(0));   // opening reads no rows
        const auto truth = store->listEntries({}, SortColumn::Id, false, kBig - 10, 10);
        QCOMPARE(truth.size(), size_t(10));
        for (int i = 0; i < 10; ++i) {
            const int row = int(kBig) - 10 + i;
            QCOMPARE(keyAt(model, row), QString::fromStdString(truth[size_t(i)].key));
            QCOMPARE(model.entryIdAt(row), truth[size_t(i)].id);
        }
        QCOMPARE(model.pageFetches(), uint64_t(1));   // rows 99,990..99,999 share one page
        QVERIFY(!model.data(model.index(int(kBig) - 1, EntryTableModel::Created)).toString().isEmpty());
    }

    void sortBySizeDescending()
    {
        std::shared_ptr<Store> store = Store::open(bigDir_.toStdString());
        EntryTableModel model(store);
        model.sort(EntryTableModel::Size, Qt::DescendingOrder);
        QCOMPARE(model.rowCount(), int(kBig));
        auto sizeAt = [&](int row) {
            return model.data(model.index(row, EntryTableModel::Size), EntryTableModel::SortRole).toULongLong();
        };
        for (int row : {0, 5000, 50000, int(kBig) - 3000}) {
            qulonglong previous = sizeAt(row);
            for (int r = row + 1; r < row + 3000; ++r) {
                const qulonglong s = sizeAt(r);
                QVERIFY2(s <= previous, qPrintable(QStringLiteral("row %1").arg(r)));
                previous = s;
            }
        }
        QVERIFY(sizeAt(0) > sizeAt(int(kBig) - 1));   // synthetic sizes differ
        const auto truth = store->listEntries({}, SortColumn::Size, true, kBig - 5, 5);
        for (int i = 0; i < 5; ++i)
            QCOMPARE(keyAt(model, int(kBig) - 5 + i), QString::fromStdString(truth[size_t(i)].key));

        model.sort(EntryTableModel::LastAccess, Qt::AscendingOrder);
        const auto byAccess = store->listEntries({}, SortColumn::LastAccess, false, 70000, 3);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(model.entryIdAt(70000 + i), byAccess[size_t(i)].id);
        model.sort(EntryTableModel::State, Qt::DescendingOrder);
        QCOMPARE(model.data(model.index(0, EntryTableModel::State)).toString(), QStringLiteral("merged"));
    }

    void filterNarrowsTheCount()
    {
        std::shared_ptr<Store> store = Store::open(bigDir_.toStdString());
        EntryTableModel model(store);
        model.setKeyFilter(QStringLiteral("macOS-gradle"));
        EntryFilter f;
        f.keyContains = "macOS-gradle";
        const uint64_t expected = store->countEntries(f);
        QVERIFY(expected > 0 && expected < kBig);
        QCOMPARE(uint64_t(model.rowCount()), expected);
        for (int r = 0; r < model.rowCount(); r += 97)
            QVERIFY(keyAt(model, r).contains(QStringLiteral("macOS-gradle")));
        QVERIFY(keyAt(model, model.rowCount() - 1).contains(QStringLiteral("macOS-gradle")));
    }

    void filterCountsOffThread()
    {
        std::shared_ptr<Store> pages = Store::open(bigDir_.toStdString());
        std::shared_ptr<Store> counts = Store::open(bigDir_.toStdString());
        EntryTableModel model(pages);
        model.setCountStore(counts);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy applied(&model, &EntryTableModel::filterApplied);
        model.setKeyFilter(QStringLiteral("Windows"));
        model.setKeyFilter(QStringLiteral("Windows-pip"));   // replaces the first: only its count is applied
        QVERIFY(applied.wait(30000));
        QCOMPARE(applied.count(), 1);
        QCOMPARE(applied.first().at(0).toString(), QStringLiteral("Windows-pip"));
        EntryFilter f;
        f.keyContains = "Windows-pip";
        QCOMPARE(uint64_t(model.rowCount()), pages->countEntries(f));
        QCOMPARE(applied.first().at(1).toULongLong(), qulonglong(model.rowCount()));
        QVERIFY(keyAt(model, 0).contains(QStringLiteral("Windows-pip")));
    }

    void asyncPagesNeverWait()
    {
        std::shared_ptr<Store> pages = Store::open(bigDir_.toStdString());
        std::shared_ptr<Store> worker = Store::open(bigDir_.toStdString());
        EntryTableModel model(pages);
        model.setCountStore(worker);
        model.setAsyncPages(true);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.sort(EntryTableModel::Size, Qt::DescendingOrder);
        const int row = int(kBig) - 7;
        QVERIFY(!model.isRowLoaded(row));
        QVERIFY(!model.data(model.index(row, EntryTableModel::Size), EntryTableModel::SortRole).isValid());
        QCOMPARE(model.data(model.index(row, EntryTableModel::Key)).toString(), QStringLiteral("loading…"));
        QSignalSpy changed(&model, &EntryTableModel::dataChanged);
        QVERIFY(changed.wait(30000));
        QVERIFY(model.isRowLoaded(row));
        const QModelIndex first = changed.first().at(0).toModelIndex();
        const QModelIndex last = changed.first().at(1).toModelIndex();
        QVERIFY(first.row() <= row && row <= last.row());
        const auto truth = pages->listEntries({}, SortColumn::Size, true, uint64_t(row), 1);
        QCOMPARE(keyAt(model, row), QString::fromStdString(truth.front().key));
        // A page that arrives after a re-sort belongs to the old order: dropped.
        QVERIFY(!model.data(model.index(100, EntryTableModel::Key), EntryTableModel::SortRole).isValid());
        model.sort(EntryTableModel::Key, Qt::AscendingOrder);
        QVERIFY(!model.isRowLoaded(100));
        QVERIFY(!model.data(model.index(100, EntryTableModel::Key), EntryTableModel::SortRole).isValid());
        QTRY_VERIFY_WITH_TIMEOUT(model.isRowLoaded(100), 30000);
        QCOMPARE(keyAt(model, 100), QString::fromStdString(pages->listEntries({}, SortColumn::Key, false, 100, 1).front().key));
    }

    void deepPagesSeekFromAnchors()
    {
        std::shared_ptr<Store> pages = Store::open(bigDir_.toStdString());
        std::shared_ptr<Store> worker = Store::open(bigDir_.toStdString());
        EntryTableModel model(pages);
        model.setCountStore(worker);
        model.setAsyncPages(true);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy ready(&model, &EntryTableModel::anchorsReady);
        model.sort(EntryTableModel::LastAccess, Qt::DescendingOrder);   // NULLs (never read) last, ties by id
        QTRY_VERIFY_WITH_TIMEOUT(model.hasAnchors(), 30000);
        auto rowAt = [&](int row) -> qint64 {
            model.data(model.index(row, EntryTableModel::Key));
            if (!model.isRowLoaded(row)) {
                QSignalSpy changed(&model, &EntryTableModel::dataChanged);
                if (!changed.wait(30000))
                    return -1;
            }
            return model.data(model.index(row, EntryTableModel::Key), EntryTableModel::EntryIdRole).toLongLong();
        };
        for (int row : {int(kBig) - 3, 61234, 256 * 200, 70000}) {
            const uint64_t before = model.anchoredFetches();
            const qint64 id = rowAt(row);
            QCOMPARE(id, qint64(pages->listEntries({}, SortColumn::LastAccess, true, uint64_t(row), 1).front().id));
            QCOMPARE(model.anchoredFetches(), before + 1);
        }
        // Another connection (as another process) adds rows: the anchors are
        // stale, the next page is still the current catalog's, and the anchors
        // are rebuilt.
        auto other = Store::open(bigDir_.toStdString());
        cs::Job job;
        cs::store::testing::generateSyntheticEntries(*other, 300, job);
        ready.clear();
        const uint64_t anchored = model.anchoredFetches();
        const int row = 40000;
        QCOMPARE(rowAt(row), qint64(pages->listEntries({}, SortColumn::LastAccess, true, uint64_t(row), 1).front().id));
        QCOMPARE(model.anchoredFetches(), anchored);
        QVERIFY(ready.wait(30000));
        QCOMPARE(rowAt(20000), qint64(pages->listEntries({}, SortColumn::LastAccess, true, 20000, 1).front().id));
        QCOMPARE(model.anchoredFetches(), anchored + 1);
        // Synchronous reads (entryAt) use the anchors too.
        EntryTableModel sync(pages);
        QTRY_VERIFY_WITH_TIMEOUT(sync.hasAnchors(), 30000);
        const uint64_t n = pages->countEntries({});
        QCOMPARE(sync.entryIdAt(int(n) - 2), pages->listEntries({}, SortColumn::Id, false, n - 2, 1).front().id);
        QCOMPARE(sync.anchoredFetches(), uint64_t(1));
    }

    // An entry whose merge runs in another process (a CLI get or put that
    // returned and merges behind; its merge lock is a flock on the entry's
    // part folder, taken here from a description of our own) reads
    // "merging"; one whose last merge failed reads "unmerged (merge failed)"
    // with the sentence as tooltip; a merge that succeeds clears both.
    void showsMergingAndFailedMerges()
    {
        const std::string path = dir_.filePath(QStringLiteral("merging")).toStdString();
        auto writer = Store::init(path);
        const QString file = dir_.filePath(QStringLiteral("merging.in"));
        QVERIFY(testsupport::writeFile(file, testsupport::randomBytes(600000, 27)));
        cs::Job job;
        const int64_t id = writer->putFile("k", file.toStdString(), job, "", "", 256 << 10, 2).id;
        const auto stateOf = [&](int role) {
            EntryTableModel model(Store::open(path));
            return model.data(model.index(0, EntryTableModel::State), role).toString();
        };
        QCOMPARE(stateOf(Qt::DisplayRole), QStringLiteral("unmerged"));

        const QByteArray parts = QFile::encodeName(QString::fromStdString(path + "/parts/" + std::to_string(id)));
        const int fd = ::open(parts.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        QVERIFY(fd >= 0);
        QCOMPARE(::flock(fd, LOCK_EX), 0);
        QCOMPARE(stateOf(Qt::DisplayRole), QStringLiteral("merging"));
        ::close(fd);
        QCOMPARE(stateOf(Qt::DisplayRole), QStringLiteral("unmerged"));

        cs::store::StoreOptions failing;
        failing.testHooks = cs::store::testing::beforeMergeCommit([](int64_t) { throw cs::Error("injected merge failure"); });
        auto failer = Store::open(path, failing);
        QVERIFY_THROWS_EXCEPTION(cs::Error, failer->merge(id, job));
        QCOMPARE(stateOf(Qt::DisplayRole), QStringLiteral("unmerged (merge failed)"));
        QVERIFY2(stateOf(Qt::ToolTipRole).contains(QStringLiteral("injected merge failure")),
                 qPrintable(stateOf(Qt::ToolTipRole)));

        writer->merge(id, job);
        QCOMPARE(stateOf(Qt::DisplayRole), QStringLiteral("merged"));
        QVERIFY(writer->entry(id)->mergeError.empty());
    }
};

CACHESCOPE_TEST_MAIN(TestEntryTableModel)
#include "tst_entry_table_model.moc"
