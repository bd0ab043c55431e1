#include "core/actions-cache/ActionsReport.h"

#include "core/actions-cache/ActionsInternal.h"

#include "core/util/Escape.h"
#include "core/util/Units.h"

#include <cstdio>
#include <ctime>
#include <set>

namespace cs::actions {

std::string counted(uint64_t n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

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

// The first 8 characters of a version (the server's versions are SHA-256
// hex of the paths and compression: 8 tell them apart, as git's short ids do).
std::string shortVersion(const std::string& v)
{
    return v.size() > 8 ? v.substr(0, 8) : v;
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
    o["size_bytes"] = optMs(e.sizeBytes);   // newer servers' count, null on v9.4.7
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
    o["skipped"] = r.skipped;
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
                     + pad("UPDATED (UTC)", 16) + "  " + pad("DOWNLOADED", 16) + "  " + pad("VERSION", 8) + "  "
                     + pad("REPO", 6) + "  " + pad("SCOPE", 16) + "  KEY\n");
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
                 + pad(when(e.updatedAtMs), 16) + "  " + pad(when(e.lastDownloadedAtMs), 16) + "  "
                 + pad(printable(shortVersion(e.version)), 8) + "  " + pad(printable(e.repoId), 6) + "  "
                 + pad(printable(e.scope), 16) + "  " + printable(e.key) + "\n";
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
        uint64_t pending = 0;
        for (const auto& u : uploads)
            pending += u.partBytes;
        t += counted(count_, "entry", "entries") + ", " + formatSize(bytes_) + "; "
             + counted(uploads.size(), "pending upload", "pending uploads") + ", " + formatSize(pending) + "; "
             + formatSize(bytes_ + pending) + " in all\n";
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
            t += std::string(f.kind == FindingKind::UnfinishedUpload ? " (upload '" : " (entry '") + printable(f.key) + "')";
        t += " [" + std::string(findingKindName(f.kind)) + "]\n";
    }
    t += findings.empty() ? "no findings\n" : counted(findings.size(), "finding", "findings") + "\n";
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
    size_t refused = 0, work = 0, skipped = 0;
    for (const auto& r : results) {
        if (r.error) {
            ++refused;
            t += "cannot merge '" + printable(r.key) + "' (" + printable(r.id) + "): " + printable(r.action) + "\n";
        } else if (r.skipped) {
            ++skipped;
            t += "'" + printable(r.key) + "' (" + printable(r.id) + "): " + printable(r.action) + "\n";
        } else {
            ++work;
            t += std::string(written ? "done: " : "would ") + printable(r.action) + " for '" + printable(r.key) + "' ("
                 + formatSize(r.bytes) + ")\n";
        }
    }
    t += std::to_string(work) + (written ? " done" : " to do") + (skipped ? ", " + std::to_string(skipped) + " skipped" : "")
         + (refused ? ", " + std::to_string(refused) + " refused" : "");
    t += written ? "\n" : " (nothing changed: pass --write to do it)\n";
    return t;
}

namespace {

// Bytes the victims free: a location several rows share counts once.
uint64_t freedBytes(const std::vector<ActionsEntry>& victims)
{
    std::set<std::string> seen;
    uint64_t bytes = 0;
    for (const auto& e : victims)
        if (seen.insert(e.locationId).second)
            bytes += e.size;
    return bytes;
}

} // namespace

Json evictJson(const std::vector<ActionsEntry>& victims, bool written, const std::vector<ActionsSkip>& skipped)
{
    Json root = Json::object();
    root["write"] = written;
    Json es = Json::array();
    for (const auto& e : victims) {
        Json o = entryJson(e);
        if (!e.storageError.empty())
            o["note"] = e.storageError;
        es.push_back(std::move(o));
    }
    root["entries"] = std::move(es);
    root["bytes"] = static_cast<unsigned long long>(freedBytes(victims));
    Json ss = Json::array();
    for (const auto& sk : skipped) {
        Json o = entryJson(sk.entry);
        o["reason"] = sk.reason;
        ss.push_back(std::move(o));
    }
    root["skipped"] = std::move(ss);
    return root;
}

