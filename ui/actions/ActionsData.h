// What the cache-server document reads, and the one place it opens the
// server's data. Every read is a job of its own: open the data read-only
// (cs::actions::ActionsCache::open without writable), read, close. Nothing
// stays open while the user looks at the window, so a running server never
// waits on us and no byte of the data dir changes. Writes open the data
// writable only after the user confirmed them, for the length of that job.
#pragma once
#include "core/actions-cache/ActionsCache.h"

#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace cs { class Job; }

namespace ui {

// Where a server's data is: the folder the user named (or the folder of the
// sqlite.db they named) and the database and storage the core resolved. A
// deployment opened with the Open Cache Server dialog has no dataDir; its
// paths name a PostgreSQL URL and an s3:// location and carry the secrets
// typed in (memory only: see actionsDatabaseName for what may be shown).
struct ActionsDataLocation {
    QString dataDir;
    cs::actions::DataDirPaths paths;
};

// The database and storage as they may be shown: a PostgreSQL URL without
// its password ("postgres://cache@db:5432/cache"), a local path as is.
QString actionsDatabaseName(const ActionsDataLocation& where);
QString actionsStorageName(const ActionsDataLocation& where);

// True when path names what should open as a cache server's data: a folder
// holding sqlite.db, or a file named sqlite.db. Looks at names only.
bool looksLikeActionsData(const QString& path);
// Resolves path through the core (cs::actions::resolveDataDir); throws
// cs::Error naming what is missing.
ActionsDataLocation resolveActionsData(const QString& path);

QString actionsEntryStateName(cs::actions::EntryState s);
// "2026-11-30 17:01:02" for epoch milliseconds; "never" for none.
QString formatEpochMs(std::optional<int64_t> ms);
// "40 s", "3 min", "2 h 5 min", "4 d 3 h".
QString formatAgeMs(int64_t ms);
int64_t nowEpochMs();

// Entries are browsed a page at a time in the catalog's key order (keyset
// paging, cs::actions::EntryCursor): a read holds the first pages, the
// entries model fetches the rest as the table scrolls.
constexpr size_t kActionsPageSize = 200;

struct ActionsSnapshot {
    std::vector<cs::actions::ActionsEntry> entries;   // the first page(s), in key order
    std::optional<cs::actions::EntryCursor> next;     // where more entries start; nullopt: these are all
    uint64_t totalEntries = 0;                        // cache_entries rows at the time of the read
    std::vector<cs::actions::ActionsUpload> uploads;
    int64_t readAtMs = 0;
    bool complete() const { return !next.has_value(); }
};
using ActionsSnapshotPtr = std::shared_ptr<const ActionsSnapshot>;

// These take the core's paths, not an ActionsDataLocation: work on a worker
// thread captures no QString (ui/jobs/Background.h).
// Opens the data read-only: no byte of the data dir changes.
std::unique_ptr<cs::actions::ActionsCache> openActionsForReading(const cs::actions::DataDirPaths& paths);
// Opens the data for a write the user confirmed (merge, evict, orphans).
std::unique_ptr<cs::actions::ActionsCache> openActionsForWriting(const cs::actions::DataDirPaths& paths);
// The entry count, the first `limit` entries and the pending uploads in one read.
ActionsSnapshot readActionsSnapshot(const cs::actions::DataDirPaths& paths, cs::Job& job,
                                    size_t limit = kActionsPageSize);

} // namespace ui
