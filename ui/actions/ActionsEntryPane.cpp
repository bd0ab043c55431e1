#include "ui/actions/ActionsEntryPane.h"

#include "core/entries/BlobFrameSource.h"
#include "core/entries/EntryContents.h"
#include "core/jobs/Job.h"
#include "core/util/Units.h"
#include "ui/actions/ActionsData.h"
#include "ui/actions/EntryTreeModel.h"
#include "ui/actions/EntryTreemap.h"
#include "ui/frames/FrameBandWidget.h"
#include "ui/frames/FramePageBar.h"
#include "ui/frames/FrameSummaryPanel.h"
#include "ui/frames/FrameTableModel.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/JobRunner.h"
#include "ui/shell/BrowserLayout.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include <utility>

namespace ui {

// What the frames job hands back: plain C++ (ui/jobs/Background.h).
struct ActionsEntryPane::FramesResult {
    std::string entryId;
    std::shared_ptr<const cs::FrameLayout> layout;   // summary and seek table; no frames
    std::shared_ptr<const cs::PackedFrames> frames;   // 32 B a frame (issue 22)
    std::shared_ptr<const FrameDigest> digest;
};

namespace {

QString entryTitle(const cs::actions::ActionsEntry& e)
{
    return shownName(e.key).toHtmlEscaped();
}

} // namespace

ActionsEntryPane::ActionsEntryPane(cs::actions::DataDirPaths paths, QWidget* partsPane, QWidget* parent)
    : QWidget(parent),
      paths_(std::move(paths)),
      tabs_(new QTabWidget(this)),
      contentsHeader_(new QLabel(this)),
      contentsProgress_(new JobProgressWidget(this)),
      search_(new QLineEdit(this)),
      searchTimer_(new QTimer(this)),
      treeModel_(new EntryTreeModel(this)),
      treeProxy_(new QSortFilterProxyModel(this)),
      tree_(new QTreeView(this)),
      treemap_(new EntryTreemap(this)),
      framesHeader_(new QLabel(this)),
      framesProgress_(new JobProgressWidget(this)),
      frameSummary_(new FrameSummaryPanel(this)),
      band_(new FrameBandWidget(this)),
      frameModel_(new FrameTableModel(this)),
      frameTable_(new QTableView(this)),
      contentsRunner_(new JobRunner(this)),
      framesRunner_(new JobRunner(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tabs_);

    // Contents: header, progress, search, tree.
    auto* contents = new QWidget(tabs_);
    auto* cl = new QVBoxLayout(contents);
    cl->setContentsMargins(4, 4, 4, 4);
    contentsHeader_->setObjectName(QStringLiteral("contentsHeader"));
    contentsHeader_->setWordWrap(true);
    contentsHeader_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    cl->addWidget(contentsHeader_);
    contentsProgress_->attach(contentsRunner_);
    cl->addWidget(contentsProgress_);
    search_->setObjectName(QStringLiteral("contentsSearch"));
    search_->setPlaceholderText(tr("Search names in this entry…"));
    search_->setClearButtonEnabled(true);
    cl->addWidget(search_);
    treeProxy_->setSourceModel(treeModel_);
    treeProxy_->setSortRole(EntryTreeModel::SortRole);
    treeProxy_->setFilterKeyColumn(EntryTreeModel::Name);
    treeProxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    treeProxy_->setRecursiveFilteringEnabled(true);
    tree_->setModel(treeProxy_);
    tree_->setSortingEnabled(true);
    tree_->sortByColumn(EntryTreeModel::Size, Qt::DescendingOrder);
    tree_->setUniformRowHeights(true);
    tree_->setAlternatingRowColors(true);
    const int digit = tree_->fontMetrics().horizontalAdvance(QLatin1Char('0'));
    tree_->header()->resizeSection(EntryTreeModel::Name, 48 * digit);
    tree_->header()->resizeSection(EntryTreeModel::Size, 11 * digit);
    tree_->header()->resizeSection(EntryTreeModel::Files, 9 * digit);
    cl->addWidget(tree_, 1);
    tabs_->addTab(contents, tr("Contents"));

    tabs_->addTab(treemap_, tr("Treemap"));

    // Compression: header, progress, verdict and figures, band, table.
    auto* compression = new QWidget(tabs_);
    auto* fl = new QVBoxLayout(compression);
    fl->setContentsMargins(4, 4, 4, 4);
    framesHeader_->setWordWrap(true);
    fl->addWidget(framesHeader_);
    framesProgress_->attach(framesRunner_);
    fl->addWidget(framesProgress_);
    fl->addWidget(frameSummary_);
    fl->addWidget(band_);
    frameTable_->setModel(frameModel_);
    setUpRowTable(frameTable_);
    fl->addWidget(new FramePageBar(frameModel_, compression));   // a blob of many frames: a page at a time
    fl->addWidget(frameTable_, 1);
    tabs_->addTab(compression, tr("Compression"));

    tabs_->addTab(partsPane, tr("Parts"));

    searchTimer_->setSingleShot(true);
    searchTimer_->setInterval(300);
    connect(search_, &QLineEdit::textChanged, searchTimer_, qOverload<>(&QTimer::start));
    connect(searchTimer_, &QTimer::timeout, this, [this] {
        treeProxy_->setFilterFixedString(search_->text());
        if (!search_->text().isEmpty())
            tree_->expandAll();
    });
    connect(tabs_, &QTabWidget::currentChanged, this, &ActionsEntryPane::loadVisibleTab);
    connect(treemap_, &EntryTreemap::rootChanged, this, [this](int node) {
        // The tree follows the treemap's folder.
        const QModelIndex i = treeProxy_->mapFromSource(treeModel_->indexOfNode(node));
        if (i.isValid()) {
            tree_->setCurrentIndex(i);
            tree_->scrollTo(i);
        }
    });

    // Only failures and cancels: a result goes to showContents / showFrames.
    connect(contentsRunner_, &JobRunner::finished, this, [this](const JobOutcome& outcome) {
        const std::string loading = std::exchange(contentsLoading_, std::string());
        if (outcome.ok() || !entry_ || loading != entry_->id)
            return;
        if (outcome.cancelled()) {
            contentsHeader_->setText(tr("<b>%1</b> · reading the contents was cancelled (show the tab again to read it)")
                                         .arg(entryTitle(*entry_)));
            return;
        }
        contentsShown_ = loading;
        contentsHeader_->setText(tr("Cannot read the contents: %1").arg(outcome.message.toHtmlEscaped()));
        Q_EMIT contentsLoaded(false);
    });
    connect(framesRunner_, &JobRunner::finished, this, [this](const JobOutcome& outcome) {
        const std::string loading = std::exchange(framesLoading_, std::string());
        if (outcome.ok() || !entry_ || loading != entry_->id)
            return;
        if (outcome.cancelled()) {
            framesHeader_->setText(tr("<b>%1</b> · reading the frame layout was cancelled (show the tab again to read it)")
                                       .arg(entryTitle(*entry_)));
            return;
        }
        framesShown_ = loading;
        frameModel_->clear();
        band_->setFrames(std::make_shared<cs::PackedFrames>(), std::make_shared<FrameDigest>());
        frameSummary_->showError(outcome.message);
        framesHeader_->setText(tr("Cannot read the frame layout: %1").arg(outcome.message.toHtmlEscaped()));
        Q_EMIT framesLoaded(false);
    });
    setEntry(std::nullopt);
}

ActionsEntryPane::~ActionsEntryPane() = default;

void ActionsEntryPane::setEntry(const std::optional<cs::actions::ActionsEntry>& entry)
{
    const bool same = entry && entry_ && entry->id == entry_->id;
    entry_ = entry;
    if (same)
        return;
    // Whatever was on its way is for another entry now.
    contentsRunner_->cancel();
    framesRunner_->cancel();
    contentsLoading_.clear();
    framesLoading_.clear();
    contentsShown_.clear();
    framesShown_.clear();
    treeModel_->clear();
    treemap_->setTree(nullptr);
    frameModel_->clear();
    band_->setFrames(std::make_shared<cs::PackedFrames>(), std::make_shared<FrameDigest>());
    frameSummary_->clear();
    const QString none = tr("Select an entry to see what it holds.");
    contentsHeader_->setText(entry_ ? tr("<b>%1</b>").arg(entryTitle(*entry_)) : none);
    framesHeader_->setText(entry_ ? tr("<b>%1</b>").arg(entryTitle(*entry_)) : none);
    loadVisibleTab();
}

void ActionsEntryPane::showTab(Tab tab)
{
    tabs_->setCurrentIndex(int(tab));
    loadVisibleTab();
}

void ActionsEntryPane::loadVisibleTab()
{
    if (!entry_)
        return;
    switch (tabs_->currentIndex()) {
    case Contents:
    case Treemap: loadContents(); break;
    case Compression: loadFrames(); break;
    default: break;
    }
}

void ActionsEntryPane::loadContents()
{
    if (contentsShown_ == entry_->id || contentsLoading_ == entry_->id)
        return;
    contentsLoading_ = entry_->id;
    contentsHeader_->setText(tr("Reading the contents of <b>%1</b>…").arg(entryTitle(*entry_)));
    contentsRunner_->start(tr("Reading contents"), [paths = paths_, entry = *entry_](cs::Job& job) {
        auto cache = openActionsForReading(paths);
        cs::entries::EntryBlob blob(cache->storage(), entry);
        EntryTreeBuilder builder(entry.id);
        const auto summary =
            cs::entries::readContents(blob, {}, job, [&builder](const cs::entries::Member& m) { builder.add(m); });
        return builder.finish(summary);
    }, [this](EntryTreePtr tree) { showContents(std::move(tree)); });
}

void ActionsEntryPane::loadFrames()
{
    if (framesShown_ == entry_->id || framesLoading_ == entry_->id)
        return;
    framesLoading_ = entry_->id;
    framesHeader_->setText(tr("Reading the frame layout of <b>%1</b>…").arg(entryTitle(*entry_)));
    framesRunner_->start(tr("Reading frames"), [paths = paths_, entry = *entry_](cs::Job& job) {
        auto cache = openActionsForReading(paths);
        cs::entries::EntryBlob blob(cache->storage(), entry);
        cs::entries::BlobFrameSource source(blob);
        auto frames = std::make_shared<cs::PackedFrames>();
        const cs::FrameScanTotals totals = cs::scanFramesStreaming(
            source, blob.name(), {}, job, [&](const cs::FrameInfo& f) { frames->append(f); });
        auto layout = std::make_shared<cs::FrameLayout>();
        layout->path = blob.name();
        layout->seekTable = totals.seekTable;
        layout->summary = totals.summary;
        auto r = std::make_shared<FramesResult>();
        r->entryId = entry.id;
        r->digest = std::make_shared<const FrameDigest>(digestFrames(*frames, totals.summary.fileSize));
        r->frames = std::move(frames);
        r->layout = std::move(layout);
        return r;
    }, [this](std::shared_ptr<const FramesResult> r) { showFrames(*r); });
}

void ActionsEntryPane::showContents(EntryTreePtr tree)
{
    contentsLoading_.clear();
    if (!entry_ || tree->entryId != entry_->id)
        return; // another entry is current now
    contentsShown_ = tree->entryId;
    treeModel_->setTree(tree);
    treemap_->setTree(tree);
    const auto& s = tree->summary;
    QString text = tr("<b>%1</b> · %2").arg(entryTitle(*entry_), QString::fromLatin1(blobFormatName(s.format)));
    if (s.format == cs::entries::BlobFormat::Opaque)
        text += tr(" (%1)").arg(QString::fromStdString(s.detail).toHtmlEscaped());
    else if (s.format == cs::entries::BlobFormat::Json)
        text += tr(" · a JSON document of %1, no archive to list")
                    .arg(QString::fromStdString(cs::formatSize(s.blobBytes)));
    else
        text += tr(" · %1 files, %2 · blob %3%4")
                    .arg(QLocale().toString(qulonglong(s.files)), QString::fromStdString(cs::formatSize(s.bytes)),
                         QString::fromStdString(cs::formatSize(s.blobBytes)),
                         s.window ? tr(" · zstd window %1").arg(QString::fromStdString(cs::formatSize(s.window)))
                                  : QString());
    contentsHeader_->setText(text);
    tree_->expandToDepth(0);
    Q_EMIT contentsLoaded(true);
}

void ActionsEntryPane::showFrames(const FramesResult& r)
{
    framesLoading_.clear();
    if (!entry_ || r.entryId != entry_->id)
        return;
    framesShown_ = r.entryId;
    frameSummary_->setLayoutSummary(*r.layout);
    band_->setFrames(r.frames, r.digest);
    frameModel_->setFrames(r.frames);
    framesHeader_->setText(tr("<b>%1</b> · the frames of its blob as stored").arg(entryTitle(*entry_)));
    Q_EMIT framesLoaded(true);
}

} // namespace ui
