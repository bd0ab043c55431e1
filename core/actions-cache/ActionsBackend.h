// The two halves of a github-actions-cache-server deployment, as interfaces,
// so ActionsCache (listing, verify, merge, evict, import) works the same on
// every backend: the server's catalog (SQLite here; PostgreSQL and MySQL plug in) and
// its storage (a local folder here; S3 plugs in).
//
// Rows are the server's own, schema v9.4.7 (lib/migrations.ts $0..$3):
//   storage_locations(id text PK, folderName text, partCount integer,
//                     mergeStartedAt, mergedAt, partsDeletedAt, lastDownloadedAt bigint ms or NULL)
//   cache_entries(id text uuid PK, key, version, scope, repoId text,
//                 updatedAt bigint ms, locationId text -> storage_locations ON DELETE CASCADE)
//   uploads(id bigint PK, key, version, scope, repoId, createdAt bigint ms,
//           lastPartUploadedAt bigint ms or NULL, folderName text,
//           startedPartUploadCount, finishedPartUploadCount integer)
// Storage objects: <folderName>/parts/<index> (index in decimal, parts
// arrive in any order) and <folderName>/merged.
// Newer servers add storage_locations.sizeBytes and the lease tables
// merge_leases and storage_reader_leases (ServerSchema.h): read when there,
// any other added column or table is left alone.
//
// Contract for implementations:
// - Reads change nothing: a catalog opened read-only writes no byte; each
//   read is one short read transaction and nothing (lock, transaction,
//   snapshot) is held between calls, so a running server is never blocked
//   across a user's think time.
// - Writes are only called after the user asked to write; each write method
//   is one transaction (or one object operation) and is idempotent, so a
//   crashed sequence can be run again. Catalog writes are compare-and-set
//   against the row the plan read: beside a running server a lost race is a
//   skip, never a lost update.
// - A write on a location with an unexpired lease of the server (a merge
//   or a download under way) throws LeaseHeld, tested in the write's own
//   transaction; no --force overrides it.
// - Errors are cs::Error with one sentence naming the path/URL and object.
#pragma once
#include "core/util/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cs {
class Job;
}

namespace cs::actions {

// Secrets a user typed in (the GUI's Open Cache Server dialog). Empty ones
// come from the environment (PGPASSWORD or ~/.pgpass, MYSQL_PWD,
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN). Held in
// memory only: never written to settings, recent files, logs or messages.
struct RemoteCredentials {
    std::string dbPassword;   // the database's (PostgreSQL or MySQL)
    std::string accessKeyId, secretAccessKey, sessionToken;
};

struct LocationRow {
    std::string id;
    std::string folderName;
    int64_t partCount = 0;  // as stored: may be absurd (checked against the files, never looped to)
    std::optional<int64_t> mergeStartedAtMs, mergedAtMs, partsDeletedAtMs, lastDownloadedAtMs;
    // Newer servers: the folder's bytes when the upload completed (nullopt:
    // NULL, not backfilled yet, or a v9.4.7 schema without the column).
    std::optional<int64_t> sizeBytes = std::nullopt;
};

// An unexpired lease of the server on a location (ServerSchema.h).
struct LeaseRow {
    std::string table;              // "merge_leases" or "storage_reader_leases"
    std::string id;                 // the merge lease's token, the reader lease's id
    std::string storageLocationId;
    std::string scope;              // reader leases: "parts" or "storage"
    int64_t expiresAtMs = 0;
};

// A write refused because the location is under a lease (the message names it).
class LeaseHeld : public Error {
public:
    LeaseHeld(const std::string& message, LeaseRow l) : Error(message), lease(std::move(l)) {}
    LeaseRow lease;
};

struct EntryRow {
    std::string id, key, version, scope, repoId;
    int64_t updatedAtMs = 0;
    std::string locationId;
    std::optional<LocationRow> location; // nullopt: the row it names is missing
};

struct UploadRow {
    int64_t id = 0;
    std::string key, version, scope, repoId;
    int64_t createdAtMs = 0;
    std::optional<int64_t> lastPartUploadedAtMs;
    std::string folderName;
    int64_t startedPartUploadCount = 0, finishedPartUploadCount = 0;
};

