// The store document's actions (toolbar and the table's context menu): each
// runs as one job on the action runner, with progress, time left and Cancel
// in the JobProgressWidget; when it ends the table and summary are refreshed
// and a failure is shown with the core's sentence.
#include "ui/store/StoreDocument.h"
#include "ui/shell/Plural.h"

#include "core/jobs/Job.h"
#include "core/store/Store.h"
#include "core/util/Units.h"
#include "ui/jobs/DocumentActions.h"
#include "ui/jobs/JobRunner.h"
#include "ui/store/EntryTableModel.h"
#include "ui/store/EvictDialog.h"
#include "ui/store/StoreBrowser.h"

#include <QAction>
#include <QFileDialog>
#include <QMessageBox>
#include <QRegularExpression>
#include <QTableView>
#include <QFileInfo>
#include <QDir>
#include <QToolBar>

namespace ui {

namespace {

// Runs merges of several entries under one job, weighting each by its size.
std::vector<cs::store::MergeResult> mergeEntries(cs::store::Store& store,
                                                 const std::vector<std::pair<int64_t, uint64_t>>& entries, cs::Job& job)
{
    uint64_t total = 0, done = 0;
    for (const auto& e : entries)
        total += e.second;
    total = std::max<uint64_t>(total, 1);
    std::vector<cs::store::MergeResult> results;
    for (const auto& [id, size] : entries) {
        job.checkCancel();
        cs::Job sub;
        sub.setListener([&job, &sub, base = double(done), size = double(size), total = double(total)](const cs::JobStatus& s) {
            job.setStepProgress((base + s.stepFraction * size) / total);
            if (job.isCancelled())
                sub.cancel();
        });
        sub.start();
        results.push_back(store.merge(id, sub));
        done += size;
        job.setStepProgress(done, total);
    }
    return results;
}

QString mergeSummary(const std::vector<cs::store::MergeResult>& results)
{
    uint64_t merged = 0, chunks = 0, fresh = 0, appended = 0;
    for (const auto& r : results) {
        merged += r.merged ? 1 : 0;
        chunks += r.chunks;
        fresh += r.newChunks;
        appended += r.appendedBytes;
    }
    return QObject::tr("merged %1: %2, %3 new, %4 appended to the pack")
        .arg(counted(qint64(merged), "entry", "entries"))
        .arg(counted(qint64(chunks), "chunk", "chunks"))
        .arg(fresh)
        .arg(QString::fromStdString(cs::formatSize(appended)));
}

} // namespace

void StoreDocument::createActions()
{
    mergeSelected_ = new QAction(tr("Merge selected"), this);
    mergeSelected_->setToolTip(tr("Merge the parts of the selected unmerged entries into the pack"));
    mergeAll_ = new QAction(tr("Merge all"), this);
    mergeAll_->setToolTip(tr("Merge every unmerged entry into the pack"));
    restore_ = new QAction(tr("Restore to file…"), this);
    restore_->setToolTip(tr("Write the selected entry's bytes to a file (SHA-256 checked)"));
    evict_ = new QAction(tr("Evict…"), this);
    evict_->setToolTip(tr("Choose entries to evict by age, idle time or a size budget; preview before anything goes"));
    // F5 is the main window's View > Refresh, which calls refresh().
    refresh_ = new QAction(tr("Refresh"), this);
    refresh_->setToolTip(tr("Read the store again (F5)"));

    toolbar_->addAction(mergeSelected_);
    toolbar_->addAction(mergeAll_);
    toolbar_->addSeparator();
    toolbar_->addAction(restore_);
    toolbar_->addAction(evict_);
    toolbar_->addSeparator();
    toolbar_->addAction(refresh_);
    browser_->setContextActions({mergeSelected_, restore_, evict_, refresh_});

    connect(mergeSelected_, &QAction::triggered, this, &StoreDocument::mergeSelected);
    connect(mergeAll_, &QAction::triggered, this, &StoreDocument::mergeAll);
    connect(restore_, &QAction::triggered, this, &StoreDocument::restoreSelected);
    connect(evict_, &QAction::triggered, this, &StoreDocument::evictWithPreview);
    connect(refresh_, &QAction::triggered, this, &StoreDocument::notifyStoreChanged);
    connect(actions_, &DocumentActions::finished, this, &StoreDocument::actionFinished);
    connect(actions_->runner(), &JobRunner::started, this, &StoreDocument::updateActionState);
    connect(browser_, &StoreBrowser::selectionChanged, this, &StoreDocument::updateActionState);
    updateActionState();
}

void StoreDocument::updateActionState()
{
    const bool idle = !actions_->isRunning();
    const auto selected = browser_->selectedEntryIds();
    mergeSelected_->setEnabled(idle && !selected.empty());
    mergeAll_->setEnabled(idle);
    restore_->setEnabled(idle && selected.size() == 1);
    evict_->setEnabled(idle);
}

JobRunner* StoreDocument::jobRunner() const
{
    return actions_->runner();
}

QString StoreDocument::lastActionError() const
{
    return actions_->lastError();
}

void StoreDocument::mergeSelected()
{
    std::vector<std::pair<int64_t, uint64_t>> entries;
    const EntryTableModel* m = browser_->model();
    for (const QModelIndex& i : browser_->table()->selectionModel()->selectedRows())
        if (const auto row = m->entryAt(i.row()); row && row->state == cs::store::EntryState::Unmerged)
            entries.emplace_back(row->id, row->size);
    if (entries.empty()) {
        Q_EMIT actionFinished(JobOutcome::success(tr("nothing to merge: no selected entry is unmerged")));
        return;
    }
    std::sort(entries.begin(), entries.end());
    actions_->run(tr("Merging %1").arg(counted(qint64(entries.size()), "entry", "entries")), [store = workStore_, entries](cs::Job& job) {
        const auto results = mergeEntries(*store, entries, job);
        job.finish(mergeSummary(results).toStdString());
    });
}

void StoreDocument::mergeAll()
{
    actions_->run(tr("Merging all unmerged entries"), [store = workStore_](cs::Job& job) {
        const auto results = store->mergeAll(job);
        job.finish(mergeSummary(results).toStdString());
    });
}

void StoreDocument::restoreSelected()
{
    const auto ids = browser_->selectedEntryIds();
    if (ids.size() != 1)
        return;
    const auto row = pageStore_->entry(ids.front());
    QString suggested;
    if (row) {
        suggested = QString::fromUtf8(row->key.data(), qsizetype(row->key.size()));
        suggested.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("_"));
        suggested = suggested.left(120);
    }
    const QString out = QFileDialog::getSaveFileName(this, tr("Restore entry to file"), QDir::home().filePath(suggested));
    if (!out.isEmpty())
        restoreSelectedTo(out);
}

