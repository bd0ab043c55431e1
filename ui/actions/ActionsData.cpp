#include "ui/actions/ActionsData.h"

#include "core/actions-cache/RemoteBackends.h"
#include "core/jobs/Job.h"
#include "core/remote/Conninfo.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <chrono>

namespace ui {

bool looksLikeActionsData(const QString& path)
{
    const QFileInfo info(path);
    if (info.isDir())
        return QFileInfo(QDir(path).filePath(QStringLiteral("sqlite.db"))).isFile();
    return info.isFile() && info.fileName() == QLatin1String("sqlite.db");
}

ActionsDataLocation resolveActionsData(const QString& path)
{
    const QFileInfo info(path);
    ActionsDataLocation where;
    where.dataDir = info.isDir() ? info.absoluteFilePath() : info.absolutePath();
    where.paths = cs::actions::resolveDataDir(QFile::encodeName(info.absoluteFilePath()).toStdString());
    return where;
}

QString actionsDatabaseName(const ActionsDataLocation& where)
{
    if (cs::actions::isPostgresLocation(where.paths.dbPath))
        return QString::fromStdString(cs::remote::redactConninfo(where.paths.dbPath));
    return QDir::toNativeSeparators(QString::fromStdString(where.paths.dbPath));
}

QString actionsStorageName(const ActionsDataLocation& where)
{
    if (cs::actions::isS3Location(where.paths.storageDir))
        return QString::fromStdString(where.paths.storageDir);
    return QDir::toNativeSeparators(QString::fromStdString(where.paths.storageDir));
}

QString actionsEntryStateName(cs::actions::EntryState s)
{
    return QString::fromLatin1(cs::actions::entryStateName(s));
}

QString formatEpochMs(std::optional<int64_t> ms)
{
    if (!ms || *ms <= 0)
        return QCoreApplication::translate("ui::Actions", "never");
    return QDateTime::fromMSecsSinceEpoch(*ms).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString formatAgeMs(int64_t ms)
{
    const int64_t s = std::max<int64_t>(0, ms / 1000);
    if (s < 60)
        return QCoreApplication::translate("ui::Actions", "%1 s").arg(s);
    if (s < 3600)
        return QCoreApplication::translate("ui::Actions", "%1 min").arg(s / 60);
    if (s < 86400)
        return QCoreApplication::translate("ui::Actions", "%1 h %2 min").arg(s / 3600).arg(s % 3600 / 60);
    return QCoreApplication::translate("ui::Actions", "%1 d %2 h").arg(s / 86400).arg(s % 86400 / 3600);
}

int64_t nowEpochMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::unique_ptr<cs::actions::ActionsCache> openActionsForReading(const cs::actions::DataDirPaths& paths)
{
    return cs::actions::ActionsCache::open(paths, false);
}

std::unique_ptr<cs::actions::ActionsCache> openActionsForWriting(const cs::actions::DataDirPaths& paths)
{
    return cs::actions::ActionsCache::open(paths, true);
}

ActionsSnapshot readActionsSnapshot(const cs::actions::DataDirPaths& paths, cs::Job& job, size_t limit)
{
    ActionsSnapshot s;
    auto cache = openActionsForReading(paths);
    s.totalEntries = cache->entryCount();
    auto page = cache->entriesPage(std::nullopt, std::max<size_t>(limit, 1), &job);
    s.entries = std::move(page.entries);
    s.next = std::move(page.next);
    job.checkCancel();
    s.uploads = cache->uploads();
    s.readAtMs = nowEpochMs();
    return s;
}

} // namespace ui
