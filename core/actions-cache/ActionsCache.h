// A github-actions-cache-server deployment's data (schema v9.4.7), opened
// offline through its catalog and storage (ActionsBackend.h): what it holds,
// what is wrong with it, and the writes an operator asks for. The CLI
// (`actions-cache`) and the GUI both stay thin layers over this.
//
// Read-only is a guarantee: open() without writable opens the catalog
// read-only (no byte of the data dir changes); every read lists each storage
// folder once, so the work is bounded by the files present, never by a part
// count a row claims. Writes (merge, evict, removeOrphans) need writable and
// refuse while the server looks active, unless forced; each is crash-safe
// and idempotent (docs/actions-cache.md gives the order of every step).
// Crash tests: CACHESCOPE_ACTIONS_KILL_AT=<point>[:n] raises SIGKILL at the
// n-th pass of a named point (listed in docs/actions-cache.md).
// Threads: the SQLite and filesystem backends keep no state between calls
// (each call opens and closes its own connection), so one ActionsCache may
// serve a listing on one thread while a job runs on another.
#pragma once
#include "core/actions-cache/ActionsBackend.h"
#include "core/util/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cs {
class Job;
namespace store { class Store; }
}

namespace cs::actions {

class SizeIndex;
struct IndexRefreshStats;

// The catalog and storage of a data dir. DATA_DIR holds sqlite.db and either
// storage/filesystem/ (the server's defaults, DB_SQLITE_PATH=.data/sqlite.db,
// STORAGE_FILESYSTEM_PATH=.data/storage/filesystem) or storage/ with the
// folders directly in it. DATA_DIR may also be the sqlite.db file itself.
// db/storage override each half. Throws when a path is missing.
// The halves may also be the server's other drivers: db a PostgreSQL URL
// (postgres://USER@HOST:PORT/DB) or a MySQL one (mysql://USER@HOST:PORT/DB)
// and storage an S3 location
// (s3://BUCKET[/ROOT]) or a GCS one (gs://BUCKET[/ROOT]); DATA_DIR is then not needed (core/actions-cache/RemoteBackends.h).
struct DataDirPaths {
    std::string dbPath;           // SQLite file, or a PostgreSQL URL / conninfo, or a MySQL URL
    std::string storageDir;       // storage folder, or s3://BUCKET[/ROOT] or gs://BUCKET[/ROOT]
    std::string endpoint;         // S3 endpoint URL (else AWS_ENDPOINT_URL, else AWS's)
    std::string region;           // S3 region (else AWS_REGION)
    RemoteCredentials credentials;
};
DataDirPaths resolveDataDir(const std::string& dataDir, const std::optional<std::string>& db = {},
                            const std::optional<std::string>& storage = {});

// unmerged: parts only. merge started: mergeStartedAt set, no mergedAt (a
// merge running, or one that stalled). merged: the merged object, parts
// still there. parts deleted: merged and the parts removed (the server's end
// state; without mergedAt it is damage verify reports).
enum class EntryState { Unmerged, MergeStarted, Merged, PartsDeleted };
const char* entryStateName(EntryState s); // "unmerged", "merge started", "merged", "parts deleted"
// The state a name gives: entryStateName's words, with '-' or ' ' between.
std::optional<EntryState> entryStateFromName(std::string_view name);

struct ActionsEntry {
    std::string id, key, version, scope, repoId;
    int64_t updatedAtMs = 0;
    std::string locationId;
    bool hasLocation = false;     // false: locationId names no storage_locations row
    std::string folderName;
    int64_t partCount = 0;        // as the row claims
    std::optional<int64_t> mergeStartedAtMs, mergedAtMs, partsDeletedAtMs, lastDownloadedAtMs;
    // Newer servers' storage_locations.sizeBytes: what the server counts for
    // its capacity eviction (nullopt: no such column, or NULL).
    std::optional<int64_t> sizeBytes;
    EntryState state = EntryState::Unmerged;
    // From the files (one listing of the folder):
    uint64_t size = 0;            // the stored blob: merged object when merged, else the parts present
    uint64_t partsPresent = 0;    // part objects found
    uint64_t partBytes = 0;       // their bytes
    bool mergedPresent = false;
    std::string storageError;     // the folder could not be listed (a link, not a folder, ...)

