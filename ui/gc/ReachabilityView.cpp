#include "ui/gc/ReachabilityView.h"
#include "ui/shell/Plural.h"

#include "core/store/StoreLayout.h"
#include "core/util/Sha256.h"
#include "ui/charts/ChartExport.h"
#include "ui/gc/GcFormat.h"
#include "ui/gc/MappingTableModel.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/JobRunner.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace ui {

struct ReachabilityView::DryRun {
    cs::gc::GcResult result;
    std::shared_ptr<const cs::pack::Generation> generation;
    cs::pack::PackSizes sizes;
    std::shared_ptr<const PackStripData> strip;
};

struct ReachabilityView::Lookup {
    cs::pack::ObjectHeader object;
    cs::gc::EntriesReaching reaching;
};

namespace {
constexpr size_t kEntriesShown = 12;
constexpr int kHoverDelayMs = 120;
} // namespace

ReachabilityView::ReachabilityView(const QString& storeDir, QWidget* parent)
    : QWidget(parent), storeDir_(storeDir), runner_(new JobRunner(this)), lookupRunner_(new JobRunner(this)),
      progress_(new JobProgressWidget(this)), refresh_(new QPushButton(tr("Refresh"), this)),
      summary_(new QLabel(this)), strip_(new PackStripWidget(this)), sizes_(new QTableWidget(this)),
      mappingLabel_(new QLabel(this)), mappingView_(new QTableView(this)), mappingModel_(new MappingTableModel(this)),
      hoverDelay_(new QTimer(this))
{
    progress_->attach(runner_);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setWordWrap(true);
    refresh_->setToolTip(tr("Run a dry run of the GC again and re-read the current generation"));

    auto* zoomOut = new QPushButton(tr("−"), this);
    auto* zoomIn = new QPushButton(tr("+"), this);
    auto* fit = new QPushButton(tr("Fit"), this);
    zoomOut->setToolTip(tr("Zoom out (or scroll down over the strip)"));
    zoomIn->setToolTip(tr("Zoom in (or scroll up over the strip; drag to pan)"));
    for (QPushButton* b : {zoomOut, zoomIn})
        b->setFixedWidth(32);
    auto* exportStripButton = new QPushButton(tr("Export strip…"), this);
    auto* exportMappingButton = new QPushButton(tr("Export mapping…"), this);

    auto* bar = new QHBoxLayout;
    bar->addWidget(refresh_);
    bar->addWidget(summary_, 1);
    bar->addWidget(zoomOut);
    bar->addWidget(zoomIn);
    bar->addWidget(fit);
    bar->addWidget(exportStripButton);

    sizes_->setColumnCount(4);
    sizes_->setHorizontalHeaderLabels({tr("File"), tr("Now"), tr("After GC"), tr("Change")});
    sizes_->verticalHeader()->hide();
    sizes_->verticalHeader()->setDefaultSectionSize(sizes_->fontMetrics().height() + 6);
    sizes_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    sizes_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    sizes_->setFixedHeight(5 * (sizes_->fontMetrics().height() + 6) + 8);
    sizes_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    sizes_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    sizes_->horizontalHeader()->setStretchLastSection(true);

    mappingView_->setModel(mappingModel_);
    mappingView_->verticalHeader()->hide();
    mappingView_->verticalHeader()->setDefaultSectionSize(mappingView_->fontMetrics().height() + 6);
    mappingView_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    mappingView_->horizontalHeader()->setStretchLastSection(true);
    mappingView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    mappingView_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);   // no per-row size hints over millions of rows

    auto* sizesBox = new QWidget(this);
    auto* sizesLayout = new QVBoxLayout(sizesBox);
    sizesLayout->setContentsMargins(0, 0, 0, 0);
    sizesLabel_ = new QLabel(tr("<b>Pack files</b>: now and after this GC"), sizesBox);
    sizesLayout->addWidget(sizesLabel_);
    sizesLayout->addWidget(sizes_);
    auto* hint = new QLabel(tr("Hover the strip to see the object at an offset and the entries that reach it; "
                               "scroll to zoom, drag to pan."),
                            sizesBox);
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);
    sizesLayout->addWidget(hint);
    sizesLayout->addStretch(1);
    auto* mappingBox = new QWidget(this);
    auto* mappingLayout = new QVBoxLayout(mappingBox);
    mappingLayout->setContentsMargins(0, 0, 0, 0);
    auto* mappingBar = new QHBoxLayout;
    mappingBar->addWidget(mappingLabel_, 1);
    mappingBar->addWidget(exportMappingButton);
    mappingLayout->addLayout(mappingBar);
    mappingLayout->addWidget(mappingView_);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(sizesBox);
    split->addWidget(mappingBox);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(progress_);
    layout->addWidget(strip_);
    layout->addWidget(split, 1);

    hoverDelay_->setSingleShot(true);
    hoverDelay_->setInterval(kHoverDelayMs);

    connect(refresh_, &QPushButton::clicked, this, &ReachabilityView::refresh);
    connect(zoomIn, &QPushButton::clicked, strip_, &PackStripWidget::zoomIn);
    connect(zoomOut, &QPushButton::clicked, strip_, &PackStripWidget::zoomOut);
    connect(fit, &QPushButton::clicked, strip_, &PackStripWidget::zoomToFit);
    connect(exportStripButton, &QPushButton::clicked, this, &ReachabilityView::exportStrip);
    connect(exportMappingButton, &QPushButton::clicked, this, &ReachabilityView::exportMapping);
    connect(runner_, &JobRunner::finished, this, &ReachabilityView::dryRunFinished);
    connect(lookupRunner_, &JobRunner::finished, this, &ReachabilityView::lookupFinished);
    connect(strip_, &PackStripWidget::hoverChanged, this, [this](const PackStripWidget::Hover& h) {
        pendingHover_ = h;
        hoverDelay_->start();
    });
    connect(hoverDelay_, &QTimer::timeout, this, [this] { lookUp(pendingHover_); });
    summary_->setText(tr("Dry run pending…"));
    mappingLabel_->setText(tr("<b>Mapping</b>"));
}

