#include "ui/actions/ActionsBrowser.h"

#include "core/jobs/Job.h"
#include "core/util/Units.h"
#include "core/actions-cache/EntryFilterText.h"
#include "ui/actions/ActionsEntryModel.h"
#include "ui/actions/ActionsEntryPane.h"
#include "ui/actions/EntryCompareDialog.h"
#include "ui/actions/ActionsPartsModel.h"
#include "ui/jobs/JobRunner.h"
#include "ui/shell/BrowserLayout.h"

#include <QAction>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <optional>
#include <set>

namespace ui {

using PartsPtr = std::shared_ptr<const std::vector<cs::actions::ActionsPart>>;

namespace {

// Sorts by key or by updatedAt through the catalog, and by size, parts,
// state and last download through the size index (SizeIndex.h): either way
// the model reads the query's first page in that order over every entry,
// and the proxy keeps the source order. Version, scope and repo sort the
// rows loaded so far.
class ActionsEntryProxy : public QSortFilterProxyModel {
public:
    ActionsEntryProxy(ActionsEntryModel* model, QObject* parent) : QSortFilterProxyModel(parent), model_(model) {}

    void sort(int column, Qt::SortOrder order) override
    {
        using cs::actions::EntryOrder;
        const bool down = order == Qt::DescendingOrder;
        std::optional<EntryOrder> whole;
        if (column < 0 || column == ActionsEntryModel::Key)
            whole = column >= 0 && down ? EntryOrder::KeyDescending : EntryOrder::KeyAscending;
        else if (column == ActionsEntryModel::Updated)
            whole = down ? EntryOrder::UpdatedNewest : EntryOrder::UpdatedOldest;
        else if (column == ActionsEntryModel::Size)
            whole = down ? EntryOrder::SizeLargest : EntryOrder::SizeSmallest;
        else if (column == ActionsEntryModel::Parts)
            whole = down ? EntryOrder::PartsMost : EntryOrder::PartsFewest;
        else if (column == ActionsEntryModel::State)
            whole = down ? EntryOrder::StateDescending : EntryOrder::StateAscending;
        else if (column == ActionsEntryModel::LastDownload)
            whole = down ? EntryOrder::LastUsedNewest : EntryOrder::LastUsedOldest;
        if (!whole) {
            QSortFilterProxyModel::sort(column, order);
            return;
        }
        QSortFilterProxyModel::sort(-1, order);   // the source's order: the catalog's or the index's
        cs::actions::EntryQuery query = model_->query();
        query.order = *whole;
        model_->setQuery(query);
    }

private:
    ActionsEntryModel* model_;
};

} // namespace

ActionsBrowser::ActionsBrowser(ActionsDataLocation where, QWidget* parent)
    : QWidget(parent),
      where_(std::move(where)),
      model_(new ActionsEntryModel(this)),
      proxy_(new ActionsEntryProxy(model_, this)),
      filter_(new QLineEdit(this)),
      filterTimer_(new QTimer(this)),
      count_(new QLabel(this)),
      table_(new QTableView(this)),
      partsHeader_(new QLabel(this)),
      partsModel_(new ActionsPartsModel(this)),
      partsTable_(new QTableView(this)),
      partsRunner_(new JobRunner(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    addFilterBar(layout, filter_, count_, filterTimer_, tr("Filter the whole catalog: key text, size>100M, parts>=2, state:unmerged, scope:REF, repo:ID…"),
                 kFilterDelayMs);

    model_->setLocation(where_);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(ActionsEntryModel::SortRole);
    table_->setModel(proxy_);
    setUpRowTable(table_);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    showContextMenuOf(table_, &contextActions_);
    // The catalog's key order, in which pages arrive (ActionsEntryProxy).
    table_->sortByColumn(-1, Qt::AscendingOrder);
    const int digit = table_->fontMetrics().horizontalAdvance(QLatin1Char('0'));
    auto* header = table_->horizontalHeader();
    header->resizeSection(ActionsEntryModel::Key, 32 * digit);
    header->resizeSection(ActionsEntryModel::Version, 9 * digit);
    header->resizeSection(ActionsEntryModel::Scope, 15 * digit);
    header->resizeSection(ActionsEntryModel::Repo, 6 * digit);
    header->resizeSection(ActionsEntryModel::Size, 10 * digit);
    header->resizeSection(ActionsEntryModel::Parts, 6 * digit);
    header->resizeSection(ActionsEntryModel::State, 14 * digit);
    header->resizeSection(ActionsEntryModel::LastDownload, 18 * digit);
    header->resizeSection(ActionsEntryModel::Updated, 18 * digit);

    auto* pane = new QWidget(this);
    auto* paneLayout = new QVBoxLayout(pane);
    paneLayout->setContentsMargins(0, 4, 0, 0);
    partsHeader_->setObjectName(QStringLiteral("partsHeader"));
    partsHeader_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    partsHeader_->setWordWrap(true);
    partsHeader_->setText(tr("Select an entry to see its files."));
    paneLayout->addWidget(partsHeader_);
    partsTable_->setModel(partsModel_);
    setUpRowTable(partsTable_);
    partsTable_->setSortingEnabled(false);   // index order is the order the server concatenates in
    partsTable_->horizontalHeader()->resizeSection(ActionsPartsModel::Part, 8 * digit);
    partsTable_->horizontalHeader()->resizeSection(ActionsPartsModel::Size, 11 * digit);
    paneLayout->addWidget(partsTable_, 1);

    entryPane_ = new ActionsEntryPane(where_.paths, pane, this);
    addTableOverPane(layout, table_, entryPane_);
    compare_ = new QAction(tr("Compare…"), this);
    compare_->setToolTip(tr("What changed between the two selected entries"));
    compare_->setEnabled(false);
    contextActions_ = {compare_};
    connect(compare_, &QAction::triggered, this, &ActionsBrowser::compareSelected);
    connect(this, &ActionsBrowser::selectionChanged, this,
            [this] { compare_->setEnabled(table_->selectionModel()->selectedRows().size() == 2); });
    // A double click opens what the entry holds.
    connect(table_, &QAbstractItemView::doubleClicked, this, [this] { entryPane_->showTab(ActionsEntryPane::Contents); });

    // The filter is the catalog's (SQL over every entry, not the rows loaded).
    connect(filterTimer_, &QTimer::timeout, this, [this] {
        // Words such as size>100M or state:unmerged filter through the size
        // index; the rest is the key substring (EntryFilterText.h).
        const auto parsed = cs::actions::parseEntryFilterText(filter_->text().toStdString(), model_->query());
        filterError_ = QString::fromStdString(parsed.error);
        if (parsed.error.empty())
            model_->setQuery(parsed.query);
        updateCountLabel();
    });
    connect(model_, &QAbstractItemModel::rowsInserted, this, &ActionsBrowser::updateCountLabel);
    connect(model_, &QAbstractItemModel::modelReset, this, [this] {
        // Another query's rows: the entry whose files the pane showed may be gone.
        onCurrentChanged();
        updateCountLabel();
    });
    connect(model_, &ActionsEntryModel::countFetched, this, &ActionsBrowser::updateCountLabel);
    connect(model_, &ActionsEntryModel::pageFetched, this, [this](bool ok, const QString& error) {
        if (!ok)
            count_->setText(tr("Reading entries failed: %1").arg(error));
        else
            updateCountLabel();
    });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ActionsBrowser::onCurrentChanged);
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &ActionsBrowser::selectionChanged);
    connect(partsRunner_, &JobRunner::finished, this, [this](const JobOutcome& outcome) {
        if (outcome.failed()) {
            partsModel_->clear();
            partsHeader_->setText(tr("Cannot list the files: %1").arg(outcome.message));
            Q_EMIT partsLoaded(false);
        }
    });
    updateCountLabel();
}