// The orders entries are browsed in, each a total order (id breaks ties),
// so a page starts after the last row of the one before (keyset paging; no
// OFFSET walk). By key the server's idx_cache_entries_key_version serves a
// page as an index range scan from the cursor, forwards or backwards: it
// costs its own rows. By updatedAt there is no index (the server makes none
// and a read-only browser adds none): each page is one scan with a top-N
// sort, so it costs the table once, never the rows before it twice.
//
// The orders after UpdatedOldest sort by what only the files tell (size,
// parts present) or by derived values (state, last use): the catalog cannot
// give them, so ActionsCache serves them (and the scope, repo and key prefix
// filters) from its size index (SizeIndex.h), over every entry.
enum class EntryOrder {
    KeyAscending, KeyDescending, UpdatedNewest, UpdatedOldest,
    SizeLargest, SizeSmallest, PartsMost, PartsFewest, StateAscending, StateDescending,
    LastUsedNewest, LastUsedOldest,  // lastDownloadedAt, updatedAt when never downloaded
};

// Which entries, in which order: done by the catalog's SQL, so a filter on
// a million rows costs the database a scan, not us a million rows.
struct EntryQuery {
    // Only keys holding these bytes, A-Z and a-z alike, other bytes exact
    // ("" = every entry).
    std::string keyContains;
    EntryOrder order = EntryOrder::KeyAscending;
    // Index-only filters (exact bytes; "" = any): keys starting with
    // keyPrefix, entries of this scope (ref) or repo id.
    std::string keyPrefix = {}, scope = {}, repoId = {};
    // Index-only filters on what the files tell (inclusive bounds; nullopt
    // = any): the entry's bytes (SizeIndex's size), its part count as the
    // row claims (the parts sort's column), and a set of states as a mask
    // of 1 << int(EntryState) (0 = any).
    std::optional<uint64_t> minSize = {}, maxSize = {};
    std::optional<int64_t> minParts = {}, maxParts = {};
    unsigned stateMask = 0;

    bool operator==(const EntryQuery&) const = default;
};

// True when the catalog's own SQL gives this query (key and updatedAt
// orders, keyContains only); otherwise the size index does.
inline bool catalogServes(const EntryQuery& q)
{
    return (q.order == EntryOrder::KeyAscending || q.order == EntryOrder::KeyDescending
            || q.order == EntryOrder::UpdatedNewest || q.order == EntryOrder::UpdatedOldest)
           && q.keyPrefix.empty() && q.scope.empty() && q.repoId.empty() && !q.minSize && !q.maxSize
           && !q.minParts && !q.maxParts && q.stateMask == 0;
}

// s with A-Z folded to a-z, nothing else (the key filter's folding).
inline std::string asciiLower(std::string s)
{
    for (char& c : s)
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    return s;
}

// A position in an EntryOrder: the last row's key, version and id (key
// orders), or its updatedAt and id (updatedAt orders).
struct EntryCursor {
    std::string key, version, id;
    int64_t updatedAtMs = 0;
    int64_t sortValue = 0;   // index orders: the last row's size, parts, state or last use
};

class ActionsCatalog {
public:
    virtual ~ActionsCatalog() = default;
    // Where it is, for messages ("/srv/.data/sqlite.db", "postgres://host/db").
    virtual std::string describe() const = 0;
    virtual bool readOnly() const = 0;

    // Reads (each one short read transaction).
    virtual std::vector<EntryRow> entries() = 0;        // with their locations, newest updatedAt first
    virtual std::vector<LocationRow> locations() = 0;   // every location, also those without an entry
    virtual std::vector<UploadRow> uploads() = 0;       // oldest first
    // Up to limit entries with their locations that match the query, in its
    // order, after `after` (from the first when nullopt). Fewer than limit:
    // the last page.
    virtual std::vector<EntryRow> entriesPage(const EntryQuery& query, const std::optional<EntryCursor>& after,
                                              size_t limit) = 0;
    std::vector<EntryRow> entriesPage(const std::optional<EntryCursor>& after, size_t limit)
    {
        return entriesPage(EntryQuery{}, after, limit);
    }
    // Entries whose key holds keyContains ("" = all).
    virtual uint64_t entryCount(const std::string& keyContains = {}) = 0;
    // Locations no cache entry names (an anti-join in the database: the
    // caller holds no set of every location id).
    virtual std::vector<LocationRow> locationsWithoutEntry() = 0;

