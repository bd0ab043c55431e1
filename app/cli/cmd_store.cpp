// cachescope-cli store SUBCOMMAND DIR ...: the native cache store (core/store):
// init, put, ls, get, merge, evict, fsck, stats (docs/cli.md, section "store").
// Other files add their store subcommands under "store" (cmd_store_gc.cpp).
#include "CancelledOutput.h"
#include "CommandTree.h"
#include "Handover.h"
#include "SignalCancel.h"
#include "StoreCommon.h"
#include "TerminalProgress.h"
#include "TextTable.h"

#include "core/jobs/Job.h"
#include "core/pack/FileLock.h"
#include "core/store/Store.h"
#include "core/util/Escape.h"
#include "core/util/Error.h"
#include "core/util/OutputFile.h"
#include "core/util/Units.h"

#include <algorithm>
#include <sys/stat.h>

namespace cli {

namespace {

using namespace cs::store;

std::string num(uint64_t v) { return std::to_string(v); }

// Keys, paths and messages quoting them, for human lines (JSON keeps the bytes).
std::string esc(const std::string& v) { return cs::escapeControl(v); }

// When a key exists under other versions or scopes: say which, so a miss
// caused by a missing --version/--scope is obvious.
std::string otherVersionsHint(const Store& store, const std::string& key)
{
    EntryFilter f;
    f.keyPrefix = key;
    std::vector<std::string> found;
    for (const auto& e : store.listEntries(f, SortColumn::Created, true, 0, 50)) {
        if (e.key != key)
            continue;
        found.push_back("--version '" + e.version + "' --scope '" + e.scope + "'");
        if (found.size() == 3)
            break;
    }
    if (found.empty())
        return {};
    std::string out = " (the key exists with ";
    for (size_t i = 0; i < found.size(); ++i)
        out += (i ? ", " : "") + found[i];
    return out + ")";
}

TextTable entryTable()
{
    return TextTable({"state", "size", "parts", "created", "last_access", "sha256", "version", "scope", "key"},
                     {false, true, true, false, false, false, false, false, false});
}

// An unmerged entry whose merge runs now (in any process) reads "merging";
// one whose last merge failed, "unmerged!" (the sentence is in --json and
// in 'store stats').
std::string stateCell(const Store& store, const EntryRow& e)
{
    if (e.state != EntryState::Unmerged)
        return entryStateName(e.state);
    if (store.mergeRunning(e.id))
        return "merging";
    return e.mergeError.empty() ? "unmerged" : "unmerged!";
}

std::vector<std::string> entryCells(const Store& store, const EntryRow& e)
{
    return {stateCell(store, e), cs::formatSize(e.size), num(e.partCount), timeText(e.created),
            timeText(e.lastAccess), e.sha256.substr(0, 12), e.version.empty() ? "-" : e.version,
            e.scope.empty() ? "-" : e.scope, e.key};
}

uint64_t regularFileSize(const std::string& path)
{
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? uint64_t(st.st_size) : 0;
}

bool regularFile(const std::string& path)
{
    struct stat st {};
    return path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// --- init ---------------------------------------------------------------

TreeRegistration regInit("store", "init", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("init", "Create an empty store in DIR (or migrate an existing one)");
    auto dir = std::make_shared<std::string>();
    addPath(c, "DIR", *dir, "Store folder");
    onRun(c, [dir] {
        auto store = Store::init(*dir);
        printOut("initialized store " + store->dir() + " (schema " + std::to_string(store->schemaVersion()) + ")\n");
        return Ok;
    });
    return c;
});

// --- put ----------------------------------------------------------------

struct PutArgs {
    std::string dir, key, file, version, scope;
    std::optional<uint64_t> partSize, maxSize;
    int parallel = 4;
    bool noMerge = false, json = false, quiet = false, wait = false;
};

void printStored(const PutArgs& a, const EntryRow& e, const MergeResult* m)
{
    if (a.json) {
        Json o = entryJson(e);
        if (m)
            o["merge"] = {{"chunks", m->chunks}, {"new_chunks", m->newChunks}, {"appended_bytes", m->appendedBytes}};
        o["merging_in_background"] = !a.noMerge && !m;
        printJson(o);
        return;
    }
    printOut("stored " + esc(e.key) + " (" + cs::formatSize(e.size) + ", " + num(e.partCount) + " parts, " +
             entryStateName(e.state) + ")" +
             (m ? ": " + num(m->chunks) + " chunks, " + num(m->newChunks) + " new, " +
                      cs::formatSize(m->appendedBytes) + " appended"
                : a.noMerge ? std::string() : std::string(": merging in the background")) +
             "\n");
}

// The parts are committed and said; the merge goes on behind the command.
int putThenMergeBehind(const PutArgs& a, Handover& handover)
{
    auto store = Store::open(a.dir);
    cs::Job job("store put");
    SignalCancel sc(job, "nothing was stored");
    TerminalProgress progress(job, regularFileSize(a.file), a.quiet);
    job.start();
    EntryRow e = store->putFile(a.key, a.file, job, a.version, a.scope, a.partSize.value_or(1 << 20), a.parallel,
                                a.maxSize);
    sc.setOutcome("the entry was stored unmerged (its parts); 'store merge' merges it");
    // The lease is taken only now, so a put that fails leaves no merges.lock;
    // when it cannot be taken (no inode left), the merge runs in front.
    std::optional<cs::FileLock> lease;
    try {
        lease.emplace(store->holdBackgroundMerge());
    } catch (const std::exception&) {
        const MergeResult m = store->merge(e.id, job);
        e = store->entry(e.id).value_or(e);
        progress.clear();
        printStored(a, e, &m);
        return Ok;
    }
    progress.clear();
    printStored(a, e, nullptr);
    handover.release();
    store->merge(e.id, job);   // its failure is kept in the entry's row
    return Ok;
}

int runPut(const PutArgs& a)
{
    if (!a.noMerge && !a.wait) {
        // Before the store is opened: the fork keeps no connection or thread.
        Handover handover = Handover::begin();
        if (handover.detached())
            return putThenMergeBehind(a, handover);
    }
    auto store = Store::open(a.dir);
    cs::Job job("store put");
    SignalCancel sc(job, "nothing was stored");
    TerminalProgress progress(job, regularFileSize(a.file), a.quiet);
    job.start();
    EntryRow e;
    MergeResult m;
    if (!a.noMerge && regularFile(a.file)) {
        // Read once straight into the pack, no parts (Store::putMerged).
        PutResult r = store->putMerged(a.key, a.file, job, a.version, a.scope, a.maxSize);
        e = r.entry;
        m = r.merge;
    } else {
        e = store->putFile(a.key, a.file, job, a.version, a.scope, a.partSize.value_or(1 << 20), a.parallel, a.maxSize);
        if (!a.noMerge) {
            sc.setOutcome("the entry was stored unmerged (its parts); 'store merge' merges it");
            m = store->merge(e.id, job);
            e = store->entry(e.id).value_or(e);
        }
    }
    progress.clear();
    printStored(a, e, a.noMerge ? nullptr : &m);
    return Ok;
}

TreeRegistration regPut("store", "put", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("put", "Store FILE as KEY, merged into the pack (or as parts with --no-merge)");
    c->footer("FILE is written as parts of --part-size from --parallel threads, like a build tool, each byte read once "
              "(its SHA-256 taken as it goes by), the parts synced all together, and committed; the command returns then, and the merge into the pack finishes behind it in a process "
              "of its own ('store merge --wait-background' waits for it). With --wait a regular file is instead read "
              "once straight into the pack (chunked, hashed, compressed) and committed merged, with no parts; with "
              "--no-merge the entry stays unmerged. Re-putting the same key, version and scope replaces "
              "the entry. FILE - (standard input), a pipe, FIFO or character device is streamed in order as parts, one "
              "part in memory, then merged unless --no-merge; an empty stream stores nothing (exit 1).");
    auto a = std::make_shared<PutArgs>();
    addPath(c, "DIR", a->dir, "Store folder");
    addPath(c, "KEY", a->key, "Cache key (up to 4 KiB)");
    addPath(c, "FILE", a->file, "File to store, or - for standard input");
    addVersionScope(c, a->version, a->scope);
    addSizeOption(c, "part-size", a->partSize, "Part size (default 1MiB; parts are written with --no-merge or from a stream)", 1);
    c->add_option("--parallel", a->parallel, "Part upload threads (default 4, 1..256; with --no-merge)")->type_name("N")->transform(range(1, 256));
    addSizeOption(c, "max-size", a->maxSize,
                  "Refuse input larger than this, storing nothing (default 16GiB for a stream, none for a file; 0: none)", 0);
    c->add_flag("--no-merge", a->noMerge, "Leave the entry unmerged (parts only)");
    c->add_flag("--wait", a->wait, "Merge before returning (a regular file in one pass, straight into the pack)");
    c->add_flag("--json", a->json, "Machine-readable output");
    addQuiet(c, a->quiet);
    onRun(c, [a] { return runPut(*a); });
    return c;
});

// --- ls -----------------------------------------------------------------

int runLs(const std::string& dir, bool json)
{
    auto store = Store::open(dir);
    Json list = Json::array();
    TextTable table = entryTable();
    bool header = true;
    // Pages of 10,000 by id, each a seek after the last id (OFFSET would walk
    // every row before the page: quadratic on a large catalog). Columns are
    // as wide as the widest cell seen so far.
    const uint64_t page = 10000;
    SortKey last;
    for (const SortKey* after = nullptr;; after = &last) {
        const auto rows = store->listEntriesAfter({}, SortColumn::Id, false, after, 0, page);
        if (!rows.empty())
            last.id = rows.back().id;
        for (const auto& e : rows) {
            if (json) {
                Json o = entryJson(e);
                o["merging"] = e.state == EntryState::Unmerged && store->mergeRunning(e.id);
                list.push_back(std::move(o));
            } else {
                table.add(entryCells(*store, e));
            }
        }
        if (!json) {
            printOut(table.takePage(header));
            header = false;
        }
        if (rows.size() < page)
            break;
    }
    if (json)
        printJson(list);
    return Ok;
}

TreeRegistration regLs("store", "ls", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("ls", "List the entries of a store");
    auto dir = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    addPath(c, "DIR", *dir, "Store folder");
    c->add_flag("--json", *json, "Machine-readable output");
    onRun(c, [dir, json] { return runLs(*dir, *json); });
    return c;
});

