// Follows a cache server's changes for its document: polls the catalog's
// change stamp (ActionsCatalog::changeStamp: on SQLite the size and mtime of
// sqlite.db and its journal files plus row counts and newest times; on
// PostgreSQL the same counts and times and the tables' change counters)
// through ui/jobs/PollLoop, read-only, and emits changed() when it moved.
// Nothing is written to the server's data and nothing is held between
// polls: the catalog object opens and closes a connection per read.
#pragma once
#include "core/actions-cache/ActionsCache.h"
#include "ui/jobs/PollLoop.h"

#include <QObject>

#include <string>

namespace ui {

class ActionsWatcher : public QObject {
    Q_OBJECT
public:
    static constexpr int kLocalIntervalMs = 1000;   // SQLite: a stat of three files and one small read
    static constexpr int kRemoteIntervalMs = 3000;  // PostgreSQL, MySQL: a round trip to the database

    explicit ActionsWatcher(const cs::actions::DataDirPaths& paths, QObject* parent = nullptr);

    void setInterval(int ms) { loop_.setInterval(ms); }
    // While paused (this document is writing or reading) no poll runs; the
    // stamp after the pause is taken as seen (rebaseline).
    void setPaused(bool paused);
    void rebaseline() { loop_.rebaseline(); }
    std::string seen() const { return loop_.seen(); }

Q_SIGNALS:
    void changed();
    void polled();   // every poll that read a stamp (for tests)

private:
    PollLoop<std::string> loop_;
};

} // namespace ui
