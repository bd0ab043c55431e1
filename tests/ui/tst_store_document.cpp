// The store document in the main window, headless: opening a store folder
// through openPath, the summary against Store::stats, the details of a
// selected entry against Store::entryDetails (chunks, offsets, sharing),
// Merge all run through the toolbar action as a job, and the eviction
// preview against a dry run of the core with the same policy and clock.
#include "JobSpy.h"
#include "common/TestSupport.h"
#include "core/jobs/Job.h"
#include "core/store/Store.h"
#include "core/util/Units.h"
#include "ui/shell/MainWindow.h"
#include "ui/store/EntryDetailsPane.h"
#include "ui/store/EntryTableModel.h"
#include "ui/store/EvictDialog.h"
#include "ui/store/StoreBrowser.h"
#include "ui/store/StoreDocument.h"

#include <QAction>
#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableView>
#include <QTableWidget>
#include <QTabWidget>

using cs::store::Store;
using ui::EntryTableModel;
using ui::StoreDocument;

class TestStoreDocument : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString store_;

    static int rowOfKey(const EntryTableModel& m, const QString& key)
    {
        for (int r = 0; r < m.rowCount(); ++r)
            if (QString::fromStdString(m.entryAt(r)->key) == key)   // synchronous; data() pages asynchronously
                return r;
        return -1;
    }

    StoreDocument* openIn(ui::MainWindow& w)
    {
        if (!w.openPath(store_))
            return nullptr;
        auto* doc = qobject_cast<StoreDocument*>(w.currentDocument());
        // The table's count runs off the GUI thread.
        if (doc && !QTest::qWaitFor([doc] { return !doc->model()->isCounting(); }, 20000))
            return nullptr;
        return doc;
    }

    static void collect(const QStandardItemModel* m, const QModelIndex& parent, QList<QPair<QString, qulonglong>>& out)
    {
        for (int r = 0; r < m->rowCount(parent); ++r) {
            const QModelIndex kind = m->index(r, ui::EntryDetailsPane::ObjKind, parent);
            out.append({kind.data().toString(),
                        m->index(r, ui::EntryDetailsPane::ObjOffset, parent).data(EntryTableModel::SortRole).toULongLong()});
            collect(m, kind, out);
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        QCoreApplication::setOrganizationName(QStringLiteral("cachescope-test-store-document"));
        store_ = dir_.filePath(QStringLiteral("store"));
        auto store = Store::init(store_.toStdString());
        // Three entries sharing 3 MiB; a and b merged (so they share chunks), c unmerged.
        const QByteArray shared = testsupport::randomBytes(3 << 20, 11);
        const char* keys[] = {"deps-a", "deps-b", "deps-c"};
        for (int i = 0; i < 3; ++i) {
            const QString file = dir_.filePath(QStringLiteral("in%1").arg(i));
            QVERIFY(testsupport::writeFile(file, shared + testsupport::randomBytes(400000, uint64_t(100 + i))));
            cs::Job job;
            store->putFile(keys[i], file.toStdString(), job, "v1", "main", 512 << 10, 2);
        }
        cs::Job job;
        store->merge(store->findEntry("deps-a", "v1", "main")->id, job);
        store->merge(store->findEntry("deps-b", "v1", "main")->id, job);
    }

    void opensWithSummary()
    {
        ui::MainWindow w;
        StoreDocument* doc = openIn(w);
        QVERIFY2(doc, qPrintable(w.lastError()));
        QCOMPARE(w.documentCount(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(doc->isSummaryReady(), 20000);
        auto store = Store::open(store_.toStdString());
        cs::Job job;
        const cs::store::StoreStats s = store->stats(job);
        const QString text = doc->summaryText();
        QVERIFY2(text.contains(QStringLiteral("3 entries")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("2 merged, 1 unmerged")), qPrintable(text));
        QVERIFY2(text.contains(QString::fromStdString(cs::formatSize(s.logicalBytes))), qPrintable(text));
        QVERIFY2(text.contains(QString::fromStdString(cs::formatSize(s.storedBytes))), qPrintable(text));
        QVERIFY2(text.contains(QString::number(s.dedupRatio, 'f', 2)), qPrintable(text));
        QVERIFY2(text.contains(QString::fromStdString(cs::formatSize(s.unmergedBytes))), qPrintable(text));
        QCOMPARE(doc->model()->rowCount(), 3);
        QCOMPARE(doc->storeDir(), QDir(store_).absolutePath());
        // A view added by another module becomes an inner tab.
        const int viewsBefore = doc->views()->count();   // Entries + the GC views (ui/gc)
        doc->addView(new QWidget, QStringLiteral("Extra"));
        QCOMPARE(doc->views()->count(), viewsBefore + 1);
        QVERIFY(w.openPath(store_));   // already open: selects it
        QCOMPARE(w.documentCount(), 1);
    }

    void detailsShowChunks()
    {
        ui::MainWindow w;
        StoreDocument* doc = openIn(w);
        QVERIFY(doc);
        auto store = Store::open(store_.toStdString());
        const auto a = store->findEntry("deps-a", "v1", "main");
        QVERIFY(a);
        const cs::store::EntryDetails truth = store->entryDetails(a->id);
        const int row = rowOfKey(*doc->model(), QStringLiteral("deps-a"));
        QVERIFY(row >= 0);
        QSignalSpy loaded(doc->browser()->details(), &ui::EntryDetailsPane::detailsLoaded);
        doc->browser()->selectRow(row);
        QVERIFY(loaded.wait(20000));
        QCOMPARE(loaded.last().at(0).toLongLong(), a->id);
        QVERIFY(loaded.last().at(1).toBool());
        QList<QPair<QString, qulonglong>> shown;
        collect(doc->browser()->details()->objectModel(), {}, shown);
        QCOMPARE(size_t(shown.size()), truth.objects.size());
        uint64_t sharedChunks = 0, chunks = 0;
        for (size_t i = 0; i < truth.objects.size(); ++i) {
            QCOMPARE(shown[int(i)].second, qulonglong(truth.objects[i].offset));
            if (truth.objects[i].kind == cs::store::ObjectInfo::Chunk) {
                ++chunks;
                QCOMPARE(shown[int(i)].first, QStringLiteral("chunk"));
                sharedChunks += truth.objects[i].sharedWith ? 1 : 0;
            }
        }
        QVERIFY(chunks >= 3);
        QVERIFY(sharedChunks > 0);   // deps-b shares the first 3 MiB
        QVERIFY2(doc->browser()->details()->sharingText().contains(
                     QStringLiteral("%1 chunks; %2 shared").arg(chunks).arg(sharedChunks)),
                 qPrintable(doc->browser()->details()->sharingText()));
        QVERIFY(doc->restoreAction()->isEnabled());
        QVERIFY(doc->mergeSelectedAction()->isEnabled());

        // Restore through the document (no dialog) gives the original bytes.
        const QString out = dir_.filePath(QStringLiteral("restored-a"));
        QSignalSpy done(doc, &StoreDocument::actionFinished);
        doc->restoreSelectedTo(out);
        QVERIFY(done.wait(30000));
        QVERIFY2(lastOutcome(done).ok(), qPrintable(lastOutcome(done).message));
        QCOMPARE(testsupport::sha256OfFile(out), a->sha256);
    }

    void mergeAllThroughTheAction()
    {
        ui::MainWindow w;
        StoreDocument* doc = openIn(w);
        QVERIFY(doc);
        QVERIFY(doc->mergeAllAction()->isEnabled());
        QSignalSpy done(doc, &StoreDocument::actionFinished);
        QSignalSpy changed(doc, &StoreDocument::storeChanged);
        doc->mergeAllAction()->trigger();
        QVERIFY(!doc->mergeAllAction()->isEnabled());   // one action at a time
        QVERIFY(done.wait(60000));
        QVERIFY2(lastOutcome(done).ok(), qPrintable(lastOutcome(done).message));
        QVERIFY(changed.count() >= 1);
        const EntryTableModel* m = doc->model();
        QTRY_VERIFY_WITH_TIMEOUT(!m->isCounting(), 20000);   // the refresh re-counts off the GUI thread
        QCOMPARE(m->rowCount(), 3);
        for (int r = 0; r < 3; ++r)
            QVERIFY(m->entryAt(r)->state == cs::store::EntryState::Merged);
        // The view's cells: data() reads pages on a worker, then shows them.
        QTRY_VERIFY_WITH_TIMEOUT(m->isRowLoaded(2), 10000);
        for (int r = 0; r < 3; ++r)
            QCOMPARE(m->data(m->index(r, EntryTableModel::State)).toString(), QStringLiteral("merged"));
        auto store = Store::open(store_.toStdString());
        cs::store::EntryFilter unmerged;
        unmerged.state = cs::store::EntryState::Unmerged;
        QCOMPARE(store->countEntries(unmerged), uint64_t(0));
        QTRY_VERIFY_WITH_TIMEOUT(doc->isSummaryReady() && doc->summaryText().contains(QStringLiteral("3 merged")), 20000);
    }

    // A field that does not parse, or no rule at all, gives one sentence and
    // no preview; any change after a preview voids it.
    void evictFieldsRefuseThenVoidThePreview()
    {
        ui::MainWindow w;
        StoreDocument* doc = openIn(w);
        QVERIFY(doc);
        doc->evictWithPreview();
        auto* dialog = doc->findChild<ui::EvictDialog*>();
        QVERIFY(dialog);
        QSignalSpy previewed(dialog, &ui::EvictDialog::previewFinished);
        dialog->previewButton()->click();
        QVERIFY2(dialog->messageLabel()->text().contains(QStringLiteral("Choose at least one rule")),
                 qPrintable(dialog->messageLabel()->text()));
        dialog->olderThanEdit()->setText(QStringLiteral("99999999999999999999w"));
        dialog->previewButton()->click();
        QVERIFY2(dialog->messageLabel()->text().contains(QStringLiteral("is not a duration")),
                 qPrintable(dialog->messageLabel()->text()));
        dialog->olderThanEdit()->clear();
        dialog->maxSizeEdit()->setText(QStringLiteral("lots"));
        dialog->previewButton()->click();
        QVERIFY2(dialog->messageLabel()->text().contains(QStringLiteral("is not a size")),
                 qPrintable(dialog->messageLabel()->text()));
        QCOMPARE(previewed.count(), 0);
        QVERIFY(!dialog->evictButton()->isEnabled());

        dialog->maxSizeEdit()->setText(QStringLiteral("1B"));
        dialog->previewButton()->click();
        QVERIFY(previewed.wait(20000));
        QVERIFY2(previewed.last().at(0).toBool(), qPrintable(dialog->messageLabel()->text()));
        QVERIFY(dialog->evictButton()->isEnabled());
        QVERIFY(dialog->previewTable()->rowCount() > 0);
        dialog->unusedForEdit()->setText(QStringLiteral("1d"));
        QVERIFY(!dialog->evictButton()->isEnabled());
        QCOMPARE(dialog->previewTable()->rowCount(), 0);
        QVERIFY(dialog->previewIds().empty());
        dialog->reject();
        QCOMPARE(Store::open(store_.toStdString())->countEntries({}), uint64_t(3));
    }

    void evictPreviewMatchesDryRun()
    {
        ui::MainWindow w;
        StoreDocument* doc = openIn(w);
        QVERIFY(doc);
        auto store = Store::open(store_.toStdString());
        const uint64_t one = store->findEntry("deps-a", "v1", "main")->size;
        doc->evictWithPreview();
        auto* dialog = doc->findChild<ui::EvictDialog*>();
        QVERIFY(dialog);
        QVERIFY(!dialog->evictButton()->isEnabled());
        dialog->maxSizeEdit()->setText(QString::number(one + one / 2) + QStringLiteral("B"));
        QSignalSpy previewed(dialog, &ui::EvictDialog::previewFinished);
        dialog->previewButton()->click();
        QVERIFY(previewed.wait(20000));
        QVERIFY2(previewed.last().at(0).toBool(), qPrintable(dialog->messageLabel()->text()));
        QVERIFY(dialog->evictButton()->isEnabled());

        cs::store::EvictPolicy dry = dialog->confirmedPolicy();
        dry.dryRun = true;
        cs::Job job;
        const cs::store::EvictResult truth = store->evict(dry, job);
        QCOMPARE(truth.evicted.size(), size_t(2));   // three entries of one size each, down to 1.5x one
        std::vector<int64_t> ids;
        for (const auto& r : truth.evicted)
            ids.push_back(r.id);
        QCOMPARE(dialog->previewIds(), ids);
        QCOMPARE(dialog->previewTable()->rowCount(), 2);
        for (int i = 0; i < 2; ++i)
            QCOMPARE(dialog->previewTable()->item(i, 0)->text(), QString::fromStdString(truth.evicted[size_t(i)].key));
        QCOMPARE(store->countEntries({}), uint64_t(3));   // a preview removes nothing

        QSignalSpy done(doc, &StoreDocument::actionFinished);
        dialog->evictButton()->click();
        QVERIFY(done.wait(30000));
        QVERIFY2(lastOutcome(done).ok(), qPrintable(lastOutcome(done).message));
        QCOMPARE(store->countEntries({}), uint64_t(1));
        QTRY_COMPARE_WITH_TIMEOUT(doc->model()->rowCount(), 1, 20000);
    }
};

CACHESCOPE_TEST_MAIN(TestStoreDocument)
#include "tst_store_document.moc"