ReachabilityView::~ReachabilityView() = default;

void ReachabilityView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (stale_ && !runner_->isRunning())
        refresh();
}

void ReachabilityView::storeChanged()
{
    stale_ = true;
    if (isVisible())
        refresh();
}

void ReachabilityView::refresh()
{
    stale_ = false;
    lookupRunner_->cancel();
    refresh_->setEnabled(false);
    const std::string dir = storeDir_.toStdString();
    runner_->start(tr("GC dry run"), [dir](cs::Job& job) {
        // Through the layout: a linked pack/ or catalog.db is refused, never followed.
        const auto layout = cs::store::StoreLayout::open(dir);
        auto pack = layout.openPack(false);
        cs::gc::GcOptions options;
        options.dryRun = true;
        options.recordDryRun = false; // a view refresh, not a run the user asked for
        options.collectRanges = true;
        options.catalogPath = layout.storeCatalogPath();
        auto out = std::make_shared<DryRun>();
        out->result = cs::gc::collectGarbage(*pack, options, job);
        out->generation = pack->generation();
        out->sizes = pack->sizes();
        // The ranges move into the strip (a store of millions of objects has as many ranges).
        out->strip = PackStripData::make(std::move(out->result.liveRanges), std::move(out->result.deadRanges),
                                         out->result.stats.split, out->sizes.logicalEnd);
        out->result.liveRanges.clear();
        out->result.deadRanges.clear();
        return out;
    }, [this](std::shared_ptr<DryRun> run) { showDryRun(*run); });
}

void ReachabilityView::dryRunFinished(const JobOutcome& outcome)
{
    refresh_->setEnabled(true);
    if (outcome.ok())
        return;   // showDryRun had it
    if (outcome.failed())
        summary_->setText(tr("<span style='color:#c0392b'>Dry run failed: %1</span>").arg(outcome.message.toHtmlEscaped()));
    else
        summary_->setText(tr("Dry run cancelled."));
    Q_EMIT refreshFailed(outcome.message);
}

