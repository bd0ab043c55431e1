#include "ui/shell/MainWindow.h"

#include "core/store/StoreLayout.h"
#include "ui/actions/ActionsDocument.h"
#include "ui/frames/FrameLayoutDocument.h"
#include "ui/shell/DocumentTabs.h"
#include "ui/shell/PendingDocument.h"
#include "ui/shell/RecentFiles.h"
#include "ui/shell/StallMonitor.h"
#include "ui/shell/WelcomePage.h"
#include "ui/store/StoreDocument.h"

#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QGuiApplication>
#include <QListWidget>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QScreen>
#include <QSet>
#include <QSettings>
#include <QStackedWidget>
#include <QTabWidget>

// The icon and other resources live in the static cachescope_ui library, so
// they must be registered by hand (outside any namespace).
static void initUiResources()
{
    Q_INIT_RESOURCE(cachescope);
}

namespace ui {

namespace {
constexpr int kPathRole = Qt::UserRole + 1;

QString canonical(const QString& path)
{
    const QFileInfo info(path);
    const QString c = info.canonicalFilePath();
    return c.isEmpty() ? info.absoluteFilePath() : c;
}
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), tabs_(new DocumentTabs(this)), recent_(new RecentFiles(this)), stallMonitor_(new StallMonitor(this))
{
    initUiResources();
    setWindowTitle(tr("cachescope"));
    setWindowIcon(QIcon(QStringLiteral(":/cachescope.svg")));
    setAcceptDrops(true);
    // Only the current tab has a close button (DocumentTabs.h): thousands of tabs stay quick.
    tabs_->setDocumentMode(true);
    welcome_ = new WelcomePage(recent_, this);
    connect(welcome_, &WelcomePage::openFileRequested, this, &MainWindow::openFileDialog);
    connect(welcome_, &WelcomePage::openStoreRequested, this, &MainWindow::openStoreDialog);
    connect(welcome_, &WelcomePage::openPathRequested, this, &MainWindow::openPath);
    central_ = new QStackedWidget(this);
    central_->addWidget(welcome_);
    central_->addWidget(tabs_);
    setCentralWidget(central_);
    connect(tabs_, &QTabWidget::tabCloseRequested, this, &MainWindow::closeTab);
    connect(tabs_, &QTabWidget::currentChanged, this, &MainWindow::onCurrentTabChanged);
    connect(recent_, &RecentFiles::openRequested, this, &MainWindow::openPath);
    connect(recent_, &RecentFiles::changed, welcome_, &WelcomePage::refresh);

    createSidebar();
    createMenus();
    createStatusBar();
    restoreWindowState();
    stallMonitor_->start();
}

// The status bar stops following the current document's job runner before
// QWidget's destructor deletes the documents (and their runners): otherwise
// the runner's destroyed() reaches this window's lambdas after ~MainWindow
// has run (UBSan, the asan preset: member access in a MainWindow that is
// only a QWidget any more).
MainWindow::~MainWindow()
{
    followJobOf(nullptr);
}

void MainWindow::createSidebar()
{
    sidebar_ = new QListWidget(this);
    sidebar_->setObjectName(QStringLiteral("openDocuments"));
    sidebarDock_ = new QDockWidget(tr("Open"), this);
    sidebarDock_->setObjectName(QStringLiteral("sidebarDock"));  // needed by saveState()
    sidebarDock_->setWidget(sidebar_);
    sidebarDock_->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable);
    addDockWidget(Qt::LeftDockWidgetArea, sidebarDock_);
    resizeDocks({sidebarDock_}, {200}, Qt::Horizontal);
    // The sidebar's row i is always tab i.
    connect(sidebar_, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0 && row < tabs_->count())
            tabs_->setCurrentIndex(row);
    });
}