// --- get ----------------------------------------------------------------

struct GetArgs {
    std::string dir, key, out, version, scope;
    std::vector<std::string> restoreKeys;
    int threads = 0;
    bool verify = false, json = false, quiet = false, wait = false;
};

// What get prints once the output is in place.
void printRestored(const GetArgs& a, const RestoreResult& r, const char* merge)
{
    if (a.json) {
        Json o = entryJson(r.entry);
        o["matched_by"] = r.matchedBy;
        o["merged_now"] = r.mergedNow;
        o["merging_in_background"] = std::string(merge) == "background";
        o["output"] = a.out;
        printJson(o);
    } else {
        printOut("restored " + esc(r.entry.key) + " (" + cs::formatSize(r.bytes) + ", matched by " + r.matchedBy +
                 (r.mergedNow ? ", merged now" : "") +
                 (std::string(merge) == "background" ? ", merging in the background" : "") + ") to " + esc(a.out) +
                 "\n");
    }
}

int runGet(const GetArgs& a)
{
    StoreOptions opts;
    opts.threads = a.threads;
    opts.verifyChunks = a.verify;
    auto store = Store::open(a.dir, opts);
    RestoreRequest req;
    req.key = a.key;
    req.restoreKeys = a.restoreKeys;
    req.version = a.version;
    req.scope = a.scope;
    const auto found = store->lookup(req);
    if (!found) {
        printError(a.dir + ": no entry matches key '" + a.key + "'" +
                   (req.restoreKeys.empty() ? "" : " or its restore keys") + " in version '" + req.version +
                   "' and scope '" + req.scope + "'" + otherVersionsHint(*store, req.key));
        return Failure;
    }
    // An unmerged entry's first restore merges it: the command returns once
    // the output is complete and in place, and the merge goes on behind it
    // in a process of its own (Handover.h), unless --wait. The fork comes
    // before any thread or open connection: the store is opened again.
    std::optional<Handover> handover;
    std::optional<cs::FileLock> lease;
    if (!a.wait && found->first.state == EntryState::Unmerged && !store->readOnly()) {
        store.reset();
        handover.emplace(Handover::begin());
        store = Store::open(a.dir, opts);
    }
    cs::Job job("store get");
    SignalCancel sc(job);
    TerminalProgress progress(job, found->first.size, a.quiet);
    job.start();
    RestoreResult r;
    auto onDelivered = [&](const RestoreResult& now) {
        if (!handover || !handover->detached() || handover->released())
            return;
        // Taken only now, so a get that fails or is refused leaves no
        // merges.lock; one that cannot take it waits for its merge instead.
        try {
            lease.emplace(store->holdBackgroundMerge());
        } catch (const std::exception&) {
            return;
        }
        cs::keepSummaryOutOfData(a.out);
        progress.clear();
        printRestored(a, now, "background");
        handover->release();
    };
    // Only a get that returns at delivery acts on it (--wait waits for the merge).
    const std::function<void(const RestoreResult&)> atDelivery =
        handover && handover->detached() ? std::function<void(const RestoreResult&)>(onDelivered) : nullptr;
    CancelledOutput(a.out).run(sc, [&] { r = store->restoreToFile(req, a.out, job, atDelivery); });
    if (handover && handover->released())
        return Ok;   // nobody listens any more; the outcome is in the catalog
    cs::keepSummaryOutOfData(a.out);
    progress.clear();
    if (!r.mergeError.empty())
        printError("warning: " + r.mergeError);
    if (r.mergeSkipped)
        printError(a.dir + ": the store is read-only for this user, so entry '" + r.entry.key
                   + "' was restored from its parts and left unmerged (a 'store merge' with write access merges it)");
    printRestored(a, r, "");
    return Ok;
}

