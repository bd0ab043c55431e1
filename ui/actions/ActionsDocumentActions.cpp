// The cache-server document's actions. Reads (verify, the plans, the
// eviction preview) open the data read-only. A write (merge, evict, remove
// orphans) starts only from the button of a confirmation that says what a
// read-only plan found it would change, and opens the data writable for the
// length of its job. Import writes into a native store and only reads the
// server's data. Each runs as one job with progress and Cancel; after a
// write the data is read again.
#include "ui/actions/ActionsDocument.h"

#include "core/jobs/Job.h"
#include "core/store/Store.h"
#include "core/store/StoreLayout.h"
#include "core/util/Units.h"
#include "ui/actions/ActionsBrowser.h"
#include "ui/actions/ActionsEvictDialog.h"
#include "ui/actions/ActionsFindingModel.h"
#include "ui/jobs/DocumentActions.h"
#include "ui/jobs/JobRunner.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTabWidget>
#include <QToolBar>

namespace ui {

using FindingsPtr = std::shared_ptr<const std::vector<cs::actions::Finding>>;

namespace {

QString sizeText(uint64_t bytes)
{
    return QString::fromStdString(cs::formatSize(bytes));
}

QString html(const std::string& s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

bool mergeable(const cs::actions::ActionsEntry& e)
{
    return e.state == cs::actions::EntryState::Unmerged || e.state == cs::actions::EntryState::MergeStarted;
}

// At most this many lines of a plan in a confirmation.
constexpr size_t kPlanLines = 12;

} // namespace

void ActionsDocument::createActions()
{
    mergeSelected_ = new QAction(tr("Merge selected…"), this);
    mergeSelected_->setToolTip(tr("Concatenate the parts of the selected unmerged entries into their merged object, as "
                                  "the server does on a first download (shows the plan and asks first)"));
    mergeAll_ = new QAction(tr("Merge all…"), this);
    mergeAll_->setToolTip(tr("Merge every entry that needs it (shows the plan and asks first)"));
    evict_ = new QAction(tr("Evict…"), this);
    evict_->setToolTip(tr("Choose entries to evict by age, idle time, a budget or the selected keys; preview first"));
    removeOrphans_ = new QAction(tr("Remove orphans…"), this);
    removeOrphans_->setToolTip(tr("Delete storage folders no row names and locations no entry names (asks first)"));
    import_ = new QAction(tr("Import into store…"), this);
    import_->setToolTip(tr("Copy the selected entries (all when none is selected) into a native cachescope store; "
                           "the server's data is only read"));
    verify_ = new QAction(tr("Verify"), this);
    verify_->setToolTip(tr("Check every entry's files against the database (read-only)"));
    refresh_ = new QAction(tr("Refresh"), this);
    refresh_->setShortcut(QKeySequence::Refresh);
    refresh_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(refresh_);

    toolbar_->addAction(mergeSelected_);
    toolbar_->addAction(mergeAll_);
    toolbar_->addSeparator();
    toolbar_->addAction(evict_);
    toolbar_->addAction(removeOrphans_);
    toolbar_->addAction(import_);
    toolbar_->addAction(browser_->compareAction());
    toolbar_->addSeparator();
    toolbar_->addAction(verify_);
    toolbar_->addAction(refresh_);
    browser_->setContextActions({mergeSelected_, evict_, import_, verify_, refresh_});

    connect(mergeSelected_, &QAction::triggered, this, &ActionsDocument::mergeSelected);
    connect(mergeAll_, &QAction::triggered, this, &ActionsDocument::mergeAll);
    connect(evict_, &QAction::triggered, this, &ActionsDocument::evictWithPreview);
    connect(removeOrphans_, &QAction::triggered, this, &ActionsDocument::removeOrphans);
    connect(import_, &QAction::triggered, this, &ActionsDocument::importIntoStore);
    connect(verify_, &QAction::triggered, this, &ActionsDocument::verify);
    connect(refresh_, &QAction::triggered, this, &ActionsDocument::reload);
    connect(actions_, &DocumentActions::finished, this, &ActionsDocument::actionFinished);
    connect(actions_->runner(), &JobRunner::started, this, &ActionsDocument::updateActionState);
    connect(browser_, &ActionsBrowser::selectionChanged, this, &ActionsDocument::updateActionState);
    updateActionState();
}

void ActionsDocument::updateActionState()
{
    const bool idle = !actions_->isRunning() && loaded_;
    bool anyMergeable = false;
    for (const auto& e : browser_->selectedEntries())
        anyMergeable = anyMergeable || mergeable(e);
    const bool hasEntries = snapshot_ && (snapshot_->totalEntries > 0 || !snapshot_->entries.empty());
    mergeSelected_->setEnabled(idle && anyMergeable);
    mergeAll_->setEnabled(idle && hasEntries);
    evict_->setEnabled(idle && hasEntries);
    removeOrphans_->setEnabled(idle);
    import_->setEnabled(idle && hasEntries);
    verify_->setEnabled(idle);
}

JobRunner* ActionsDocument::jobRunner() const
{
    return actions_->runner();
}

QString ActionsDocument::lastActionError() const
{
    return actions_->lastError();
}

template <typename... WorkAndResult>
void ActionsDocument::runAction(const QString& name, bool rereadAfter, WorkAndResult... workAndResult)
{
    rereadAfterAction_ = rereadAfter;
    actions_->run(name, std::move(workAndResult)...);
}

void ActionsDocument::afterAction(const JobOutcome&)
{
    // Even a failed or cancelled write may have done part of its work; and
    // the server may have changed while it ran.
    const bool changedMeanwhile = std::exchange(changedWhileBusy_, false);
    if (std::exchange(rereadAfterAction_, false) || changedMeanwhile)
        reload();
    updateActionState();
}

void ActionsDocument::planThenConfirm(const QString& planName, std::function<WritePlan(cs::actions::ActionsCache&)> plan,
                                      const QString& title, const QString& confirmLabel,
                                      std::function<void(bool force)> write)
{
    runAction(planName, false,
              [paths = where_.paths, plan = std::move(plan)](cs::Job&) {
                  auto cache = openActionsForReading(paths);   // a plan writes nothing
                  WritePlan p = plan(*cache);
                  if (!p.nothingToDo) {
                      const cs::actions::Activity a = cache->activity();
                      p.active = a.active;
                      p.activeReason = QString::fromStdString(a.reason);
                  }
                  return std::make_shared<const WritePlan>(std::move(p));
              },
              [this, title, confirmLabel, write = std::move(write)](const std::shared_ptr<const WritePlan>& p) {
                  if (p->nothingToDo) {
                      auto* box = new QMessageBox(QMessageBox::Information, title, p->text, QMessageBox::Ok, this);
                      box->setObjectName(QStringLiteral("nothingToDo"));
                      box->setAttribute(Qt::WA_DeleteOnClose);
                      box->open();
                      return;
                  }
                  QString text = p->text;
                  if (p->active)
                      text += QStringLiteral("<p><b>") + tr("The server looks active: %1.").arg(p->activeReason.toHtmlEscaped())
                              + QStringLiteral("</b> ")
                              + tr("Writing now could race it; stop the server first, or go ahead anyway.");
                  const bool force = p->active;
                  actions_->confirmThen(title, text, p->active ? tr("%1 anyway").arg(confirmLabel) : confirmLabel,
                              [write, force] { write(force); });
              });
}

void ActionsDocument::verify()
{
    findingHeader_->setText(tr("Verifying…"));
    runAction(tr("Verifying the cache server's data"), false,
              [paths = where_.paths](cs::Job& job) {
                  auto cache = openActionsForReading(paths);
                  auto findings = std::make_shared<const std::vector<cs::actions::Finding>>(cache->verify(job));
                  job.finish(std::to_string(findings->size()) + " findings");
                  return FindingsPtr(findings);
              },
              [this](const FindingsPtr& findings) {
                  findingModel_->setFindings(*findings);
                  const QString at = formatEpochMs(nowEpochMs());
                  findingHeader_->setText(findings->empty()
                                              ? tr("Verified %1: no findings.").arg(at)
                                              : findings->size() == 1 ? tr("Verified %1: 1 finding.").arg(at)
                                                                      : tr("Verified %1: %2 findings.").arg(at).arg(findings->size()));
                  views_->setTabText(2, tr("Verify findings (%1)").arg(findings->size()));
                  views_->setCurrentIndex(2);
              });
}

void ActionsDocument::mergeIds(const std::vector<std::string>& ids, const QString& what)
{
    planThenConfirm(
        tr("Planning the merge"),
        [ids, what](cs::actions::ActionsCache& cache) {
            WritePlan p;
            const auto plan = cache.planMerge(ids);
            QStringList lines;
            size_t work = 0;
            uint64_t bytes = 0;
            for (const auto& r : plan) {
                if (!r.error) {
                    ++work;
                    bytes += r.bytes;
                }
                if (size_t(lines.size()) < kPlanLines)
                    lines << QStringLiteral("<li>%1%2: %3%4</li>")
                                 .arg(r.error ? QStringLiteral("<b>") : QString(), html(r.key), html(r.action),
                                      r.error ? QStringLiteral("</b>") : QString());
            }
            if (plan.size() > kPlanLines)
                lines << QStringLiteral("<li>…</li>");
            if (work == 0) {
                p.nothingToDo = true;
                p.text = QObject::tr("Nothing to merge in %1.").arg(what)
                         + (lines.isEmpty() ? QString() : QStringLiteral("<ul>%1</ul>").arg(lines.join(QString())));
                return p;
            }
            p.text = QObject::tr("Merge %1: %2 entries, %3?").arg(what).arg(work).arg(sizeText(bytes))
                     + QStringLiteral("<ul>%1</ul>").arg(lines.join(QString()))
                     + QObject::tr("This writes into the server's data as the server does on a first download: the "
                                   "parts are concatenated in index order into <i>merged</i>, the database records "
                                   "the merge, then the parts are deleted.");
            return p;
        },
        tr("Merge entries"), tr("Merge"),
        [this, ids](bool force) {
            runAction(tr("Merging"), true, [paths = where_.paths, ids, force](cs::Job& job) {
                auto cache = openActionsForWriting(paths);
                const auto results = cache->merge(ids, job, {force});
                uint64_t merged = 0, bytes = 0;
                for (const auto& r : results)
                    if (r.merged) {
                        ++merged;
                        bytes += r.bytes;
                    }
                job.finish("merged " + std::to_string(merged) + " entries (" + cs::formatSize(bytes) + ")");
            });
        });
}

void ActionsDocument::mergeSelected()
{
    std::vector<std::string> ids;
    for (const auto& e : browser_->selectedEntries())
        if (mergeable(e))
            ids.push_back(e.id);
    if (!ids.empty())
        mergeIds(ids, tr("the selected entries"));
}

void ActionsDocument::mergeAll()
{
    mergeIds({}, tr("every entry that needs it"));
}

void ActionsDocument::evictWithPreview()
{
    std::vector<std::string> keys;
    for (const auto& e : browser_->selectedEntries())
        keys.push_back(e.key);
    auto* dialog = new ActionsEvictDialog(where_, std::move(keys), this);
    dialog->setObjectName(QStringLiteral("evictDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // The dialog's Evict button is the confirmation: it is only enabled once
    // a read-only preview listed what goes.
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const cs::actions::ActionsEvictPolicy policy = dialog->confirmedPolicy();
        const bool force = dialog->serverLookedActive();
        runAction(tr("Evicting"), true, [paths = where_.paths, policy, force](cs::Job& job) {
            auto cache = openActionsForWriting(paths);
            const auto gone = cache->evict(policy, job, {force});
            uint64_t bytes = 0;
            for (const auto& e : gone)
                bytes += e.size;
            job.finish(std::to_string(gone.size()) + " entries evicted (" + cs::formatSize(bytes) + ")");
        });
    });
    dialog->open();
}

void ActionsDocument::removeOrphans()
{
    planThenConfirm(
        tr("Looking for orphans"),
        [](cs::actions::ActionsCache& cache) {
            WritePlan p;
            const auto plan = cache.planRemoveOrphans();
            if (plan.empty()) {
                p.nothingToDo = true;
                p.text = QObject::tr("No orphans: every storage folder is named by a row, every location by an entry.");
                return p;
            }
            QStringList lines;
            uint64_t bytes = 0;
            for (const auto& f : plan) {
                bytes += f.bytes;
                if (size_t(lines.size()) < kPlanLines)
                    lines << QStringLiteral("<li>%1: %2</li>").arg(html(f.path), html(f.message));
            }
            if (plan.size() > kPlanLines)
                lines << QStringLiteral("<li>…</li>");
            p.text = QObject::tr("Remove %1 orphans (%2)?").arg(plan.size()).arg(sizeText(bytes))
                     + QStringLiteral("<ul>%1</ul>").arg(lines.join(QString()));
            return p;
        },
        tr("Remove orphans"), tr("Remove"),
        [this](bool force) {
            runAction(tr("Removing orphans"), true, [paths = where_.paths, force](cs::Job& job) {
                auto cache = openActionsForWriting(paths);
                const auto removed = cache->removeOrphans(job, {force});
                job.finish(std::to_string(removed.size()) + " orphans removed");
            });
        });
}

void ActionsDocument::importIntoStore()
{
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Import into a native store (an existing store, or an empty folder for a new one)"));
    if (!folder.isEmpty())
        importInto(folder);
}

void ActionsDocument::importInto(const QString& storeDir)
{
    if (!snapshot_)
        return;
    const QDir target(storeDir);
    const bool exists = cs::store::StoreLayout::namesCatalog(storeDir.toStdString());
    if (!exists && QFileInfo::exists(storeDir) && !target.isEmpty()) {
        actions_->refuse(tr("Cannot import"),
                         tr("%1 is neither a cachescope store nor an empty folder.").arg(QDir::toNativeSeparators(storeDir)));
        return;
    }
    std::vector<cs::actions::ActionsEntry> chosen = browser_->selectedEntries();
    const bool all = chosen.empty();
    if (all)
        chosen = snapshot_->entries;
    std::vector<std::string> ids;
    uint64_t bytes = 0;
    for (const auto& e : chosen) {
        ids.push_back(e.id);
        bytes += e.size;
    }
    if (all)
        ids.clear();   // every entry, as the core reads them at import time
    // "All" means every entry of the catalog, also those not loaded yet.
    const uint64_t count = all ? std::max<uint64_t>(snapshot_->totalEntries, chosen.size()) : chosen.size();
    const QString size = all && !snapshot_->complete() ? tr("size known once read") : sizeText(bytes);
    const QString text = tr("Import %1 %2 entries (%3) into the %4 store %5?")
                             .arg(all ? tr("all") : tr("the"))
                             .arg(count)
                             .arg(size, exists ? tr("existing") : tr("new"),
                                  QDir::toNativeSeparators(target.absolutePath()).toHtmlEscaped())
                         + QStringLiteral("<p>")
                         + tr("The server's data is only read. The entries keep their key and version, go into scope "
                              "\"actions\" and are merged into the store's pack.");
    actions_->confirmThen(tr("Import into store"), text, tr("Import"), [this, exists, ids, path = target.absolutePath().toStdString()] {
        runAction(tr("Importing into %1").arg(QString::fromStdString(path)), false,
                  [paths = where_.paths, exists, ids, path](cs::Job& job) {
                      auto cache = openActionsForReading(paths);
                      auto store = exists ? cs::store::Store::open(path) : cs::store::Store::init(path);
                      const auto r = cache->importInto(*store, ids, {}, 1 << 20, false, job);
                      job.finish("imported " + std::to_string(r.entries) + " entries (" + cs::formatSize(r.bytes)
                                 + ") into " + path + ": " + cs::formatSize(r.appendedBytes) + " appended to the pack");
                  });
    });
}

} // namespace ui
