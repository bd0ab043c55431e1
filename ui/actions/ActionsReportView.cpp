#include "ui/actions/ActionsReportView.h"

#include "ui/actions/ReportChart.h"
#include "ui/charts/ChartExport.h"
#include "ui/charts/PlotTheme.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/JobRunner.h"

#include "core/jobs/Job.h"
#include "core/util/Json.h"
#include "core/util/Units.h"

#include <QCheckBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <qcustomplot.h>

namespace ui {

using cs::entries::RetainedEntry;
using cs::entries::RetentionReason;
using cs::entries::ServerReport;

namespace {
constexpr int64_t kDayMs = 24 * 60 * 60 * 1000;
}

// --- RetainedEntryModel --------------------------------------------------

RetainedEntryModel::RetainedEntryModel(QObject* parent) : QAbstractTableModel(parent) {}

void RetainedEntryModel::setEntries(std::vector<RetainedEntry> entries, int64_t nowMs)
{
    beginResetModel();
    entries_ = std::move(entries);
    nowMs_ = nowMs;
    endResetModel();
}

int RetainedEntryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(entries_.size());
}

int RetainedEntryModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RetainedEntryModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RetainedEntry& e = entries_[size_t(index.row())];
    const qint64 days = nowMs_ > 0 ? (nowMs_ - e.lastUsedMs) / kDayMs : 0;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Key: return QString::fromStdString(e.key);
        case Version: return QString::fromStdString(e.version.substr(0, 12));
        case Scope: return QString::fromStdString(e.scope);
        case Size: return QString::fromStdString(cs::formatSize(e.bytes));
        case LastUsed:
            return tr("%1 (%2 days ago)").arg(formatEpochMs(e.lastUsedMs)).arg(days);
        case Reason: return QString::fromLatin1(cs::entries::retentionReasonName(e.reason));
        case Why: return QString::fromStdString(e.explanation);
        }
    } else if (role == RawValueRole || role == Qt::UserRole) {
        // CSV and sorting: plain values.
        switch (index.column()) {
        case Version: return QString::fromStdString(e.version);
        case Size: return qulonglong(e.bytes);
        case LastUsed: return qlonglong(e.lastUsedMs);
        default: return data(index, Qt::DisplayRole);
        }
    } else if (role == Qt::ToolTipRole) {
        if (index.column() == Version)
            return QString::fromStdString(e.version);
        if (index.column() == LastUsed)
            return e.reason == RetentionReason::NeverDownloaded ? tr("Never downloaded: the time it was written")
                                                                : tr("The last download");
        return QString::fromStdString(e.explanation);
    } else if (role == Qt::TextAlignmentRole && index.column() == Size) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant RetainedEntryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Key: return tr("Key");
    case Version: return tr("Version");
    case Scope: return tr("Scope");
    case Size: return tr("Size");
    case LastUsed: return tr("Last used");
    case Reason: return tr("Why it is still here");
    case Why: return tr("Explanation");
    }
    return {};
}

// --- ActionsReportView ---------------------------------------------------

