#include "ui/actions/ActionsWatcher.h"

#include "core/actions-cache/RemoteBackends.h"

#include <memory>
#include <mutex>

namespace ui {

namespace {

// The catalog, opened read-only by the first poll on its worker thread.
struct StampReader {
    cs::actions::DataDirPaths paths;
    std::mutex mutex;
    std::unique_ptr<cs::actions::ActionsCatalog> catalog;

    std::string read()
    {
        std::lock_guard lock(mutex);
        if (!catalog)
            catalog = cs::actions::openCatalogAt(paths.dbPath, false, paths.credentials);
        return catalog->changeStamp();
    }
};

PollLoop<std::string>::Read stampRead(const cs::actions::DataDirPaths& paths)
{
    auto r = std::make_shared<StampReader>();
    r->paths = paths;
    return [r] { return r->read(); };
}

} // namespace

ActionsWatcher::ActionsWatcher(const cs::actions::DataDirPaths& paths, QObject* parent)
    : QObject(parent),
      loop_(this, stampRead(paths),
            cs::actions::isPostgresLocation(paths.dbPath) || cs::actions::isMysqlLocation(paths.dbPath) ? kRemoteIntervalMs
                                                                                                       : kLocalIntervalMs,
            [this] { Q_EMIT changed(); }, [this] { Q_EMIT polled(); })
{
}

void ActionsWatcher::setPaused(bool paused)
{
    const bool resumed = loop_.isPaused() && !paused;
    loop_.setPaused(paused);
    if (resumed)
        loop_.rebaseline();
}

} // namespace ui
