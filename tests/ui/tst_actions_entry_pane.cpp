// The cache-server document's entry pane on entries holding archives the
// stock tools made: double-click opens Contents (the folder tree with sizes,
// sortable, searchable), the treemap drills into a folder, Compression shows
// the blob's frames, Parts of a merged entry read "deleted after the merge"
// (not red "missing"), a result for an entry no longer current is dropped,
// and Compare… shows the diff of two selected entries.
#include "common/EntryArchives.h"
#include "common/TestServers.h"
#include "common/TestSupport.h"
#include "common/TreeHash.h"
#include "ui/actions/ActionsBrowser.h"
#include "ui/actions/ActionsDocument.h"
#include "ui/actions/ActionsEntryModel.h"
#include "ui/actions/ActionsEntryPane.h"
#include "ui/actions/ActionsPartsModel.h"
#include "ui/actions/EntryCompareDialog.h"
#include "ui/actions/EntryTreeModel.h"
#include "ui/actions/EntryTreemap.h"
#include "ui/frames/FrameSummaryPanel.h"
#include "ui/frames/FrameTableModel.h"
#include "ui/jobs/JobRunner.h"
#include "ui/shell/MainWindow.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>

using ui::ActionsDocument;
using ui::ActionsEntryPane;

namespace {

int rowOfKey(const ui::ActionsEntryModel* m, const QString& key)
{
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, ui::ActionsEntryModel::Key).data().toString() == key)
            return r;
    return -1;
}

QModelIndex childNamed(const QAbstractItemModel* m, const QModelIndex& parent, const QString& name)
{
    for (int r = 0; r < m->rowCount(parent); ++r)
        if (m->index(r, 0, parent).data().toString() == name)
            return m->index(r, 0, parent);
    return {};
}

// With CACHESCOPE_SHOTS=DIR (a run under Xvfb), the window as it is now.
void shot(QWidget* w, const QString& name)
{
    const QString dir = qEnvironmentVariable("CACHESCOPE_SHOTS");
    if (dir.isEmpty())
        return;
    w->show();
    QTest::qWait(300);
    w->grab().save(dir + "/" + name + ".png");
}

} // namespace

class TestActionsEntryPane : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<testsupport::EntryDataDir> data_;
    QByteArray blob1_;

