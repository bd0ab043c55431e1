// The data of a self-hosted GitHub Actions cache server
// (github-actions-cache-server, SQLite driver, filesystem storage), opened
// offline: its SQLite file and its storage folder.
//
// Tables read (columns the server's first migration creates):
//   storage_locations(id TEXT PK, folderName TEXT, partCount INTEGER,
//                     mergeStartedAt, mergedAt, partsDeletedAt, lastDownloadedAt  -- ms since epoch or NULL)
//   cache_entries(id TEXT PK, key TEXT, version TEXT, updatedAt INTEGER, locationId TEXT)
//   uploads(id INTEGER PK, key, version, createdAt, lastPartUploadedAt, folderName)
// Storage folder:
//   <folderName>/parts/<i>   uploaded parts, i = 0..partCount-1
//   <folderName>/merged      all parts concatenated (written on first download)
//
// The merge here does what the server does on a first download, crash-safe:
// write merged.tmp, fsync, rename to merged, set mergeStartedAt/mergedAt in
// one transaction, then set partsDeletedAt and delete the parts. A crash
// leaves the location unmerged with its parts, or merged.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cs {
class Job;
namespace store { class Catalog; class Store; }
}

namespace cs::actions {

struct ActionsEntry {
    std::string id;             // cache_entries.id
    std::string key;
    std::string version;
    int64_t updatedAtMs = 0;
    std::string locationId;
    std::string folderName;
    uint32_t partCount = 0;
    std::optional<int64_t> mergeStartedAtMs, mergedAtMs, partsDeletedAtMs, lastDownloadedAtMs;
    uint64_t size = 0;          // bytes on disk: the merged file, or the sum of the parts
    bool merged() const { return mergedAtMs.has_value(); }
};

struct PendingUpload {
    int64_t id = 0;
    std::string key, version, folderName;
    int64_t createdAtMs = 0;
    uint32_t partsPresent = 0;
};

struct ActionsProblem {
    std::string entryKey;
    std::string path;
    std::string message;        // one sentence
};

struct ActionsMergeResult {
    std::string key;
    uint64_t bytes = 0;
    bool merged = false;        // false when it already was
};

struct ActionsEvictPolicy {
    std::optional<double> olderThanSeconds;   // updatedAt before now - this
    std::optional<double> unusedForSeconds;   // lastDownloadedAt (or updatedAt when never) before now - this
    bool dryRun = false;
};

class ActionsCache {
public:
    // Opens the server's SQLite file and its storage folder; throws cs::Error
    // naming the path when the tables are missing.
    static std::unique_ptr<ActionsCache> open(const std::string& dbPath, const std::string& storageDir);
    ~ActionsCache();

    const std::string& dbPath() const { return dbPath_; }
    const std::string& storageDir() const { return storageDir_; }

    std::vector<ActionsEntry> entries() const;
    std::vector<PendingUpload> pendingUploads() const;
    // Every merged location has its merged file; every unmerged one all its parts.
    std::vector<ActionsProblem> verify(Job& job) const;
    // Merges the entries with these ids (all unmerged ones when empty).
    std::vector<ActionsMergeResult> merge(const std::vector<std::string>& entryIds, Job& job);
    std::vector<ActionsEntry> evict(const ActionsEvictPolicy& policy, Job& job);
    // Copies every entry (merged file or parts) into a native store as an
    // entry with the same key and version in scope `scope`, uploaded as parts
    // of partSize bytes; merges them in the store unless noMerge.
    uint64_t importInto(store::Store& target, const std::string& scope, uint64_t partSize, bool noMerge, Job& job);

    // Path of part i or of the merged file of a location (folder names are
    // checked to be plain names, never paths).
    std::string partPath(const ActionsEntry& e, uint32_t index) const;
    std::string mergedPath(const ActionsEntry& e) const;

private:
    ActionsCache() = default;
    std::string folderOf(const std::string& folderName) const;
    std::string dbPath_, storageDir_;
    std::unique_ptr<store::Catalog> db_;
};

} // namespace cs::actions
