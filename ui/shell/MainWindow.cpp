#include "ui/shell/MainWindow.h"

#include <QTabWidget>

namespace ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), tabs_(new QTabWidget(this))
{
    setWindowTitle(tr("cachescope"));
    setCentralWidget(tabs_);
}

bool MainWindow::openPath(const QString& path)
{
    Q_UNUSED(path);
    return false;
}

} // namespace ui
