#include "ui/frames/FrameLayoutDocument.h"

#include "ui/charts/ChartExport.h"
#include "ui/frames/FrameBandWidget.h"
#include "ui/frames/FrameHistogram.h"
#include "ui/frames/FramePageBar.h"
#include "ui/frames/FrameSummaryPanel.h"
#include "ui/frames/FrameTableModel.h"
#include "ui/frames/ScanQueue.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/JobRunner.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <limits>

namespace ui {

// What the worker hands back: the summary, the packed frames and their digest.
struct ScannedFile {
    cs::FrameLayout layout;
    std::shared_ptr<const cs::PackedFrames> frames;
    std::shared_ptr<const FrameDigest> digest;
};
using ScannedPtr = std::shared_ptr<ScannedFile>;

FrameLayoutDocument::FrameLayoutDocument(const QString& path, QWidget* parent)
    : QWidget(parent),
      path_(path),
      runner_(new JobRunner(this)),
      progress_(new JobProgressWidget(this)),
      summary_(new FrameSummaryPanel(this)),
      band_(new FrameBandWidget(this)),
      model_(new FrameTableModel(this)),
      table_(new QTableView(this)),
      pageBar_(new FramePageBar(model_, this)),
      histogram_(new FrameHistogram(this)),
      blocksButton_(new QToolButton(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);

    auto* header = new QHBoxLayout;
    auto* pathLabel = new QLabel(QDir::toNativeSeparators(path), this);
    pathLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    pathLabel->setForegroundRole(QPalette::PlaceholderText);
    header->addWidget(pathLabel, 1);
    blocksButton_->setText(tr("Count blocks"));
    blocksButton_->setToolTip(tr("Scan again, walking every block header to count raw, RLE and compressed blocks"));
    header->addWidget(blocksButton_);
    layout->addLayout(header);
    layout->addWidget(progress_);
    layout->addWidget(summary_);
    layout->addWidget(band_);

    table_->setModel(model_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(FrameTableModel::Index, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    // Fixed row heights and no per-row size computation keep 100,000 rows instant.
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    // Column widths from the first rows only: measuring 100,000 rows stalls the GUI.
    table_->horizontalHeader()->setResizeContentsPrecision(64);
    table_->horizontalHeader()->setStretchLastSection(true);

    // The table and, above it, the line that pages a table of many frames.
    auto* tablePane = new QWidget(this);
    auto* tableLayout = new QVBoxLayout(tablePane);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(pageBar_);
    tableLayout->addWidget(table_, 1);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(tablePane);
    splitter->addWidget(histogram_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);
    layout->addWidget(splitter, 1);

    progress_->attach(runner_);
    connect(runner_, &JobRunner::finished, this, &FrameLayoutDocument::onScanFinished);
    connect(band_, &FrameBandWidget::frameClicked, this, &FrameLayoutDocument::selectFrame);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        band_->setSelectedFrame(current.isValid() ? int(model_->frameIndexAt(current.row())) : -1);
    });
    connect(blocksButton_, &QToolButton::clicked, this, [this] { rescan(true); });
    createExportActions();
    rescan(false);
}

void FrameLayoutDocument::rescan(bool withBlocks)
{
    summary_->clear();
    blocksButton_->setEnabled(false);
    // Waits for a slot while other documents are reading (ScanQueue.h).
    scanAsked_ = true;
    ScanQueue::instance().request(this, [this, withBlocks] { startScan(withBlocks); });
}

void FrameLayoutDocument::startScan(bool withBlocks)
{
    const std::string file = path_.toStdString();
    runner_->start(tr("Scanning %1").arg(QFileInfo(path_).fileName()), [file, withBlocks](cs::Job& job) {
        cs::FrameScanOptions options;
        options.blocks = withBlocks;
        auto scanned = std::make_shared<ScannedFile>();
        auto frames = std::make_shared<cs::PackedFrames>();
        // Blocks are counted in f.blocks; their list is not shown, and the
        // streaming scan keeps no frame, so the frames held are the packed ones.
        const cs::FrameScanTotals totals =
            cs::scanFramesStreaming(file, options, job, [&](const cs::FrameInfo& f) { frames->append(f); });
        scanned->layout.path = file;
        scanned->layout.seekTable = totals.seekTable;
        scanned->layout.summary = totals.summary;
        scanned->digest = std::make_shared<FrameDigest>(digestFrames(*frames, totals.summary.fileSize));
        scanned->frames = std::move(frames);
        return scanned;
    }, [this](ScannedPtr scanned) { showScanned(std::move(scanned)); });
}

bool FrameLayoutDocument::isScanning() const
{
    return scanAsked_ || runner_->isRunning();
}

void FrameLayoutDocument::showScanned(ScannedPtr scanned)
{
    layout_ = std::make_unique<cs::FrameLayout>(std::move(scanned->layout));
    frames_ = std::move(scanned->frames);
    digest_ = std::move(scanned->digest);
    summary_->setLayoutSummary(*layout_);
    band_->setFrames(frames_, digest_);
    model_->setFrames(frames_);
    histogram_->setSizes(digest_->sizes);
    table_->resizeColumnsToContents();
}

void FrameLayoutDocument::onScanFinished(const JobOutcome& outcome)
{
    scanAsked_ = false;
    ScanQueue::instance().release(this);
    blocksButton_->setEnabled(true);
    if (outcome.ok()) {
        Q_EMIT scanFinished(outcome);
        return;
    }
    summary_->showError(outcome.cancelled() ? tr("Scan cancelled.") : outcome.message);
    if (!layout_) {
        band_->setFrames(std::make_shared<cs::PackedFrames>(), std::make_shared<FrameDigest>());
        model_->clear();
        histogram_->setSizes({});
    }
    Q_EMIT scanFinished({outcome.kind, summary_->verdictText()});
}

void FrameLayoutDocument::selectFrame(int frameIndex)
{
    // A frame on another page of the table: that page is shown first.
    const size_t position = model_->positionOfFrame(size_t(frameIndex));
    if (position >= model_->frameCount())
        return;
    model_->setPage(position / model_->pageRows());
    const int row = model_->rowOfFrame(size_t(frameIndex));
    if (row < 0)
        return;
    const QModelIndex index = model_->index(row, 0);
    table_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    table_->scrollTo(index, QAbstractItemView::PositionAtCenter);
}

std::unique_ptr<FrameTableModel> FrameLayoutDocument::wholeTable() const
{
    // Every frame in the view's order, one page that no view shows (so it
    // holds nothing per row but the order's permutation, if any).
    auto all = std::make_unique<FrameTableModel>();
    all->setPageRows(size_t(std::numeric_limits<int>::max()));
    all->sort(model_->sortColumn(), model_->sortOrder());
    all->setFrames(frames_);
    return all;
}

QString FrameLayoutDocument::exportBaseName() const
{
    return QFileInfo(path_).completeBaseName();
}

bool FrameLayoutDocument::exportBand(const QString& path, QString* error) const
{
    const QSize size(std::max(band_->width(), 900), band_->sizeHint().height());
    return exportPainting([this](QPainter& p, const QSize& s) { band_->paintContents(p, s); }, size, path, error);
}

bool FrameLayoutDocument::exportHistogram(const QString& path, QString* error) const
{
    const QSize size = histogram_->width() > 300 ? histogram_->size() : QSize(640, 400);
    return exportPlot(histogram_, path, error, size);
}

bool FrameLayoutDocument::exportTable(const QString& path, QString* error) const
{
    return exportCsv(wholeTable().get(), path, error);
}

void FrameLayoutDocument::createExportActions()
{
    auto* band = new QAction(tr("Frame band as image…"), this);
    connect(band, &QAction::triggered, this, [this] {
        const QSize size(std::max(band_->width(), 900), band_->sizeHint().height());
        askAndExportPainting(this, [this](QPainter& p, const QSize& s) { band_->paintContents(p, s); }, size,
                             exportBaseName() + QStringLiteral("-frames.png"));
    });
    auto* histogram = new QAction(tr("Histogram as image…"), this);
    connect(histogram, &QAction::triggered, this, [this] {
        askAndExportPlot(this, histogram_, exportBaseName() + QStringLiteral("-histogram.png"));
    });
    auto* table = new QAction(tr("Frame table as CSV…"), this);
    connect(table, &QAction::triggered, this, [this] {
        askAndExportCsv(this, wholeTable().get(), exportBaseName() + QStringLiteral("-frames.csv"));
    });
    exportActions_ = {band, histogram, table};
}

} // namespace ui
