// What `cachescope-cli actions-cache` prints, built in the core so the CLI
// (whatever its option parser) is a thin layer: the JSON documents of
// docs/cli.md and the human tables. Field names are the CLI contract
// (issue 10): entries carry id, key, version, scope, repo_id, size, parts,
// merged, state, folder, updated_at_ms, last_downloaded_at_ms, ...
#pragma once
#include "core/actions-cache/ActionsCache.h"
#include "core/util/Json.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace cs::actions {

Json entryJson(const ActionsEntry& e);
Json uploadJson(const ActionsUpload& u);
Json findingJson(const Finding& f);
Json mergeResultJson(const ActionsMergeResult& r);

// ls: {"entries":[...],"uploads":[...]}
Json listingJson(const std::vector<ActionsEntry>& entries, const std::vector<ActionsUpload>& uploads);
// The same document as text, one entry per line, built entry by entry so
// memory stays at the output's size (a Json tree of 5,000 entries took 48 MB).
std::string listingJsonText(const std::vector<ActionsEntry>& entries, const std::vector<ActionsUpload>& uploads);
std::string listingText(const std::vector<ActionsEntry>& entries, const std::vector<ActionsUpload>& uploads);

// The same documents (JSON or text) written as they come, a page of entries
// at a time, so `ls` of a million entries holds one page: entries(), as
// often as there are pages, then finish() once with the uploads.
class ListingWriter {
public:
    ListingWriter(bool json, std::function<void(std::string_view)> out);
    void entries(const std::vector<ActionsEntry>& page);
    void finish(const std::vector<ActionsUpload>& uploads);

private:
    bool json_;
    std::function<void(std::string_view)> out_;
    uint64_t count_ = 0, bytes_ = 0;
};

// verify: {"findings":[...],"count":N}
Json findingsJson(const std::vector<Finding>& findings);
std::string findingsText(const std::vector<Finding>& findings);

// merge: {"write":bool,"results":[...]} (write false: what it would do)
Json mergeJson(const std::vector<ActionsMergeResult>& results, bool written);
std::string mergeText(const std::vector<ActionsMergeResult>& results, bool written);

// evict: {"write":bool,"entries":[...],"bytes":N,"skipped":[...]}; bytes
// counts a location several entries share once.
Json evictJson(const std::vector<ActionsEntry>& victims, bool written, const std::vector<ActionsSkip>& skipped = {});
std::string evictText(const std::vector<ActionsEntry>& victims, bool written,
                      const std::vector<ActionsSkip>& skipped = {});
// "1 entry", "2 entries".
std::string counted(uint64_t n, const char* one, const char* many);

// reap-uploads: {"write":bool,"uploads":[...],"bytes":N,"skipped":[...]}
Json reapJson(const std::vector<ActionsUpload>& gone, bool written, const std::vector<ActionsUploadSkip>& skipped);
std::string reapText(const std::vector<ActionsUpload>& gone, bool written, const std::vector<ActionsUploadSkip>& skipped);

// import: {"entries","bytes","chunks","new_chunks","appended_bytes","dedup_ratio"}
Json importJson(const ActionsImportResult& r, const std::string& store);
std::string importText(const ActionsImportResult& r, const std::string& store);

} // namespace cs::actions
