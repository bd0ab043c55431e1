// What `ls` and `verify` say of a deployment, in a form two deployments of
// the same fixture data compare equal on: SQLite + folder against
// PostgreSQL or MySQL + S3 (tst_actions_remote, tst_actions_mysql).
#pragma once
#include "core/actions-cache/ActionsCache.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace testsupport {

// id -> "key|state|size|parts present|m or -" of every entry.
inline std::map<std::string, std::string> entrySummary(const std::vector<cs::actions::ActionsEntry>& entries)
{
    std::map<std::string, std::string> out;
    for (const auto& e : entries)
        out[e.id] = e.key + "|" + cs::actions::entryStateName(e.state) + "|" + std::to_string(e.size) + "|" +
                    std::to_string(e.partsPresent) + "|" + (e.mergedPresent ? "m" : "-");
    return out;
}

// "kind folder" of every finding.
inline std::multiset<std::string> findingKinds(const std::vector<cs::actions::Finding>& findings)
{
    std::multiset<std::string> out;
    for (const auto& f : findings)
        out.insert(std::string(cs::actions::findingKindName(f.kind)) + " " + f.folder);
    return out;
}

} // namespace testsupport