private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("cachescope-test-entry-pane"));
        QVERIFY(dir_.isValid());
        QDir().mkpath(dir_.path() + "/v1");
        QDir().mkpath(dir_.path() + "/v2");
        testsupport::makeTree(dir_.path() + "/v1", 1);
        testsupport::makeTree(dir_.path() + "/v2", 2);
        const QByteArray tar1 = testsupport::makeTar(dir_.path() + "/v1");
        const QByteArray tar2 = testsupport::makeTar(dir_.path() + "/v2");
        testsupport::removeTree(dir_.path() + "/v1");
        testsupport::removeTree(dir_.path() + "/v2");
        data_ = std::make_unique<testsupport::EntryDataDir>(dir_.path() + "/data");
        blob1_ = testsupport::compress(tar1, "zstd -q -T0 --long=30");
        data_->add("node-a-merged", blob1_, true);
        data_->add("node-b-parts", testsupport::compress(tar2, "zstd -q -T0 --long=30"), false);
        data_->add("node-c-gzip", testsupport::compress(tar1, "gzip"), false);
    }

    void contentsTreemapCompressionAndParts()
    {
        const auto before = testsupport::hashTree(data_->dataDir());
        ui::MainWindow w;
        w.resize(1400, 900);
        w.show();   // the double click lands on a laid-out table
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY2(w.openPath(data_->dataDir()), qPrintable(w.lastError()));
        auto* doc = qobject_cast<ActionsDocument*>(w.currentDocument());
        QVERIFY(doc);
        QTRY_VERIFY_WITH_TIMEOUT(doc->isLoaded() && !doc->isReading(), 20000);
        ui::ActionsBrowser* b = doc->browser();
        ActionsEntryPane* pane = b->entryPane();
        QAbstractItemModelTester treeTester(pane->treeModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(pane->treeProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        // The first entry is selected on opening, and Contents (the first
        // tab) reads it; let that settle.
        QTRY_VERIFY_WITH_TIMEOUT(!pane->contentsRunner()->isRunning(), 20000);
        // On another tab, a selected entry's contents are not read.
        pane->showTab(ActionsEntryPane::Parts);
        b->selectSourceRow(rowOfKey(b->model(), "node-c-gzip"));
        QVERIFY(!pane->contentsRunner()->isRunning());
        QCOMPARE(pane->contentsEntryId(), std::string());
        // Double-click opens Contents of that entry.
        const int row = rowOfKey(b->model(), "node-a-merged");
        QSignalSpy contents(pane, &ActionsEntryPane::contentsLoaded);
        const QModelIndex cell = b->proxy()->mapFromSource(b->model()->index(row, 0));
        // As a mouse does it: a click, then the double click (QTest's alone is
        // one MouseButtonDblClick event, which a view takes for a press).
        const QPoint onRow = b->table()->visualRect(cell).center();
        QTest::mouseClick(b->table()->viewport(), Qt::LeftButton, {}, onRow);
        QTest::mouseDClick(b->table()->viewport(), Qt::LeftButton, {}, onRow);
        QCOMPARE(pane->tabs()->currentIndex(), int(ActionsEntryPane::Contents));
        QVERIFY(contents.wait(20000));
        QVERIFY(contents.last().at(0).toBool());
        QCOMPARE(QString::fromStdString(pane->contentsEntryId()), data_->entries()[0].id);
        QVERIFY2(pane->contentsHeader()->text().contains("tar+zstd"), qPrintable(pane->contentsHeader()->text()));
        // The tree: tree/src/lib holds util.c and data.bin, with sizes.
        const auto* proxy = pane->treeProxy();
        const QModelIndex tree = childNamed(proxy, {}, "tree");
        QVERIFY(tree.isValid());
        const QModelIndex src = childNamed(proxy, tree, "src");
        QCOMPARE(proxy->index(src.row(), ui::EntryTreeModel::Size, tree).data(ui::EntryTreeModel::SortRole).toULongLong(),
                 qulonglong(40000 + 120000 + 2500000));
        QVERIFY(childNamed(proxy, tree, "line\\nbreak.txt").isValid());       // escaped
        QVERIFY(childNamed(proxy, tree, "latin1-\\xE9t\\xE9.txt").isValid());
        // Sorted largest first by default: src (2.6 MB) is the top child.
        QCOMPARE(proxy->index(0, 0, tree).data().toString(), QStringLiteral("src"));
        // Searching keeps the matches and the folders above them.
        pane->searchEdit()->setText(QStringLiteral("util"));
        QTRY_COMPARE(proxy->rowCount(tree), 1);
        QVERIFY(childNamed(proxy, childNamed(proxy, childNamed(proxy, tree, "src"), "lib"), "util.c").isValid());
        pane->searchEdit()->clear();
        QTRY_VERIFY(proxy->rowCount(tree) > 5);
        pane->tree()->expand(tree);
        shot(&w, "contents");

        // Treemap: it starts in tree/, the first folder holding more than one
        // member; its largest tile is src/, and a click drills into it (lib/
        // and main.c); a right click goes back up.
        pane->showTab(ActionsEntryPane::Treemap);
        auto* map = pane->treemap();
        const auto& entryTree = *pane->treeModel()->tree();
        QTRY_VERIFY(!map->tiles().empty());
        QCOMPARE(entryTree.path(map->root()), std::string("tree"));
        QCOMPARE(map->tiles().size(), size_t(6));   // the members of tree/ that hold bytes
        QCOMPARE(entryTree.path(map->tiles().front().first), std::string("tree/src"));
        // src/'s children are drawn inside its tile, largest first; a click
        // on one of them goes into src/ (one level at a time).
        QVERIFY(!map->innerTiles().empty());
        QCOMPARE(entryTree.path(map->innerTiles().front().first), std::string("tree/src/lib"));
        QVERIFY(map->tiles().front().second.contains(map->innerTiles().front().second));
        QSignalSpy rootChanged(map, &ui::EntryTreemap::rootChanged);
        QTest::mouseClick(map, Qt::LeftButton, {}, map->innerTiles().front().second.center().toPoint());
        QCOMPARE(entryTree.path(map->root()), std::string("tree/src"));
        QCOMPARE(rootChanged.size(), 1);
        QCOMPARE(map->tiles().size(), size_t(2));
        QCOMPARE(entryTree.path(map->tiles().front().first), std::string("tree/src/lib"));
        // The tree follows the treemap's folder.
        QCOMPARE(pane->tree()->currentIndex().data().toString(), QStringLiteral("src"));
        shot(&w, "treemap");
        QTest::mouseClick(map, Qt::RightButton, {}, map->rect().center());
        QCOMPARE(entryTree.path(map->root()), std::string("tree"));

        // Compression: the blob's frames, read where the entry is stored.
        QSignalSpy frames(pane, &ActionsEntryPane::framesLoaded);
        pane->showTab(ActionsEntryPane::Compression);
        QVERIFY(frames.wait(20000));
        QVERIFY(frames.last().at(0).toBool());
        QVERIFY(pane->frameModel()->frameCount() >= 1);
        // zstd -T0 writes one frame, whatever its threads: a serial decode.
        const QString verdict = pane->frameSummary()->verdictText();
        QVERIFY2(verdict.startsWith("Splittable: no") && verdict.contains("single zstd frame"), qPrintable(verdict));
        shot(&w, "compression");

        // Parts of the merged entry: deleted after the merge, not missing.
        pane->showTab(ActionsEntryPane::Parts);
        QTRY_VERIFY_WITH_TIMEOUT(!b->isLoadingParts() && b->partsModel()->rowCount() > 0, 10000);
        const auto* parts = b->partsModel();
        for (int i = 0; i < parts->rowCount(); ++i) {
            QCOMPARE(parts->index(i, ui::ActionsPartsModel::Present).data().toString(),
                     QStringLiteral("deleted after the merge"));
            QVERIFY(!parts->index(i, ui::ActionsPartsModel::Present).data(Qt::ForegroundRole).isValid());
        }
        shot(&w, "parts");

        // A result that arrives after the selection moved is dropped.
        pane->showTab(ActionsEntryPane::Contents);
        b->selectSourceRow(rowOfKey(b->model(), "node-c-gzip"));
        b->selectSourceRow(rowOfKey(b->model(), "node-b-parts"));
        QTRY_VERIFY_WITH_TIMEOUT(pane->contentsEntryId() == data_->entries()[1].id.toStdString(), 20000);
        QVERIFY(childNamed(pane->treeProxy(), childNamed(pane->treeProxy(), {}, "tree"), "new").isValid());
        QTest::qWait(300);
        QCOMPARE(QString::fromStdString(pane->contentsEntryId()), data_->entries()[1].id);

        // Compare… two selected entries.
        QVERIFY(!b->compareAction()->isEnabled());
        b->table()->selectionModel()->select(
            QItemSelection(b->proxy()->mapFromSource(b->model()->index(rowOfKey(b->model(), "node-a-merged"), 0)),
                           b->proxy()->mapFromSource(b->model()->index(rowOfKey(b->model(), "node-a-merged"), 0))),
            QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QTRY_VERIFY(b->compareAction()->isEnabled());
        b->compareAction()->trigger();
        auto* dialog = b->findChild<ui::EntryCompareDialog*>();
        QVERIFY(dialog);
        QSignalSpy compared(dialog, &ui::EntryCompareDialog::compared);
        QVERIFY(compared.wait(20000));
        QVERIFY(compared.last().at(0).toBool());
        QVERIFY2(dialog->summary()->text().startsWith("2 added, 2 removed"), qPrintable(dialog->summary()->text()));
        QVERIFY(dialog->model()->rowCount() >= 5);
        // old/ and new/ are rows of their own, with no size (a folder has none).
        int folders = 0;
        for (int r = 0; r < dialog->model()->rowCount(); ++r)
            if (dialog->model()->index(r, ui::EntryDiffModel::What).data().toString() == QLatin1String("dir")) {
                ++folders;
                QVERIFY(!dialog->model()->index(r, ui::EntryDiffModel::SizeA).data().isValid());
                QVERIFY(!dialog->model()->index(r, ui::EntryDiffModel::SizeB).data().isValid());
            }
        QCOMPARE(folders, 2);
        shot(dialog, "compare");
        dialog->close();
        QCOMPARE(testsupport::treeDifferences(before, testsupport::hashTree(data_->dataDir())), QStringList());
    }
};

CACHESCOPE_TEST_MAIN(TestActionsEntryPane)
#include "tst_actions_entry_pane.moc"
