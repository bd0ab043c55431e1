#include "ui/store/StoreDocument.h"
#include "ui/shell/Plural.h"

#include "core/jobs/Job.h"
#include "core/store/Store.h"
#include "core/util/Units.h"
#include "ui/gc/GcViews.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/DocumentActions.h"
#include "ui/jobs/JobRunner.h"
#include "ui/store/EntryTableModel.h"
#include "ui/store/StoreBrowser.h"
#include "ui/store/StoreWatcher.h"

#include <QDir>
#include <QLabel>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

namespace ui {

using StatsPtr = std::shared_ptr<const cs::store::StoreStats>;

StoreDocument* StoreDocument::open(const QString& dir, QString* error, QWidget* parent)
{
    try {
        const std::string path = QDir(dir).absolutePath().toStdString();
        // Two connections: the table pages on the GUI thread must never wait
        // behind a job holding the other one (SQLite WAL readers never block).
        std::shared_ptr<cs::store::Store> pages = cs::store::Store::open(path);
        std::shared_ptr<cs::store::Store> work = cs::store::Store::open(path);
        return new StoreDocument(QDir(dir).absolutePath(), std::move(pages), std::move(work), parent);
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return nullptr;
    }
}

StoreDocument::StoreDocument(const QString& dir, std::shared_ptr<cs::store::Store> pages,
                             std::shared_ptr<cs::store::Store> work, QWidget* parent)
    : QWidget(parent),
      dir_(dir),
      pageStore_(std::move(pages)),
      workStore_(std::move(work)),
      // Even a failed or cancelled run may have changed the store (merge all
      // keeps the entries it merged before the failure).
      actions_(new DocumentActions(this, tr("Store action failed"), [this](const JobOutcome&) { notifyStoreChanged(); })),
      statsRunner_(new JobRunner(this)),
      progress_(new JobProgressWidget(this)),
      summary_(new QLabel(this)),
      toolbar_(new QToolBar(this)),
      views_(new QTabWidget(this)),
      browser_(new StoreBrowser(pageStore_, workStore_, this)),
      watcher_(new StoreWatcher(dir, this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    auto* path = new QLabel(QDir::toNativeSeparators(dir_), this);
    path->setTextInteractionFlags(Qt::TextSelectableByMouse);
    path->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(path);
    summary_->setObjectName(QStringLiteral("storeSummary"));
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setText(tr("Reading store statistics…"));
    layout->addWidget(summary_);
    toolbar_->setToolButtonStyle(Qt::ToolButtonTextOnly);
    layout->addWidget(toolbar_);
    layout->addWidget(progress_);
    views_->addTab(browser_, tr("Entries"));
    layout->addWidget(views_, 1);

    progress_->attach(actions_->runner());
    connect(statsRunner_, &JobRunner::finished, this, [this](const JobOutcome& outcome) {
        if (outcome.failed())
            summary_->setText(tr("Statistics failed: %1").arg(outcome.message));
    });
    // This document's own actions refresh everything when they end
    // (notifyStoreChanged); meanwhile the counters they move are not news.
    connect(actions_->runner(), &JobRunner::started, watcher_, [this] { watcher_->setPaused(true); });
    connect(watcher_, &StoreWatcher::changed, this, &StoreDocument::onExternalChange);
    createActions();
    refreshSummary();
    addGcViews(this);   // "Reachability" and "GC" tabs (ui/gc)
}

StoreDocument::~StoreDocument() = default;

EntryTableModel* StoreDocument::model() const
{
    return browser_->model();
}

QString StoreDocument::summaryText() const
{
    return summary_->text();
}

QLineEdit* StoreDocument::showFilter()
{
    views_->setCurrentWidget(browser_);
    return browser_->filterEdit();
}

void StoreDocument::addView(QWidget* view, const QString& title)
{
    views_->addTab(view, title);
}

void StoreDocument::showStats(const cs::store::StoreStats& s)
{
    auto size = [](uint64_t b) { return QString::fromStdString(cs::formatSize(b)); };
    QString text = tr("<b>%1</b> (%2 merged, %3 unmerged) · logical %4 · stored %5 · dedup %6× · "
                      "unmerged parts %7 · pack %8")
                       .arg(counted(qint64(s.entries), "entry", "entries"))
                       .arg(QLocale().toString(qulonglong(s.mergedEntries)))
                       .arg(QLocale().toString(qulonglong(s.unmergedEntries)))
                       .arg(size(s.logicalBytes), size(s.storedBytes))
                       .arg(s.dedupRatio, 0, 'f', 2)
                       .arg(size(s.unmergedBytes), size(s.packBytes));
    if (s.uploadingEntries)
        text += tr(" · %1 in progress").arg(counted(qint64(s.uploadingEntries), "upload", "uploads"));
    summary_->setText(text);
    summaryReady_ = true;
    Q_EMIT summaryUpdated();
}

void StoreDocument::refreshSummary()
{
    summaryReady_ = false;
    statsRunner_->start(tr("Store statistics"), [store = workStore_](cs::Job& job) {
        return StatsPtr(std::make_shared<cs::store::StoreStats>(store->stats(job)));
    }, [this](StatsPtr stats) { showStats(*stats); });
}

void StoreDocument::notifyStoreChanged()
{
    watcher_->setPaused(actions_->isRunning());
    watcher_->rebaseline();
    browser_->refresh();
    refreshSummary();
    updateActionState();
    Q_EMIT storeChanged();
}

} // namespace ui

namespace ui {

void StoreDocument::onExternalChange()
{
    Q_EMIT externalChangeSeen();
    browser_->refreshInPlace();
    if (!statsRunner_->isRunning())
        refreshSummary();
    Q_EMIT storeChanged();
}

} // namespace ui