    bool merged() const { return mergedAtMs.has_value(); }
};

struct ActionsUpload {
    UploadRow row;
    uint64_t partsPresent = 0;    // part objects in its folder
    uint64_t partBytes = 0;
    int64_t ageMs = 0;            // since the last part (or creation when none)
    std::string note;             // reapUploads: what was left, and why ("" when row and folder went)
};

struct ActionsUploadSkip {
    ActionsUpload upload;
    std::string reason;
};

// One part of an entry for a parts pane: present ones with their size, and
// missing indexes below the claimed count (at most maxMissing of them).
struct ActionsPart {
    uint64_t index = 0;
    uint64_t size = 0;
    bool present = false;
};

enum class FindingKind {
    MissingParts,         // fewer part objects than partCount (unmerged entry)
    ExtraParts,           // part indexes at or above partCount, or stray names in parts/
    MergedMissing,        // mergedAt set, no merged object
    MergedWrongSize,      // merged object's size differs from the parts still present
    PartsDeletedUnmerged, // partsDeletedAt set without mergedAt: nothing left to serve
    StalledMerge,         // mergeStartedAt older than the server's 15-minute reset, no mergedAt
    OrphanFolder,         // a storage folder no location or upload names
    LocationWithoutEntry, // a storage_locations row no cache entry names
    EntryWithoutLocation, // a cache entry naming a missing location
    UnfinishedUpload,     // an uploads row (uploads are deleted when they finish)
    SymbolicLink,         // a link inside the storage folder (never followed)
    StorageError,         // a folder that cannot be listed
    SizeBytesWrong,       // newer servers: the location's sizeBytes matches neither its blob nor its folder
};
const char* findingKindName(FindingKind k); // "missing-parts", "orphan-folder", ...

struct Finding {
    FindingKind kind;
    std::string entryId;          // cache entry, location or upload id ("" for an orphan folder)
    std::string key;
    std::string folder;           // storage folder name it concerns ("" when none)
    std::string path;             // object or folder it is about
    std::string message;          // one sentence
    uint64_t bytes = 0;           // orphans: bytes the folder holds
};

// Whether the server runs, from what the system shows first, row times
// second (issue 21). The signals, in the order they are asked:
//   ProcessHoldsDatabase  another process of this host has sqlite.db (or its
//                         journal) open: the server keeps it open while it runs
//   ProcessHoldsStorage   another process has something below the storage open
//   DatabaseSessions      PostgreSQL, MySQL: other sessions on the database
//   ServerAnswers         --server URL: something answers there
//   RecentRows            an upload created or given a part, a merge started
//                         or finished, an entry written or downloaded within
//                         the window (rows cannot tell who wrote them: a
//                         cachescope merge counts too)
// Writes refuse while any is seen, unless forced.
constexpr int64_t kActivityWindowMs = 5 * 60 * 1000;
enum class ActivitySignal { None, ProcessHoldsDatabase, ProcessHoldsStorage, DatabaseSessions, ServerAnswers, RecentRows };
const char* activitySignalName(ActivitySignal s); // "process-holds-database", ..., "recent-rows"
struct Activity {
    bool active = false;
    ActivitySignal signal = ActivitySignal::None;
    std::string reason;           // what was seen: "process 4242 (node) has /srv/.data/sqlite.db open"
    std::string clears;           // what would clear it: "stop the server", "wait 4 min", ...
};

// A write refused because the server looks active: what was seen, for a
// refusal a script can read (--json).
class ServerActive : public Error {
public:
    ServerActive(const std::string& message, Activity a) : Error(message), activity(std::move(a)) {}
    Activity activity;
};

struct ActionsMergeResult {
    std::string id, key;
    uint64_t bytes = 0;
    bool merged = false;          // a merged object was written
    bool error = false;           // refused: action says why (parts missing, a link, ...)
    bool skipped = false;         // the row changed since the plan (the server, or another run, got there
                                  // first), or its parts wait out the grace: not a failure
    std::string action;           // what was (or would be) done, or why not, one phrase
};

// An entry a write planned and left alone, and why (one phrase).
struct ActionsSkip {
    ActionsEntry entry;
    std::string reason;
};

struct ActionsEvictPolicy {
    std::optional<int64_t> olderThanMs;   // updatedAt before now - this
    std::optional<int64_t> unusedForMs;   // lastDownloadedAt (updatedAt when never downloaded) before now - this
    std::optional<uint64_t> maxBytes;     // then least recently used first until the rest <= this
    std::vector<std::string> keys;        // only these keys (a trailing '*' matches a prefix)
};

struct ActionsImportFailure {
    std::string id, key;
    std::string reason;           // one sentence naming the object
};

struct ActionsImportResult {
    uint64_t entries = 0;         // stored
    uint64_t skipped = 0;         // imported before (the same save): left as they are
    std::vector<ActionsImportFailure> failed;
    uint64_t bytes = 0;           // logical bytes imported
    uint64_t chunks = 0, newChunks = 0;
    uint64_t appendedBytes = 0;   // pack bytes written (after dedup and compression)
    std::vector<int64_t> unmerged;   // with noMerge: the store ids committed by this import, unmerged
    bool mergingInBackground = false;   // set by a caller that merges them behind the command
};

// One page of entries in the catalog's browse order (EntryCursor: key,
// version, id), with their sizes from the files.
struct ActionsEntryPage {
    std::vector<ActionsEntry> entries;
    std::optional<EntryCursor> next;   // where the next page starts; nullopt after the last
};

// A download that read a location row while it was unmerged streams its
// parts one after another for as long as it runs (the server v9.4.7 holds no
// reader lease), so parts outlive the merge by this long: the merge leaves
// the location "merged" with its parts (the server's hourly cleanup:parts, or
// a later merge run past the grace, deletes them). Evict and the removal of
// uploads skip what was downloaded or written within it.
constexpr int64_t kPartsGraceMs = 10 * 60 * 1000;

struct WriteOptions {
    bool force = false;           // write even while the server looks active
    int64_t partsGraceMs = kPartsGraceMs;
    std::string serverUrl = {};   // http(s)://HOST:PORT of the server, probed as one more activity signal
};

class ActionsCache {
public:
    ActionsCache(std::unique_ptr<ActionsCatalog> catalog, std::unique_ptr<ActionsStorage> storage);
    ~ActionsCache();
    // The SQLite + filesystem data at paths; read-only unless writable.
    static std::unique_ptr<ActionsCache> open(const DataDirPaths& paths, bool writable = false);