void ActionsBrowser::showParts(PartsPtr parts)
{
    const cs::actions::ActionsEntry* e = model_->entryAt(model_->rowOfId(shownEntryId_));
    partsModel_->setParts(parts, e && e->merged());
    if (e) {
        uint64_t present = 0, missing = 0;
        for (const auto& p : *parts)
            (p.present ? present : missing) += 1;
        QString text = tr("<b>%1</b> · folder %2 · %3 of %4 claimed parts present")
                           .arg(QString::fromStdString(e->key).toHtmlEscaped(),
                                QString::fromStdString(e->folderName).toHtmlEscaped())
                           .arg(present)
                           .arg(e->partCount);
        text += e->mergedPresent ? tr(" · merged object %1").arg(QString::fromStdString(cs::formatSize(e->size)))
                                 : tr(" · no merged object");
        if (missing > 0 && e->merged())
            text += tr(" · the server deletes the parts after a merge");
        else if (missing >= kMaxMissingShown)
            text += tr(" (the first %1 missing parts are listed)").arg(kMaxMissingShown);
        partsHeader_->setText(text);
    }
    Q_EMIT partsLoaded(true);
}

void ActionsBrowser::setContextActions(const QList<QAction*>& actions)
{
    contextActions_ = actions;
    contextActions_.append(compare_);
}

