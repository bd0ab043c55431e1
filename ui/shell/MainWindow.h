// The main window: a closable tab per opened document (a zstd file's frame
// layout, a store, or a view another module adds through addDocument()), a
// sidebar dock listing what is open, the File menu (Open File, Open Store
// Folder, Open Recent, Export, Close Tab, Quit), drag and drop of files and
// folders, and a status bar with the current tab's job and the GUI thread's
// stall monitor. Geometry and dock state are saved with kStateVersion; the
// window always fits the screen's available area (any scale factor).
#pragma once
#include <QMainWindow>

class QAction;
class QDockWidget;
class QLabel;
class QListWidget;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QTabWidget;

namespace ui {
class GuideWindow;
class JobRunner;
class RecentFiles;
class StallMonitor;
class WelcomePage;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    static constexpr int kStateVersion = 1;

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a zstd file (frame layout) or a store folder in a new tab, or
    // selects its tab when already open. False when it cannot be opened; the
    // reason is shown in a (non-blocking) message box and kept in lastError().
    bool openPath(const QString& path);

    // Paths named on the command line: each gets a tab at once, but is read
    // only when its tab is first shown (ui/shell/PendingDocument.h); the
    // first one is shown. Paths that do not exist are named in one message.
    void openPathsLazily(const QStringList& paths);

    // Adds doc as a new current tab (the window takes ownership). path may be
    // empty for views not tied to a file; it is shown as the tab's tooltip and
    // used to find an already open document. If doc derives from ui::Document
    // its export actions and job runner are used by the menu and status bar.
    void addDocument(QWidget* doc, const QString& title, const QString& path);

    QWidget* currentDocument() const;
    QWidget* documentForPath(const QString& path) const;
    int documentCount() const;
    QTabWidget* tabs() const { return tabs_; }
    StallMonitor* stallMonitor() const { return stallMonitor_; }
    RecentFiles* recentFiles() const { return recent_; }
    QString lastError() const { return lastError_; }
    // The About box's text: the app's version and those of Qt, zstd, SQLite
    // and QCustomPlot it runs with.
    static QString aboutText();
    // The size of a first window (no saved geometry) on a screen whose
    // available area is available: the preferred 1280 x 820, shrunk to fit.
    static QSize firstWindowSize(const QSize& available);

public Q_SLOTS:
    void openFileDialog();
    void openStoreDialog();
    void openActionsDataDialog();   // a cache server's data dir (ui/actions)
    void closeTab(int index);
    void closeCurrentTab();
    void focusFilter();      // Edit > Find (Ctrl+F): the current view's filter box
    void refreshCurrent();   // View > Refresh (F5)
    void showGuide();        // Help > User Guide (F1)

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    // MainWindowMenus.cpp
    void createMenus();
    void fillExportMenu();
    // MainWindowStatus.cpp
    void updateDocumentActions();
    void createStatusBar();
    void followJobOf(QWidget* doc);

    void createSidebar();
    void onCurrentTabChanged(int index);
    // Replaces the PendingDocument at index by its document, read now.
    void openPending(int index);
    void showError(const QString& title, const QString& message);
    bool openStore(const QString& folder);
    // A github-actions-cache-server data dir or its sqlite.db, as an ActionsDocument.
    bool openActionsData(const QString& path);
    void restoreWindowState();
    void saveWindowState() const;

    QTabWidget* tabs_;
    QStackedWidget* central_ = nullptr;   // the welcome page while nothing is open, else the tabs
    WelcomePage* welcome_ = nullptr;
    QDockWidget* sidebarDock_ = nullptr;
    QListWidget* sidebar_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QMenu* exportMenu_ = nullptr;
    QAction* findAction_ = nullptr;
    QAction* refreshAction_ = nullptr;
    GuideWindow* guide_ = nullptr;
    QLabel* jobLabel_ = nullptr;
    QProgressBar* jobBar_ = nullptr;
    QLabel* stallLabel_ = nullptr;
    JobRunner* followedRunner_ = nullptr;
    RecentFiles* recent_;
    StallMonitor* stallMonitor_;
    QString lastError_;
    bool arranging_ = false;   // tabs are being added or swapped: no tab is opened on being shown
    int insertAt_ = -1;        // where addDocument() puts the next tab, -1: at the end
};

} // namespace ui
