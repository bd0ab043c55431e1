// The main window: a tab per opened store or file, a sidebar of what is open,
// File menu with Open and recent files, and a status bar.
#pragma once
#include <QMainWindow>

class QTabWidget;

namespace ui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    // Opens a store folder or a zstd file in a new tab; false with a message box on failure.
    bool openPath(const QString& path);

private:
    QTabWidget* tabs_ = nullptr;
};

} // namespace ui