TreeRegistration regGet("store", "get", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("get", "Restore KEY (or a fallback) to OUT, checking every frame's checksum, or each part's CRC-32C before the first merge");
    c->footer("Exact key, then the newest entry with KEY as prefix, then each restore key (exact, then prefix), within "
              "version and scope. OUT is replaced atomically; a device, FIFO or - is written in place. An unmerged entry is "
              "merged while it streams; the command returns as soon as OUT is complete and the merge finishes behind it "
              "in a process of its own (--wait: after it; 'store merge --wait-background' waits for it). Exit 1 when "
              "nothing matches.");
    auto a = std::make_shared<GetArgs>();
    addPath(c, "DIR", a->dir, "Store folder");
    addPath(c, "KEY", a->key, "Cache key");
    addPath(c, "OUT", a->out, "Output file (replaced atomically), or - for standard output");
    addRepeatable(c, "restore-key", a->restoreKeys, "K", "Fallback key or prefix (repeatable)");
    addVersionScope(c, a->version, a->scope);
    c->add_option("--threads", a->threads, "Decode threads (default: all cores)")->type_name("N")->transform(range(0, 256));
    c->add_flag("--verify", a->verify, "Also check each chunk's SHA-256 (frame checksums are always checked)");
    c->add_flag("--wait", a->wait, "Return after the merge of an unmerged entry, not as soon as OUT is complete");
    c->add_flag("--json", a->json, "Machine-readable output");
    addQuiet(c, a->quiet);
    onRun(c, [a] { return runGet(*a); });
    return c;
});