bool MainWindow::openPath(const QString& path)
{
    const QFileInfo info(path);
    if (!info.exists()) {
        recent_->remove(path);
        showError(tr("Cannot open"), tr("%1 does not exist.").arg(QDir::toNativeSeparators(path)));
        return false;
    }
    if (QWidget* open = documentForPath(path)) {
        tabs_->setCurrentWidget(open);
        return true;
    }
    // A cache server's data dir, or its sqlite.db (dropped, recent, command line).
    if (looksLikeActionsData(path))
        return openActionsData(path);
    if (info.isDir()) {
        if (!cs::store::StoreLayout::namesCatalog(path.toStdString())) {
            showError(tr("Not a store"),
                      tr("%1 is not a cachescope store: it has no catalog.db.").arg(QDir::toNativeSeparators(path)));
            return false;
        }
        return openStore(path);
    }
    if (!info.isFile() || !info.isReadable()) {
        showError(tr("Cannot open"), tr("%1 is not a readable file.").arg(QDir::toNativeSeparators(path)));
        return false;
    }
    auto* doc = new FrameLayoutDocument(canonical(path));
    // Recent files list only files that opened: a file that is not zstd
    // shows its error in the tab and stays out of (or leaves) the list.
    connect(doc, &FrameLayoutDocument::scanFinished, recent_, [this, path](const JobOutcome& outcome) {
        if (outcome.ok())
            recent_->add(path);
        else if (outcome.failed())
            recent_->remove(path);
    });
    addDocument(doc, info.fileName(), path);
    return true;
}

// The single place where a store folder (one with catalog.db) is opened:
// the store browser (ui/store/StoreDocument) is created and added here.
bool MainWindow::openStore(const QString& folder)
{
    QString error;
    StoreDocument* doc = StoreDocument::open(folder, &error);
    if (!doc) {
        showError(tr("Cannot open store"), error);
        return false;
    }
    addDocument(doc, QFileInfo(canonical(folder)).fileName(), folder);
    recent_->add(folder);
    return true;
}

// The single place where a cache server's data (ui/actions) is opened.
bool MainWindow::openActionsData(const QString& path)
{
    const QFileInfo info(path);
    const QString dataDir = info.isDir() ? info.absoluteFilePath() : info.absolutePath();   // or its sqlite.db
    if (QWidget* open = documentForPath(dataDir)) {
        tabs_->setCurrentWidget(open);
        return true;
    }
    QString error;
    ActionsDocument* doc = ActionsDocument::open(dataDir, &error);
    if (!doc) {
        showError(tr("Cannot open cache server data"), error);
        return false;
    }
    addDocument(doc, doc->title(), dataDir);
    recent_->add(dataDir);
    return true;
}

void MainWindow::addDocument(QWidget* doc, const QString& title, const QString& path)
{
    const QString key = path.isEmpty() ? QString() : canonical(path);
    doc->setProperty("documentPath", key);
    auto* item = new QListWidgetItem(title);
    item->setData(kPathRole, key);
    item->setToolTip(path.isEmpty() ? title : QDir::toNativeSeparators(key));
    const int index = insertAt_ >= 0 ? tabs_->insertTab(insertAt_, doc, title) : tabs_->addTab(doc, title);
    tabs_->setTabToolTip(index, item->toolTip());
    sidebar_->insertItem(index, item);
    // While tabs are being added or swapped (openPathsLazily, openPending),
    // the caller picks the current tab once at the end: switching the
    // stacked widget for each of thousands of tabs costs seconds.
    if (arranging_)
        return;
    tabs_->setCurrentIndex(index);
    onCurrentTabChanged(index);
}

QWidget* MainWindow::currentDocument() const
{
    return tabs_->currentWidget();
}

QWidget* MainWindow::documentForPath(const QString& path) const
{
    const QString key = canonical(path);
    for (int i = 0; i < tabs_->count(); ++i)
        if (tabs_->widget(i)->property("documentPath").toString() == key)
            return tabs_->widget(i);
    return nullptr;
}

int MainWindow::documentCount() const
{
    return tabs_->count();
}

void MainWindow::closeTab(int index)
{
    QWidget* doc = tabs_->widget(index);
    if (!doc)
        return;
    if (doc == currentDocument())
        followJobOf(nullptr);
    tabs_->removeTab(index);
    delete sidebar_->takeItem(index);
    doc->deleteLater();  // its JobRunner cancels and waits for its worker
    onCurrentTabChanged(tabs_->currentIndex());
}

void MainWindow::closeCurrentTab()
{
    if (tabs_->currentIndex() >= 0)
        closeTab(tabs_->currentIndex());
}

