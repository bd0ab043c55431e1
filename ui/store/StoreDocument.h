// The store document: one native cache store folder (core/store) opened as a
// tab. A summary bar (entries, logical vs stored bytes, dedup ratio, unmerged
// bytes, pack size; computed off the GUI thread), a toolbar of actions (merge
// selected / all, restore to a file, evict with a preview; each a job with
// progress, time left and Cancel), and an inner tab widget whose first tab is
// the store browser (entries table paged from SQLite + details pane).
//
// Other views (GC, mapping, ...) add themselves as further tabs with
// addView(); they refresh on storeChanged(), and call notifyStoreChanged()
// after anything they do that modifies the store.
//
// Changes other processes make (a cache server uploading, a cron job
// evicting, cachescope-cli) are noticed by a StoreWatcher polling the
// catalog's change counters: the table is refreshed in place (selection and
// scroll position kept), the summary re-read and storeChanged() emitted.
#pragma once
#include "ui/jobs/JobOutcome.h"
#include "ui/shell/Document.h"

#include <QString>
#include <QWidget>

#include <functional>
#include <memory>

class QAction;
class QLabel;
class QLineEdit;
class QTabWidget;
class QToolBar;

namespace cs { class Job; }
namespace cs::store {
class Store;
struct StoreStats;
}

namespace ui {
class DocumentActions;
class EntryTableModel;
class JobProgressWidget;
class JobRunner;
class StoreBrowser;
class StoreWatcher;

class StoreDocument : public QWidget, public Document {
    Q_OBJECT
public:
    // Opens the store in dir; on failure returns nullptr and sets *error to
    // the core's sentence.
    static StoreDocument* open(const QString& dir, QString* error, QWidget* parent = nullptr);
    ~StoreDocument() override;

    QString storeDir() const { return dir_; }
    // A connection of this document's own, safe to use from worker threads
    // (the core's Store is thread-safe); not the one the table pages from.
    std::shared_ptr<cs::store::Store> store() const { return workStore_; }

    // Adds a further view as an inner tab (the document takes ownership).
    void addView(QWidget* view, const QString& title);
    QTabWidget* views() const { return views_; }

    JobRunner* jobRunner() const override;
    void refresh() override { notifyStoreChanged(); }
    QLineEdit* showFilter() override;   // the Entries tab's key filter

    // For tests and other views.
    StoreBrowser* browser() const { return browser_; }
    EntryTableModel* model() const;
    QString summaryText() const;
    bool isSummaryReady() const { return summaryReady_; }
    QAction* mergeSelectedAction() const { return mergeSelected_; }
    QAction* mergeAllAction() const { return mergeAll_; }
    QAction* restoreAction() const { return restore_; }
    QAction* evictAction() const { return evict_; }
    StoreWatcher* watcher() const { return watcher_; }
    // The message of the last failed action ("" when the last one succeeded).
    QString lastActionError() const;

public Q_SLOTS:
    // Call after any change to the store: refreshes the summary and the
    // browser, then emits storeChanged().
    void notifyStoreChanged();
    void refreshSummary();

    void mergeSelected();
    void mergeAll();
    void restoreSelected();                                  // asks for a file
    void restoreSelectedTo(const QString& outPath);          // no dialog
    void evictWithPreview();                                 // asks for a policy, previews, confirms

Q_SIGNALS:
    void storeChanged();
    // Another process changed the store and the views are being refreshed.
    void externalChangeSeen();
    void summaryUpdated();
    // After each action job, done (with its result line), failed or cancelled.
    void actionFinished(const ui::JobOutcome& outcome);

private:
    StoreDocument(const QString& dir, std::shared_ptr<cs::store::Store> pages,
                  std::shared_ptr<cs::store::Store> work, QWidget* parent);
    // StoreDocumentActions.cpp
    void createActions();
    void updateActionState();
    void onExternalChange();
    void showStats(const cs::store::StoreStats& stats);

    QString dir_;
    std::shared_ptr<cs::store::Store> pageStore_;   // GUI thread: table pages
    std::shared_ptr<cs::store::Store> workStore_;   // jobs
    DocumentActions* actions_;
    JobRunner* statsRunner_;
    JobProgressWidget* progress_;
    QLabel* summary_;
    QToolBar* toolbar_;
    QTabWidget* views_;
    StoreBrowser* browser_;
    StoreWatcher* watcher_;
    QAction* mergeSelected_ = nullptr;
    QAction* mergeAll_ = nullptr;
    QAction* restore_ = nullptr;
    QAction* evict_ = nullptr;
    QAction* refresh_ = nullptr;
    bool summaryReady_ = false;
};

} // namespace ui
