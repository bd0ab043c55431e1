// The main window's menus: File (open, recent, export, close, quit), Edit
// (find), View (refresh, sidebar), Tools, Help (guide, about). Every key is
// explicit (ui/shell/Shortcuts.h), so it is the same under every theme.
#include "core/util/Sqlite.h"
#include "ui/actions/ActionsDocument.h"
#include "ui/bench/BenchmarkDocument.h"
#include "ui/shell/Document.h"
#include "ui/shell/GuideWindow.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/RecentFiles.h"
#include "ui/shell/Shortcuts.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <qcustomplot.h>
#include <zstd.h>

namespace ui {

QString MainWindow::aboutText()
{
    return tr("<h3>cachescope %1</h3>"
              "<p>Inspect build-cache stores and zstd snapshots: frame layouts, stores, garbage collection "
              "and benchmarks.</p>"
              "<table>"
              "<tr><td>Qt</td><td>%2 (built with %3)</td></tr>"
              "<tr><td>zstd</td><td>%4</td></tr>"
              "<tr><td>SQLite</td><td>%5</td></tr>"
              "<tr><td>QCustomPlot</td><td>%6</td></tr>"
              "</table>")
        .arg(QApplication::applicationVersion().isEmpty() ? QStringLiteral(CACHESCOPE_VERSION)
                                                          : QApplication::applicationVersion(),
             QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR),
             QString::fromLatin1(ZSTD_versionString()), QString::fromStdString(cs::sqlite::libraryVersion()),
             QStringLiteral(QCUSTOMPLOT_VERSION_STR));
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* openFile = file->addAction(tr("&Open File…"), this, &MainWindow::openFileDialog);
    openFile->setObjectName(QStringLiteral("actionOpenFile"));
    setShortcuts(openFile, QKeySequence(Qt::CTRL | Qt::Key_O), QKeySequence::Open);
    QAction* openStore = file->addAction(tr("Open &Store Folder…"), this, &MainWindow::openStoreDialog);
    openStore->setObjectName(QStringLiteral("actionOpenStore"));
    setShortcuts(openStore, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    file->addAction(tr("Open &Cache Server Data…"), this, &MainWindow::openActionsDataDialog);
    QAction* openServer = file->addAction(tr("Open Cache Ser&ver…"), this, [this] {
        // A PostgreSQL + S3 deployment (ui/actions/CacheServerDialog): no
        // path, so no recent-files entry (its secrets are never stored).
        if (auto* doc = ActionsDocument::openServerWithDialog(this))
            addDocument(doc, doc->title(), QString());
    });
    openServer->setObjectName(QStringLiteral("actionOpenCacheServer"));
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    recentMenu_->setObjectName(QStringLiteral("recentMenu"));
    // Refilled whenever the list changes, so a first open in a first run
    // shows up at once (a disabled menu never gets aboutToShow).
    connect(recent_, &RecentFiles::changed, this, [this] { recent_->fillMenu(recentMenu_); });
    recent_->fillMenu(recentMenu_);
    file->addSeparator();
    exportMenu_ = file->addMenu(tr("&Export"));
    connect(exportMenu_, &QMenu::aboutToShow, this, &MainWindow::fillExportMenu);
    file->addSeparator();
    QAction* close = file->addAction(tr("&Close Tab"), this, &MainWindow::closeCurrentTab);
    close->setObjectName(QStringLiteral("actionCloseTab"));
    setShortcuts(close, QKeySequence(Qt::CTRL | Qt::Key_W), QKeySequence::Close);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setObjectName(QStringLiteral("actionQuit"));
    setShortcuts(quit, QKeySequence(Qt::CTRL | Qt::Key_Q), QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    findAction_ = edit->addAction(tr("&Find…"), this, &MainWindow::focusFilter);
    findAction_->setObjectName(QStringLiteral("actionFind"));
    findAction_->setToolTip(tr("Go to the filter box of the current view"));
    setShortcuts(findAction_, QKeySequence(Qt::CTRL | Qt::Key_F), QKeySequence::Find);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    refreshAction_ = view->addAction(tr("&Refresh"), this, &MainWindow::refreshCurrent);
    refreshAction_->setObjectName(QStringLiteral("actionRefresh"));
    setShortcuts(refreshAction_, QKeySequence(Qt::Key_F5), QKeySequence::Refresh);
    view->addSeparator();
    view->addAction(sidebarDock_->toggleViewAction());

    menuBar()->addMenu(tr("&Tools"))->addAction(tr("&Benchmarks"), this, [this] { addDocument(new BenchmarkDocument, tr("Benchmarks"), QString()); });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* guide = help->addAction(tr("cachescope &User Guide"), this, &MainWindow::showGuide);
    guide->setObjectName(QStringLiteral("actionGuide"));
    setShortcuts(guide, QKeySequence(Qt::Key_F1), QKeySequence::HelpContents);
    help->addSeparator();
    QAction* about = help->addAction(tr("&About cachescope"), this, [this] {
        QMessageBox::about(this, tr("About cachescope"), aboutText());
    });
    about->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt)->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::fillExportMenu()
{
    exportMenu_->clear();
    const auto* doc = dynamic_cast<const Document*>(currentDocument());
    const QList<QAction*> actions = doc ? doc->exportActions() : QList<QAction*>();
    if (actions.isEmpty()) {
        exportMenu_->addAction(tr("Nothing to export"))->setEnabled(false);
        return;
    }
    exportMenu_->addActions(actions);
}

void MainWindow::updateDocumentActions()
{
    auto* doc = dynamic_cast<Document*>(currentDocument());
    refreshAction_->setEnabled(doc != nullptr);
    // Find stays enabled: focusFilter() says in the status bar when the
    // current document has no filter.
}

void MainWindow::focusFilter()
{
    auto* doc = dynamic_cast<Document*>(currentDocument());
    QLineEdit* edit = doc ? doc->showFilter() : nullptr;
    if (!edit) {
        statusBar()->showMessage(tr("This view has no filter."), 3000);
        return;
    }
    edit->setFocus(Qt::ShortcutFocusReason);
    edit->selectAll();
}

void MainWindow::refreshCurrent()
{
    if (auto* doc = dynamic_cast<Document*>(currentDocument()))
        doc->refresh();
}

void MainWindow::showGuide()
{
    if (!guide_)
        guide_ = new GuideWindow(this);
    guide_->show();
    guide_->raise();
    guide_->activateWindow();
}

void MainWindow::openFileDialog()
{
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Open zstd file"), QString(), tr("zstd files (*.zst *.zstd *.tzst);;All files (*)"));
    for (const QString& p : paths)
        openPath(p);
}

void MainWindow::openStoreDialog()
{
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Open store folder"));
    if (!folder.isEmpty())
        openPath(folder);
}

void MainWindow::openActionsDataDialog()
{
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Open the data dir of a github-actions-cache-server (with sqlite.db and storage/)"));
    if (!folder.isEmpty())
        openActionsData(folder);
}

} // namespace ui