void MainWindow::openPathsLazily(const QStringList& paths)
{
    QStringList missing;
    int first = -1;
    // The paths already open (or named twice), looked up once each: thousands
    // of paths must not each walk every tab.
    QSet<QString> open;
    for (int i = 0; i < tabs_->count(); ++i)
        open.insert(tabs_->widget(i)->property("documentPath").toString());
    arranging_ = true;
    for (const QString& path : paths) {
        if (!QFileInfo::exists(path)) {
            missing << QDir::toNativeSeparators(path);
            continue;
        }
        const QString key = canonical(path);
        if (open.contains(key))
            continue;
        open.insert(key);
        addDocument(new PendingDocument(key), QFileInfo(key).fileName(), path);
        if (first < 0)
            first = tabs_->count() - 1;
    }
    arranging_ = false;
    if (first >= 0) {
        tabs_->setCurrentIndex(first);
        onCurrentTabChanged(first);
    }
    if (!missing.isEmpty())
        showError(tr("Cannot open"), tr("These do not exist: %1.").arg(missing.join(QStringLiteral(", "))));
}

void MainWindow::openPending(int index)
{
    auto* pending = qobject_cast<PendingDocument*>(tabs_->widget(index));
    if (!pending)
        return;
    const QString key = pending->property("documentPath").toString();
    // openPath() must not find the pending tab itself; the document it makes
    // goes in the pending tab's place.
    pending->setProperty("documentPath", QString());
    arranging_ = true;
    insertAt_ = index;
    const int before = tabs_->count();
    const bool ok = openPath(pending->path());
    insertAt_ = -1;
    const bool added = tabs_->count() == before + 1 && tabs_->widget(index) != pending;
    if (added || ok) {
        // Opened here, or the path was already open in another tab.
        const int at = tabs_->indexOf(pending);
        tabs_->removeTab(at);
        delete sidebar_->takeItem(at);
        pending->deleteLater();
        if (added)
            tabs_->setCurrentIndex(index);
    } else {
        pending->setProperty("documentPath", key);
        pending->showError(lastError_);
    }
    arranging_ = false;
    onCurrentTabChanged(tabs_->currentIndex());
}

void MainWindow::onCurrentTabChanged(int index)
{
    if (arranging_)
        return;
    if (qobject_cast<PendingDocument*>(tabs_->widget(index))) {
        // After the tab switch has been painted: the document opens then.
        QMetaObject::invokeMethod(this, [this, doc = QPointer<QWidget>(tabs_->widget(index))] {
            if (doc && doc == tabs_->currentWidget())
                openPending(tabs_->currentIndex());
        }, Qt::QueuedConnection);
    }
    if (sidebar_->currentRow() != index)
        sidebar_->setCurrentRow(index);
    QWidget* doc = tabs_->widget(index);
    central_->setCurrentWidget(doc ? static_cast<QWidget*>(tabs_) : welcome_);
    followJobOf(doc);
    setWindowTitle(doc ? tr("%1 — cachescope").arg(tabs_->tabText(index)) : tr("cachescope"));
    updateDocumentActions();
}

void MainWindow::showError(const QString& title, const QString& message)
{
    lastError_ = message;
    // Non-blocking: open() returns at once, so a failed open never stalls a
    // caller (command line, drop, tests) on a nested event loop.
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        for (const QUrl& url : event->mimeData()->urls())
            if (url.isLocalFile()) {
                event->acceptProposedAction();
                return;
            }
}

void MainWindow::dropEvent(QDropEvent* event)
{
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile())
            openPath(url.toLocalFile());
    event->acceptProposedAction();
}

QSize MainWindow::firstWindowSize(const QSize& available)
{
    // 90 % of the area at most, so the title bar and borders fit as well.
    return QSize(1280, 820).boundedTo(QSize(available.width() * 9 / 10, available.height() * 9 / 10));
}

void MainWindow::restoreWindowState()
{
    QSettings settings;
    const QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
    const QRect available = screen ? screen->availableGeometry() : QRect(0, 0, 1280, 820);
    if (!restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray())) {
        resize(firstWindowSize(available.size()));
        move(available.center() - rect().center());
    } else if (!isMaximized() && !isFullScreen() &&
               (width() > available.width() || height() > available.height())) {
        // Saved on a larger screen or at a smaller scale factor.
        resize(size().boundedTo(available.size()));
        move(available.topLeft());
    }
    restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray(), kStateVersion);
}

void MainWindow::saveWindowState() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState(kStateVersion));
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    saveWindowState();
    QMainWindow::closeEvent(event);
}

} // namespace ui
