// What `cachescope-cli actions-cache` prints, built in the core so the CLI
// (whatever its option parser) is a thin layer: the JSON documents of
// docs/cli.md and the human tables. Field names are the CLI contract
// (issue 10): entries carry id, key, version, scope, repo_id, size, parts,
// merged, state, folder, updated_at_ms, last_downloaded_at_ms, ...
#pragma once
#include "core/actions-cache/ActionsCache.h"
#include "core/util/Json.h"

#include <string>
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

// verify: {"findings":[...],"count":N}
Json findingsJson(const std::vector<Finding>& findings);
std::string findingsText(const std::vector<Finding>& findings);

// merge: {"write":bool,"results":[...]} (write false: what it would do)
Json mergeJson(const std::vector<ActionsMergeResult>& results, bool written);
std::string mergeText(const std::vector<ActionsMergeResult>& results, bool written);

// evict: {"write":bool,"entries":[...],"bytes":N}
Json evictJson(const std::vector<ActionsEntry>& victims, bool written);
std::string evictText(const std::vector<ActionsEntry>& victims, bool written);

// import: {"entries","bytes","chunks","new_chunks","appended_bytes","dedup_ratio"}
Json importJson(const ActionsImportResult& r, const std::string& store);
std::string importText(const ActionsImportResult& r, const std::string& store);

} // namespace cs::actions
