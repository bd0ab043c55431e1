// The size index of a cache-server deployment: what only the files tell
// (each location's bytes and parts) and a copy of the rows, in cachescope's
// own SQLite file, so every entry sorts and filters by size, parts, state
// and last use, and the server report reads no folder twice.
//
// Where: $XDG_CACHE_HOME/cachescope/actions-index/<hash>.db (else
// ~/.cache/...), the hash of the catalog and storage it describes. Never
// inside the server's data: a cache folder below the data dir or the
// storage folder is refused with an error naming both.
//
// Format (schema 1; a file of another schema is rebuilt, it is a cache):
//   meta(k PRIMARY KEY, v)        schema, catalog, storage, last_scan_ms
//   folders(name PRIMARY KEY, stamp, racy, listed_ms, present, has_parts,
//           merged_size NULL, parts "i:size i:size ...", part_count,
//           part_bytes, strays and links (names joined by NUL), error)
//                                 one row per storage folder, as listed
//   entries(id PRIMARY KEY, the cache_entries row and its location's
//           columns, state, last_used, family, and from the folder: size,
//           parts_present, part_bytes, merged_present, error)
//           indexed by (size, id), (part_count, id), (state, id),
//           (last_used, id), (updated_at, id), (key, version, id)
//
// Scan and rescan (refresh): the first one lists every folder (stat per
// file; S3: the root's list pages) and reads every row. A rescan reads the
// rows changed since the last one (the server stamps each change: updatedAt,
// mergeStartedAt, mergedAt, partsDeletedAt, lastDownloadedAt; with 5 minutes
// of slack for clocks and late commits), walks the ids alone to see deleted
// and unseen rows, re-reads rows held as "merge started" (the server's
// 15-minute reset clears mergeStartedAt without a stamp), and relists only
// the folders whose stamp changed (filesystem: mtime and ctime of the folder
// and parts/; a stamp within 2 s of its listing is relisted next time, as a
// change in the same tick would not move it) or whose rows changed, plus
// merge-started and upload folders (files that grow in place). S3 has no
// stamps: a rescan relists the folders of changed rows; a full scan finds
// new orphans. Each refresh is one transaction: cancelled or failed, the
// index is as it was.
#pragma once
#include "core/actions-cache/ActionsCache.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cs {
class Job;
namespace sqlite { class Database; class Statement; }
}

namespace cs::actions {

struct IndexRefreshStats {
    bool full = false;            // every row read and every folder listed
    uint64_t rowsRead = 0;        // full entry rows read from the catalog
    uint64_t idsRead = 0;         // ids read by the walk that finds deleted rows
    uint64_t foldersStamped = 0;  // folders stat'ed for their stamp
    uint64_t foldersListed = 0;   // folders listed (S3: folders cut from the list pages)
    uint64_t entriesDeleted = 0;  // rows gone from the catalog since the last scan
    uint64_t entries = 0, folders = 0;   // what the index holds afterwards
    double seconds = 0;
};

class SizeIndex {
public:
    // The index file for a deployment named catalogName + storageName (as
    // their describe() gives them); localData are the folders of its data
    // (the sqlite.db's folder, the storage folder) that the index must not
    // be inside. Throws cs::Error naming both when it would be.
    static std::string pathFor(const std::string& catalogName, const std::string& storageName,
                               const std::vector<std::string>& localData);
    // Opens (creating) the index file at path.
    explicit SizeIndex(std::string path);
    ~SizeIndex();
    SizeIndex(const SizeIndex&) = delete;
    SizeIndex& operator=(const SizeIndex&) = delete;

    const std::string& path() const { return path_; }
    bool built();                              // a scan has finished
    std::optional<int64_t> lastScanMs();

    // Brings the index up to date with the catalog and storage (see the top
    // of this file); full = a first scan whatever the index holds.
    IndexRefreshStats refresh(ActionsCatalog& catalog, ActionsStorage& storage, Job* job = nullptr,
                              bool full = false);

    // Entries matching the query in its order (any EntryOrder), after
    // `after`: at most limit, as the last refresh saw them.
    ActionsEntryPage page(const EntryQuery& query, const std::optional<EntryCursor>& after, size_t limit);
    uint64_t count(const EntryQuery& query);
    // Every indexed entry, in id order, a page at a time (the report's pass).
    void forEachEntry(const std::function<void(const ActionsEntry&)>& fn, Job* job = nullptr);

    // Entries grouped by column ("family", "scope" or "repo_id"): name,
    // entries, bytes, newest and oldest updatedAt, largest first. SQL over
    // the index: memory is the result.
    struct Group {
        std::string name;
        uint64_t entries = 0, bytes = 0;
        int64_t newestMs = 0, oldestMs = 0;
    };
    std::vector<Group> groupBy(const std::string& column);

    // A folder as the last refresh listed it; nullopt when it was not
    // there. error is set (and the listing empty) for one that could not be listed.
    std::optional<FolderListing> listing(const std::string& folder, std::string* error = nullptr);
    std::vector<std::string> folderNames();

private:
    struct Refresh;
    std::string path_;
    std::unique_ptr<sqlite::Database> db_;
    // listing()'s statement, prepared once (verify asks for every folder);
    // declared after db_, so it is finalized before the database closes.
    std::unique_ptr<sqlite::Statement> listing_;
};

// A read-only view of a storage that answers folders() and listings from
// the index (what verify needs), and opens objects through live. The index
// and live must outlive it.
std::unique_ptr<ActionsStorage> indexedStorage(SizeIndex& index, ActionsStorage& live);
// A read-only view of a catalog whose entry rows are the index's copy (as
// the last refresh read them); locations without an entry, uploads and the
// rest come from live (IndexedCatalog.cpp). The index and live must outlive it.
std::unique_ptr<ActionsCatalog> indexedCatalog(SizeIndex& index, ActionsCatalog& live);

} // namespace cs::actions
