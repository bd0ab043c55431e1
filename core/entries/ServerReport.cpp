#include "core/entries/ServerReport.h"

#include "core/actions-cache/ActionsInternal.h"
#include "core/entries/RepetitionPass.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/Escape.h"
#include "core/util/Units.h"

#include <algorithm>
#include <queue>
#include <sstream>
#include <tuple>

namespace cs::entries {

using namespace cs::actions;

namespace {

constexpr int64_t kDayMs = 24 * 60 * 60 * 1000;
// The server's cleanup deletes in pages of this many (itemsPerPage).
constexpr uint64_t kServerCleanupPage = 10;

// Days since the last download, in these bars; never-downloaded entries
// are a bar of their own.
const int kAgeEdges[] = {0, 1, 7, 30, 90, 365};

std::vector<GroupFigure> figures(const std::vector<SizeIndex::Group>& groups)
{
    std::vector<GroupFigure> out;
    out.reserve(groups.size());
    for (const auto& g : groups)
        out.push_back({g.name, g.entries, g.bytes, g.newestMs, g.oldestMs});
    return out;
}

std::string retentionExplanation(const ServerReport& r, const RetainedEntry& e)
{
    const std::string days = std::to_string((r.nowMs - e.lastUsedMs) / kDayMs);
    if (e.reason == RetentionReason::NeverDownloaded)
        return "never downloaded, written " + days + " days ago: the server's cleanup deletes locations whose "
               "lastDownloadedAt is before the cutoff, and NULL is never before anything, so it stays until "
               "evicted by hand";
    std::string s = "last downloaded " + days + " days ago: ";
    if (r.eligibleForCleanup > kServerCleanupPage)
        s += "one daily run (00:00) deletes only about half of the " + std::to_string(r.eligibleForCleanup)
             + " eligible locations, as it pages with OFFSET 10, 20, ... while deleting and so skips rows 11-20, "
               "31-40, ...; ";
    else
        s += "the next daily run (00:00) deletes it; ";
    return s + "still here also when DISABLE_CLEANUP_JOBS is set or CACHE_CLEANUP_OLDER_THAN_DAYS is longer (the "
               "server's default is 90)";
}

Json optU64(const std::optional<uint64_t>& v)
{
    return v ? Json(static_cast<unsigned long long>(*v)) : Json();
}

Json u64(uint64_t v)
{
    return Json(static_cast<unsigned long long>(v));
}

} // namespace

const char* retentionReasonName(RetentionReason r)
{
    switch (r) {
    case RetentionReason::NeverDownloaded: return "never-downloaded";
    case RetentionReason::AwaitingCleanup: return "awaiting-cleanup";
    }
    return "?";
}

ServerReport buildServerReport(ActionsCache& cache, const ReportOptions& options, Job& job)
{
    ServerReport r;
    r.nowMs = options.nowMs ? options.nowMs : nowMs();
    r.retentionDays = options.retentionDays;
    if (options.repetition)
        job.setSteps({"index", "figures", "health", "decode"}, {1, 1, 1, 8});
    else
        job.setSteps({"index", "figures", "health"});

    job.beginStep(0);
    r.index = cache.refreshIndex(&job, options.fullScan);
    SizeIndex& index = cache.sizeIndex();

    job.beginStep(1);
    r.families = figures(index.groupBy("family"));
    r.scopes = figures(index.groupBy("scope"));
    r.repos = figures(index.groupBy("repo_id"));
    for (size_t i = 0; i < std::size(kAgeEdges); ++i) {
        AgeBucket b;
        b.fromDays = kAgeEdges[i];
        if (i + 1 < std::size(kAgeEdges))
            b.toDays = kAgeEdges[i + 1];
        r.age.push_back(b);
    }
    const int64_t cutoff = r.nowMs - int64_t(options.retentionDays) * kDayMs;
    // The oldest retentionList entries past the retention: a max-heap on
    // (last use, id) whose top is the newest kept, so memory is the list
    // (at 100,000 entries, every one kept took 257 MiB with its JSON).
    auto newer = [](const RetainedEntry& a, const RetainedEntry& b) {
        return std::tie(a.lastUsedMs, a.id) < std::tie(b.lastUsedMs, b.id);
    };
    std::priority_queue<RetainedEntry, std::vector<RetainedEntry>, decltype(newer)> oldest(newer);
    const uint64_t total = std::max<uint64_t>(r.index.entries, 1);
    uint64_t seen = 0;
    index.forEachEntry(
        [&](const ActionsEntry& e) {
            if (++seen % 4096 == 0)
                job.setStepProgress(seen, total);
            ++r.entries;
            r.bytes += e.size;
            if (e.state == EntryState::MergeStarted)
                ++r.unfinishedMerges;
            if (!e.lastDownloadedAtMs) {
                ++r.neverDownloadedEntries;
                r.neverDownloadedBytes += e.size;
            } else {
                const int64_t days = std::max<int64_t>(0, (r.nowMs - *e.lastDownloadedAtMs) / kDayMs);
                for (auto it = r.age.rbegin(); it != r.age.rend(); ++it)
                    if (days >= it->fromDays) {
                        ++it->entries;
                        it->bytes += e.size;
                        break;
                    }
                if (*e.lastDownloadedAtMs < cutoff)
                    ++r.eligibleForCleanup;
            }
            const int64_t lastUsed = e.lastDownloadedAtMs.value_or(e.updatedAtMs);
            if (lastUsed < cutoff) {
                ++r.pastRetentionEntries;
                r.pastRetentionBytes += e.size;
                const RetentionReason reason =
                    e.lastDownloadedAtMs ? RetentionReason::AwaitingCleanup : RetentionReason::NeverDownloaded;
                ++r.pastRetentionByReason[int(reason)];
                r.pastRetentionBytesByReason[int(reason)] += e.size;
                if (options.retentionList == 0)
                    return;
                if (oldest.size() == options.retentionList
                    && !(std::tie(lastUsed, e.id) < std::tie(oldest.top().lastUsedMs, oldest.top().id)))
                    return;
                oldest.push(RetainedEntry{e.id, e.key, e.version, e.scope, e.repoId, e.size, lastUsed, reason, {}});
                if (oldest.size() > options.retentionList)
                    oldest.pop();
            }
        },
        &job);
    r.pastRetention.resize(oldest.size());
    for (size_t i = oldest.size(); i-- > 0; oldest.pop())
        r.pastRetention[i] = oldest.top();
    for (auto& k : r.pastRetention)
        k.explanation = retentionExplanation(r, k);

    job.beginStep(2);
    for (const Finding& f : cache.verifyIndexed(job)) {
        ++r.findings[findingKindName(f.kind)];
        switch (f.kind) {
        case FindingKind::OrphanFolder:
            ++r.orphanFolders;
            r.orphanBytes += f.bytes;
            break;
        case FindingKind::MissingParts:
        case FindingKind::MergedMissing:
        case FindingKind::PartsDeletedUnmerged:
            ++r.missingObjects;
            break;
        case FindingKind::UnfinishedUpload:
            ++r.unfinishedUploads;
            if (const auto l = index.listing(f.folder))
                for (const auto& p : l->parts)
                    r.unfinishedUploadBytes += p.size;
            break;
        case FindingKind::StalledMerge:
            ++r.stalledMerges;
            break;
        default:
            break;
        }
    }
    job.setStepProgress(1.0);
    if (!options.repetition) {
        r.compressionNote = r.repetitionNote = "skipped (--no-repetition)";
        return r;
    }

    // The decode pass: each blob once, bytes for the progress.
    job.beginStep(3);
    RepetitionPass pass(options.memoryBytes, options.chunker);
    uint64_t done = 0;
    index.forEachEntry(
        [&](const ActionsEntry& e) {
            if (!e.hasLocation || e.size == 0)
                return;
            try {
                pass.add(cache.storage(), e, &job);
            } catch (const Error& err) {
                if (job.isCancelled())
                    throw;
                if (pass.firstError.empty())
                    pass.firstError = err.what();
                ++pass.unreadable;
            }
            done += e.size;
            job.setStepProgress(done, std::max<uint64_t>(r.bytes, 1));
        },
        &job);
    r.formats = pass.formats;
    r.serialBytes = pass.serialBytes;
    r.repetitionTotal = pass.totalBytes();
    r.repetitionUnique = std::min(pass.estimatedUniqueBytes(), pass.totalBytes());
    r.repetitionError = pass.errorBytes();
    r.samplingRate = pass.samplingRate();
    r.undecodedBlobs = pass.undecoded;
    r.unreadableBlobs = pass.unreadable;
    r.undecodedBytes = pass.undecodedBytes;
    if (pass.unreadable)
        r.compressionNote = std::to_string(pass.unreadable) + " blobs could not be read (first: " + pass.firstError + ")";
    if (pass.undecoded)
        r.repetitionNote = std::to_string(pass.undecoded) + " zstd blobs (" + formatSize(pass.undecodedBytes)
                           + ") declare a window above the decoder's share of --memory (three quarters) and are left "
                             "out; give a larger --memory to read them";
    return r;
}

Json serverReportJson(const ServerReport& r)
{
    Json o = Json::object();
    o["entries"] = u64(r.entries);
    o["bytes"] = u64(r.bytes);
    auto groups = [](const std::vector<GroupFigure>& gs, const char* name, bool dates) {
        Json a = Json::array();
        for (const auto& g : gs) {
            Json x = Json::object();
            x[name] = g.name;
            x["entries"] = u64(g.entries);
            x["bytes"] = u64(g.bytes);
            if (dates) {
                x["newest_ms"] = static_cast<long long>(g.newestMs);
                x["oldest_ms"] = static_cast<long long>(g.oldestMs);
            }
            a.push_back(std::move(x));
        }
        return a;
    };
    o["families"] = groups(r.families, "family", true);
    o["scopes"] = groups(r.scopes, "scope", false);
    o["repos"] = groups(r.repos, "repo_id", false);
    Json age = Json::array();
    for (const auto& b : r.age) {
        Json x = Json::object();
        x["from_days"] = b.fromDays;
        x["to_days"] = b.toDays ? Json(*b.toDays) : Json();
        x["entries"] = u64(b.entries);
        x["bytes"] = u64(b.bytes);
        age.push_back(std::move(x));
    }
    o["age"] = std::move(age);
    o["never_downloaded"] = Json{{"entries", u64(r.neverDownloadedEntries)}, {"bytes", u64(r.neverDownloadedBytes)}};
    Json past = Json::object();
    past["days"] = r.retentionDays;
    past["entries"] = u64(r.pastRetentionEntries);
    past["bytes"] = u64(r.pastRetentionBytes);
    past["eligible_for_cleanup"] = u64(r.eligibleForCleanup);
    Json reasons = Json::object();
    for (const RetentionReason k : {RetentionReason::NeverDownloaded, RetentionReason::AwaitingCleanup})
        reasons[retentionReasonName(k)] =
            Json{{"entries", u64(r.pastRetentionByReason[int(k)])}, {"bytes", u64(r.pastRetentionBytesByReason[int(k)])}};
    past["by_reason"] = std::move(reasons);
    past["listed"] = u64(r.pastRetention.size());
    Json list = Json::array();
    for (const auto& k : r.pastRetention)
        list.push_back(Json{{"id", k.id}, {"key", k.key}, {"version", k.version}, {"scope", k.scope},
                            {"repo_id", k.repoId}, {"bytes", u64(k.bytes)},
                            {"last_used_ms", static_cast<long long>(k.lastUsedMs)},
                            {"reason", retentionReasonName(k.reason)}, {"explanation", k.explanation}});
    past["list"] = std::move(list);
    o["past_retention"] = std::move(past);
    Json formats = Json::object();
    if (r.formats)
        for (const auto& [name, bytes] : *r.formats)
            formats[name] = u64(bytes);
    Json compression = Json{{"formats", std::move(formats)}, {"serial_bytes", optU64(r.serialBytes)}};
    if (!r.compressionNote.empty())
        compression["note"] = r.compressionNote;
    o["compression"] = std::move(compression);
    Json rep = Json{{"total_bytes", optU64(r.repetitionTotal)},
                    {"estimated_unique_bytes", optU64(r.repetitionUnique)},
                    {"error_bytes", optU64(r.repetitionError)}};
    if (!r.repetitionUnique && !r.repetitionNote.empty())
        rep["note"] = r.repetitionNote;
    if (r.repetitionUnique) {
        rep["sampling_rate"] = r.samplingRate;
        rep["undecoded_blobs"] = u64(r.undecodedBlobs);
        rep["undecoded_bytes"] = u64(r.undecodedBytes);
        if (!r.repetitionNote.empty())
            rep["note"] = r.repetitionNote;
        rep["unreadable_blobs"] = u64(r.unreadableBlobs);
    }
    o["repetition"] = std::move(rep);
    Json findings = Json::object();
    for (const auto& [kind, n] : r.findings)
        findings[kind] = u64(n);
    o["health"] = Json{{"orphan_bytes", u64(r.orphanBytes)},
                       {"orphan_folders", u64(r.orphanFolders)},
                       {"missing_objects", u64(r.missingObjects)},
                       {"unfinished_uploads", u64(r.unfinishedUploads)},
                       {"unfinished_upload_bytes", u64(r.unfinishedUploadBytes)},
                       {"unfinished_merges", u64(r.unfinishedMerges)},
                       {"stalled_merges", u64(r.stalledMerges)},
                       {"findings", std::move(findings)}};
    o["now_ms"] = static_cast<long long>(r.nowMs);
    o["index"] = Json{{"full_scan", r.index.full},
                      {"rows_read", u64(r.index.rowsRead)},
                      {"ids_read", u64(r.index.idsRead)},
                      {"folders_stamped", u64(r.index.foldersStamped)},
                      {"folders_listed", u64(r.index.foldersListed)},
                      {"seconds", r.index.seconds}};
    return o;
}

std::string serverReportText(const ServerReport& r)
{
    std::ostringstream t;
    auto bytes = [](uint64_t b) { return formatSize(b); };
    t << r.entries << " entries, " << bytes(r.bytes) << "\n";
    auto section = [&](const char* title, const std::vector<GroupFigure>& gs, const char* empty) {
        t << "\n" << title << " (largest first" << (gs.size() > 10 ? ", top 10 of " + std::to_string(gs.size()) : "")
          << ")\n";
        for (size_t i = 0; i < gs.size() && i < 10; ++i)
            t << "  " << bytes(gs[i].bytes) << "  " << gs[i].entries << " entries  "
              << (gs[i].name.empty() ? std::string(empty) : escapeControl(gs[i].name)) << "\n";
    };
    section("Families", r.families, "(only hex)");
    section("Scopes", r.scopes, "(none)");
    section("Repos", r.repos, "(none)");
    t << "\nSince the last download\n";
    for (const auto& b : r.age)
        t << "  " << b.fromDays << (b.toDays ? "-" + std::to_string(*b.toDays) + " days" : "+ days") << ": "
          << b.entries << " entries, " << bytes(b.bytes) << "\n";
    t << "  never downloaded: " << r.neverDownloadedEntries << " entries, " << bytes(r.neverDownloadedBytes) << "\n";
    t << "\nPast a retention of " << r.retentionDays << " days: " << r.pastRetentionEntries << " entries, "
      << bytes(r.pastRetentionBytes) << "\n";
    for (const RetentionReason k : {RetentionReason::NeverDownloaded, RetentionReason::AwaitingCleanup})
        if (r.pastRetentionByReason[int(k)])
            t << "  " << retentionReasonName(k) << ": " << r.pastRetentionByReason[int(k)] << " entries, "
              << bytes(r.pastRetentionBytesByReason[int(k)]) << "\n";
    for (size_t i = 0; i < r.pastRetention.size() && i < 10; ++i)
        t << "  " << escapeControl(r.pastRetention[i].key) << " (" << bytes(r.pastRetention[i].bytes)
          << "): " << r.pastRetention[i].explanation << "\n";
    if (r.pastRetentionEntries > 10 && !r.pastRetention.empty())
        t << "  ... and " << r.pastRetentionEntries - std::min<uint64_t>(10, r.pastRetention.size())
          << " more (--json lists the oldest " << r.pastRetention.size() << ", --retention-list N)\n";
    t << "\nCompression\n";
    if (r.formats) {
        for (const auto& [name, b] : *r.formats)
            t << "  " << name << ": " << bytes(b) << "\n";
        t << "  restores serially: " << bytes(r.serialBytes.value_or(0)) << "\n";
    } else {
        t << "  " << r.compressionNote << "\n";
    }
    t << "\nRepetition\n";
    if (r.repetitionUnique)
        t << "  a native store would keep about " << bytes(*r.repetitionUnique) << " (+/- "
          << bytes(r.repetitionError.value_or(0)) << ") of " << bytes(r.repetitionTotal.value_or(0)) << "\n";
    else
        t << "  " << r.repetitionNote << "\n";
    t << "\nHealth\n"
      << "  orphan folders: " << r.orphanFolders << " (" << bytes(r.orphanBytes) << ")\n"
      << "  rows whose objects are missing: " << r.missingObjects << "\n"
      << "  unfinished uploads: " << r.unfinishedUploads << " (" << bytes(r.unfinishedUploadBytes) << ")\n"
      << "  merges started, not finished: " << r.unfinishedMerges << " (" << r.stalledMerges
      << " past the server's 15-minute reset)\n";
    return t.str();
}

std::string serverReportCsv(const ServerReport& r)
{
    std::ostringstream t;
    auto field = [](const std::string& s) {
        std::string q = "\"";
        for (char c : s)
            q += c == '"' ? std::string("\"\"") : std::string(1, c);
        return q + "\"";
    };
    t << "section,name,entries,bytes,from_days,to_days\n";
    t << "total,," << r.entries << "," << r.bytes << ",,\n";
    for (const auto& [section, gs] : {std::pair{"family", &r.families}, std::pair{"scope", &r.scopes},
                                      std::pair{"repo", &r.repos}})
        for (const auto& g : *gs)
            t << section << "," << field(g.name) << "," << g.entries << "," << g.bytes << ",,\n";
    for (const auto& b : r.age)
        t << "age,," << b.entries << "," << b.bytes << "," << b.fromDays << ","
          << (b.toDays ? std::to_string(*b.toDays) : std::string()) << "\n";
    t << "never_downloaded,," << r.neverDownloadedEntries << "," << r.neverDownloadedBytes << ",,\n";
    t << "past_retention,," << r.pastRetentionEntries << "," << r.pastRetentionBytes << "," << r.retentionDays << ",\n";
    if (r.formats)
        for (const auto& [name, b] : *r.formats)
            t << "compression," << field(name) << ",," << b << ",,\n";
    if (r.serialBytes)
        t << "serial,,," << *r.serialBytes << ",,\n";
    if (r.repetitionUnique)
        t << "repetition_unique,,," << *r.repetitionUnique << ",,\n";
    t << "orphan,," << r.orphanFolders << "," << r.orphanBytes << ",,\n";
    t << "unfinished_upload,," << r.unfinishedUploads << "," << r.unfinishedUploadBytes << ",,\n";
    return t.str();
}

ServerReport serverReportFromJson(const Json& j, const std::string& what)
{
    try {
        ServerReport r;
        r.entries = j.at("entries").get<uint64_t>();
        r.bytes = j.at("bytes").get<uint64_t>();
        auto groups = [&](const char* field, const char* name, bool dates) {
            std::vector<GroupFigure> out;
            for (const auto& g : j.at(field)) {
                GroupFigure f{g.at(name).get<std::string>(), g.at("entries").get<uint64_t>(),
                              g.at("bytes").get<uint64_t>(), 0, 0};
                if (dates) {
                    f.newestMs = g.at("newest_ms").get<int64_t>();
                    f.oldestMs = g.at("oldest_ms").get<int64_t>();
                }
                out.push_back(std::move(f));
            }
            return out;
        };
        r.families = groups("families", "family", true);
        r.scopes = groups("scopes", "scope", false);
        r.repos = groups("repos", "repo_id", false);
        for (const auto& b : j.at("age")) {
            AgeBucket a;
            a.fromDays = b.at("from_days").get<int>();
            if (!b.at("to_days").is_null())
                a.toDays = b.at("to_days").get<int>();
            a.entries = b.at("entries").get<uint64_t>();
            a.bytes = b.at("bytes").get<uint64_t>();
            r.age.push_back(a);
        }
        r.neverDownloadedEntries = j.at("never_downloaded").at("entries").get<uint64_t>();
        r.neverDownloadedBytes = j.at("never_downloaded").at("bytes").get<uint64_t>();
        const Json& past = j.at("past_retention");
        r.retentionDays = past.at("days").get<int>();
        r.pastRetentionEntries = past.at("entries").get<uint64_t>();
        r.pastRetentionBytes = past.at("bytes").get<uint64_t>();
        // Past the contract (what this program writes): why they are still
        // there, and the oldest of them.
        if (past.contains("eligible_for_cleanup"))
            r.eligibleForCleanup = past.at("eligible_for_cleanup").get<uint64_t>();
        if (past.contains("by_reason"))
            for (const RetentionReason k : {RetentionReason::NeverDownloaded, RetentionReason::AwaitingCleanup})
                if (past.at("by_reason").contains(retentionReasonName(k))) {
                    const Json& why = past.at("by_reason").at(retentionReasonName(k));
                    r.pastRetentionByReason[int(k)] = why.at("entries").get<uint64_t>();
                    r.pastRetentionBytesByReason[int(k)] = why.at("bytes").get<uint64_t>();
                }
        if (past.contains("list"))
            for (const auto& k : past.at("list")) {
                RetainedEntry e;
                e.id = k.at("id").get<std::string>();
                e.key = k.at("key").get<std::string>();
                e.version = k.at("version").get<std::string>();
                e.scope = k.at("scope").get<std::string>();
                e.repoId = k.at("repo_id").get<std::string>();
                e.bytes = k.at("bytes").get<uint64_t>();
                e.lastUsedMs = k.at("last_used_ms").get<int64_t>();
                const std::string reason = k.at("reason").get<std::string>();
                e.reason = reason == retentionReasonName(RetentionReason::AwaitingCleanup) ? RetentionReason::AwaitingCleanup
                                                                                           : RetentionReason::NeverDownloaded;
                e.explanation = k.at("explanation").get<std::string>();
                r.pastRetention.push_back(std::move(e));
            }
        const Json& c = j.at("compression");
        if (!c.at("serial_bytes").is_null()) {
            r.serialBytes = c.at("serial_bytes").get<uint64_t>();
            std::map<std::string, uint64_t> formats;
            for (const auto& [name, bytes] : c.at("formats").items())
                formats[name] = bytes.get<uint64_t>();
            r.formats = std::move(formats);
        }
        if (c.contains("note"))
            r.compressionNote = c.at("note").get<std::string>();
        const Json& rep = j.at("repetition");
        if (!rep.at("estimated_unique_bytes").is_null()) {
            r.repetitionTotal = rep.at("total_bytes").get<uint64_t>();
            r.repetitionUnique = rep.at("estimated_unique_bytes").get<uint64_t>();
            r.repetitionError = rep.at("error_bytes").get<uint64_t>();
        }
        if (rep.contains("note"))
            r.repetitionNote = rep.at("note").get<std::string>();
        if (j.contains("now_ms"))
            r.nowMs = j.at("now_ms").get<int64_t>();
        const Json& h = j.at("health");
        r.orphanBytes = h.at("orphan_bytes").get<uint64_t>();
        r.missingObjects = h.at("missing_objects").get<uint64_t>();
        r.unfinishedUploads = h.at("unfinished_uploads").get<uint64_t>();
        r.unfinishedUploadBytes = h.at("unfinished_upload_bytes").get<uint64_t>();
        r.unfinishedMerges = h.at("unfinished_merges").get<uint64_t>();
        if (h.contains("orphan_folders"))
            r.orphanFolders = h.at("orphan_folders").get<uint64_t>();
        if (h.contains("stalled_merges"))
            r.stalledMerges = h.at("stalled_merges").get<uint64_t>();
        if (h.contains("findings"))
            for (const auto& [kind, n] : h.at("findings").items())
                r.findings[kind] = n.get<uint64_t>();
        if (j.contains("index")) {
            const Json& x = j.at("index");
            r.index.full = x.at("full_scan").get<bool>();
            r.index.rowsRead = x.at("rows_read").get<uint64_t>();
            r.index.idsRead = x.at("ids_read").get<uint64_t>();
            r.index.foldersStamped = x.at("folders_stamped").get<uint64_t>();
            r.index.foldersListed = x.at("folders_listed").get<uint64_t>();
            r.index.seconds = x.at("seconds").get<double>();
        }
        return r;
    } catch (const Json::exception& e) {
        fail(what, std::string("is not an actions-cache report (") + e.what() + ")");
    }
}

} // namespace cs::entries