// --- merge --------------------------------------------------------------

struct MergeArgs {
    std::string dir, version, scope;
    std::vector<std::string> keys;
    bool all = false, json = false, quiet = false, waitBackground = false;
};

int runMerge(const MergeArgs& a)
{
    if (a.all && !a.keys.empty())
        throw UsageError("give either keys or --all");
    if (!a.all && a.keys.empty() && !a.waitBackground)
        throw UsageError("give keys, --all or --wait-background");
    auto store = Store::open(a.dir);
    cs::Job job("store merge");
    SignalCancel sc(job);
    TerminalProgress progress(job, 0, a.quiet);
    job.start();
    if (a.waitBackground) {
        store->waitForBackgroundMerges(job);
        if (!a.all && a.keys.empty()) {
            progress.clear();
            if (!a.json)
                printOut("no merge runs in the background\n");
            else
                printJson({{"background_merges", false}});
            return Ok;
        }
    }
    std::vector<MergeResult> results;
    if (a.all) {
        results = store->mergeAll(job);
    } else {
        for (const auto& key : a.keys) {
            auto e = store->findEntry(key, a.version, a.scope);
            if (!e) {
                progress.clear();
                printError(a.dir + ": no entry with key '" + key + "'");
                return Failure;
            }
            results.push_back(store->merge(e->id, job));
        }
    }
    progress.clear();
    Json list = Json::array();
    std::string text;
    for (const auto& m : results) {
        list.push_back({{"key", m.key},
                        {"merged", m.merged},
                        {"size", m.bytes},
                        {"chunks", m.chunks},
                        {"new_chunks", m.newChunks},
                        {"appended_bytes", m.appendedBytes},
                        {"root_offset", m.rootOffset}});
        text += m.merged ? "merged " + esc(m.key) + ": " + cs::formatSize(m.bytes) + ", " + num(m.chunks) + " chunks (" +
                               num(m.newChunks) + " new), " + cs::formatSize(m.appendedBytes) + " appended\n"
                         : "already merged " + esc(m.key) + "\n";
    }
    if (a.json)
        printJson(list);
    else
        printOut(text.empty() ? "nothing to merge\n" : text);
    return Ok;
}

