#include "ui/bench/BenchmarkDocument.h"

#include "core/bench/SamplesCsv.h"
#include "core/jobs/Job.h"
#include "core/store/StoreLayout.h"
#include "core/util/Error.h"
#include "ui/bench/BenchModels.h"
#include "ui/bench/SamplePlot.h"
#include "ui/bench/SummaryChart.h"
#include "ui/charts/ChartExport.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/JobRunner.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>

#include <functional>
#include <QScrollArea>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <iterator>

namespace ui {

namespace {
constexpr int kLiveIntervalMs = 33;            // at most ~30 replots a second
QString q(const std::string& s) { return QString::fromStdString(s); }
}

BenchmarkDocument::BenchmarkDocument(const QString& historyPath, QWidget* parent)
    : QWidget(parent), historyPath_(historyPath), runner_(new JobRunner(this)), queue_(std::make_shared<Queue>())
{
    // ---- left: scenario, parameters, run, history
    scenarioBox_ = new QComboBox;
    for (const auto& n : cs::scenarioNames())
        scenarioBox_->addItem(q(n));
    description_ = new QLabel;
    description_->setWordWrap(true);
    auto* paramBox = new QGroupBox(tr("Parameters"));
    form_ = new QFormLayout(paramBox);
    runButton_ = new QPushButton(tr("Run"));
    cancelButton_ = new QPushButton(tr("Cancel"));
    cancelButton_->setEnabled(false);
    cancelButton_->hide();  // the progress widget below has the visible Cancel
    progress_ = new JobProgressWidget;
    progress_->attach(runner_);
    progress_->setKeepSpaceWhenHidden(true);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(runButton_);
    buttons->addWidget(cancelButton_);
    buttons->addStretch();

    history_ = new HistoryModel(this);
    historyView_ = new QTableView;
    historyView_->setModel(history_);
    historyView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    historyView_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    historyView_->verticalHeader()->hide();
    historyView_->horizontalHeader()->setStretchLastSection(true);
    historyView_->setAlternatingRowColors(true);
    historyView_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    auto* showButton = new QPushButton(tr("Show"));
    auto* compareButton = new QPushButton(tr("Compare"));
    compareButton->setToolTip(tr("Select two runs: the first selected is A, the other B."));
    auto* deleteButton = new QPushButton(tr("Delete"));
    auto* historyButtons = new QHBoxLayout;
    historyButtons->addWidget(showButton);
    historyButtons->addWidget(compareButton);
    historyButtons->addWidget(deleteButton);
    historyButtons->addStretch();

    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->addWidget(new QLabel(tr("Scenario")));
    leftLayout->addWidget(scenarioBox_);
    leftLayout->addWidget(description_);
    leftLayout->addWidget(paramBox);
    leftLayout->addLayout(buttons);
    leftLayout->addWidget(progress_);
    leftLayout->addWidget(new QLabel(tr("History")));
    leftLayout->addWidget(historyView_, 1);
    leftLayout->addLayout(historyButtons);

    // ---- right: export buttons, live plot, results
    plot_ = new SamplePlot;
    plot_->setWindowSeconds(600);
    summary_ = new SummaryChart;
    charts_ = new QTabWidget;
    charts_->setDocumentMode(true);
    // Scrolled rather than squeezed when the pane is shorter than the
    // chart's panels, legend and caption need.
    summaryScroll_ = new QScrollArea;
    summaryScroll_->setWidget(summary_);
    summaryScroll_->setWidgetResizable(true);
    summaryScroll_->setFrameShape(QFrame::NoFrame);
    // A summary is taller than the pane at most sizes. With the scroll bar
    // shown as needed, it appeared a turn after a new summary was laid out
    // (QAbstractScrollArea shows it from a queued call), narrowed the chart
    // and cost a second full replot, 7-10 ms (issue 25).
    summaryScroll_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    charts_->addTab(summaryScroll_, tr("Summary"));
    charts_->addTab(plot_, tr("Timeline"));
    results_ = new ResultTableModel(this);
    resultView_ = new QTableView;
    resultView_->setModel(results_);
    resultView_->verticalHeader()->hide();
    // Interactive widths set once per result: ResizeToContents measures
    // every row again on each change.
    resultView_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    resultView_->horizontalHeader()->setStretchLastSection(true);
    resultView_->setAlternatingRowColors(true);
    resultView_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    sampleModel_ = new SampleTableModel(this);
    statusLabel_ = new QLabel(tr("No run yet."));

    auto* exportChart = new QAction(tr("Export Chart…"), this);
    exportChart->setToolTip(tr("The summary chart: ours beside the reference per phase, with the ratios and a caption"));
    auto* exportTimelineAction = new QAction(tr("Export Timeline…"), this);
    exportTimelineAction->setToolTip(tr("The samples over time, with the phases"));
    auto* exportCsv = new QAction(tr("Export Samples as CSV…"), this);
    auto* exportJson = new QAction(tr("Export Result as JSON…"), this);
    exportActions_ = {exportChart, exportTimelineAction, exportCsv, exportJson};
    auto* toolbar = new QHBoxLayout;
    toolbar->addWidget(statusLabel_, 1);
    for (QAction* a : exportActions_) {
        auto* b = new QToolButton;
        b->setDefaultAction(a);
        toolbar->addWidget(b);
    }
    auto* right = new QWidget;
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->addLayout(toolbar);
    auto* rightSplit = new QSplitter(Qt::Vertical);
    rightSplit->addWidget(charts_);
    rightSplit->addWidget(resultView_);
    rightSplit->setStretchFactor(0, 3);
    rightSplit->setStretchFactor(1, 1);
    rightSplit->setSizes({640, 200});   // the summary's panels and caption whole at 900 px
    rightLayout->addWidget(rightSplit, 1);

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(1, 1);
    split->setSizes({400, 900});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    liveTimer_ = new QTimer(this);
    liveTimer_->setInterval(kLiveIntervalMs);
    connect(liveTimer_, &QTimer::timeout, this, &BenchmarkDocument::drainLive);

    connect(scenarioBox_, &QComboBox::currentIndexChanged, this, &BenchmarkDocument::buildForm);
    connect(runButton_, &QPushButton::clicked, this, &BenchmarkDocument::run);
    connect(cancelButton_, &QPushButton::clicked, this, &BenchmarkDocument::cancel);
    connect(runner_, &JobRunner::finished, this, &BenchmarkDocument::onFinished);
    connect(showButton, &QPushButton::clicked, this, &BenchmarkDocument::showSelected);
    connect(historyView_, &QTableView::doubleClicked, this, &BenchmarkDocument::showSelected);
    connect(compareButton, &QPushButton::clicked, this, &BenchmarkDocument::compareSelected);
    connect(deleteButton, &QPushButton::clicked, this, &BenchmarkDocument::deleteSelected);
    connect(exportChart, &QAction::triggered, this, [this] {
        const QString name = shown_.empty() ? QStringLiteral("benchmark") : q(shown_[0].scenario);
        askAndExportPlot(this, summary_, name + QStringLiteral("-summary.png"));
    });
    connect(exportTimelineAction, &QAction::triggered, this, [this] {
        askAndExportPlot(this, plot_, QStringLiteral("benchmark-timeline.png"));
    });
    connect(exportCsv, &QAction::triggered, this, [this] {
        QString filter = csvExportFilter();
        const QString path = withExtension(QFileDialog::getSaveFileName(this, tr("Export samples"), QStringLiteral("samples.csv"),
                                                                        filter, &filter),
                                           filter);
        QString error;
        if (!path.isEmpty() && !exportSamplesCsv(path, &error))
            QMessageBox::warning(this, tr("Export failed"), error);
    });
    connect(exportJson, &QAction::triggered, this, [this] {
        QString filter = tr("JSON (*.json)");
        const QString path = withExtension(
            QFileDialog::getSaveFileName(this, tr("Export result"), QStringLiteral("result.json"), filter, &filter), filter);
        QString error;
        if (!path.isEmpty() && !exportResultJson(path, &error))
            QMessageBox::warning(this, tr("Export failed"), error);
    });

    buildForm();
    reloadHistory();
}

BenchmarkDocument::~BenchmarkDocument()
{
    runner_->cancel();
    runner_->waitForAll();
}

cs::BenchHistory BenchmarkDocument::openHistory() const
{
    if (!storeDir_.isEmpty())
        return cs::BenchHistory::openStore(storeDir_.toStdString());
    if (!historyPath_.isEmpty())
        return cs::BenchHistory::openFile(historyPath_.toStdString());
    return cs::BenchHistory::openDefault();
}

QString BenchmarkDocument::historyLocation() const
{
    if (!storeDir_.isEmpty())
        return q(cs::store::StoreLayout::catalogLabel(storeDir_.toStdString()));
    return historyPath_.isEmpty() ? q(cs::BenchHistory::defaultPath()) : historyPath_;
}

bool BenchmarkDocument::setStore(const QString& storeDir, QString* error)
{
    const QString old = storeDir_;
    storeDir_ = storeDir;
    try {
        openHistory();
    } catch (const std::exception& e) {
        storeDir_ = old;
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    reloadHistory();
    return true;
}

void BenchmarkDocument::buildForm()
{
    while (form_->rowCount() > 0)
        form_->removeRow(0);
    paramEdits_.clear();
    auto s = cs::makeScenario(scenario().toStdString());
    if (!s)
        return;
    description_->setText(q(s->description()));
    for (const auto& spec : s->params()) {
        auto* edit = new QLineEdit;
        edit->setPlaceholderText(q(spec.defaultValue.empty() ? std::string("(none)") : spec.defaultValue));
        edit->setToolTip(QStringLiteral("%1 (%2)").arg(q(spec.description), QString::fromLatin1(cs::paramKindName(spec.kind))));
        form_->addRow(q(spec.name), edit);
        paramEdits_.emplace_back(q(spec.name), edit);
    }
}

void BenchmarkDocument::selectScenario(const QString& name)
{
    const int i = scenarioBox_->findText(name);
    if (i >= 0)
        scenarioBox_->setCurrentIndex(i);
}

QString BenchmarkDocument::scenario() const { return scenarioBox_->currentText(); }

void BenchmarkDocument::setParam(const QString& name, const QString& value)
{
    for (auto& [n, edit] : paramEdits_)
        if (n == name)
            edit->setText(value);
}

void BenchmarkDocument::setLiveWindowSeconds(double seconds) { liveWindow_ = seconds; plot_->setWindowSeconds(seconds); }

bool BenchmarkDocument::isRunning() const { return runner_->isRunning(); }

void BenchmarkDocument::setRunning(bool running)
{
    runButton_->setEnabled(!running);
    cancelButton_->setEnabled(running);
    scenarioBox_->setEnabled(!running);
}

bool BenchmarkDocument::run()
{
    if (runner_->isRunning())
        return false;
    cs::RunOptions options;
    for (const auto& [name, edit] : paramEdits_)
        if (!edit->text().trimmed().isEmpty())
            options.params[name.toStdString()] = edit->text().trimmed().toStdString();
    const std::string name = scenario().toStdString();
    // Check the parameters here, so a typo is reported before anything starts.
    try {
        auto s = cs::makeScenario(name);
        cs::Params(s->params(), options.params).validate();
    } catch (const std::exception& e) {
        statusLabel_->setText(QString::fromUtf8(e.what()));
        QMessageBox::warning(this, tr("Benchmark"), QString::fromUtf8(e.what()));
        return false;
    }
    {
        std::lock_guard lock(queue_->mutex);
        queue_->samples.clear();
        queue_->phases.clear();
        queue_->phasesChanged = true;
    }
    auto queue = queue_;
    options.onSample = [queue](const cs::Sample& s) {
        std::lock_guard lock(queue->mutex);
        queue->samples.push_back(s);
    };
    // Sent at a phase's begin and again at its end (same label and start).
    options.onPhase = [queue](const cs::Phase& p) {
        std::lock_guard lock(queue->mutex);
        auto& list = queue->phases;
        if (!list.empty() && list.back().label == p.label && list.back().start == p.start)
            list.back() = p;
        else
            list.push_back(p);
        queue->phasesChanged = true;
    };
    plot_->clearAll();
    summary_->setRuns({});
    showSummaryTab(false);
    plot_->setWindowSeconds(liveWindow_);
    liveReceived_ = 0;
    shown_.clear();
    results_->setResult({});
    pending_ = std::make_shared<cs::BenchRun>();
    auto pending = pending_;
    const bool inStore = !storeDir_.isEmpty();
    // Plain strings for the worker (no QString crosses threads: ui/jobs/Background.h).
    const std::string historyPath = historyPath_.toStdString();
    const std::string storeDir = storeDir_.toStdString();
    runner_->start(QStringLiteral("benchmark %1").arg(scenario()), [=](cs::Job& job) {
        *pending = cs::runScenario(name, options, job);
        cs::BenchHistory h = inStore ? cs::BenchHistory::openStore(storeDir)
                             : historyPath.empty() ? cs::BenchHistory::openDefault()
                                                   : cs::BenchHistory::openFile(historyPath);
        h.save(*pending);
        // runScenario left the job cancelled or failed as the run ended; so
        // does Job::run when the work throws.
        if (job.status().state == cs::JobState::Cancelled)
            throw cs::Cancelled();
        if (job.status().state == cs::JobState::Failed)
            throw cs::Error(pending->error);
    });
    statusLabel_->setText(tr("Running %1…").arg(scenario()));
    setRunning(true);
    liveTimer_->start();
    return true;
}

void BenchmarkDocument::cancel() { runner_->cancel(); }

void BenchmarkDocument::injectLiveSamples(const std::vector<cs::Sample>& samples)
{
    std::lock_guard lock(queue_->mutex);
    queue_->samples.insert(queue_->samples.end(), samples.begin(), samples.end());
    if (!liveTimer_->isActive())
        QMetaObject::invokeMethod(liveTimer_, qOverload<>(&QTimer::start), Qt::QueuedConnection);
}

void BenchmarkDocument::drainLive()
{

    std::vector<cs::Sample> batch;
    std::vector<cs::Phase> phases;
    bool phasesChanged = false;
    {
        std::lock_guard lock(queue_->mutex);
        // Phases are queued before the samples inside them (the sink calls
        // onPhase before its next sample), so this copy holds every phase
        // the batch's samples fall in.
        if (queue_->phasesChanged) {
            phases = queue_->phases;
            phasesChanged = true;
            queue_->phasesChanged = false;
        }
        auto& queued = queue_->samples;
        const size_t n = std::min(queued.size(), kMaxLiveSamplesPerTick);
        batch.assign(std::make_move_iterator(queued.begin()), std::make_move_iterator(queued.begin() + std::ptrdiff_t(n)));
        queued.erase(queued.begin(), queued.begin() + std::ptrdiff_t(n));
    }
    if (phasesChanged)
        plot_->setPhases(phases);
    if (!batch.empty() || phasesChanged) {
        plot_->append(batch);
        liveReceived_ += qint64(batch.size());
        plot_->refresh();
    } else if (!runner_->isRunning()) {
        liveTimer_->stop();
    }
}

void BenchmarkDocument::onFinished(const JobOutcome& outcome)
{
    setRunning(false);
    drainLive();
    auto run = pending_;
    pending_.reset();
    if (!run) {
        reloadHistory();
        return;
    }
    statusLabel_->setText(outcome.ok() ? tr("Run %1 done.").arg(run->id)
                                       : tr("Run %1 %2: %3").arg(run->id).arg(q(run->status), outcome.message));
    // Show the finished run from its own samples (all of them, not the live
    // window): the tables, the summary chart, the timeline, then the history
    // re-read, each in a turn of the event loop of its own, and each chart's
    // stage after the previous chart's replot (a zero timer would land in
    // the same turn as that replot). Together they kept the GUI thread busy
    // 26-32 ms at load 9 (the timeline's rebuild, the summary's first
    // replot). Another run shown meanwhile (a click in the history) drops
    // the stages left.
    shown_ = {*run};
    const quint64 generation = ++shownGeneration_;
    const auto current = [this, generation] { return generation == shownGeneration_; };
    const auto finish = [this, run] {
        reloadHistory();
        const int row = history_->rowOf(run->id);
        if (row >= 0)
            historyView_->selectRow(row);
        Q_EMIT runFinished(run->id, q(run->status));
    };
    // After plot's next replot, run then in a later turn (at once when the
    // run shown is no longer this one).
    const auto afterReplotOf = [this, current](QCustomPlot* plot, std::function<void()> then) {
        if (!current())
            return then();
        connect(plot, &QCustomPlot::afterReplot, this, [this, then] { QTimer::singleShot(0, this, then); },
                Qt::SingleShotConnection);
    };
    QTimer::singleShot(0, this, [=, this] {
        if (current())
            showTables();
        QTimer::singleShot(0, this, [=, this] {
            if (current())
                showSummary();
            afterReplotOf(summary_, [=, this] {
                if (current())
                    showTimeline();
                afterReplotOf(plot_, finish);
            });
        });
    });
}

void BenchmarkDocument::reloadHistory()
{
    try {
        history_->setRuns(openHistory().list());
        historyView_->resizeColumnsToContents();
    } catch (const std::exception& e) {
        history_->setRuns({});
        statusLabel_->setText(QString::fromUtf8(e.what()));
    }
}

void BenchmarkDocument::showRuns(std::vector<cs::BenchRun> runs)
{
    shown_ = std::move(runs);
    ++shownGeneration_;
    showTables();
    showSummary();
    showTimeline();
}

void BenchmarkDocument::showTables()
{
    std::vector<std::vector<cs::Sample>> sampleRuns;
    QStringList labels;
    for (const cs::BenchRun& r : shown_) {
        sampleRuns.push_back(r.samples);
        labels << QString::number(r.id);
    }
    sampleModel_->setRuns(std::move(sampleRuns), labels);
    if (shown_.size() == 2)
        results_->setComparison(cs::compareRuns(shown_[0], shown_[1]), tr("A: run %1").arg(shown_[0].id),
                                tr("B: run %1").arg(shown_[1].id));
    else if (shown_.size() == 1)
        results_->setResult(shown_[0].result);
    else
        results_->setResult({});
    // Widths from the first page, each at most about 40 characters: a
    // sentence in one value cell would push the numbers out of sight.
    resultView_->resizeColumnsToContents();
    const int widest = fontMetrics().averageCharWidth() * 40;
    for (int c = 0; c < results_->columnCount(); ++c)
        if (resultView_->columnWidth(c) > widest)
            resultView_->setColumnWidth(c, widest);
}

void BenchmarkDocument::showSummary()
{
    summary_->setRuns(shown_);
    if (!shown_.empty())
        showSummaryTab(true);
}

void BenchmarkDocument::showTimeline()
{
    plot_->clearAll();
    plot_->setWindowSeconds(0);
    for (size_t i = 0; i < shown_.size(); ++i) {
        const QString label = shown_.size() > 1 ? QStringLiteral("%1 run %2").arg(QLatin1Char(i == 0 ? 'A' : 'B')).arg(shown_[i].id)
                                                : QString();
        plot_->addRun(shown_[i].samples, shown_[i].result.phases, int(i), label);
    }
    plot_->refresh();
}

bool BenchmarkDocument::showRun(qint64 id)
{
    try {
        auto r = openHistory().load(id);
        if (!r)
            return false;
        statusLabel_->setText(tr("Run %1: %2, %3").arg(id).arg(q(r->scenario), q(r->status)));
        showRuns({*r});
        return true;
    } catch (const std::exception& e) {
        statusLabel_->setText(QString::fromUtf8(e.what()));
        return false;
    }
}

bool BenchmarkDocument::compare(qint64 a, qint64 b)
{
    try {
        const cs::BenchHistory h = openHistory();
        auto ra = h.load(a), rb = h.load(b);
        if (!ra || !rb)
            return false;
        statusLabel_->setText(tr("A = run %1, B = run %2 (B as %% of A)").arg(a).arg(b));
        showRuns({*ra, *rb});
        return true;
    } catch (const std::exception& e) {
        statusLabel_->setText(QString::fromUtf8(e.what()));
        return false;
    }
}

void BenchmarkDocument::showSelected()
{
    const auto rows = historyView_->selectionModel()->selectedRows();
    if (!rows.isEmpty())
        showRun(history_->run(rows.first().row()).id);
}

void BenchmarkDocument::compareSelected()
{
    const auto rows = historyView_->selectionModel()->selectedRows();
    if (rows.size() != 2) {
        statusLabel_->setText(tr("Select exactly two runs to compare."));
        return;
    }
    // The older run is A, the newer B.
    qint64 a = history_->run(rows[0].row()).id, b = history_->run(rows[1].row()).id;
    if (a > b)
        std::swap(a, b);
    compare(a, b);
}

void BenchmarkDocument::deleteSelected()
{
    const auto rows = historyView_->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return;
    try {
        cs::BenchHistory h = openHistory();
        for (const auto& r : rows)
            h.remove(history_->run(r.row()).id);
    } catch (const std::exception& e) {
        statusLabel_->setText(QString::fromUtf8(e.what()));
    }
    reloadHistory();
}

void BenchmarkDocument::showSummaryTab(bool summary) { charts_->setCurrentWidget(summary ? static_cast<QWidget*>(summaryScroll_) : plot_); }

bool BenchmarkDocument::exportChart(const QString& path, QString* error)
{
    if (shown_.empty()) {
        *error = tr("%1: there is no finished run to draw yet.").arg(path);
        return false;
    }
    return exportPlot(summary_, path, error, QSize(1100, 720));
}

bool BenchmarkDocument::exportTimeline(const QString& path, QString* error) { return exportPlot(plot_, path, error); }

bool BenchmarkDocument::exportSamplesCsv(const QString& path, QString* error)
{
    if (shown_.empty()) {
        *error = tr("%1: there are no samples to export yet.").arg(path);
        return false;
    }
    // The dialect of `cachescope-cli bench --csv` (core/bench/SamplesCsv.h);
    // two runs side by side are told apart by their series' prefixes, as
    // the plot's legend names them.
    std::vector<cs::Sample> samples;
    for (size_t i = 0; i < shown_.size(); ++i)
        for (cs::Sample s : shown_[i].samples) {
            if (shown_.size() > 1)
                s.series = (i == 0 ? "A: " : "B: ") + s.series;
            samples.push_back(std::move(s));
        }
    const QByteArray bytes = QByteArray::fromStdString(cs::samplesCsv(samples));
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
        *error = tr("%1: cannot write: %2.").arg(path, f.errorString());
        return false;
    }
    return true;
}

bool BenchmarkDocument::exportResultJson(const QString& path, QString* error)
{
    if (shown_.empty()) {
        *error = tr("%1: there is no result to export yet.").arg(path);
        return false;
    }
    const cs::Json out = shown_.size() == 1 ? cs::runToJson(shown_[0], false) : cs::comparisonToJson(shown_[0], shown_[1]);
    QFile f(path);
    const QByteArray bytes = QByteArray::fromStdString(cs::dumpJson(out, 2) + "\n");
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size() || !f.flush()) {
        *error = tr("%1: cannot write: %2.").arg(path, f.errorString());
        return false;
    }
    return true;
}

} // namespace ui