    // For the size index's rescans (SizeIndex.h). The defaults read every
    // entry (any catalog works); SQLite and PostgreSQL answer in SQL.
    // Entries whose row or location changed at or after ms: updatedAt,
    // mergeStartedAt, mergedAt, partsDeletedAt or lastDownloadedAt >= ms
    // (the server stamps every change it makes with one of them).
    virtual std::vector<EntryRow> entriesChangedSince(int64_t ms);
    // Up to limit entry ids after afterId ("" = from the first), ascending
    // in the order of the catalog's primary key (its collation, whatever it
    // is: the walk never compares ids itself), so that each page is a range
    // of that index and not a sort of the table: a walk of every id that
    // tells deleted and unseen rows (SizeIndex's rescan).
    virtual std::vector<std::string> entryIdsAfter(const std::string& afterId, size_t limit);
    // The entries with these ids (missing ones are left out), any order.
    virtual std::vector<EntryRow> entriesWithIds(const std::vector<std::string>& ids);
    // The server's leases unexpired at nowMs (none on a schema without the
    // lease tables), by location.
    virtual std::vector<LeaseRow> leases(int64_t nowMs)
    {
        (void)nowMs;
        return {};
    }


    // Who else has this catalog open, as the system shows it, one phrase
    // each: on SQLite the other processes of this host holding the database
    // or its journal open (/proc/*/fd: "process 4242 (node) has
    // /srv/.data/sqlite.db open"); on PostgreSQL the other sessions on the
    // database (pg_stat_activity: "session 811 from 10.0.0.5 (app 'cache')"),
    // on MySQL likewise (information_schema.PROCESSLIST: "session 12 from
    // 10.0.0.5:40312 (user 'cache'), Sleep"). Ours are never listed. Reads only.
    virtual std::vector<std::string> otherUsers() = 0;
    // A cheap read-only stamp that differs once another process has changed
    // the catalog (SQLite: size and mtime of the database and its journal
    // files, PRAGMA data_version; PostgreSQL: row counts, the newest row
    // times and the tables' change counters; MySQL: the same counts and
    // times and the tables' UPDATE_TIME). For a view that follows the
    // server by polling; never writes.
    virtual std::string changeStamp() = 0;

    // Writes are compare-and-set. Each tests the location row and writes it
    // in one statement, and changes it only when its merge columns
    // (mergeStartedAt, mergedAt, partsDeletedAt) still hold what `seen`
    // shows (the row as the plan read it; lastDownloadedAt is not compared:
    // every download bumps it). false: the row had changed (the server, or
    // another cachescope run, got there first) and nothing was written; the
    // caller skips the entry, it is not a failure.
    // nullopt clears mergeStartedAt, as the server does when a merge fails.
    // Each throws LeaseHeld, writing nothing, while the location has an
    // unexpired lease (deleteLocation too).
    [[nodiscard]] virtual bool setMergeStarted(const LocationRow& seen, std::optional<int64_t> ms) = 0;
    [[nodiscard]] virtual bool setMerged(const LocationRow& seen, int64_t ms) = 0;
    [[nodiscard]] virtual bool setPartsDeleted(const LocationRow& seen, int64_t ms) = 0;
    // Deletes the location row and every entry row naming it, in one
    // transaction, when the row still holds what `seen` shows, its
    // lastDownloadedAt included (a download since the plan keeps the entry).
    // seen nullopt: the plan found no location row with this id; the entries
    // naming it go only while there still is none.
    [[nodiscard]] virtual bool deleteLocation(const std::string& locationId, const std::optional<LocationRow>& seen) = 0;
    // Deletes an uploads row when it still shows `seen`'s part counts and
    // lastPartUploadedAt (no part came since the plan).
    [[nodiscard]] virtual bool deleteUpload(const UploadRow& seen) = 0;
};