TreeRegistration regMerge("store", "merge", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("merge", "Merge unmerged entries into the pack: the given keys, or --all; or wait for background merges");
    auto a = std::make_shared<MergeArgs>();
    addPath(c, "DIR", a->dir, "Store folder");
    c->add_option("KEY", a->keys, "Keys to merge (with --version and --scope)")->type_name("");
    c->add_flag("--all", a->all, "Merge every unmerged entry");
    c->add_flag("--wait-background", a->waitBackground,
                "First wait until no merge started behind 'store get' or 'store put' runs (alone: only wait)");
    addVersionScope(c, a->version, a->scope);
    c->add_flag("--json", a->json, "Machine-readable output");
    addQuiet(c, a->quiet);
    onRun(c, [a] { return runMerge(*a); });
    return c;
});

// --- evict --------------------------------------------------------------

struct EvictArgs {
    std::string dir;
    std::optional<double> olderThan, unusedFor;
    std::optional<uint64_t> maxSize;
    std::vector<std::string> keys;
    bool dryRun = false, json = false;
};

int runEvict(const EvictArgs& a)
{
    EvictPolicy policy;
    policy.olderThanSeconds = a.olderThan;
    policy.unusedForSeconds = a.unusedFor;
    policy.maxBytes = a.maxSize;
    policy.keys = a.keys;
    if (!policy.olderThanSeconds && !policy.unusedForSeconds && !policy.maxBytes && policy.keys.empty())
        throw UsageError("say what to evict: --older-than, --unused-for, --max-size or --key");
    policy.dryRun = a.dryRun;
    auto store = Store::open(a.dir);
    cs::Job job("store evict");
    job.start();
    const EvictResult r = store->evict(policy, job);
    if (a.json) {
        Json list = Json::array();
        for (const auto& e : r.evicted)
            list.push_back(entryJson(e));
        Json o = Json::object();
        o["dry_run"] = r.dryRun;
        o["entries"] = std::move(list);
        o["bytes"] = r.bytes;
        o["part_bytes"] = r.partBytes;
        Json kept = Json::array();
        for (const auto& e : r.keptRunningUploads)
            kept.push_back(entryJson(e));
        o["kept_running_uploads"] = std::move(kept);
        printJson(o);
    } else {
        const std::string verb = r.dryRun ? "would evict" : "evicted";
        TextTable table = entryTable();
        for (const auto& e : r.evicted)
            table.add(entryCells(*store, e));
        std::string text;
        if (!r.evicted.empty()) {
            // Each row after the verb; the header lines up under the rows.
            const std::string rows = table.text();
            size_t start = 0;
            bool first = true;
            for (size_t nl; (nl = rows.find('\n', start)) != std::string::npos; start = nl + 1) {
                text += (first ? std::string(verb.size() + 1, ' ') : verb + " ") + rows.substr(start, nl + 1 - start);
                first = false;
            }
        }
        text += verb + " " + num(r.evicted.size()) + " entries, " + cs::formatSize(r.bytes) + " (" +
                cs::formatSize(r.partBytes) + " of parts)\n";
        // A running upload is never evicted: say which ones the policy named.
        for (const auto& e : r.keptRunningUploads)
            text += "kept upload " + num(uint64_t(e.id)) + " (" + esc(e.key)
                    + "): it is still running (idle for less than a day; only uploads idle that long are evicted)\n";
        printOut(text);
    }
    return Ok;
}

