// cachescope-cli actions-cache ls|verify|merge|evict|reap-uploads|import DATA_DIR ...
// A github-actions-cache-server's data (SQLite + filesystem storage, or
// PostgreSQL + S3 named by --db and --storage), read read-only unless
// --write: core/actions-cache/ActionsCache.h does the work and
// ActionsReport.h builds the output; this file declares the commands.
//
// Positional words are resolved after parsing (resolveWords), as they always
// were: DATA_DIR may be left out when --db and --storage name both halves,
// and the old form `actions-cache CMD DB STORAGE ...` (a file, then a folder
// that is not a native store) is an alias of `--db DB --storage STORAGE`.
#include "ActionsLocation.h"
#include "CommandTree.h"
#include "GuiChart.h"
#include "Handover.h"
#include "SignalCancel.h"
#include "TerminalProgress.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/ActionsReport.h"
#include "core/actions-cache/SizeIndex.h"
#include "core/entries/ServerReport.h"
#include "core/util/OutputFile.h"
#include "core/jobs/Job.h"
#include "core/pack/FileLock.h"
#include "core/store/Store.h"
#include "core/store/StoreLayout.h"

#include <algorithm>
#include <filesystem>
#include <memory>

namespace cli {
namespace {

namespace fs = std::filesystem;
using namespace cs::actions;
using namespace cs::entries;

struct AcArgs {
    // Positionals in the order CLI11 fills them (so, in the order given).
    std::string dataDir;            // DATA_DIR, or the old form's DB
    std::string second;             // import: STORE; ls/verify/evict: the old form's STORAGE (hidden)
    std::vector<std::string> ids;   // merge, import: ID...
    std::vector<CLI::Option*> positionals;
    std::string db, storage, endpoint, region;
    CLI::Option* dbOpt = nullptr;
    CLI::Option* storageOpt = nullptr;
    bool json = false, write = false, force = false, quiet = false;
    std::optional<double> partsGrace;   // merge, evict: seconds
    std::string server;                 // --server URL
    // evict
    std::optional<double> olderThan, unusedFor;
    std::optional<uint64_t> maxSize;
    std::vector<std::string> keys;
    bool dryRun = false;
    // ls (gh cache list's flags)
    std::string keyPrefix, scopeRef, repoId, sort, order;
    std::optional<uint64_t> limit;
    std::optional<uint64_t> lsMinSize, lsMaxSize, lsMinParts, lsMaxParts; // ls filters
    std::vector<std::string> states;
    // report
    std::string csv, plot;
    int retentionDays = 30;
    std::optional<uint64_t> retentionList;
    bool noRepetition = false, fullScan = false;
    std::optional<uint64_t> memory;
    // import
    std::string scope;              // import: "" keeps each entry's own scope
    std::optional<uint64_t> partSize;
    bool noMerge = false, wait = false;

