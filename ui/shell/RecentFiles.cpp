#include "ui/shell/RecentFiles.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace ui {

namespace {
const QString kKey = QStringLiteral("recentFiles");
}

RecentFiles::RecentFiles(QObject* parent) : QObject(parent) {}

QStringList RecentFiles::paths() const
{
    const QStringList stored = settings_.value(kKey).toStringList();
    QStringList existing;
    for (const QString& p : stored)
        if (QFileInfo::exists(p) && !existing.contains(p))
            existing << p;
    while (existing.size() > kMaxEntries)
        existing.removeLast();
    if (existing != stored)
        const_cast<RecentFiles*>(this)->store(existing);
    return existing;
}

void RecentFiles::add(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = paths();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaxEntries)
        list.removeLast();
    store(list);
}

void RecentFiles::remove(const QString& path)
{
    QStringList list = paths();
    list.removeAll(QFileInfo(path).absoluteFilePath());
    store(list);
}

void RecentFiles::clear()
{
    store({});
}

void RecentFiles::store(const QStringList& paths)
{
    if (settings_.value(kKey).toStringList() == paths)
        return;
    settings_.setValue(kKey, paths);
    Q_EMIT changed();
}

void RecentFiles::fillMenu(QMenu* menu)
{
    // Read first: paths() may drop vanished files and emit changed(), which
    // refills this menu before this call does.
    const QStringList list = paths();
    menu->clear();
    int n = 0;
    for (const QString& p : list) {
        ++n;
        const QString label = QStringLiteral("&%1 %2").arg(n % 10).arg(QDir::toNativeSeparators(p));
        QAction* action = menu->addAction(label);
        connect(action, &QAction::triggered, this, [this, p] { Q_EMIT openRequested(p); });
    }
    if (list.isEmpty()) {
        menu->addAction(tr("No recent files"))->setEnabled(false);
    } else {
        menu->addSeparator();
        connect(menu->addAction(tr("Clear Recent")), &QAction::triggered, this, &RecentFiles::clear);
    }
    menu->setEnabled(true);
}

} // namespace ui
