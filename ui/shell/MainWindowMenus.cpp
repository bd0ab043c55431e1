// The main window's menus: File (open, recent, export, close, quit), View, Help.
#include "ui/bench/BenchmarkDocument.h"
#include "ui/shell/Document.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/RecentFiles.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QMenuBar>
#include <QMessageBox>

namespace ui {

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* openFile = file->addAction(tr("&Open File…"), this, &MainWindow::openFileDialog);
    openFile->setShortcut(QKeySequence::Open);
    QAction* openStore = file->addAction(tr("Open &Store Folder…"), this, &MainWindow::openStoreDialog);
    openStore->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    file->addAction(tr("Open &Cache Server Data…"), this, &MainWindow::openActionsDataDialog);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    connect(recentMenu_, &QMenu::aboutToShow, this, [this] { recent_->fillMenu(recentMenu_); });
    recent_->fillMenu(recentMenu_);
    file->addSeparator();
    exportMenu_ = file->addMenu(tr("&Export"));
    connect(exportMenu_, &QMenu::aboutToShow, this, &MainWindow::fillExportMenu);
    file->addSeparator();
    QAction* close = file->addAction(tr("&Close Tab"), this, &MainWindow::closeCurrentTab);
    close->setShortcut(QKeySequence::Close);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(sidebarDock_->toggleViewAction());

    menuBar()->addMenu(tr("&Tools"))->addAction(tr("&Benchmarks"), this, [this] { addDocument(new BenchmarkDocument, tr("Benchmarks"), QString()); });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About cachescope"), this, [this] {
        QMessageBox::about(this, tr("About cachescope"),
                           tr("<b>cachescope %1</b><p>Inspect build-cache stores and zstd snapshots: frame layouts, "
                              "stores, garbage collection and benchmarks.</p>")
                               .arg(QApplication::applicationVersion()));
    });
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
