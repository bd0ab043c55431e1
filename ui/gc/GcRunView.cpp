#include "ui/gc/GcRunView.h"

#include "core/store/StoreLayout.h"
#include "ui/charts/ChartExport.h"
#include "ui/charts/PlotTheme.h"
#include "ui/gc/GcFormat.h"
#include "ui/gc/GcStepList.h"
#include "ui/gc/GcTables.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/JobRunner.h"

#include <QCheckBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <set>

namespace ui {

namespace {

QTableView* makeTable(QWidget* parent, QStandardItemModel* model)
{
    auto* v = new QTableView(parent);
    v->setModel(model);
    v->verticalHeader()->hide();
    v->verticalHeader()->setDefaultSectionSize(v->fontMetrics().height() + 6);
    v->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    v->horizontalHeader()->setStretchLastSection(true);
    v->setEditTriggers(QAbstractItemView::NoEditTriggers);
    v->setAlternatingRowColors(true);
    return v;
}

QStringList toQStrings(const std::vector<std::string>& v)
{
    QStringList out;
    for (const auto& s : v)
        out << QString::fromStdString(s);
    return out;
}

} // namespace

GcRunView::GcRunView(const QString& storeDir, QWidget* parent)
    : QWidget(parent), storeDir_(storeDir), runner_(new JobRunner(this)), historyRunner_(new JobRunner(this)),
      run_(new QPushButton(tr("Run GC"), this)), dryRun_(new QPushButton(tr("Dry run"), this)),
      status_(new QLabel(this)), progress_(new JobProgressWidget(this)), steps_(new GcStepList(this)),
      tabs_(new QTabWidget(this)), stepsModel_(new QStandardItemModel(this)),
      totalsModel_(new QStandardItemModel(this)), historyModel_(new QStandardItemModel(this)),
      compareModel_(new QStandardItemModel(this)), historyView_(nullptr),
      showDryRuns_(new QCheckBox(tr("Show dry runs"), this)), chart_(new QCustomPlot(this)), compareTab_(nullptr)
{
    progress_->attach(runner_);
    run_->setToolTip(tr("Collect garbage: keep what live entries reach, copy it into a new generation, drop the rest"));
    dryRun_->setToolTip(tr("Walk the live objects and report what a GC would keep and reclaim, without writing"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    steps_->setSteps(toQStrings(cs::gc::gcStepNames()));

    auto* bar = new QHBoxLayout;
    bar->addWidget(run_);
    bar->addWidget(dryRun_);
    bar->addWidget(status_, 1);

    // This run: per-step table above the totals.
    auto* runTab = new QWidget(this);
    auto* runLayout = new QVBoxLayout(runTab);
    auto* runSplit = new QSplitter(Qt::Vertical, runTab);
    auto* stepsTable = makeTable(runTab, stepsModel_);
    stepsTable->horizontalHeader()->setStretchLastSection(false);
    runSplit->addWidget(makeTableBox(stepsTable, tr("<b>Steps</b> (getrusage deltas; max RSS is the high-water mark)"),
                                     stepsModel_, QStringLiteral("gc-steps")));
    runSplit->addWidget(makeTableBox(makeTable(runTab, totalsModel_), tr("<b>Totals</b>"), totalsModel_,
                                     QStringLiteral("gc-totals")));
    runLayout->addWidget(runSplit);

    // History: select two runs to compare them.
    auto* historyTab = new QWidget(this);
    auto* historyLayout = new QVBoxLayout(historyTab);
    historyView_ = makeTable(historyTab, historyModel_);
    historyView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    historyView_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    auto* compareButton = new QPushButton(tr("Compare selected"), historyTab);
    compareButton->setEnabled(false);
    compareButton->setToolTip(tr("Select two runs (Ctrl+click) to see them side by side"));
    auto* historyBar = new QHBoxLayout;
    historyBar->addWidget(new QLabel(tr("<b>Runs</b>, newest first"), historyTab), 1);
    historyBar->addWidget(showDryRuns_);
    historyBar->addWidget(compareButton);
    auto* exportHistory = new QPushButton(tr("Export…"), historyTab);
    historyBar->addWidget(exportHistory);
    historyLayout->addLayout(historyBar);
    historyLayout->addWidget(historyView_);

    // Compare: table and chart side by side.
    compareTab_ = new QWidget(this);
    auto* compareLayout = new QVBoxLayout(compareTab_);
    auto* compareSplit = new QSplitter(Qt::Horizontal, compareTab_);
    compareSplit->addWidget(makeTableBox(makeTable(compareTab_, compareModel_), tr("<b>B as a percentage of A</b>"),
                                         compareModel_, QStringLiteral("gc-compare")));
    auto* chartBox = new QWidget(compareTab_);
    auto* chartLayout = new QVBoxLayout(chartBox);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    auto* chartBar = new QHBoxLayout;
    chartBar->addWidget(new QLabel(tr("<b>Wall time per step</b>"), chartBox), 1);
    auto* exportChart = new QPushButton(tr("Export chart…"), chartBox);
    chartBar->addWidget(exportChart);
    chartLayout->addLayout(chartBar);
    chart_->setMinimumSize(320, 220);
    chartLayout->addWidget(chart_);
    compareSplit->addWidget(chartBox);
    compareSplit->setStretchFactor(0, 3);
    compareSplit->setStretchFactor(1, 2);
    compareSplit->setSizes({600, 400});   // the table's four columns need the room more than the chart
    compareLayout->addWidget(compareSplit);
    PlotTheme::attach(chart_);

    tabs_->addTab(runTab, tr("This run"));
    tabs_->addTab(historyTab, tr("History"));
    tabs_->addTab(compareTab_, tr("Compare"));

    auto* body = new QSplitter(Qt::Horizontal, this);
    auto* stepsBox = new QWidget(this);
    auto* stepsLayout = new QVBoxLayout(stepsBox);
    stepsLayout->setContentsMargins(0, 0, 0, 0);
    stepsLayout->addWidget(new QLabel(tr("<b>Steps</b>"), stepsBox));
    stepsLayout->addWidget(steps_);
    stepsBox->setMinimumWidth(steps_->fontMetrics().horizontalAdvance(QStringLiteral("write mapping")) + 60);
    body->addWidget(stepsBox);
    body->addWidget(tabs_);
    body->setStretchFactor(0, 1);
    body->setStretchFactor(1, 4);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(progress_);
    layout->addWidget(body, 1);

    connect(run_, &QPushButton::clicked, this, &GcRunView::runGc);
    connect(dryRun_, &QPushButton::clicked, this, &GcRunView::runDryRun);
    connect(runner_, &JobRunner::progress, steps_, &GcStepList::showStatus);
    connect(runner_, &JobRunner::finished, this, &GcRunView::finished);
    connect(historyRunner_, &JobRunner::finished, this, &GcRunView::historyFinished);
    connect(showDryRuns_, &QCheckBox::toggled, this, &GcRunView::showHistory);
    connect(compareButton, &QPushButton::clicked, this, &GcRunView::compareSelected);
    connect(historyView_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this, compareButton] {
        compareButton->setEnabled(historyView_->selectionModel()->selectedRows().size() == 2);
    });
    connect(historyModel_, &QAbstractItemModel::modelReset, this, [compareButton] { compareButton->setEnabled(false); });
    connect(exportHistory, &QPushButton::clicked, this,
            [this] { askAndExportCsv(this, historyModel_, QStringLiteral("gc-history")); });
    connect(exportChart, &QPushButton::clicked, this,
            [this] { askAndExportPlot(this, chart_, QStringLiteral("gc-step-walls")); });

    status_->setText(tr("Ready. A dry run changes nothing; a GC rewrites the pack into a new generation."));
    loadHistory();
}

GcRunView::~GcRunView() = default;

QWidget* GcRunView::makeTableBox(QTableView* view, const QString& title, QStandardItemModel* model,
                                 const QString& exportName)
{
    auto* box = new QWidget(this);
    auto* l = new QVBoxLayout(box);
    l->setContentsMargins(0, 0, 0, 0);
    auto* head = new QHBoxLayout;
    head->addWidget(new QLabel(title, box), 1);
    auto* exportButton = new QPushButton(tr("Export CSV…"), box);
    head->addWidget(exportButton);
    l->addLayout(head);
    view->setParent(box);
    l->addWidget(view);
    connect(exportButton, &QPushButton::clicked, this, [this, model, exportName] { askAndExportCsv(this, model, exportName); });
    return box;
}

void GcRunView::runGc()
{
    start(false);
}

void GcRunView::runDryRun()
{
    start(true);
}

void GcRunView::start(bool dryRun)
{
    if (runner_->isRunning())
        return;
    runningDry_ = dryRun;
    run_->setEnabled(false);
    dryRun_->setEnabled(false);
    steps_->setSteps(dryRun ? QStringList{QStringLiteral("open"), QStringLiteral("traverse")}
                            : toQStrings(cs::gc::gcStepNames()));
    steps_->finish(false);   // every step pending again
    status_->setText(dryRun ? tr("Dry run…") : tr("Collecting garbage…"));
    const std::string dir = storeDir_.toStdString();
    runner_->start(dryRun ? tr("GC dry run") : tr("GC"), [dir, dryRun](cs::Job& job) {
        cs::gc::GcOptions options;
        options.dryRun = dryRun;
        options.catalogPath = cs::store::StoreLayout::open(dir).storeCatalogPath();
        return std::make_shared<cs::gc::GcResult>(cs::gc::collectStoreGarbage(dir, options, job));
    }, [this](std::shared_ptr<cs::gc::GcResult> result) { last_ = std::make_unique<cs::gc::GcResult>(std::move(*result)); });
}

void GcRunView::finished(const JobOutcome& outcome)
{
    const bool ok = outcome.ok();
    run_->setEnabled(true);
    dryRun_->setEnabled(true);
    steps_->finish(ok);
    if (ok) {
        const auto& st = last_->stats;
        gctables::fillSteps(stepsModel_, st);
        gctables::fillTotals(totalsModel_, st);
        status_->setText(st.dryRun ? tr("Dry run done in %1: %2 live, %3 would be reclaimed.")
                                         .arg(gcfmt::seconds(gctables::totalWallSeconds(st)), gcfmt::size(st.liveBytes),
                                              gcfmt::size(st.reclaimedBytes))
                                   : tr("GC done in %1: generation %2, pack %3 → %4 (%5 reclaimed).")
                                         .arg(gcfmt::seconds(gctables::totalWallSeconds(st)))
                                         .arg(st.generation)
                                         .arg(gcfmt::size(st.packBytesBefore()), gcfmt::size(st.packBytesAfter()),
                                              gcfmt::size(st.reclaimedBytes)));
        tabs_->setCurrentIndex(0);
        if (runningDry_ && !showDryRuns_->isChecked())
            showDryRuns_->setChecked(true);
    } else if (outcome.cancelled()) {
        status_->setText(tr("Cancelled: the pack is unchanged."));
    } else {
        status_->setText(tr("<span style='color:#c0392b'>GC failed: %1</span>").arg(outcome.message.toHtmlEscaped()));
    }
    loadHistory();
    if (!runningDry_)
        Q_EMIT storeModified();
    Q_EMIT runFinished(ok);
}

void GcRunView::loadHistory()
{
    const std::string dir = storeDir_.toStdString();
    historyRunner_->start(tr("GC history"), [dir](cs::Job&) {
        return cs::gc::gcHistory(cs::store::StoreLayout::open(dir).storeCatalogPath());
    }, [this](std::vector<cs::gc::GcRun> runs) { runs_ = std::move(runs); });
}

void GcRunView::historyFinished(const JobOutcome& outcome)
{
    if (!outcome.ok()) {
        if (outcome.failed())
            status_->setText(tr("<span style='color:#c0392b'>Cannot read the GC history: %1</span>").arg(outcome.message.toHtmlEscaped()));
        return;
    }
    showHistory();
    if (!last_ && !runner_->isRunning()) {
        // Nothing run here yet: show the latest real run of the history.
        for (const auto& r : runs_) {
            if (r.dryRun)
                continue;
            gctables::fillSteps(stepsModel_, r.stats);
            gctables::fillTotals(totalsModel_, r.stats);
            status_->setText(tr("Showing run %1 of %2 from the history.")
                                 .arg(r.id)
                                 .arg(QDateTime::fromMSecsSinceEpoch(qint64(r.started * 1000.0))
                                          .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))));
            break;
        }
    }
    Q_EMIT historyLoaded();
}

