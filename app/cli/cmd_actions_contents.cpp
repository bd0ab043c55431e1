// cachescope-cli actions-cache contents|diff|frames [DATA_DIR] ENTRY_ID...:
// what is inside a cache entry's blob (core/entries), on every backend the
// other actions-cache commands open. Reads only.
//
// Paths inside archives are bytes (a name may hold a newline or not be
// UTF-8): both outputs show them through escapeControl (core/util/Escape.h),
// so a name can never forge a table row or break the JSON, and two names
// never print alike.
#include "ActionsLocation.h"
#include "CommandTree.h"
#include "FramesText.h"
#include "SignalCancel.h"
#include "TerminalProgress.h"
#include "TextTable.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/entries/BlobFrameSource.h"
#include "core/entries/EntryDiff.h"
#include "core/entries/FolderTotals.h"
#include "core/frames/FrameLayoutJson.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/Escape.h"
#include "core/util/Units.h"

#include <cstdio>
#include <limits>
#include <memory>

namespace cli {
namespace {

using namespace cs::actions;
using namespace cs::entries;

struct ContentsArgs {
    std::vector<std::string> slots = std::vector<std::string>(3);  // DATA_DIR, then the ids, as CLI11 fills them
    std::vector<std::string> words;   // the words given, in order
    std::string db, storage, endpoint, region;
    LocationOptions location;
    bool json = false, quiet = false;
    uint64_t depth = 0;               // 0: every depth
    std::optional<uint64_t> memory;