// One object's bytes, read front to back.
class ObjectReader {
public:
    virtual ~ObjectReader() = default;
    virtual uint64_t size() const = 0;
    // Up to n bytes; 0 at the end. Throws on a read error.
    virtual size_t read(void* buf, size_t n) = 0;
    // Moves n bytes forward without handing them out (at most to the end).
    // The default reads and drops them; a file seeks, S3 starts its next
    // ranged GET further on, so a reader of headers only (the frame scan)
    // fetches no byte it skips past a window.
    virtual void skip(uint64_t n);
};

// A merged object being written: bytes go to a temporary object next to the
// final one, which appears only on publish(). Destroyed unpublished, the
// temporary object is removed.
class MergedWriter {
public:
    virtual ~MergedWriter() = default;
    virtual void write(const void* buf, size_t n) = 0;
    // Makes the written bytes durable in the temporary object.
    virtual void finish() = 0;
    // Atomically replaces <folder>/merged with the temporary object.
    virtual void publish() = 0;
};

struct PartObject {
    uint64_t index = 0;
    uint64_t size = 0;
};

// What one folder holds, from ONE listing (work bounded by what is there,
// never by a count a row claims).
struct FolderListing {
    bool exists = false;
    bool hasPartsFolder = false;
    std::vector<PartObject> parts;          // ascending numeric index
    std::optional<uint64_t> mergedSize;     // <folder>/merged, when a regular object
    std::vector<std::string> strays;        // other names (temp files, "007", "x"), relative to the folder
    std::vector<std::string> links;         // symbolic links, relative to the folder: never followed
};

class ActionsStorage {
public:
    virtual ~ActionsStorage() = default;
    virtual std::string describe() const = 0;
    // Path or URL of an object, for messages: objectName(f, "parts/3").
    virtual std::string objectName(const std::string& folder, const std::string& relative) const = 0;

    virtual std::vector<std::string> folders() = 0;     // names directly under the root, sorted
    virtual FolderListing listFolder(const std::string& folder) = 0;
    // Several folders at once (S3: up to S3Config::maxInFlight listings in
    // flight; here one after another). errors[i] is set, and listings[i]
    // empty, for a folder that cannot be listed; other failures throw.
    virtual std::vector<FolderListing> listFolders(const std::vector<std::string>& folders,
                                                   std::vector<std::string>& errors, Job* job = nullptr);
    // Every folder under the root with its listing, in name order (the size
    // index's scan). The default lists folders() one by one (in parallel
    // where listFolders can); S3 reads the root's list pages once. A folder
    // that cannot be listed comes with its error and an empty listing.
    virtual void forEachFolder(const std::function<void(const std::string& folder, const FolderListing& listing,
                                                        const std::string& error)>& onFolder,
                               Job* job = nullptr);
    // A token that changes whenever the folder's listing may have changed
    // (the folder's and its parts/ folder's modification times), taken
    // before a listing; nullopt when the storage has none (S3), or the
    // folder is missing. The size index relists a folder when it differs.
    virtual std::optional<std::string> folderStamp(const std::string& /*folder*/) { return std::nullopt; }
    virtual bool hasFolderStamps() const { return false; }
    virtual std::unique_ptr<ObjectReader> openPart(const std::string& folder, uint64_t index) = 0;
    virtual std::unique_ptr<ObjectReader> openMerged(const std::string& folder) = 0;

    // Writes.
    virtual std::unique_ptr<MergedWriter> beginMerged(const std::string& folder) = 0;
    virtual void deletePart(const std::string& folder, uint64_t index) = 0;  // absent: no error
    virtual void deletePartsFolder(const std::string& folder) = 0;          // what is left of parts/
    virtual void deleteFolder(const std::string& folder) = 0;               // the whole folder; absent: no error

    // Other processes of this host with something below the root (or below
    // one folder of it) open, one phrase each ("process 4242 (node) has
    // /srv/storage/123/parts/0 open"); empty where the system cannot tell (S3).
    virtual std::vector<std::string> otherUsers(const std::string& folder = {})
    {
        (void)folder;
        return {};
    }
};

// The SQLite + filesystem implementations (the server's defaults). The
// catalog opens read-only unless writable; writable opens never change the
// journal mode. The storage never follows a symbolic link below root.
std::unique_ptr<ActionsCatalog> openSqliteCatalog(const std::string& dbPath, bool writable);
std::unique_ptr<ActionsStorage> openFilesystemStorage(const std::string& root);

} // namespace cs::actions