void ReachabilityView::showDryRun(DryRun& run)
{
    refresh_->setEnabled(true);
    packSizes_ = run.sizes;
    result_ = std::make_unique<cs::gc::GcResult>(std::move(run.result));
    lookups_.clear();
    strip_->setData(run.strip);
    mappingModel_->setGeneration(run.generation);
    const auto& st = result_->stats;
    summary_->setText(tr("Generation %1 · split at %2 · <span style='color:#2e8b57'>live %3</span> (%4, %5) · "
                         "<span style='color:#c0392b'>dead %6</span> (%7) · %8")
                          .arg(st.generationBefore)
                          .arg(gcfmt::size(st.split), gcfmt::size(st.liveBytes),
                               counted(qint64(st.objectsVisited), "object", "objects"), counted(qint64(st.ranges), "range", "ranges"),
                               gcfmt::size(st.reclaimedBytes), counted(qint64(st.deadObjects), "object", "objects"),
                               counted(qint64(st.roots), "root", "roots")));
    mappingLabel_->setText(tr("<b>Mapping</b> of generation %1: %2 (%3)")
                               .arg(run.generation->control.generation)
                               .arg(counted(qint64(run.generation->mapping.size()), "record", "records"),
                                    gcfmt::size(packSizes_.mappingBytes)));
    fillSizes();
    sizesLabel_->setText(tr("<b>Pack files</b>: generation %1 now, generation %2 after this GC")
                             .arg(packSizes_.generation)
                             .arg(packSizes_.generation + 1));
    Q_EMIT refreshed();
}

cs::gc::FileSizes ReachabilityView::projectedSizes() const
{
    cs::gc::FileSizes after;
    if (!result_)
        return after;
    const auto& st = result_->stats;
    // A GC copies the live ranges below the split into the prefix, writes one
    // record per collapsed range, and keeps the suffix from the split on.
    after.prefix = st.liveBytes;
    after.mapping = st.ranges * cs::pack::kMappingRecordSize;
    after.suffix = packSizes_.logicalEnd > st.split ? packSizes_.logicalEnd - st.split : 0;
    return after;
}

void ReachabilityView::fillSizes()
{
    const cs::gc::FileSizes after = projectedSizes();
    struct Row {
        QString name;
        uint64_t now, after;
    };
    const Row rows[] = {
        {tr("suffix"), packSizes_.suffixBytes, after.suffix},
        {tr("prefix"), packSizes_.prefixBytes, after.prefix},
        {tr("mapping"), packSizes_.mappingBytes, after.mapping},
        {tr("total"), packSizes_.total(), after.total()},
    };
    sizes_->setRowCount(int(std::size(rows)));
    int r = 0;
    for (const Row& row : rows) {
        auto cell = [&](int c, const QString& text, Qt::Alignment align = Qt::AlignRight | Qt::AlignVCenter) {
            auto* item = new QTableWidgetItem(text);
            item->setTextAlignment(align);
            if (r == int(std::size(rows)) - 1) {
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
            }
            sizes_->setItem(r, c, item);
        };
        cell(0, row.name, Qt::AlignLeft | Qt::AlignVCenter);
        cell(1, gcfmt::size(row.now));
        cell(2, gcfmt::size(row.after));
        const double change = row.now ? 100.0 * (double(row.after) - double(row.now)) / double(row.now) : 0.0;
        cell(3, row.now ? QStringLiteral("%1%2 %").arg(change >= 0 ? "+" : "").arg(change, 0, 'f', 1)
                        : (row.after ? tr("new") : QStringLiteral("–")));
        ++r;
    }
}

QString ReachabilityView::rangeHtml(const PackStripWidget::Hover& h) const
{
    const auto& r = h.hit.range;
    return tr("<b>%1 range</b> %2 – %3 (%4)<br>offset %5")
        .arg(h.hit.live ? tr("Live") : tr("Dead"), gcfmt::count(r.offset), gcfmt::count(r.end()), gcfmt::size(r.length),
             gcfmt::offset(h.offset));
}