void GcRunView::showHistory()
{
    std::vector<cs::gc::GcRun> shown;
    for (const auto& r : runs_)
        if (showDryRuns_->isChecked() || !r.dryRun)
            shown.push_back(r);
    gctables::fillHistory(historyModel_, shown);
}

void GcRunView::compareSelected()
{
    const auto rows = historyView_->selectionModel()->selectedRows(0);
    if (rows.size() != 2)
        return;
    compareRuns(rows[0].data(Qt::UserRole).toLongLong(), rows[1].data(Qt::UserRole).toLongLong());
}

bool GcRunView::compareRuns(int64_t runA, int64_t runB)
{
    if (runA > runB)
        std::swap(runA, runB);
    const cs::gc::GcRun* a = nullptr;
    const cs::gc::GcRun* b = nullptr;
    for (const auto& r : runs_) {
        if (r.id == runA)
            a = &r;
        if (r.id == runB)
            b = &r;
    }
    if (!a || !b)
        return false;
    auto label = [](const cs::gc::GcRun& r) {
        return tr("A: run %1").arg(r.id) + (r.dryRun ? tr(" (dry)") : QString());
    };
    const QString la = label(*a);
    const QString lb = tr("B: run %1").arg(b->id) + (b->dryRun ? tr(" (dry)") : QString());
    gctables::fillCompare(compareModel_, cs::gc::compareGcRuns(a->stats, b->stats), la, lb);
    gctables::plotStepWalls(chart_, a->stats, b->stats, la, lb);
    tabs_->setCurrentWidget(compareTab_);
    Q_EMIT compared();
    return true;
}

} // namespace ui