void ActionsBrowser::compareSelected()
{
    const auto selected = selectedEntries();
    if (selected.size() != 2)
        return;
    auto* dialog = new EntryCompareDialog(where_.paths, selected[0], selected[1], this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

bool ActionsBrowser::isLoadingParts() const
{
    return partsRunner_->isRunning();
}

void ActionsBrowser::setSnapshot(ActionsSnapshotPtr snapshot)
{
    std::set<std::string> selected;
    for (const auto& e : selectedEntries())
        selected.insert(e.id);
    const QString current = shownEntryId_;
    const bool firstRead = !model_->snapshot();
    model_->setSnapshot(std::move(snapshot));
    // Keep what was selected (rows move when a merge changes states).
    QItemSelection selection;
    for (int r = 0; r < model_->rowCount(); ++r)
        if (selected.count(model_->entryAt(r)->id)) {
            const QModelIndex i = proxy_->mapFromSource(model_->index(r, 0));
            if (i.isValid())
                selection.select(i, i);
        }
    table_->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    const int currentRow = model_->rowOfId(current);
    shownEntryId_.clear();
    if (currentRow >= 0) {
        const QModelIndex i = proxy_->mapFromSource(model_->index(currentRow, 0));
        table_->selectionModel()->setCurrentIndex(i, QItemSelectionModel::NoUpdate);
    } else if (firstRead && proxy_->rowCount() > 0) {
        // A first look shows the files of the top entry rather than an empty pane.
        table_->selectionModel()->setCurrentIndex(proxy_->index(0, 0),
                                                  QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
    onCurrentChanged();
    updateCountLabel();
    Q_EMIT selectionChanged();
}

QString ActionsBrowser::countText() const
{
    return count_->text();
}

void ActionsBrowser::updateCountLabel()
{
    const QLocale l;
    const QString loaded = l.toString(model_->rowCount());
    const auto matching = model_->matchingEntries();
    cs::actions::EntryQuery filters = model_->query();
    filters.order = cs::actions::EntryQuery{}.order;
    const bool filtered = filters != cs::actions::EntryQuery{};
    const bool keyOnly = filters == cs::actions::EntryQuery{.keyContains = filters.keyContains};
    const QString filter = keyOnly ? QString::fromStdString(filters.keyContains) : filter_->text().simplified();
    QString text;
    if (!filterError_.isEmpty()) {
        text = tr("Filter not applied: %1").arg(filterError_);
    } else if (!filtered) {
        text = tr("%1 entries").arg(loaded);
        if (model_->totalEntries() > uint64_t(model_->rowCount()))
            text += tr(" (%1 in the catalog; more load as you scroll)").arg(l.toString(qulonglong(model_->totalEntries())));
    } else if (!matching) {
        text = keyOnly ? tr("Finding keys containing “%1”…").arg(filter) : tr("Finding entries matching “%1”…").arg(filter);
    } else {
        text = (keyOnly ? tr("%1 of %2 entries have “%3” in their key") : tr("%1 of %2 entries match “%3”"))
                   .arg(l.toString(qulonglong(*matching)), l.toString(qulonglong(model_->totalEntries())), filter);
        if (*matching > uint64_t(model_->rowCount()))
            text += tr(" (%1 loaded; more as you scroll)").arg(loaded);
    }
    count_->setText(text);
}

std::vector<cs::actions::ActionsEntry> ActionsBrowser::selectedEntries() const
{
    std::vector<cs::actions::ActionsEntry> out;
    std::set<int> rows;
    for (const QModelIndex& i : table_->selectionModel()->selectedRows())
        rows.insert(i.row());
    for (int r : rows)
        if (const auto* e = model_->entryAt(proxy_->mapToSource(proxy_->index(r, 0)).row()))
            out.push_back(*e);
    return out;
}

void ActionsBrowser::selectSourceRow(int row)
{
    const QModelIndex i = proxy_->mapFromSource(model_->index(row, 0));
    table_->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    table_->scrollTo(i);
}

void ActionsBrowser::onCurrentChanged()
{
    const QModelIndex current = table_->selectionModel()->currentIndex();
    const cs::actions::ActionsEntry* e = current.isValid() ? model_->entryAt(proxy_->mapToSource(current).row()) : nullptr;
    entryPane_->setEntry(e ? std::optional<cs::actions::ActionsEntry>(*e) : std::nullopt);
    if (!e) {
        if (!shownEntryId_.isEmpty() || partsModel_->rowCount() > 0) {
            partsRunner_->cancel();
            partsModel_->clear();
            partsHeader_->setText(tr("Select an entry to see its files."));
        }
        shownEntryId_.clear();
        return;
    }
    const QString id = QString::fromStdString(e->id);
    // Already shown or on its way (setSnapshot() clears the id to re-read).
    if (id == shownEntryId_)
        return;
    shownEntryId_ = id;
    partsHeader_->setText(tr("Listing the files of %1…").arg(QString::fromStdString(e->key).toHtmlEscaped()));
    partsRunner_->start(tr("Listing parts"), [paths = where_.paths, entry = *e](cs::Job& job) {
        auto cache = openActionsForReading(paths);
        job.checkCancel();
        return PartsPtr(std::make_shared<const std::vector<cs::actions::ActionsPart>>(cache->parts(entry, kMaxMissingShown)));
    }, [this](PartsPtr parts) { showParts(std::move(parts)); });
}

} // namespace ui