TreeRegistration regEvict("store", "evict", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("evict", "Evict entries (catalog rows and parts; 'store gc' reclaims pack space)");
    c->footer("Entries created longer ago than --older-than, not restored for --unused-for (never restored: counted "
              "from creation), the given --key's (any version and scope), then with --max-size least recently used "
              "entries until the rest totals at most SIZE. Durations: 30d, 12h, 90m, 45s, 2w.");
    auto a = std::make_shared<EvictArgs>();
    addPath(c, "DIR", a->dir, "Store folder");
    addDurationOption(c, "older-than", a->olderThan, "Created longer ago than DURATION (30d, 12h)");
    addDurationOption(c, "unused-for", a->unusedFor, "Not restored for DURATION (never restored: since creation)");
    addSizeOption(c, "max-size", a->maxSize, "Then least recently used first until entries total SIZE");
    addRepeatable(c, "key", a->keys, "KEY", "Evict this key (repeatable)");
    c->add_flag("--dry-run", a->dryRun, "Only list what would go");
    c->add_flag("--json", a->json, "Machine-readable output");
    onRun(c, [a] { return runEvict(*a); });
    return c;
});

// --- fsck ---------------------------------------------------------------

Json problemJson(const FsckProblem& pr)
{
    Json o = Json::object();
    o["entry_id"] = pr.entryId ? Json(pr.entryId) : Json();
    o["key"] = pr.entryId ? Json(pr.key) : Json();
    o["offset"] = pr.offset ? Json(*pr.offset) : Json();
    o["message"] = pr.message;
    o["path"] = pr.path.empty() ? Json() : Json(pr.path);
    o["bytes"] = pr.bytes ? Json(*pr.bytes) : Json();
    return o;
}

struct FsckArgs {
    std::string dir;
    bool json = false, repair = false, quiet = false;
};

int runFsck(const FsckArgs& a)
{
    auto store = Store::open(a.dir);
    OrphanRemoval removal;
    if (a.repair) {
        cs::Job rjob("store fsck --repair");
        TerminalProgress progress(rjob, 0, a.quiet);
        rjob.start();
        removal = store->removeOrphans(rjob);
    }
    cs::Job job("store fsck");
    SignalCancel sc(job);
    std::vector<FsckProblem> problems;
    {
        TerminalProgress progress(job, 0, a.quiet);
        job.start();
        problems = store->fsck(job);
    }
    if (a.json) {
        Json list = Json::array();
        for (const auto& pr : problems)
            list.push_back(problemJson(pr));
        Json o = Json::object();
        o["clean"] = problems.empty();
        o["problems"] = std::move(list);
        if (a.repair) {
            Json removed = Json::array();
            for (const auto& pr : removal.removed)
                removed.push_back(problemJson(pr));
            o["removed"] = std::move(removed);
            o["removed_bytes"] = removal.bytes;
        }
        printJson(o);
    } else {
        std::string text;
        for (const auto& pr : removal.removed)
            text += "removed: " + esc(pr.path) + " (" + cs::formatSize(pr.bytes.value_or(0)) + ")\n";
        if (a.repair)
            text += "removed " + num(removal.removed.size()) + " orphan(s), " + cs::formatSize(removal.bytes) + "\n";
        for (const auto& pr : problems)
            text += "problem: " +
                    (pr.entryId ? "entry " + std::to_string(pr.entryId) + " '" + esc(pr.key) + "'"
                                : pr.path.empty() ? std::string("catalog") : std::string("orphan")) +
                    (pr.offset ? " at " + num(*pr.offset) : std::string()) + ": " + esc(pr.message) + "\n";
        text += problems.empty() ? std::string("clean\n") : num(problems.size()) + " problem(s)\n";
        const auto orphans = std::count_if(problems.begin(), problems.end(), [](const auto& pr) { return !pr.path.empty(); });
        if (orphans && !a.repair)
            text += num(uint64_t(orphans)) + " orphan(s) among them: 'cachescope-cli store fsck --repair " + a.dir +
                    "' removes them\n";
        printOut(text);
    }
    return problems.empty() ? Ok : Failure;
}