std::string evictText(const std::vector<ActionsEntry>& victims, bool written, const std::vector<ActionsSkip>& skipped)
{
    std::string t;
    for (const auto& e : victims) {
        t += std::string(written ? "evicted " : "would evict ") + printable(e.key) + " (" + formatSize(e.size)
             + ", last download " + when(e.lastDownloadedAtMs) + ")"
             + (e.storageError.empty() ? "" : ": " + printable(e.storageError)) + "\n";
    }
    for (const auto& sk : skipped)
        t += std::string(written ? "kept " : "would keep ") + printable(sk.entry.key) + " (" + printable(sk.entry.id) + "): " + printable(sk.reason) + "\n";
    t += counted(victims.size(), "entry", "entries") + ", " + formatSize(freedBytes(victims))
         + (written ? " freed" : " (nothing changed: pass --write to evict)")
         + (skipped.empty() ? "" : "; " + std::to_string(skipped.size()) + " skipped") + "\n";
    return t;
}

Json reapJson(const std::vector<ActionsUpload>& gone, bool written, const std::vector<ActionsUploadSkip>& skipped)
{
    Json root = Json::object();
    root["write"] = written;
    Json us = Json::array();
    uint64_t bytes = 0;
    for (const auto& u : gone) {
        Json o = uploadJson(u);
        if (!u.note.empty())
            o["note"] = u.note;
        us.push_back(std::move(o));
        bytes += u.partBytes;
    }
    root["uploads"] = std::move(us);
    root["bytes"] = static_cast<unsigned long long>(bytes);
    Json ss = Json::array();
    for (const auto& sk : skipped) {
        Json o = uploadJson(sk.upload);
        o["reason"] = sk.reason;
        ss.push_back(std::move(o));
    }
    root["skipped"] = std::move(ss);
    return root;
}

std::string reapText(const std::vector<ActionsUpload>& gone, bool written, const std::vector<ActionsUploadSkip>& skipped)
{
    std::string t;
    uint64_t bytes = 0;
    for (const auto& u : gone) {
        bytes += u.partBytes;
        t += std::string(written ? "removed upload " : "would remove upload ") + std::to_string(u.row.id) + " '"
             + printable(u.row.key) + "' (" + counted(u.partsPresent, "part", "parts") + ", " + formatSize(u.partBytes)
             + ", idle " + ago(u.ageMs) + ")" + (u.note.empty() ? "" : ": " + printable(u.note)) + "\n";
    }
    for (const auto& sk : skipped)
        t += "kept upload " + std::to_string(sk.upload.row.id) + " '" + printable(sk.upload.row.key)
             + "': " + printable(sk.reason) + "\n";
    t += counted(gone.size(), "upload", "uploads") + ", " + formatSize(bytes)
         + (written ? " freed" : " (nothing changed: pass --write to remove them)")
         + (skipped.empty() ? "" : "; " + std::to_string(skipped.size()) + " skipped") + "\n";
    return t;
}

Json importJson(const ActionsImportResult& r, const std::string& store)
{
    Json o = Json::object();
    o["store"] = store;
    o["entries"] = static_cast<unsigned long long>(r.entries);
    o["skipped"] = static_cast<unsigned long long>(r.skipped);
    Json failed = Json::array();
    for (const auto& f : r.failed)
        failed.push_back({{"id", f.id}, {"key", f.key}, {"reason", f.reason}});
    o["failed"] = std::move(failed);
    o["bytes"] = static_cast<unsigned long long>(r.bytes);
    o["chunks"] = static_cast<unsigned long long>(r.chunks);
    o["new_chunks"] = static_cast<unsigned long long>(r.newChunks);
    o["appended_bytes"] = static_cast<unsigned long long>(r.appendedBytes);
    o["ratio"] = r.appendedBytes ? double(r.bytes) / double(r.appendedBytes) : 0.0;
    o["merging_in_background"] = r.mergingInBackground;
    return o;
}

std::string importText(const ActionsImportResult& r, const std::string& store)
{
    std::string t;
    for (const auto& f : r.failed)
        t += "failed: '" + printable(f.key) + "' (" + printable(f.id) + "): " + printable(f.reason) + "\n";
    t += "imported " + counted(r.entries, "entry", "entries") + " (" + formatSize(r.bytes) + ") into " + printable(store)
         + "; " + std::to_string(r.skipped) + " skipped (imported before), " + std::to_string(r.failed.size())
         + " failed\n";
    if (r.mergingInBackground)
        t += "merging " + counted(r.unmerged.size(), "entry", "entries")
             + " in the background ('cachescope-cli store merge --wait-background' waits for it)\n";
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
