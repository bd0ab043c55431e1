#include "ui/actions/EntryCompareDialog.h"

#include "core/jobs/Job.h"
#include "core/util/Units.h"
#include "ui/actions/ActionsData.h"
#include "ui/actions/EntryTreeModel.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/JobRunner.h"
#include "ui/shell/BrowserLayout.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace ui {

namespace {
QString sizeText(uint64_t b)
{
    return QString::fromStdString(cs::formatSize(b));
}
} // namespace

EntryDiffModel::EntryDiffModel(QObject* parent) : QAbstractTableModel(parent) {}

void EntryDiffModel::setDiff(EntryDiffPtr diff)
{
    beginResetModel();
    diff_ = std::move(diff);
    endResetModel();
}

int EntryDiffModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !diff_ ? 0 : int(diff_->added.size() + diff_->removed.size() + diff_->changed.size());
}

int EntryDiffModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EntryDiffModel::data(const QModelIndex& index, int role) const
{
    if (!diff_ || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    size_t r = size_t(index.row());
    QString change, what;
    std::string path;
    std::optional<uint64_t> a, b;
    // A folder has no size of its own: its size cells stay empty.
    const auto sizeOf = [](const cs::entries::DiffMember& m) {
        return m.type == cs::entries::MemberType::Folder ? std::nullopt : std::optional<uint64_t>(m.size);
    };
    if (r < diff_->added.size()) {
        const auto& m = diff_->added[r];
        change = tr("added"), path = m.path, b = sizeOf(m), what = QString::fromLatin1(memberTypeName(m.type));
    } else if ((r -= diff_->added.size()) < diff_->removed.size()) {
        const auto& m = diff_->removed[r];
        change = tr("removed"), path = m.path, a = sizeOf(m), what = QString::fromLatin1(memberTypeName(m.type));
    } else {
        const auto& c = diff_->changed[r - diff_->removed.size()];
        change = tr("changed"), path = c.path, a = c.sizeA, b = c.sizeB, what = QString::fromStdString(c.what);
    }
    if (role == Qt::DisplayRole || role == SortRole) {
        switch (index.column()) {
        case Change: return change;
        case Path: return shownName(path);
        case SizeA: return a ? (role == SortRole ? QVariant(qulonglong(*a)) : QVariant(sizeText(*a))) : QVariant();
        case SizeB: return b ? (role == SortRole ? QVariant(qulonglong(*b)) : QVariant(sizeText(*b))) : QVariant();
        case What: return what;
        }
    }
    if (role == Qt::TextAlignmentRole && (index.column() == SizeA || index.column() == SizeB))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant EntryDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Change: return tr("Change");
    case Path: return tr("Path");
    case SizeA: return tr("Size in A");
    case SizeB: return tr("Size in B");
    case What: return tr("What");
    }
    return {};
}

EntryCompareDialog::EntryCompareDialog(cs::actions::DataDirPaths paths, cs::actions::ActionsEntry a,
                                       cs::actions::ActionsEntry b, QWidget* parent)
    : QDialog(parent),
      model_(new EntryDiffModel(this)),
      summary_(new QLabel(this)),
      table_(new QTableView(this)),
      progress_(new JobProgressWidget(this)),
      runner_(new JobRunner(this))
{
    setWindowTitle(tr("Compare %1 and %2").arg(shownName(a.key), shownName(b.key)));
    resize(900, 560);
    auto* layout = new QVBoxLayout(this);
    auto* names = new QLabel(tr("A: <b>%1</b> (%2)<br>B: <b>%3</b> (%4)")
                                 .arg(shownName(a.key).toHtmlEscaped(), shownName(a.id).toHtmlEscaped(),
                                      shownName(b.key).toHtmlEscaped(), shownName(b.id).toHtmlEscaped()),
                             this);
    names->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(names);
    progress_->attach(runner_);
    layout->addWidget(progress_);
    summary_->setObjectName(QStringLiteral("compareSummary"));
    summary_->setWordWrap(true);
    summary_->setText(tr("Reading both entries…"));
    layout->addWidget(summary_);
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(model_);
    proxy->setSortRole(EntryDiffModel::SortRole);
    table_->setModel(proxy);
    setUpRowTable(table_);
    table_->setSortingEnabled(true);
    const int digit = table_->fontMetrics().horizontalAdvance(QLatin1Char('0'));
    table_->horizontalHeader()->resizeSection(EntryDiffModel::Change, 10 * digit);
    table_->horizontalHeader()->resizeSection(EntryDiffModel::Path, 56 * digit);
    layout->addWidget(table_, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    connect(runner_, &JobRunner::finished, this, [this](const JobOutcome& outcome) {
        if (outcome.ok())
            return;   // showDiff had the result
        summary_->setText(outcome.cancelled() ? tr("Cancelled.") : tr("Cannot compare: %1").arg(outcome.message));
        Q_EMIT compared(false);
    });
    runner_->start(
        tr("Comparing entries"),
        [paths = std::move(paths), a = std::move(a), b = std::move(b)](cs::Job& job) {
            auto cache = openActionsForReading(paths);
            cs::entries::EntryBlob ba(cache->storage(), a), bb(cache->storage(), b);
            return EntryDiffPtr(std::make_shared<const cs::entries::EntryDiff>(cs::entries::diffEntries(ba, bb, {}, job)));
        },
        [this](EntryDiffPtr d) { showDiff(std::move(d)); });
}

void EntryCompareDialog::showDiff(EntryDiffPtr d)
{
    model_->setDiff(d);
    summary_->setText(tr("%1 added, %2 removed, %3 changed · %4 added, %5 removed · %6 → %7 in files")
                          .arg(d->added.size())
                          .arg(d->removed.size())
                          .arg(d->changed.size())
                          .arg(sizeText(d->bytesAdded), sizeText(d->bytesRemoved), sizeText(d->a.bytes),
                               sizeText(d->b.bytes)));
    Q_EMIT compared(true);
}

EntryCompareDialog::~EntryCompareDialog() = default;

} // namespace ui