TreeRegistration regFsck("store", "fsck", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("fsck", "Check the store (exit 1 on problems); --repair deletes orphaned parts");
    c->footer("Every merged entry decodes and matches its SHA-256, every part of every unmerged entry is there, every "
              "dedup row is sane, and no part is orphaned. Changes nothing unless --repair. Exit 0 when clean, 1 when "
              "problems were found (or remain after --repair).");
    auto a = std::make_shared<FsckArgs>();
    addPath(c, "DIR", a->dir, "Store folder");
    c->add_flag("--repair", a->repair, "First delete orphaned parts (never those of an upload in progress), then check");
    c->add_flag("--json", a->json, "Machine-readable output");
    addQuiet(c, a->quiet);
    onRun(c, [a] { return runFsck(*a); });
    return c;
});

// --- stats --------------------------------------------------------------

int runStats(const std::string& dir, bool json)
{
    auto store = Store::open(dir);
    cs::Job job("store stats");
    job.start();
    const StoreStats st = store->stats(job);
    if (json) {
        Json o = Json::object();
        o["entries"] = st.entries;
        o["merged_entries"] = st.mergedEntries;
        o["unmerged_entries"] = st.unmergedEntries;
        o["uploading_entries"] = st.uploadingEntries;
        o["logical_bytes"] = st.logicalBytes;
        o["merged_logical_bytes"] = st.mergedLogicalBytes;
        o["stored_bytes"] = st.storedBytes;
        o["dedup_ratio"] = st.dedupRatio;
        o["unmerged_bytes"] = st.unmergedBytes;
        o["pack_bytes"] = st.packBytes;
        o["chunk_rows"] = st.chunkRows;
        o["failed_merges"] = st.failedMerges;
        o["background_merges"] = store->backgroundMergesRunning();
        printJson(o);
    } else {
        printOut("entries        " + num(st.entries) + " (" + num(st.mergedEntries) + " merged, " +
                 num(st.unmergedEntries) + " unmerged, " + num(st.uploadingEntries) + " uploading)\n" +
                 "logical bytes  " + cs::formatSize(st.logicalBytes) + "\n" + "stored bytes   " +
                 cs::formatSize(st.storedBytes) + " (pack bytes referenced by merged entries)\n" + "dedup ratio    " +
                 fixed(st.dedupRatio, 2) + "\n" + "unmerged bytes " + cs::formatSize(st.unmergedBytes) +
                 " (in parts)\n" + "pack size      " + cs::formatSize(st.packBytes) + "\n" + "merges         " +
                 (store->backgroundMergesRunning() ? "running in the background" : "none in the background") +
                 (st.failedMerges ? ", " + num(st.failedMerges) + " failed (see 'store ls --json', merge_error)"
                                  : std::string()) +
                 "\n");
    }
    return Ok;
}

TreeRegistration regStats("store", "stats", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("stats", "Entries, logical and stored bytes, dedup ratio, unmerged bytes, pack size");
    auto dir = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    addPath(c, "DIR", *dir, "Store folder");
    c->add_flag("--json", *json, "Machine-readable output");
    onRun(c, [dir, json] { return runStats(*dir, *json); });
    return c;
});

TreeRegistration regStore("", "store", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("store", "The native cache store: init, put, ls, get, merge, evict, fsck, stats, gc");
    c->require_subcommand(1);
    return c;
});

} // namespace

} // namespace cli
