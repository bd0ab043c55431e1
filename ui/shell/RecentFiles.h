// Recently opened files and folders, most recent first, kept in QSettings
// (key "recentFiles", at most 10). Paths that no longer exist are dropped
// whenever the list is read.
#pragma once
#include <QObject>
#include <QSettings>
#include <QStringList>

class QMenu;

namespace ui {

class RecentFiles : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxEntries = 10;

    explicit RecentFiles(QObject* parent = nullptr);

    void add(const QString& path);
    void remove(const QString& path);
    void clear();
    QStringList paths() const;
    // Refills menu with one action per path (and "Clear Recent"), or one
    // disabled "No recent files" line; the menu itself stays enabled.
    void fillMenu(QMenu* menu);

Q_SIGNALS:
    void openRequested(const QString& path);
    // The list changed (add, remove, clear).
    void changed();

private:
    void store(const QStringList& paths);

    // One settings object for the window's life: a QSettings per call re-reads
    // and re-writes the file each time (tens of ms on the GUI thread).
    mutable QSettings settings_;
};

} // namespace ui
