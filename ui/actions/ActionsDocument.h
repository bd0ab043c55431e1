// The cache-server document: the data of a self-hosted
// github-actions-cache-server (sqlite.db + filesystem storage) opened as a
// tab. Strictly read-only until the user confirms a write: every read is a
// job that opens the database read-only and closes it (ActionsData.h).
//
// A summary line, a toolbar (merge selected / all, evict with a preview,
// remove orphans, import into a native store, verify, refresh), and inner
// tabs: Entries (ActionsBrowser: table + parts pane), Pending uploads,
// Verify findings, Report (ActionsReportView). A write first runs a read-only plan (what would change,
// and whether the server looks active), then asks; only the confirmation's
// button starts it ("… anyway" when the server looked active). Every job
// shows progress and Cancel, and the data is read again after each write.
#pragma once
#include "ui/actions/ActionsData.h"
#include "ui/jobs/JobOutcome.h"
#include "ui/shell/Document.h"

#include <QWidget>

#include <functional>

class QAction;
class QLabel;
class QMessageBox;
class QTableView;
class QTabWidget;
class QToolBar;

namespace ui {
class ActionsBrowser;
class ActionsFindingModel;
class ActionsReportView;
class ActionsUploadModel;
class ActionsWatcher;
class DocumentActions;
class JobProgressWidget;
class JobRunner;

class ActionsDocument : public QWidget, public Document {
    Q_OBJECT
public:
    // Opens the data dir at path (the folder or its sqlite.db): checks that
    // the database is the server's (read-only, closed again), then reads it
    // off the GUI thread. nullptr and *error set when it cannot be opened.
    static ActionsDocument* open(const QString& path, QString* error, QWidget* parent = nullptr);
    // A deployment the Open Cache Server dialog checked (PostgreSQL + S3, or
    // any mix with local halves); read off the GUI thread like a data dir.
    static ActionsDocument* openServer(ActionsDataLocation where, QWidget* parent = nullptr);
    // Asks with the Open Cache Server dialog; nullptr when the user cancelled.
    static ActionsDocument* openServerWithDialog(QWidget* parent);
    ~ActionsDocument() override;

    const ActionsDataLocation& location() const { return where_; }
    QString dataDirPath() const { return where_.dataDir; }
    // The tab's title: the data dir's name, with its parent's when the name
    // alone says little (the server's default is ".data"); for a deployment
    // the database's user@host/db (no password) and the bucket.
    QString title() const;
    JobRunner* jobRunner() const override;

    // For tests.
    ActionsBrowser* browser() const { return browser_; }
    ActionsUploadModel* uploadModel() const { return uploadModel_; }
    ActionsFindingModel* findingModel() const { return findingModel_; }
    ActionsReportView* reportView() const { return reportView_; }
    QTabWidget* views() const { return views_; }
    QString summaryText() const;
    bool isLoaded() const { return loaded_; }
    bool isReading() const;
    const ActionsSnapshotPtr& snapshot() const { return snapshot_; }
    QAction* mergeSelectedAction() const { return mergeSelected_; }
    QAction* mergeAllAction() const { return mergeAll_; }
    QAction* evictAction() const { return evict_; }
    QAction* importAction() const { return import_; }
    QAction* removeOrphansAction() const { return removeOrphans_; }
    QAction* verifyAction() const { return verify_; }
    QString lastActionError() const;
    ActionsWatcher* watcher() const { return watcher_; }

public Q_SLOTS:
    // Reads entries and uploads again (a job; nothing is written).
    void reload();
    void verify();
    void mergeSelected();    // asks first
    void mergeAll();         // asks first
    void evictWithPreview(); // policy, preview, confirm
    void removeOrphans();    // plan, confirm
    void importIntoStore();  // asks for a store folder, then confirms
    void importInto(const QString& storeDir);   // the selected entries (all when none), confirms

Q_SIGNALS:
    // After each read of the data (ok false: the reason is in the summary).
    void reloaded(bool ok);
    // After each action job, done (with its result line), failed or cancelled.
    void actionFinished(const ui::JobOutcome& outcome);

private:
    struct WritePlan {
        QString text;            // what the write would do (rich text)
        bool nothingToDo = false;
        bool active = false;     // the server looks active
        QString activeReason;
    };
    ActionsDocument(ActionsDataLocation where, QWidget* parent);
    void onReadFinished(const JobOutcome& outcome);
    void showSnapshot(ActionsSnapshotPtr snapshot);
    // ActionsDocumentActions.cpp
    void createActions();
    void updateActionState();
    // Runs work as an action (DocumentActions::run); rereadAfter: read the
    // data again when it ends (any write; a failed or cancelled one may have
    // done part of its work). A write is only ever started from a
    // confirmation's button (actions_->confirmThen).
    template <typename... WorkAndResult>
    void runAction(const QString& name, bool rereadAfter, WorkAndResult... workAndResult);
    void afterAction(const JobOutcome& outcome);
    // Runs plan read-only on the action runner, then asks with its text; the
    // confirmation runs write(force), force = the server looked active.
    void planThenConfirm(const QString& planName, std::function<WritePlan(cs::actions::ActionsCache&)> plan,
                         const QString& title, const QString& confirmLabel, std::function<void(bool force)> write);
    void mergeIds(const std::vector<std::string>& ids, const QString& what);

    ActionsDataLocation where_;
    JobRunner* readRunner_;
    DocumentActions* actions_;
    JobProgressWidget* progress_;
    QLabel* summary_;
    ActionsWatcher* watcher_ = nullptr;
    bool changedWhileBusy_ = false;
    QToolBar* toolbar_;
    QTabWidget* views_;
    ActionsBrowser* browser_;
    ActionsUploadModel* uploadModel_;
    QTableView* uploadTable_;
    ActionsFindingModel* findingModel_;
    QTableView* findingTable_;
    QLabel* findingHeader_;
    ActionsReportView* reportView_ = nullptr;
    QAction* mergeSelected_ = nullptr;
    QAction* mergeAll_ = nullptr;
    QAction* evict_ = nullptr;
    QAction* import_ = nullptr;
    QAction* removeOrphans_ = nullptr;
    QAction* verify_ = nullptr;
    QAction* refresh_ = nullptr;
    ActionsSnapshotPtr snapshot_;
    bool loaded_ = false;
    bool rereadAfterAction_ = false;
};

} // namespace ui