    std::string dataDir;              // set by resolve()
    std::vector<std::string> ids;
};

// DATA_DIR is there unless --db and --storage name both halves and the
// words are exactly the ids.
void resolve(ContentsArgs& a, size_t ids)
{
    a.words.clear();
    for (const auto& w : a.slots)
        if (!w.empty())
            a.words.push_back(w);
    const bool both = a.location.db->count() > 0 && a.location.storage->count() > 0;
    const size_t want = both && a.words.size() == ids ? ids : ids + 1;
    if (a.words.size() != want)
        throw UsageError(a.words.size() < want ? (both ? "give the entry id" + std::string(ids > 1 ? "s" : "")
                                                       : "give DATA_DIR (or --db and --storage) and the entry id" +
                                                             std::string(ids > 1 ? "s" : ""))
                                               : "unexpected argument '" + a.words.back() + "'");
    a.dataDir = want > ids ? a.words.front() : std::string();
    a.ids.assign(a.words.end() - long(ids), a.words.end());
}

std::unique_ptr<ActionsCache> openCache(const ContentsArgs& a)
{
    DataDirPaths paths = resolveDataDir(
        a.dataDir, a.location.db->count() ? std::optional<std::string>(a.db) : std::nullopt,
        a.location.storage->count() ? std::optional<std::string>(a.storage) : std::nullopt);
    paths.endpoint = a.endpoint;
    paths.region = a.region;
    return ActionsCache::open(paths);
}

ActionsEntry findEntry(ActionsCache& cache, const std::string& id)
{
    auto e = cache.entry(id);
    if (!e)
        cs::fail(cache.catalog().describe(), "no cache entry with id '" + cs::escapeControl(id) + "' (see ls --json)");
    return std::move(*e);
}

CLI::App* addContentsCommand(CLI::App& parent, const std::string& name, const std::string& description,
                             const std::vector<std::string>& idsName, const std::shared_ptr<ContentsArgs>& a)
{
    auto* c = parent.add_subcommand(name, description);
    // Positionals in order; resolve() decides which word is DATA_DIR.
    c->add_option("DATA_DIR", a->slots[0],
                  "The server's data folder (sqlite.db and storage/ in it), or its sqlite.db; not needed when --db "
                  "and --storage name both halves")
        ->type_name("");
    for (size_t i = 0; i < idsName.size(); ++i)
        shownRequired(c->add_option(idsName[i], a->slots[i + 1], i == 0 && idsName.size() == 1
                                                                    ? "The entry's id (the id ls --json prints)"
                                                                    : "An entry's id (the id ls --json prints)")
                          ->type_name(""));
    a->location = addLocationOptions(c, a->db, a->storage, a->endpoint, a->region);
    c->add_flag("--json", a->json, "Print JSON (docs/cli.md)");
    addQuiet(c, a->quiet);
    return c;
}

void addMemory(CLI::App* c, const std::shared_ptr<ContentsArgs>& a)
{
    addSizeOption(c, "memory", a->memory,
                  "Memory budget of the zstd decoder: larger windows are refused (default 1GiB, which admits "
                  "the client's --long=30; at most 2GiB)",
                  1 << 20, kMaxWindow);
}

ContentsOptions optionsOf(const ContentsArgs& a)
{
    ContentsOptions o;
    o.memoryBudget = a.memory.value_or(kDefaultMemoryBudget);
    return o;
}

void writeOut(std::string_view text)
{
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
        cs::failErrno("stdout", "cannot write the listing");
}

std::string shown(const std::string& path) { return cs::escapeControl(path); }

// --- contents -----------------------------------------------------------

std::string summaryLine(const ActionsEntry& e, const ContentsSummary& s)
{
    std::string out = "entry " + shown(e.id) + " ('" + shown(e.key) + "'): " + blobFormatName(s.format);
    if (s.format == BlobFormat::Opaque) {
        out += " (" + s.detail + ")";
    } else if (s.format != BlobFormat::Json) {
        out += ", " + std::to_string(s.files) + " files, " + cs::formatSize(s.bytes) + " in files";
        out += "; blob " + cs::formatSize(s.blobBytes);
        if (s.blobBytes && s.decodedBytes)
            out += ", tar " + cs::formatSize(s.decodedBytes) + " (ratio " + fixed(double(s.decodedBytes) / double(s.blobBytes), 2) + ")";
        if (s.window)
            out += ", zstd window " + cs::formatSize(s.window);
    }
    return out + "\n";
}

int runContents(ContentsArgs& a)
{
    auto cache = openCache(a);
    const ActionsEntry e = findEntry(*cache, a.ids[0]);
    EntryBlob blob(cache->storage(), e);
    const unsigned depth = a.depth ? unsigned(std::min<uint64_t>(a.depth, std::numeric_limits<unsigned>::max()))
                                   : std::numeric_limits<unsigned>::max();
    FolderTotals folders(depth);
    cs::Job job("actions-cache contents");
    SignalCancel sc(job);
    ContentsSummary s;
    if (a.json) {
        // Members go out as they pass; the format key, first in the
        // document, comes from the blob's head before the first member.
        std::string head = "{\"entry\": " + cs::dumpJson(Json(e.id));
        bool started = false;
        std::string buf;
        bool firstMember = true;
        const auto start = [&](BlobFormat f) {
            writeOut(head + ", \"format\": \"" + blobFormatName(f) + "\", \"members\": [");
            started = true;
        };
        ContentsOptions options = optionsOf(a);
        options.onFormat = start;
        {
            TerminalProgress progress(job, 0, a.quiet);
            job.start();
            s = readContents(blob, options, job, [&](const Member& m) {
                folders.add(m);
                Json j;
                j["path"] = shown(m.path);
                j["type"] = memberTypeName(m.type);
                j["size"] = m.size;
                j["mode"] = m.mode;
                j["mtime"] = m.mtime;
                buf += firstMember ? "\n  " : ",\n  ";
                firstMember = false;
                buf += cs::dumpJson(j);
                if (buf.size() > (1 << 20)) {
                    writeOut(buf);
                    buf.clear();
                }
            });
        }
        if (!started)
            start(s.format);
        buf += firstMember ? "]" : "\n]";
        buf += ", \"folders\": [";
        bool first = true;
        for (const auto& f : folders.byPath()) {
            Json j;
            j["path"] = shown(f.path);
            j["files"] = f.files;
            j["bytes"] = f.bytes;
            buf += first ? "\n  " : ",\n  ";
            first = false;
            buf += cs::dumpJson(j);
        }
        buf += first ? "]" : "\n]";
        buf += ", \"files\": " + std::to_string(s.files) + ", \"bytes\": " + std::to_string(s.bytes) + "}\n";
        writeOut(buf);
        if (std::fflush(stdout) != 0)
            cs::failErrno("stdout", "cannot write the listing");
        return Ok;
    }
    {
        TerminalProgress progress(job, 0, a.quiet);
        job.start();
        s = readContents(blob, optionsOf(a), job, [&](const Member& m) { folders.add(m); });
    }
    std::string out = summaryLine(e, s);
    const auto list = folders.largestFirst();
    if (!list.empty()) {
        TextTable table({"bytes", "files", "folder"}, {true, true, false});
        for (const auto& f : list)
            table.add({cs::formatSize(f.bytes), std::to_string(f.files), shown(f.path)});
        out += "\n" + table.text();
    }
    printOut(out);
    return Ok;
}

TreeRegistration regContents("actions-cache", "contents", [](CLI::App& parent) {
    auto a = std::make_shared<ContentsArgs>();
    auto* c = addContentsCommand(parent, "contents",
                                 "What an entry's archive holds: its format, members and folder totals; reads only",
                                 {"ENTRY_ID"}, a);
    c->add_option("--depth", a->depth, "Folders down to this depth only (1 = the top folders)")
        ->type_name("N")
        ->check(range(1, int64_t(1) << 32));
    addMemory(c, a);
    c->footer("ENTRY_ID is the id `actions-cache ls --json` prints. The blob is the merged object, or the parts in "
              "numeric order while unmerged; tar through zstd (--long=30 or not) or gzip, plain tar, JSON, else "
              "'opaque'. Human output: the folders, largest first.");
    onRun(c, [a] { return runContents(*a); }, [a] { resolve(*a, 1); });
    return c;
});

// --- diff ---------------------------------------------------------------

Json diffJson(const EntryDiff& d)
{
    Json j;
    const auto list = [](const std::vector<DiffMember>& v) {
        Json out = Json::array();
        for (const auto& m : v)
            out.push_back(Json{{"path", shown(m.path)}, {"size", m.size}});
        return out;
    };
    j["added"] = list(d.added);
    j["removed"] = list(d.removed);
    Json changed = Json::array();
    for (const auto& c : d.changed)
        changed.push_back(Json{{"path", shown(c.path)}, {"size_a", c.sizeA}, {"size_b", c.sizeB}});
    j["changed"] = std::move(changed);
    j["bytes_added"] = d.bytesAdded;
    j["bytes_removed"] = d.bytesRemoved;
    return j;
}

std::string diffText(const EntryDiff& d)
{
    TextTable table({"", "path", "size", "what"}, {false, false, true, false});
    for (const auto& m : d.added)
        table.add({"+", shown(m.path), cs::formatSize(m.size), std::string("added ") + memberTypeName(m.type)});
    for (const auto& m : d.removed)
        table.add({"-", shown(m.path), cs::formatSize(m.size), std::string("removed ") + memberTypeName(m.type)});
    for (const auto& c : d.changed)
        table.add({"~", shown(c.path), cs::formatSize(c.sizeA) + " -> " + cs::formatSize(c.sizeB), c.what});
    std::string out = table.rows() ? table.text() + "\n" : std::string("no member differs\n");
    out += std::to_string(d.added.size()) + " added, " + std::to_string(d.removed.size()) + " removed, " +
           std::to_string(d.changed.size()) + " changed; " + cs::formatSize(d.bytesAdded) + " added, " +
           cs::formatSize(d.bytesRemoved) + " removed (" + cs::formatSize(d.a.bytes) + " -> " +
           cs::formatSize(d.b.bytes) + ")\n";
    return out;
}

TreeRegistration regDiff("actions-cache", "diff", [](CLI::App& parent) {
    auto a = std::make_shared<ContentsArgs>();
    auto* c = addContentsCommand(parent, "diff",
                                 "Members added, removed or changed between two entries (content by SHA-256)",
                                 {"ID_A", "ID_B"}, a);
    addMemory(c, a);
    c->footer("Both archives are read at once and every file hashed while it streams; mtime is not compared. "
              "bytes_added - bytes_removed is the change of the total.");
    onRun(
        c,
        [a] {
            auto cache = openCache(*a);
            const ActionsEntry ea = findEntry(*cache, a->ids[0]);
            const ActionsEntry eb = findEntry(*cache, a->ids[1]);
            EntryBlob ba(cache->storage(), ea), bb(cache->storage(), eb);
            cs::Job job("actions-cache diff");
            SignalCancel sc(job);
            EntryDiff d;
            {
                TerminalProgress progress(job, 0, a->quiet);
                job.start();
                d = diffEntries(ba, bb, optionsOf(*a), job);
            }
            if (a->json)
                printJson(diffJson(d));
            else
                printOut(diffText(d));
            return Ok;
        },
        [a] { resolve(*a, 2); });
    return c;
});

// --- frames -------------------------------------------------------------

TreeRegistration regFrames("actions-cache", "frames", [](CLI::App& parent) {
    auto a = std::make_shared<ContentsArgs>();
    auto* c = addContentsCommand(parent, "frames",
                                 "Frame layout of an entry's blob (as `frames FILE`), read where it is stored",
                                 {"ENTRY_ID"}, a);
    c->footer("The same table and JSON as `cachescope-cli frames FILE`, the file being the entry's blob (merged "
              "object or parts in order, on disk or in S3); headers only, no temporary copy.");
    onRun(
        c,
        [a] {
            auto cache = openCache(*a);
            const ActionsEntry e = findEntry(*cache, a->ids[0]);
            EntryBlob blob(cache->storage(), e);
            BlobFrameSource source(blob);
            cs::Job job("actions-cache frames");
            SignalCancel sc(job);
            const cs::FrameScanOptions options;
            if (a->json) {
                cs::writeFrameLayoutJson(source, blob.name(), options, job, writeOut);
                if (std::fflush(stdout) != 0)
                    cs::failErrno("stdout", "cannot write the layout");
            } else {
                TerminalProgress progress(job, 0, a->quiet);
                job.start();
                printFrameLayoutText(blob.name(), blob.size(), false, [&](const auto& onFrame) {
                    return cs::scanFramesStreaming(source, blob.name(), options, job, onFrame);
                });
            }
            return Ok;
        },
        [a] { resolve(*a, 1); });
    return c;
});

} // namespace
} // namespace cli
