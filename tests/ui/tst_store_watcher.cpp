// The store document follows changes another process makes: a second Store
// object on the same folder (its own SQLite connection, as another process
// has) uploads and evicts while the document is open. The catalog's change
// counters are polled off the GUI thread; the table is refreshed in place:
// row count, rows and details follow, the selected entry stays selected at
// its new row and the scroll position stays where it was. The document's
// own actions are not reported as outside changes.
#include "common/TestSupport.h"
#include "core/jobs/Job.h"
#include "core/store/ChangeCounters.h"
#include "core/store/Store.h"
#include "ui/shell/MainWindow.h"
#include "ui/store/EntryDetailsPane.h"
#include "ui/store/EntryTableModel.h"
#include "ui/store/StoreBrowser.h"
#include "ui/store/StoreDocument.h"
#include "ui/store/StoreWatcher.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>

using cs::store::Store;
using ui::EntryTableModel;
using ui::StoreDocument;

class TestStoreWatcher : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString store_;
    QString input_;

    static void put(Store& store, const std::string& key, const QString& file)
    {
        cs::Job job;
        job.start();
        store.putFile(key, file.toStdString(), job, "v1", "main", 64 << 10, 1);
    }

    static int rowOfKey(const EntryTableModel& m, const QString& key)
    {
        for (int r = 0; r < m.rowCount(); ++r)
            if (QString::fromStdString(m.entryAt(r)->key) == key)
                return r;
        return -1;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        QCoreApplication::setOrganizationName(QStringLiteral("cachescope-test-store-watcher"));
        store_ = dir_.filePath(QStringLiteral("store"));
        input_ = dir_.filePath(QStringLiteral("in"));
        QVERIFY(testsupport::writeFile(input_, testsupport::randomBytes(20000, 3)));
        auto store = Store::init(store_.toStdString());
        // Enough rows that the table scrolls: keys k000..k119, listed by id.
        for (int i = 0; i < 120; ++i)
            put(*store, QStringLiteral("k%1").arg(i, 3, 10, QLatin1Char('0')).toStdString(), input_);
    }

    void countersMoveWithEveryChange()
    {
        const cs::store::EntryChangeCounterReader a(store_.toStdString());
        auto b = Store::open(store_.toStdString());
        const auto before = a.read();
        put(*b, "counter-probe", input_);
        const auto afterPut = a.read();
        QVERIFY(afterPut.rows > before.rows);
        cs::Job job;
        job.start();
        cs::store::EvictPolicy policy;
        policy.keys = {"counter-probe"};
        QCOMPARE(b->evict(policy, job).evicted.size(), size_t(1));
        QVERIFY(a.read().rows > afterPut.rows);
    }

    void followsAnotherWriterInPlace()
    {
        ui::MainWindow w;
        w.resize(1000, 700);
        QVERIFY(w.openPath(store_));
        auto* doc = qobject_cast<StoreDocument*>(w.currentDocument());
        QVERIFY(doc);
        doc->watcher()->setInterval(50);
        EntryTableModel* model = doc->model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_VERIFY_WITH_TIMEOUT(!model->isCounting() && model->rowCount() > 0, 20000);
        QTRY_VERIFY(doc->watcher()->hasSeen());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const int rows = model->rowCount();

        // Sorted by key descending: a new key "k050a" sorts above k050, so
        // the selected entry moves down one row.
        QTableView* table = doc->browser()->table();
        table->sortByColumn(EntryTableModel::Key, Qt::DescendingOrder);
        QTRY_VERIFY_WITH_TIMEOUT(!model->isCounting() && model->rowCount() == rows, 20000);
        const int row = rowOfKey(*model, QStringLiteral("k050"));
        QVERIFY(row > 0);
        const int64_t id = model->entryIdAt(row);
        doc->browser()->selectRow(row);
        QTRY_COMPARE(doc->browser()->details()->entryId(), id);
        table->verticalScrollBar()->setValue(table->verticalScrollBar()->maximum() / 3);
        const int scroll = table->verticalScrollBar()->value();
        QVERIFY(scroll > 0);
        QSignalSpy resets(model, &QAbstractItemModel::modelReset);
        QSignalSpy seen(doc, &StoreDocument::externalChangeSeen);
        QSignalSpy refreshed(model, &EntryTableModel::refreshedInPlace);

        // "Another process": its own Store object and connection.
        auto other = Store::open(store_.toStdString());
        put(*other, "k050a", input_);
        QVERIFY(refreshed.wait(10000));
        QCOMPARE(seen.count(), 1);
        QCOMPARE(model->rowCount(), rows + 1);
        QCOMPARE(resets.count(), 0);                 // in place: no reset
        QCOMPARE(model->entryIdAt(row + 1), id);     // the entry moved down...
        QVERIFY(table->selectionModel()->isRowSelected(row + 1, {}));   // ...and stays selected
        QCOMPARE(table->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(table->currentIndex().row(), row + 1);
        QCOMPARE(doc->browser()->details()->entryId(), id);
        QCOMPARE(table->verticalScrollBar()->value(), scroll);   // the view did not jump
        QCOMPARE(model->data(model->index(row, EntryTableModel::Key)).toString(), QStringLiteral("k050a"));
        QTRY_VERIFY(doc->isSummaryReady());
        QVERIFY(doc->summaryText().contains(QStringLiteral("%1 entries").arg(rows + 1)));

        // An eviction elsewhere: the row goes, the selection follows the entry.
        cs::Job job;
        job.start();
        cs::store::EvictPolicy policy;
        policy.keys = {"k050a"};
        other->evict(policy, job);
        QVERIFY(refreshed.wait(10000));
        QCOMPARE(model->rowCount(), rows);
        QCOMPARE(model->entryIdAt(row), id);
        QVERIFY(table->selectionModel()->isRowSelected(row, {}));
        QCOMPARE(table->verticalScrollBar()->value(), scroll);
        QCOMPARE(resets.count(), 0);

        // The document's own refresh (F5) is not news for the watcher.
        const int seenBefore = seen.count();
        doc->refresh();
        QTest::qWait(400);
        QCOMPARE(seen.count(), seenBefore);
    }
};

QTEST_MAIN(TestStoreWatcher)
#include "tst_store_watcher.moc"