    ActionsCatalog& catalog() { return *catalog_; }
    ActionsStorage& storage() { return *storage_; }

    // Reads.
    std::vector<ActionsEntry> entries(Job* job = nullptr);
    // Paged browsing: up to limit entries after `after` (keyset paging, each
    // page an index range scan), their folders listed in parallel where the
    // storage can (S3: up to 8 listings in flight).
    ActionsEntryPage entriesPage(const std::optional<EntryCursor>& after, size_t limit, Job* job = nullptr);
    // The same over the entries matching a query, in its order (filter and
    // sort done by the catalog's SQL).
    ActionsEntryPage entriesPage(const EntryQuery& query, const std::optional<EntryCursor>& after, size_t limit,
                                 Job* job = nullptr);
    // Walks every entry matching the query a page at a time (keyset paging):
    // memory is one page, whatever the catalog holds. onPage may move the
    // entries out. Progress over the matching count when job is given.
    // Returns the entries walked.
    uint64_t forEachEntryPage(const EntryQuery& query, size_t pageSize,
                              const std::function<void(std::vector<ActionsEntry>&)>& onPage, Job* job = nullptr);
    uint64_t entryCount(const std::string& keyContains = {});
    // The entry with this id (the `id` ls --json prints) with its folder
    // listed, or nullopt. Walks the catalog's rows a page at a time (memory:
    // one page) and lists only that entry's folder.
    std::optional<ActionsEntry> entry(const std::string& id);
    // Entries matching a query (the index's count for index-only queries).
    uint64_t entryCount(const EntryQuery& query);