void ReachabilityView::lookUp(const PackStripWidget::Hover& hover)
{
    // A cached object holding the offset answers at once.
    auto it = lookups_.upper_bound(hover.offset);
    if (it != lookups_.begin() && hover.offset < std::prev(it)->second.first) {
        const QString html = rangeHtml(hover) + "<hr>" + std::prev(it)->second.second;
        strip_->setHoverDetails(hover, html);
        Q_EMIT hoverDetailsReady(hover, html);
        return;
    }
    lookupHover_ = hover;
    const std::string dir = storeDir_.toStdString();
    lookupRunner_->start(tr("Looking up offset"), [dir, hover](cs::Job& job) {
        Lookup out;
        const auto pack = cs::store::StoreLayout::open(dir).openPack(false);
        out.object = cs::gc::objectHolding(*pack, hover.hit.range.offset, hover.offset, &job);
        out.reaching = cs::gc::entriesReaching(dir, out.object.offset, kEntriesShown, job);
        return out;
    }, [this](Lookup found) { showLookup(found); });
}

QString ReachabilityView::lookupHtml(const PackStripWidget::Hover& hover, const Lookup& l) const
{
    const auto& o = l.object;
    QString html;
    if (o.kind == cs::pack::ObjectKind::Chunk) {
        html = tr("<b>Chunk</b> at %1<br>%2 in the pack, %3 raw<br>SHA-256 %4…")
                   .arg(gcfmt::count(o.offset), gcfmt::size(o.totalBytes), gcfmt::size(o.rawSize),
                        QString::fromStdString(cs::Sha256::hex(o.sha256)).left(16));
    } else {
        html = tr("<b>Node</b> at %1<br>%2 in the pack, %3 children, %4 below it")
                   .arg(gcfmt::count(o.offset), gcfmt::size(o.totalBytes), gcfmt::count(o.children.size()),
                        gcfmt::size(o.logicalSize));
    }
    html += "<hr>";
    const auto& r = l.reaching;
    if (r.total == 0) {
        html += hover.hit.live ? tr("No merged entry reaches it now (evicted since the dry run?)")
                               : tr("No live entry reaches it: a GC reclaims it.");
    } else {
        html += r.total == 1 ? tr("Reached by 1 entry:") : tr("Reached by %1 entries:").arg(gcfmt::count(r.total));
        for (const auto& e : r.entries) {
            QString key = QString::fromStdString(e.key);
            if (key.size() > 60)
                key = key.left(57) + QStringLiteral("…");
            html += QStringLiteral("<br>· %1 <span style='color:gray'>(entry %2, %3)</span>")
                        .arg(key.toHtmlEscaped())
                        .arg(e.id)
                        .arg(e.depth == 0 ? tr("its root") : tr("depth %1").arg(e.depth));
        }
        if (r.total > r.entries.size())
            html += tr("<br>… and %1 more").arg(gcfmt::count(r.total - r.entries.size()));
    }
    if (r.unreadable)
        html += tr("<br><i>%1 could not be read</i>").arg(counted(qint64(r.unreadable), "entry", "entries"));
    return html;
}

void ReachabilityView::showLookup(const Lookup& l)
{
    const QString objectHtml = lookupHtml(lookupHover_, l);
    lookups_[l.object.offset] = {l.object.offset + l.object.totalBytes, objectHtml};
    showHoverDetails(rangeHtml(lookupHover_) + "<hr>" + objectHtml);
}

void ReachabilityView::lookupFinished(const JobOutcome& outcome)
{
    if (outcome.failed())
        showHoverDetails(rangeHtml(lookupHover_) + "<hr>"
                         + tr("<i>Cannot read the object: %1</i>").arg(outcome.message.toHtmlEscaped()));
}

void ReachabilityView::showHoverDetails(const QString& html)
{
    strip_->setHoverDetails(lookupHover_, html);
    Q_EMIT hoverDetailsReady(lookupHover_, html);
}

void ReachabilityView::exportStrip()
{
    const QSize size(std::max(900, strip_->width()), strip_->height());
    askAndExportPainting(this, [this](QPainter& p, const QSize& s) { strip_->paintContents(p, s); }, size,
                         QStringLiteral("reachability"));
}

void ReachabilityView::exportMapping()
{
    askAndExportCsv(this, mappingModel_, QStringLiteral("mapping"));
}

} // namespace ui
