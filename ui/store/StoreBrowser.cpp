#include "ui/store/StoreBrowser.h"
#include "ui/shell/BrowserLayout.h"
#include "ui/shell/Plural.h"

#include "ui/store/EntryDetailsPane.h"
#include "ui/store/EntryTableModel.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <set>
#include <utility>

namespace ui {

StoreBrowser::StoreBrowser(std::shared_ptr<cs::store::Store> pages, std::shared_ptr<cs::store::Store> work,
                           QWidget* parent)
    : QWidget(parent),
      model_(new EntryTableModel(std::move(pages), work, this)),
      filter_(new QLineEdit(this)),
      filterTimer_(new QTimer(this)),
      count_(new QLabel(this)),
      table_(new QTableView(this)),
      details_(new EntryDetailsPane(work, this))
{
    // Pages far into a million rows take an OFFSET scan (~0.1-0.3 s): read
    // them on a worker so scrolling never blocks the GUI thread.
    model_->setAsyncPages(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);

    addFilterBar(layout, filter_, count_, filterTimer_, tr("Filter by key (substring)…"), kFilterDelayMs);

    table_->setModel(model_);
    setUpRowTable(table_);
    table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);   // catalog order until a header is clicked
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    auto* header = table_->horizontalHeader();
    const int digit = table_->fontMetrics().horizontalAdvance(QLatin1Char('0'));
    header->resizeSection(EntryTableModel::Key, 42 * digit);
    header->resizeSection(EntryTableModel::Version, 12 * digit);
    header->resizeSection(EntryTableModel::Scope, 17 * digit);
    header->resizeSection(EntryTableModel::Size, 11 * digit);
    header->resizeSection(EntryTableModel::State, 11 * digit);
    header->resizeSection(EntryTableModel::Parts, 7 * digit);
    header->resizeSection(EntryTableModel::Created, 21 * digit);
    showContextMenuOf(table_, &contextActions_);
    addTableOverPane(layout, table_, details_);

    connect(filterTimer_, &QTimer::timeout, this, [this] { model_->setKeyFilter(filter_->text()); });
    connect(model_, &EntryTableModel::modelReset, this, [this] {
        updateCountLabel();
        pendingDetailsRow_ = -1;
        details_->showEntry(0);
        // Keep the same entry selected when it is still at the same row (merge
        // and restore do not move rows unless sorted by state or last access).
        const int row = std::exchange(reselectRow_, -1);
        if (row >= 0 && row < model_->rowCount() && model_->entryIdAt(row) == reselectId_)
            selectRow(row);
        Q_EMIT selectionChanged();
    });
    connect(model_, &EntryTableModel::dataChanged, this, [this](const QModelIndex& first, const QModelIndex& last) {
        if (pendingDetailsRow_ >= first.row() && pendingDetailsRow_ <= last.row())
            onCurrentRowChanged();
    });
    connect(model_, &EntryTableModel::refreshedInPlace, this, [this] {
        updateCountLabel();
        // Rows may have moved under the selection: select the same entries
        // at their new rows; the scroll position is left where it was.
        QItemSelection selection;
        for (int64_t id : std::exchange(keepSelected_, {}))
            if (const int row = model_->loadedRowOf(id); row >= 0)
                selection.select(model_->index(row, 0), model_->index(row, EntryTableModel::ColumnCount - 1));
        QItemSelectionModel* sm = table_->selectionModel();
        // Moving the current index would auto-scroll to it: put the view back.
        const int vertical = table_->verticalScrollBar()->value();
        const int horizontal = table_->horizontalScrollBar()->value();
        const int64_t currentId = std::exchange(keepCurrent_, 0);
        const int currentRow = currentId ? model_->loadedRowOf(currentId) : -1;
        if (currentRow >= 0)
            sm->setCurrentIndex(model_->index(currentRow, sm->currentIndex().isValid() ? sm->currentIndex().column() : 0),
                                QItemSelectionModel::NoUpdate);
        else if (currentId)
            sm->clearCurrentIndex();   // the entry is gone (evicted elsewhere)
        sm->select(selection, QItemSelectionModel::ClearAndSelect);
        table_->verticalScrollBar()->setValue(vertical);
        table_->horizontalScrollBar()->setValue(horizontal);
        onCurrentRowChanged();   // the details of the (possibly changed) entry
        Q_EMIT selectionChanged();
    });
    connect(model_, &EntryTableModel::countFailed, this,
            [this](const QString& error) { count_->setText(tr("Filter failed: %1").arg(error)); });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &StoreBrowser::onCurrentRowChanged);
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &StoreBrowser::selectionChanged);
    updateCountLabel();
}

void StoreBrowser::updateCountLabel()
{
    if (model_->isCounting() && model_->rowCount() == 0) {
        count_->setText(tr("counting…"));
        return;
    }
    const int n = model_->rowCount();
    count_->setText(model_->keyFilter().isEmpty() ? counted(n, "entry", "entries")
                                                  : counted(n, "matching entry", "matching entries"));
}

void StoreBrowser::onCurrentRowChanged()
{
    const QModelIndex current = table_->selectionModel()->currentIndex();
    pendingDetailsRow_ = -1;
    if (current.isValid() && !model_->isRowLoaded(current.row())) {
        // Ctrl+End on a million rows: its page is an OFFSET scan, read on a
        // worker; the details follow when the page arrives (dataChanged).
        pendingDetailsRow_ = current.row();
        model_->data(model_->index(current.row(), EntryTableModel::Key));
        return;
    }
    details_->showEntry(current.isValid() ? model_->entryIdAt(current.row()) : 0);
}

std::vector<int64_t> StoreBrowser::selectedEntryIds() const
{
    std::set<int> rows;
    for (const QModelIndex& i : table_->selectionModel()->selectedRows())
        rows.insert(i.row());
    std::vector<int64_t> ids;
    for (int r : rows)
        if (const int64_t id = model_->entryIdAt(r))
            ids.push_back(id);
    return ids;
}

void StoreBrowser::selectRow(int row)
{
    const QModelIndex index = model_->index(row, 0);
    table_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    table_->scrollTo(index);
}

void StoreBrowser::refreshInPlace()
{
    keepSelected_ = selectedEntryIds();
    const QModelIndex current = table_->selectionModel()->currentIndex();
    keepCurrent_ = current.isValid() ? model_->entryIdAt(current.row()) : 0;
    model_->refreshInPlace();
}

void StoreBrowser::refresh()
{
    reselectId_ = details_->entryId();
    reselectRow_ = reselectId_ ? table_->currentIndex().row() : -1;
    model_->refresh();
}

} // namespace ui