    // The size index of this deployment (SizeIndex.h: cachescope's own file
    // in its cache folder), opened on first use. Queries the catalog cannot
    // serve (catalogServes) page from it; they scan first when it was never
    // built, else they show what the last refresh saw.
    SizeIndex& sizeIndex();
    IndexRefreshStats refreshIndex(Job* job = nullptr, bool full = false);
    std::vector<ActionsUpload> uploads();
    // Throws cs::Error naming the path when the folder cannot be listed (a link, not a folder).
    std::vector<ActionsPart> parts(const ActionsEntry& e, size_t maxMissing = 1000);
    // Streams: entries a page at a time (their folders listed in parallel),
    // then locations without entries, uploads, and the storage's folders.
    // Memory: one page of rows and listings, plus one name per folder (to
    // find orphans) and the findings.
    std::vector<Finding> verify(Job& job);
    // The same findings from the size index's rows and listings (no row
    // read again, no folder listed; as fresh as its last refresh).
    std::vector<Finding> verifyIndexed(Job& job);
    // The first signal seen (ActivitySignal order); serverUrl, when given,
    // is probed (a TCP connect and, for http, one GET), at most 2 s.
    Activity activity(int64_t windowMs = kActivityWindowMs, const std::string& serverUrl = {});

    // Plans: what a write would do, changing nothing.
    // options.force plans a merge of a location another merge started less
    // than 15 minutes ago; options.partsGraceMs decides which parts left
    // after a merge may go now.
    std::vector<ActionsMergeResult> planMerge(const std::vector<std::string>& entryIds,
                                              const WriteOptions& options = {});
    std::vector<ActionsEntry> planEvict(const ActionsEvictPolicy& policy);
    // The write's skip rules over a plan of planEvict: an entry downloaded
    // within options.partsGraceMs, and a location under an unexpired lease
    // of the server, leave planned and come back as skips with the
    // sentence the write gives. The dry run shows them; evict applies the
    // same rules first (and still meets a lease taken since the plan in
    // deleteLocation's transaction).
    std::vector<ActionsSkip> holdBackFromEvict(std::vector<ActionsEntry>& planned, const WriteOptions& options);
    std::vector<Finding> planRemoveOrphans(); // orphan folders and locations without entries

    // Writes (need writable; refuse while active unless options.force).
    // merge: the entries with these ids (all that need it when empty).
    std::vector<ActionsMergeResult> merge(const std::vector<std::string>& entryIds, Job& job, WriteOptions options = {});
    // Returns the entries evicted; those planned but kept go to skipped
    // (when given) with the reason: downloaded within options.partsGraceMs,
    // or their row changed since the plan.
    std::vector<ActionsEntry> evict(const ActionsEvictPolicy& policy, Job& job, WriteOptions options = {},
                                    std::vector<ActionsSkip>* skipped = nullptr);
    std::vector<Finding> removeOrphans(Job& job, WriteOptions options = {});
    // Unfinished uploads idle (no part, and not created) for longer than
    // idleForMs: their rows, then their folders (ActionsUploads.cpp).
    std::vector<ActionsUpload> planReapUploads(int64_t idleForMs);
    std::vector<ActionsUpload> reapUploads(int64_t idleForMs, Job& job, WriteOptions options = {},
                                           std::vector<ActionsUploadSkip>* skipped = nullptr);
    // Copies entries (all when ids is empty) into a native store with the
    // server's key, version, scope (`scope` instead when not empty), repo
    // and updatedAt, re-cut into parts of partSize, merged there unless
    // noMerge (then ActionsImportResult::unmerged lists them); an entry
    // imported before is skipped, one that cannot be read is counted as
    // failed with the reason. Reads only from this data.
    ActionsImportResult importInto(store::Store& target, const std::vector<std::string>& entryIds,
                                   const std::string& scope, uint64_t partSize, bool noMerge, Job& job);

    // Throws naming both halves when the storage holds none of the first
    // entries' folders (open() calls it).
    void requireMatchingStorage();

private:
    void requireWritable(const WriteOptions& options);
    std::unique_ptr<ActionsCatalog> catalog_;
    std::unique_ptr<ActionsStorage> storage_;
    std::unique_ptr<SizeIndex> index_;
};

// verify's work over any catalog and storage (ActionsCache::verify and
// verifyIndexed call it).
std::vector<Finding> verifyData(ActionsCatalog& catalog, ActionsStorage& storage, Job& job);

} // namespace cs::actions