    // Set by resolveWords().
    std::string dir;                // DATA_DIR ("" for a deployment named by --db and --storage)
    std::optional<std::string> dbPath, storagePath;
    std::vector<std::string> rest;  // the words after DATA_DIR
};

// The positional words in the order given, DATA_DIR first. CLI11 fills the
// positionals in declaration order, so joining them restores that order.
std::vector<std::string> words(const AcArgs& a)
{
    std::vector<std::string> out;
    for (const CLI::Option* o : a.positionals)
        if (o->count() > 0)
            for (const auto& r : o->results())
                out.push_back(r);
    return out;
}

// Splits the words into DATA_DIR and the rest (minRest..maxRest words, -1 =
// any), or throws UsageError.
void resolveWords(AcArgs& a, int minRest, int maxRest)
{
    std::vector<std::string> pos = words(a);
    a.dbPath.reset();
    a.storagePath.reset();
    if (a.dbOpt->count() > 0)
        a.dbPath = a.db;
    if (a.storageOpt->count() > 0)
        a.storagePath = a.storage;
    std::error_code ec;
    bool haveDataDir = false;
    // The old form: DB STORAGE, a file then a folder that is not a native store.
    if (pos.size() >= 2 && !a.dbPath && !a.storagePath && fs::is_regular_file(pos[0], ec) &&
        fs::is_directory(pos[1], ec) && !cs::store::StoreLayout::namesCatalog(pos[1])) {
        a.dbPath = pos[0];
        a.storagePath = pos[1];
        pos.erase(pos.begin(), pos.begin() + 2);
        pos.insert(pos.begin(), std::string()); // both halves named: no DATA_DIR
        haveDataDir = true;
    }
    // A deployment named by --db and --storage needs no DATA_DIR. The first
    // word is one only when the command has no other room for it, or when it
    // looks like the server's data (sqlite.db, or a folder holding sqlite.db
    // or storage/): import's STORE or merge's first ID is not.
    if (!haveDataDir && a.dbPath && a.storagePath) {
        const auto looksLikeData = [&ec](const std::string& p) {
            return fs::is_regular_file(p, ec) || fs::exists(fs::path(p) / "sqlite.db", ec) ||
                   fs::is_directory(fs::path(p) / "storage", ec);
        };
        const bool first = !pos.empty() && int(pos.size()) - 1 >= minRest &&
                           ((maxRest >= 0 && int(pos.size()) > maxRest) || looksLikeData(pos[0]));
        if (!first)
            pos.insert(pos.begin(), std::string());
    }
    if (pos.empty())
        throw UsageError("give DATA_DIR, or both --db and --storage");
    const int rest = int(pos.size()) - 1;
    if (rest < minRest || (maxRest >= 0 && rest > maxRest))
        throw UsageError(rest < minRest ? "missing arguments after DATA_DIR"
                                        : "unexpected argument '" + pos[size_t(maxRest) + 1] + "'");
    a.dir = pos[0];
    a.rest.assign(pos.begin() + 1, pos.end());
}

DataDirPaths pathsOf(const AcArgs& a)
{
    DataDirPaths paths = resolveDataDir(a.dir, a.dbPath, a.storagePath);
    paths.endpoint = a.endpoint;
    paths.region = a.region;
    return paths;
}

// A write command's body: with --json, a refusal or failure is still a JSON
// document on stdout ({"error": sentence, "refused": bool, "activity": ...})
// besides the sentence on stderr, so a script reads one shape either way.
int writeCommand(const AcArgs& a, const std::function<int()>& body)
{
    try {
        return body();
    } catch (const cs::Cancelled&) {
        throw;
    } catch (const ServerActive& e) {
        if (a.json) {
            Json o = Json::object();
            o["error"] = e.what();
            o["refused"] = true;
            o["activity"] = {{"signal", activitySignalName(e.activity.signal)},
                             {"reason", e.activity.reason},
                             {"clears", e.activity.clears}};
            printJson(o);
        }
        throw;
    } catch (const cs::Error& e) {
        if (a.json) {
            Json o = Json::object();
            o["error"] = e.what();
            o["refused"] = false;
            printJson(o);
        }
        throw;
    }
}

void print(const AcArgs& a, const Json& json, const std::string& text)
{
    if (a.json)
        printJson(json);
    else
        printOut(text);
}

// DATA_DIR, the location options and --json: every actions-cache command.
CLI::App* addCommand(CLI::App& parent, const std::string& name, const std::string& description,
                     const std::shared_ptr<AcArgs>& a)
{
    auto* c = parent.add_subcommand(name, description);
    a->positionals.push_back(c->add_option("DATA_DIR", a->dataDir,
                                           "The server's data folder (sqlite.db and storage/ in it), or its "
                                           "sqlite.db; not needed when --db and --storage name both halves")
                                 ->type_name(""));
    const LocationOptions location = addLocationOptions(c, a->db, a->storage, a->endpoint, a->region);
    a->dbOpt = location.db;
    a->storageOpt = location.storage;
    c->add_flag("--json", a->json, "Print JSON (docs/cli.md)");
    return c;
}

// The old form's STORAGE for commands without other positionals: hidden
// from the usage line (an empty group), kept so `CMD DB STORAGE` parses.
void addOldStorage(CLI::App* c, const std::shared_ptr<AcArgs>& a)
{
    a->positionals.push_back(
        c->add_option("STORAGE", a->second, "The storage folder, in the old form CMD DB STORAGE")->group(""));
}

CLI::Option* addWrite(CLI::App* c, const std::shared_ptr<AcArgs>& a)
{
    auto* write =
        c->add_flag("--write", a->write, "Change the data (without it: list what would be done, change nothing)");
    c->add_flag("--force", a->force, "Write even while the server looks active");
    addDurationOption(c, "parts-grace", a->partsGrace,
                      "How long what a download may still stream is kept: parts after their merge, entries after "
                      "their last download (default 10min; 0 deletes at once)");
    c->add_option("--server", a->server,
                  "The cache server's URL (http://HOST:PORT): a server that answers there counts as active")
        ->type_name("URL");
    return write;
}

WriteOptions writeOptionsOf(const AcArgs& a)
{
    WriteOptions o;
    o.force = a.force;
    o.serverUrl = a.server;
    if (a.partsGrace)
        o.partsGraceMs = int64_t(*a.partsGrace * 1000);
    return o;
}

void addIds(CLI::App* c, const std::shared_ptr<AcArgs>& a)
{
    a->positionals.push_back(c->add_option("ID", a->ids, "Cache entry ids (default: every entry)")->type_name(""));
}

const char* kLocations =
    "DATA_DIR holds sqlite.db and storage/filesystem/ (the server's defaults) or storage/; --db and --storage "
    "override either half, or name a PostgreSQL + S3 deployment without DATA_DIR. The old form CMD DB STORAGE "
    "still works.";

// --- ls -----------------------------------------------------------------

// gh cache list's --sort and --order: created (the server's updatedAt,
// set when an entry is saved), last-used (lastDownloadedAt, else
// updatedAt), size, key. Descending unless --order asc, as gh does; key
// ascending. No --sort: key order, as ls always listed.
EntryOrder lsOrder(const AcArgs& a)
{
    const bool asc = a.order.empty() ? a.sort == "key" || a.sort.empty() : a.order == "asc";
    if (a.sort == "created")
        return asc ? EntryOrder::UpdatedOldest : EntryOrder::UpdatedNewest;
    if (a.sort == "last-used")
        return asc ? EntryOrder::LastUsedOldest : EntryOrder::LastUsedNewest;
    if (a.sort == "size")
        return asc ? EntryOrder::SizeSmallest : EntryOrder::SizeLargest;
    return asc ? EntryOrder::KeyAscending : EntryOrder::KeyDescending;
}

// --state's words: the names ls shows (entryStateName), with '-' or ' '.
EntryState lsState(const std::string& word)
{
    if (auto s = cs::actions::entryStateFromName(word))
        return *s;
    throw UsageError("--state wants unmerged, merge-started, merged or parts-deleted, not '" + word + "'");
}

TreeRegistration regLs("actions-cache", "ls", [](CLI::App& parent) {
    auto a = std::make_shared<AcArgs>();
    auto* c = addCommand(parent, "ls",
                         "List the cache entries (size from the files, state) and pending uploads; reads only", a);
    addOldStorage(c, a);
    c->add_option("--key", a->keyPrefix, "Only keys starting with PREFIX (exact bytes)")->type_name("PREFIX");
    c->add_option("--scope", a->scopeRef, "Only entries of this scope (a ref: refs/heads/main)")->type_name("REF");
    c->add_option("--repo", a->repoId, "Only entries of this repository id")->type_name("ID");
    c->add_option("--sort", a->sort, "Order by created (updatedAt), last-used (lastDownloadedAt), size or key")
        ->type_name("created|last-used|size|key");
    c->add_option("--order", a->order, "asc or desc (default desc, as gh cache list; key: asc)")->type_name("asc|desc");
    c->add_option("--limit", a->limit, "At most N entries (default: all; counted after the filters)")->type_name("N");
    addSizeOption(c, "min-size", a->lsMinSize, "Only entries of at least SIZE bytes from the files (8M, 1.5GiB)", 0,
                  UINT64_MAX);
    addSizeOption(c, "max-size", a->lsMaxSize, "Only entries of at most SIZE bytes from the files", 0, UINT64_MAX);
    c->add_option("--min-parts", a->lsMinParts, "Only entries whose row claims at least N parts")->type_name("N");
    c->add_option("--max-parts", a->lsMaxParts, "Only entries whose row claims at most N parts")->type_name("N");
    c->add_option("--state", a->states, "Only entries in these states (repeat or join with commas)")
        ->delimiter(',')
        ->type_name("unmerged|merge-started|merged|parts-deleted");
    addQuiet(c, a->quiet);
    c->footer(std::string("Sorting by size or last use, and the --key, --scope, --repo, size, parts and state filters, "
                          "read the size index "
                          "(cachescope's own file in its cache folder, never in the server's data), refreshed first: "
                          "the first run lists every folder, later ones only what changed. ") + kLocations);
    onRun(
        c,
        [a] {
            // A page at a time (keyset paging): memory is one page of 1,000
            // entries, whatever the catalog holds.
            auto cache = ActionsCache::open(pathsOf(*a));
            EntryQuery query;
            query.keyPrefix = a->keyPrefix;
            query.scope = a->scopeRef;
            query.repoId = a->repoId;
            query.order = lsOrder(*a);
            query.minSize = a->lsMinSize;
            query.maxSize = a->lsMaxSize;
            if (a->lsMinParts)
                query.minParts = int64_t(std::min<uint64_t>(*a->lsMinParts, INT64_MAX));
            if (a->lsMaxParts)
                query.maxParts = int64_t(std::min<uint64_t>(*a->lsMaxParts, INT64_MAX));
            for (const auto& s : a->states)
                query.stateMask |= 1u << unsigned(lsState(s));
            if (!catalogServes(query)) {
                cs::Job job("actions-cache ls: size index");
                SignalCancel sc(job);
                TerminalProgress progress(job, 0, a->quiet);
                job.start();
                cache->refreshIndex(&job);
            }
            ListingWriter out(a->json, [](std::string_view t) { printOut(t); });
            uint64_t left = a->limit.value_or(UINT64_MAX);
            std::optional<EntryCursor> after;
            while (left > 0) {
                ActionsEntryPage page = cache->entriesPage(query, after, size_t(std::min<uint64_t>(left, 1000)));
                left -= page.entries.size();
                out.entries(page.entries);
                if (!page.next)
                    break;
                after = std::move(page.next);
            }
            out.finish(cache->uploads());
            return Ok;
        },
        [a] {
            resolveWords(*a, 0, 0);
            if (!a->sort.empty() && a->sort != "created" && a->sort != "last-used" && a->sort != "size" && a->sort != "key")
                throw UsageError("--sort wants created, last-used, size or key");
            if (!a->order.empty() && a->order != "asc" && a->order != "desc")
                throw UsageError("--order wants asc or desc");
            if (a->limit && *a->limit == 0)
                throw UsageError("--limit wants a positive number");
            for (const auto& s : a->states)
                lsState(s);
        });
    return c;
});

// --- verify -------------------------------------------------------------

TreeRegistration regVerify("actions-cache", "verify", [](CLI::App& parent) {
    auto a = std::make_shared<AcArgs>();
    auto* c = addCommand(parent, "verify", "Check the rows against the files; exit 1 when there are findings", a);
    addOldStorage(c, a);
    addQuiet(c, a->quiet);
    c->footer("Reports missing or extra parts, merged objects missing or of the wrong size, orphan folders, locations "
              "without entries, unfinished uploads and stalled merges; reads only. " + std::string(kLocations));
    onRun(
        c,
        [a] {
            auto cache = ActionsCache::open(pathsOf(*a));
            cs::Job job("actions-cache verify");
            SignalCancel sc(job);
            std::vector<Finding> findings;
            {
                TerminalProgress progress(job, 0, a->quiet);
                job.start();
                findings = cache->verify(job);
            }
            print(*a, findingsJson(findings), findingsText(findings));
            return findings.empty() ? Ok : Failure;
        },
        [a] { resolveWords(*a, 0, 0); });
    return c;
});

// --- merge --------------------------------------------------------------

TreeRegistration regMerge("actions-cache", "merge", [](CLI::App& parent) {
    auto a = std::make_shared<AcArgs>();
    auto* c = addCommand(parent, "merge",
                         "Merge the parts of unmerged entries the way the server does on a first download", a);
    addIds(c, a);
    addWrite(c, a);
    addQuiet(c, a->quiet);
    c->footer("All entries, or the given ids; the parts stay for --parts-grace after the merge (a download may still "
              "stream them) and a later merge run, or the server's cleanup, deletes them. Without --write it lists what "
              "it would do and changes nothing; with --write it refuses while the server looks active unless --force. "
              "An entry whose row changed since the plan (the server or another run got there first) is skipped. Exit "
              "1 when --write and an entry was refused. " +
              std::string(kLocations));
    onRun(
        c,
        [a] { return writeCommand(*a, [a] {
            auto cache = ActionsCache::open(pathsOf(*a), a->write);
            std::vector<ActionsMergeResult> results;
            if (a->write) {
                cs::Job job("actions-cache merge");
                SignalCancel sc(job);
                TerminalProgress progress(job, 0, a->quiet);
                job.start();
                results = cache->merge(a->rest, job, writeOptionsOf(*a));
            } else {
                results = cache->planMerge(a->rest, writeOptionsOf(*a));
            }
            print(*a, mergeJson(results, a->write), mergeText(results, a->write));
            for (const auto& r : results)
                if (r.error && a->write)
                    return Failure;
            return Ok;
        }); },
        [a] { resolveWords(*a, 0, -1); });
    return c;
});

// --- evict --------------------------------------------------------------

TreeRegistration regEvict("actions-cache", "evict", [](CLI::App& parent) {
    auto a = std::make_shared<AcArgs>();
    auto* c = addCommand(parent, "evict", "Delete entries, their rows and their folder together", a);
    addOldStorage(c, a);
    CLI::Option* write = addWrite(c, a);
    addDurationOption(c, "older-than", a->olderThan, "Updated before now - DURATION (30d, 12h)");
    addDurationOption(c, "unused-for", a->unusedFor, "Not downloaded for DURATION (never-downloaded entries age from "
                                                     "their update time)");
    addSizeOption(c, "max-size", a->maxSize, "Then least recently used first until the rest fits SIZE");
    addRepeatable(c, "key", a->keys, "K", "Only this key (repeatable; a trailing * matches a prefix)");
    // Contradicting --write is a usage error (exit 2), as it always was.
    write->excludes(c->add_flag("--dry-run", a->dryRun, "Only list what would go (the default without --write)"));
    addQuiet(c, a->quiet);
    c->footer("Give at least one of --older-than, --unused-for, --max-size and --key. Without --write it lists what "
              "would go and changes nothing; with --write it refuses while the server looks active unless --force. " +
              std::string(kLocations));
    onRun(
        c,
        [a] { return writeCommand(*a, [a] {
            ActionsEvictPolicy policy;
            if (a->olderThan)
                policy.olderThanMs = int64_t(*a->olderThan * 1000);
            if (a->unusedFor)
                policy.unusedForMs = int64_t(*a->unusedFor * 1000);
            policy.maxBytes = a->maxSize;
            policy.keys = a->keys;
            auto cache = ActionsCache::open(pathsOf(*a), a->write);
            std::vector<ActionsEntry> victims;
            std::vector<ActionsSkip> skipped;
            if (a->write) {
                cs::Job job("actions-cache evict");
                SignalCancel sc(job);
                TerminalProgress progress(job, 0, a->quiet);
                job.start();
                victims = cache->evict(policy, job, writeOptionsOf(*a), &skipped);
            } else {
                victims = cache->planEvict(policy);
                skipped = cache->holdBackFromEvict(victims, writeOptionsOf(*a));   // what the write would keep
            }
            print(*a, evictJson(victims, a->write, skipped), evictText(victims, a->write, skipped));
            return Ok;
        }); },
        [a] {
            resolveWords(*a, 0, 0);
            if (!a->olderThan && !a->unusedFor && !a->maxSize && a->keys.empty())
                throw UsageError("actions-cache evict wants --older-than, --unused-for, --max-size or --key");
            for (const auto& [flag, d] : {std::pair{"--older-than", a->olderThan}, std::pair{"--unused-for", a->unusedFor}})
                if (d && *d < 0)
                    throw UsageError(std::string(flag) + " wants a positive duration like 30d or 12h");
        });
    return c;
});

// --- reap-uploads -------------------------------------------------------

TreeRegistration regReapUploads("actions-cache", "reap-uploads", [](CLI::App& parent) {
    auto a = std::make_shared<AcArgs>();
    auto* c = addCommand(parent, "reap-uploads", "Remove unfinished uploads (row and folder) idle for too long", a);
    addOldStorage(c, a);
    CLI::Option* write = addWrite(c, a);
    addDurationOption(c, "older-than", a->olderThan, "Idle (no part, not created) for longer than DURATION "
                                                     "(default 1d)");
    write->excludes(c->add_flag("--dry-run", a->dryRun, "Only list what would go (the default without --write)"));
    addQuiet(c, a->quiet);
    c->footer("What the server's cleanup:uploads task does, for servers run with DISABLE_CLEANUP_JOBS. Without "
              "--write it lists what would go and changes nothing; with --write it refuses while the server looks "
              "active unless --force; an upload that got a part since the plan is kept. " + std::string(kLocations));
    onRun(
        c,
        [a] { return writeCommand(*a, [a] {
            const int64_t idle = a->olderThan ? int64_t(*a->olderThan * 1000) : int64_t(24) * 3600 * 1000;
            auto cache = ActionsCache::open(pathsOf(*a), a->write);
            std::vector<ActionsUpload> gone;
            std::vector<ActionsUploadSkip> skipped;
            if (a->write) {
                cs::Job job("actions-cache reap-uploads");
                SignalCancel sc(job);
                TerminalProgress progress(job, 0, a->quiet);
                job.start();
                gone = cache->reapUploads(idle, job, writeOptionsOf(*a), &skipped);
            } else {
                gone = cache->planReapUploads(idle);
            }
            print(*a, reapJson(gone, a->write, skipped), reapText(gone, a->write, skipped));
            return Ok;
        }); },
        [a] {
            resolveWords(*a, 0, 0);
            if (a->olderThan && *a->olderThan < 0)
                throw UsageError("--older-than wants a positive duration like 1d or 12h");
        });
    return c;
});

// --- report -------------------------------------------------------------
// The whole server at a glance (core/entries/ServerReport.h); the chart is
// drawn by the GUI binary (GuiChart.h), so this tool links no Qt.

void writeText(const std::string& path, const std::string& text, cs::Job& job)
{
    cs::OutputFile out = cs::OutputFile::open(path, [&job] { job.checkCancel(); });
    out.writeAll(text.data(), text.size());
    out.commit();
}

TreeRegistration regReport("actions-cache", "report", [](CLI::App& parent) {
    auto a = std::make_shared<AcArgs>();
    auto* c = addCommand(parent, "report",
                         "The whole server at a glance: space by key family, scope, repo and age, entries past the "
                         "retention and why, unfinished and orphaned data; reads only",
                         a);
    addOldStorage(c, a);
    c->add_option("--csv", a->csv, "Also write the figures as CSV to FILE")->type_name("FILE");
    c->add_option("--plot", a->plot, "Also draw the charts to FILE.png, .svg or .pdf")->type_name("FILE.png|.svg|.pdf");
    c->add_option("--retention", a->retentionDays,
                  "The server's CACHE_CLEANUP_OLDER_THAN_DAYS: entries unused for longer are past it (default 30)")
        ->type_name("DAYS");
    c->add_option("--retention-list", a->retentionList,
                  "Name the oldest N entries past the retention (default 1000; the counts cover all of them)")
        ->type_name("N");
    addSizeOption(c, "memory", a->memory, "Memory bound of the repetition estimate (default 256MiB)", 1 << 20);
    c->add_flag("--no-repetition", a->noRepetition, "Skip the decode pass (compression and repetition)");
    c->add_flag("--full-scan", a->fullScan, "List every folder again, not only what changed (S3: finds new orphans)");
    addQuiet(c, a->quiet);
    c->footer(std::string("Families: the key without a trailing run of 8 or more hex digits and the separator before "
                          "it. Sizes come from the size index (cachescope's own file in its cache folder, never in "
                          "the server's data): the first report lists every folder, later ones only what changed. ") +
              kLocations);
    onRun(
        c,
        [a] {
            auto cache = ActionsCache::open(pathsOf(*a));
            cs::Job job("actions-cache report");
            SignalCancel sc(job);
            ReportOptions options;
            options.retentionDays = a->retentionDays;
            options.retentionList = size_t(a->retentionList.value_or(options.retentionList));
            options.repetition = !a->noRepetition;
            options.memoryBytes = a->memory.value_or(options.memoryBytes);
            options.fullScan = a->fullScan;
            ServerReport report;
            {
                TerminalProgress progress(job, 0, a->quiet);
                job.start();
                report = buildServerReport(*cache, options, job);
            }
            if (!a->csv.empty())
                writeText(a->csv, serverReportCsv(report), job);
            if (!a->plot.empty()) {
                TempFolder temp;
                const std::string json = temp.file("report.json");
                writeText(json, cs::dumpJson(serverReportJson(report)), job);
                drawWithGui("--render-report", json, a->plot);
            }
            print(*a, serverReportJson(report), serverReportText(report));
            return Ok;
        },
        [a] {
            resolveWords(*a, 0, 0);
            if (a->retentionDays < 0 || a->retentionDays > 100000)
                throw UsageError("--retention wants a number of days from 0 to 100000");
        });
    return c;
});

// --- import -------------------------------------------------------------

TreeRegistration regImport("actions-cache", "import", [](CLI::App& parent) {
    auto a = std::make_shared<AcArgs>();
    auto* c = addCommand(parent, "import",
                         "Copy entries into a native cachescope store (created when missing), merged there", a);
    a->positionals.push_back(shownRequired(c->add_option("STORE", a->second, "The native store folder")->type_name("")));
    addIds(c, a);
    c->add_option("--scope", a->scope, "Scope of the imported entries (default: each entry's own scope)")
        ->type_name("S");
    addSizeOption(c, "part-size", a->partSize, "Upload part size (default 1MiB)", 1, cs::store::kMaxPartBytes);
    c->add_flag("--no-merge", a->noMerge, "Leave the imported entries unmerged");
    c->add_flag("--wait", a->wait, "Merge each entry before returning (default: return once all are committed)");
    addQuiet(c, a->quiet);
    c->footer("All entries, or the given ids, with their key, version, scope, repo and update time; a save imported "
              "before is skipped; reports stored, skipped and failed entries (exit 1 when any failed), dedup and "
              "compression. The command returns once every entry is committed (as parts) and the merges finish "
              "behind it in a process of its own, as after 'store put' ('store merge --wait-background' waits for "
              "them); with --wait it merges each entry first. Reads the server's data only. " +
              std::string(kLocations));
    onRun(
        c,
        [a] {
            // Merges behind the command unless --wait or --no-merge (Handover.h,
            // as store put): forked before a database connection is opened.
            std::optional<Handover> handover;
            if (!a->noMerge && !a->wait)
                handover.emplace(Handover::begin());
            const bool behind = handover && handover->detached();
            auto cache = ActionsCache::open(pathsOf(*a));
            const std::string storeDir = a->rest[0];
            const std::vector<std::string> ids(a->rest.begin() + 1, a->rest.end());
            auto store = cs::store::Store::init(storeDir);
            cs::Job job("actions-cache import");
            SignalCancel sc(job);
            ActionsImportResult r;
            {
                TerminalProgress progress(job, 0, a->quiet);
                job.start();
                r = cache->importInto(*store, ids, a->scope, a->partSize.value_or(1 << 20), a->noMerge || behind, job);
            }
            const int status = r.failed.empty() ? Ok : Failure;
            if (!behind || r.unmerged.empty()) {
                print(*a, importJson(r, storeDir), importText(r, storeDir));
                return status;
            }
            // Every entry is committed: the lease, the report, and the command
            // returns; the merges follow. Without the lease (no inode left)
            // they run in front.
            std::optional<cs::FileLock> lease;
            try {
                lease.emplace(store->holdBackgroundMerge());
            } catch (const std::exception&) {
            }
            if (!lease) {
                TerminalProgress progress(job, 0, a->quiet);
                for (const int64_t id : r.unmerged) {
                    const auto m = store->merge(id, job);
                    r.chunks += m.chunks;
                    r.newChunks += m.newChunks;
                    r.appendedBytes += m.appendedBytes;
                }
                progress.clear();
                print(*a, importJson(r, storeDir), importText(r, storeDir));
                return status;
            }
            r.mergingInBackground = true;
            print(*a, importJson(r, storeDir), importText(r, storeDir));
            handover->release(status);
            for (const int64_t id : r.unmerged) {
                try {
                    store->merge(id, job);   // a failure is kept in the entry's row
                } catch (const cs::Cancelled&) {
                    throw;
                } catch (const std::exception&) {
                }
            }
            return status;
        },
        [a] { resolveWords(*a, 1, -1); });
    return c;
});

} // namespace

// The group itself.
TreeRegistration regActionsCache("", "actions-cache", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("actions-cache",
                                    "Browse, verify, merge, evict or import a github-actions-cache-server's data");
    c->require_subcommand(1);
    c->footer("Reads open the server's database read-only and change no byte; merge and evict change data only with "
              "--write. docs/actions-cache.md describes the server's layout.");
    return c;
});

} // namespace cli