void StoreDocument::restoreSelectedTo(const QString& outPath)
{
    const auto ids = browser_->selectedEntryIds();
    if (ids.size() != 1)
        return;
    actions_->run(tr("Restoring to %1").arg(QFileInfo(outPath).fileName()),
              [store = workStore_, id = ids.front(), out = outPath.toStdString()](cs::Job& job) {
                  const auto r = store->restoreEntryToFile(id, out, job);
                  job.finish(std::to_string(r.bytes) + " bytes restored to " + out + ", SHA-256 verified"
                             + (r.mergedNow ? "; the entry was merged on the way" : "")
                             + (r.mergeSkipped ? "; the store is read-only, so the entry stays unmerged" : "")
                             + (r.mergeError.empty() ? "" : "; warning: " + r.mergeError));
              });
}

void StoreDocument::evictWithPreview()
{
    std::vector<std::string> keys;
    const EntryTableModel* m = browser_->model();
    for (const QModelIndex& i : browser_->table()->selectionModel()->selectedRows())
        if (const auto row = m->entryAt(i.row()))
            keys.push_back(row->key);
    auto* dialog = new EvictDialog(workStore_, std::move(keys), this);
    dialog->setObjectName(QStringLiteral("evictDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const cs::store::EvictPolicy policy = dialog->confirmedPolicy();
        actions_->run(tr("Evicting"), [store = workStore_, policy](cs::Job& job) {
            const auto r = store->evict(policy, job);
            job.finish(std::to_string(r.evicted.size()) + " entries evicted (" + cs::formatSize(r.bytes)
                       + "); pack space is reclaimed by GC");
        });
    });
    dialog->open();
}

} // namespace ui