ActionsReportView::ActionsReportView(ActionsDataLocation where, QWidget* parent)
    : QWidget(parent), where_(std::move(where)), runner_(new JobRunner(this)), progress_(new JobProgressWidget(this)),
      retention_(new QSpinBox(this)), decode_(new QCheckBox(tr("Decode blobs (compression, repetition)"), this)),
      refresh_(new QPushButton(tr("Refresh"), this)), exportChart_(new QPushButton(tr("Export Chart…"), this)),
      exportList_(new QPushButton(tr("Export List…"), this)),
      exportJson_(new QPushButton(tr("Export JSON…"), this)), status_(new QLabel(this)),
      plot_(new QCustomPlot), retentionHeader_(new QLabel), retained_(new RetainedEntryModel(this)),
      retainedTable_(new QTableView)
{
    retention_->setRange(0, 100000);
    retention_->setValue(cs::entries::kDefaultRetentionDays);
    retention_->setSuffix(tr(" days"));
    retention_->setToolTip(tr("The server's CACHE_CLEANUP_OLDER_THAN_DAYS"));
    decode_->setToolTip(tr("Reads and decodes every blob once: minutes on a large server"));
    exportChart_->setToolTip(tr("The chart as PNG, PDF or SVG, at a chosen size and resolution"));
    exportList_->setToolTip(tr("The entries past the retention as CSV"));
    exportJson_->setToolTip(tr("The report as cachescope-cli actions-cache report --json writes it"));
    // The status never widens the tab (a long error is clipped, whole in the tooltip).
    status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Retention:"), this));
    bar->addWidget(retention_);
    bar->addWidget(decode_);
    bar->addWidget(refresh_);
    bar->addStretch(1);
    bar->addWidget(exportChart_);
    bar->addWidget(exportList_);
    bar->addWidget(exportJson_);

    PlotTheme::attach(plot_);
    plot_->plotLayout()->clear();
    plot_->plotLayout()->addElement(0, 0, new QCPTextElement(plot_, tr("The report is built when this tab is first shown.")));
    // The chart wants its panels' height; a short window scrolls it.
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(plot_);

    retentionHeader_->setWordWrap(true);
    retentionHeader_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* sorted = new QSortFilterProxyModel(this);
    sorted->setSourceModel(retained_);
    sorted->setSortRole(Qt::UserRole);
    retainedTable_->setModel(sorted);
    retainedTable_->setSortingEnabled(true);
    retainedTable_->sortByColumn(-1, Qt::AscendingOrder);   // the report's order: oldest last use first
    retainedTable_->verticalHeader()->hide();
    retainedTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
    retainedTable_->setWordWrap(false);
    retainedTable_->horizontalHeader()->setStretchLastSection(true);
    retainedTable_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    const int digit = fontMetrics().horizontalAdvance(QLatin1Char('0'));
    retainedTable_->horizontalHeader()->resizeSection(RetainedEntryModel::Key, 36 * digit);
    retainedTable_->horizontalHeader()->resizeSection(RetainedEntryModel::Version, 14 * digit);
    retainedTable_->horizontalHeader()->resizeSection(RetainedEntryModel::Scope, 18 * digit);
    retainedTable_->horizontalHeader()->resizeSection(RetainedEntryModel::Size, 11 * digit);
    retainedTable_->horizontalHeader()->resizeSection(RetainedEntryModel::LastUsed, 30 * digit);
    retainedTable_->horizontalHeader()->resizeSection(RetainedEntryModel::Reason, 20 * digit);
    auto* lower = new QWidget;
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 4, 0, 0);
    lowerLayout->addWidget(retentionHeader_);
    lowerLayout->addWidget(retainedTable_, 1);

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(scroll);
    split->addWidget(lower);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    split->setSizes({640, 260});   // the chart first; the list below it

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(status_);
    layout->addWidget(progress_);
    layout->addWidget(split, 1);
    progress_->attach(runner_);
    for (QPushButton* b : {exportChart_, exportList_, exportJson_})
        b->setEnabled(false);

    connect(refresh_, &QPushButton::clicked, this, &ActionsReportView::refresh);
    connect(exportChart_, &QPushButton::clicked, this,
            [this] { askAndExportPlot(this, plot_, QStringLiteral("cache-server-report.png")); });
    connect(exportList_, &QPushButton::clicked, this,
            [this] { askAndExportCsv(this, retained_, QStringLiteral("past-retention.csv")); });
    connect(exportJson_, &QPushButton::clicked, this, [this] {
        if (!report_)
            return;
        QString filter = tr("JSON (*.json)");
        const QString path = withExtension(
            QFileDialog::getSaveFileName(this, tr("Export report"), QStringLiteral("cache-server-report.json"), filter,
                                         &filter),
            filter);
        if (path.isEmpty())
            return;
        QFile f(path);
        const std::string json = cs::dumpJson(cs::entries::serverReportJson(*report_), 2) + "\n";
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(json.data(), qint64(json.size())) != qint64(json.size()))
            QMessageBox::warning(this, tr("Export failed"), tr("%1: cannot write the report (%2)").arg(path, f.errorString()));
    });
    connect(runner_, &JobRunner::finished, this, [this](const JobOutcome& outcome) {
        if (outcome.failed())
            status_->setText(tr("The report could not be built: %1").arg(outcome.message));
        else if (outcome.cancelled())
            status_->setText(report_ ? tr("Cancelled; the report shown is the previous one.") : tr("Cancelled."));
        status_->setToolTip(status_->text());
        Q_EMIT built(outcome.ok(), outcome.message);
    });
}

ActionsReportView::~ActionsReportView() = default;

void ActionsReportView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (!shown_) {
        shown_ = true;
        refresh();
    }
}

void ActionsReportView::refresh()
{
    cs::entries::ReportOptions options;
    options.retentionDays = retention_->value();
    options.repetition = decode_->isChecked();   // reads every blob: off unless asked
    status_->setText(tr("Building the report…"));
    runner_->start(
        tr("Server report"),
        [paths = where_.paths, options](cs::Job& job) {
            auto cache = openActionsForReading(paths);
            return std::make_shared<const ServerReport>(cs::entries::buildServerReport(*cache, options, job));
        },
        [this](std::shared_ptr<const ServerReport> r) { showReport(*r); });
}

void ActionsReportView::showReport(const ServerReport& r)
{
    report_ = r;
    drawServerReport(plot_, r);
    retentionHeader_->setText(pastRetentionSummary(r));
    retained_->setEntries(r.pastRetention, r.nowMs);
    status_->setText(tr("Report of %1 (Refresh builds it again; the size index reads only what changed).")
                         .arg(formatEpochMs(r.nowMs)));
    status_->setToolTip(status_->text());
    for (QPushButton* b : {exportChart_, exportList_, exportJson_})
        b->setEnabled(true);
}

bool ActionsReportView::exportChart(const QString& path, QString* error)
{
    return exportPlot(plot_, path, error);
}

} // namespace ui
