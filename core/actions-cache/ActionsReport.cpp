#include "core/actions-cache/ActionsReport.h"

#include "core/util/Escape.h"
#include "core/util/Units.h"

#include <cstdio>
#include <ctime>

namespace cs::actions {

namespace {

Json optMs(const std::optional<int64_t>& v)
{
    return v ? Json(static_cast<long long>(*v)) : Json();
}

// Keys, ids, paths and messages quoting them come from the server's rows
// (anyone who can upload to the cache chooses a key): human output shows
// every control character, invalid UTF-8 byte and bidi override escaped
// (cs::escapeControl, the one place that decides), so a key cannot forge a
// line or reach the terminal as an escape sequence. JSON keeps the bytes.
std::string printable(const std::string& s)
{
    return escapeControl(s);
}

std::string when(const std::optional<int64_t>& ms)
{
    if (!ms)
        return "-";
    const std::time_t t = std::time_t(*ms / 1000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
    return buf;
}

std::string pad(std::string s, size_t width, bool right = false)
{
    if (s.size() >= width)
        return s;
    return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

} // namespace

Json entryJson(const ActionsEntry& e)
{
    Json o = Json::object();
    o["id"] = e.id;
    o["key"] = e.key;
    o["version"] = e.version;
    o["scope"] = e.scope;
    o["repo_id"] = e.repoId;
    o["size"] = static_cast<unsigned long long>(e.size);
    o["parts"] = static_cast<long long>(e.partCount);
    o["parts_present"] = static_cast<unsigned long long>(e.partsPresent);
    o["merged"] = e.merged();
    o["state"] = entryStateName(e.state);
    o["folder"] = e.folderName;
    o["location_id"] = e.locationId;
    o["updated_at_ms"] = static_cast<long long>(e.updatedAtMs);
    o["last_downloaded_at_ms"] = optMs(e.lastDownloadedAtMs);
    o["merge_started_at_ms"] = optMs(e.mergeStartedAtMs);
    o["merged_at_ms"] = optMs(e.mergedAtMs);
    o["parts_deleted_at_ms"] = optMs(e.partsDeletedAtMs);
    if (!e.hasLocation)
        o["error"] = "storage location '" + e.locationId + "' does not exist";
    else if (!e.storageError.empty())
        o["error"] = e.storageError;
    return o;
}

Json uploadJson(const ActionsUpload& u)
{
    Json o = Json::object();
    o["id"] = static_cast<long long>(u.row.id);
    o["key"] = u.row.key;
    o["version"] = u.row.version;
    o["scope"] = u.row.scope;
    o["repo_id"] = u.row.repoId;
    o["folder"] = u.row.folderName;
    o["created_at_ms"] = static_cast<long long>(u.row.createdAtMs);
    o["last_part_uploaded_at_ms"] = optMs(u.row.lastPartUploadedAtMs);
    o["started_parts"] = static_cast<long long>(u.row.startedPartUploadCount);
    o["finished_parts"] = static_cast<long long>(u.row.finishedPartUploadCount);
    o["parts_present"] = static_cast<unsigned long long>(u.partsPresent);
    o["part_bytes"] = static_cast<unsigned long long>(u.partBytes);
    o["age_ms"] = static_cast<long long>(u.ageMs);
    return o;
}

Json findingJson(const Finding& f)
{
    Json o = Json::object();
    o["kind"] = findingKindName(f.kind);
    o["id"] = f.entryId;
    o["key"] = f.key;
    o["folder"] = f.folder;
    o["path"] = f.path;
    o["message"] = f.message;
    if (f.bytes)
        o["bytes"] = static_cast<unsigned long long>(f.bytes);
    return o;
}

Json mergeResultJson(const ActionsMergeResult& r)
{
    Json o = Json::object();
    o["id"] = r.id;
    o["key"] = r.key;
    o["bytes"] = static_cast<unsigned long long>(r.bytes);
    o["merged"] = r.merged;
    o["error"] = r.error;
    o["action"] = r.action;
    return o;
}

Json listingJson(const std::vector<ActionsEntry>& entries, const std::vector<ActionsUpload>& uploads)
{
    Json root = Json::object();
    Json es = Json::array(), us = Json::array();
    for (const auto& e : entries)
        es.push_back(entryJson(e));
    for (const auto& u : uploads)
        us.push_back(uploadJson(u));
    root["entries"] = std::move(es);
    root["uploads"] = std::move(us);
    return root;
}

ListingWriter::ListingWriter(bool json, std::function<void(std::string_view)> out) : json_(json), out_(std::move(out))
{
    out_(json_ ? std::string("{\"entries\": [")
               : pad("SIZE", 11, true) + "  " + pad("PARTS", 5, true) + "  " + pad("STATE", 13) + "  "
                     + pad("UPDATED (UTC)", 16) + "  " + pad("DOWNLOADED", 16) + "  KEY\n");
}

void ListingWriter::entries(const std::vector<ActionsEntry>& page)
{
    std::string t;
    for (const auto& e : page) {
        if (json_) {
            t += (count_ ? ",\n  " : "\n  ") + dumpJson(entryJson(e));
        } else {
            t += pad(formatSize(e.size), 11, true) + "  " + pad(std::to_string(e.partCount), 5, true) + "  "
                 + pad(e.hasLocation ? entryStateName(e.state) : "no location", 13) + "  "
                 + pad(when(e.updatedAtMs), 16) + "  " + pad(when(e.lastDownloadedAtMs), 16) + "  " + printable(e.key)
                 + "\n";
        }
        ++count_;
        bytes_ += e.size;
    }
    if (!t.empty())
        out_(t);
}

void ListingWriter::finish(const std::vector<ActionsUpload>& uploads)
{
    std::string t;
    if (json_) {
        t = count_ ? "\n],\n\"uploads\": [" : "],\n\"uploads\": [";
        for (size_t i = 0; i < uploads.size(); ++i)
            t += (i ? ",\n  " : "\n  ") + dumpJson(uploadJson(uploads[i]));
        t += uploads.empty() ? "]}\n" : "\n]}\n";
    } else {
        for (const auto& u : uploads)
            t += "upload " + std::to_string(u.row.id) + " '" + printable(u.row.key) + "': "
                 + std::to_string(u.row.finishedPartUploadCount) + " of "
                 + std::to_string(u.row.startedPartUploadCount) + " started parts finished, "
                 + std::to_string(u.partsPresent) + " present, last activity "
                 + formatDuration(double(u.ageMs) / 1000) + " ago\n";
        t += std::to_string(count_) + " entries, " + formatSize(bytes_) + ", " + std::to_string(uploads.size())
             + " pending uploads\n";
    }
    out_(t);
}

namespace {
std::string listingOf(bool json, const std::vector<ActionsEntry>& entries, const std::vector<ActionsUpload>& uploads)
{
    std::string t;
    ListingWriter w(json, [&t](std::string_view s) { t += s; });
    w.entries(entries);
    w.finish(uploads);
    return t;
}
} // namespace

std::string listingJsonText(const std::vector<ActionsEntry>& entries, const std::vector<ActionsUpload>& uploads)
{
    return listingOf(true, entries, uploads);
}

std::string listingText(const std::vector<ActionsEntry>& entries, const std::vector<ActionsUpload>& uploads)
{
    return listingOf(false, entries, uploads);
}

Json findingsJson(const std::vector<Finding>& findings)
{
    Json root = Json::object();
    Json fs = Json::array();
    for (const auto& f : findings)
        fs.push_back(findingJson(f));
    root["findings"] = std::move(fs);
    root["count"] = static_cast<unsigned long long>(findings.size());
    return root;
}

std::string findingsText(const std::vector<Finding>& findings)
{
    std::string t;
    for (const auto& f : findings) {
        t += printable(f.path) + ": " + printable(f.message);
        if (!f.key.empty())
            t += " (entry '" + printable(f.key) + "')";
        t += " [" + std::string(findingKindName(f.kind)) + "]\n";
    }
    t += findings.empty() ? "no findings\n" : std::to_string(findings.size()) + " findings\n";
    return t;
}

Json mergeJson(const std::vector<ActionsMergeResult>& results, bool written)
{
    Json root = Json::object();
    root["write"] = written;
    Json rs = Json::array();
    for (const auto& r : results)
        rs.push_back(mergeResultJson(r));
    root["results"] = std::move(rs);
    return root;
}

std::string mergeText(const std::vector<ActionsMergeResult>& results, bool written)
{
    std::string t;
    size_t refused = 0, work = 0;
    for (const auto& r : results) {
        if (r.error) {
            ++refused;
            t += "cannot merge '" + printable(r.key) + "' (" + printable(r.id) + "): " + printable(r.action) + "\n";
        } else {
            ++work;
            t += std::string(written ? "done: " : "would ") + printable(r.action) + " for '" + printable(r.key) + "' ("
                 + formatSize(r.bytes) + ")\n";
        }
    }
    t += std::to_string(work) + (written ? " done" : " to do") + (refused ? ", " + std::to_string(refused) + " refused" : "");
    t += written ? "\n" : " (nothing changed: pass --write to do it)\n";
    return t;
}

Json evictJson(const std::vector<ActionsEntry>& victims, bool written)
{
    Json root = Json::object();
    root["write"] = written;
    Json es = Json::array();
    uint64_t bytes = 0;
    for (const auto& e : victims) {
        es.push_back(entryJson(e));
        bytes += e.size;
    }
    root["entries"] = std::move(es);
    root["bytes"] = static_cast<unsigned long long>(bytes);
    return root;
}

std::string evictText(const std::vector<ActionsEntry>& victims, bool written)
{
    std::string t;
    uint64_t bytes = 0;
    for (const auto& e : victims) {
        bytes += e.size;
        t += std::string(written ? "evicted " : "would evict ") + printable(e.key) + " (" + formatSize(e.size)
             + ", last download " + when(e.lastDownloadedAtMs) + ")\n";
    }
    t += std::to_string(victims.size()) + " entries, " + formatSize(bytes)
         + (written ? " freed\n" : " (nothing changed: pass --write to evict)\n");
    return t;
}

Json importJson(const ActionsImportResult& r, const std::string& store)
{
    Json o = Json::object();
    o["store"] = store;
    o["entries"] = static_cast<unsigned long long>(r.entries);
    o["bytes"] = static_cast<unsigned long long>(r.bytes);
    o["chunks"] = static_cast<unsigned long long>(r.chunks);
    o["new_chunks"] = static_cast<unsigned long long>(r.newChunks);
    o["appended_bytes"] = static_cast<unsigned long long>(r.appendedBytes);
    o["ratio"] = r.appendedBytes ? double(r.bytes) / double(r.appendedBytes) : 0.0;
    return o;
}

std::string importText(const ActionsImportResult& r, const std::string& store)
{
    std::string t = "imported " + std::to_string(r.entries) + " entries (" + formatSize(r.bytes) + ") into "
                    + printable(store) + "\n";
    if (r.chunks) {
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, "%.2f", r.appendedBytes ? double(r.bytes) / double(r.appendedBytes) : 0.0);
        t += std::to_string(r.chunks) + " chunks, " + std::to_string(r.chunks - r.newChunks)
             + " deduplicated; " + formatSize(r.appendedBytes) + " written to the pack (" + ratio
             + "x after dedup and compression)\n";
    }
    return t;
}

} // namespace cs::actions
