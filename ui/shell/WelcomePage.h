// What the main window shows while nothing is open: how to open a file or a
// store (menu, buttons, drag and drop) and the recent files as links.
#pragma once
#include <QWidget>

class QLabel;

namespace ui {
class RecentFiles;

class WelcomePage : public QWidget {
    Q_OBJECT
public:
    explicit WelcomePage(RecentFiles* recent, QWidget* parent = nullptr);
    void refresh();

Q_SIGNALS:
    void openFileRequested();
    void openStoreRequested();
    void openPathRequested(const QString& path);

protected:
    void showEvent(QShowEvent* event) override;

private:
    RecentFiles* recent_;
    QLabel* recentLabel_;
};

} // namespace ui
