// cachescope-cli store SUBCOMMAND DIR ...: the native cache store (core/store).
// Subcommands register through StoreSubcommands.h; this file holds the
// registry and init, put, ls, get, merge, evict, fsck, stats (docs/cli.md).
#include "Command.h"
#include "StoreSubcommands.h"

#include "core/jobs/Job.h"
#include "core/store/Store.h"
#include "core/util/Error.h"
#include "core/util/Units.h"

#include <QDateTime>
#include <QTimeZone>
#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>

namespace cli {

static std::vector<StoreSubcommand>& storeRegistry()
{
    static std::vector<StoreSubcommand> subs;
    return subs;
}

void registerStoreSubcommand(StoreSubcommand sub) { storeRegistry().push_back(std::move(sub)); }

std::vector<StoreSubcommand> storeSubcommands()
{
    auto subs = storeRegistry();
    std::sort(subs.begin(), subs.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return subs;
}

namespace {

using namespace cs::store;

std::string s(const QString& q) { return q.toStdString(); }
QString q(const std::string& v) { return QString::fromStdString(v); }

QString timeText(double t)
{
    if (t <= 0)
        return QStringLiteral("never");
    return QDateTime::fromMSecsSinceEpoch(qint64(t * 1000), QTimeZone::utc()).toString(Qt::ISODate);
}

QJsonValue timeJson(double t) { return t > 0 ? QJsonValue(t) : QJsonValue(); }

QJsonObject entryJson(const EntryRow& e)
{
    return {{QStringLiteral("id"), double(e.id)},
            {QStringLiteral("key"), q(e.key)},
            {QStringLiteral("version"), q(e.version)},
            {QStringLiteral("scope"), q(e.scope)},
            {QStringLiteral("size"), double(e.size)},
            {QStringLiteral("sha256"), q(e.sha256)},
            {QStringLiteral("state"), QString::fromLatin1(entryStateName(e.state))},
            {QStringLiteral("parts"), double(e.partCount)},
            {QStringLiteral("root_offset"), e.state == EntryState::Merged ? QJsonValue(double(e.rootOffset)) : QJsonValue()},
            {QStringLiteral("created"), timeJson(e.created)},
            {QStringLiteral("last_access"), timeJson(e.lastAccess)},
            {QStringLiteral("synthetic"), e.synthetic}};
}

// When a key exists under other versions or scopes: say which, so a miss
// caused by a missing --version/--scope is obvious.
QString otherVersionsHint(const Store& store, const std::string& key)
{
    EntryFilter f;
    f.keyPrefix = key;
    QStringList found;
    for (const auto& e : store.listEntries(f, SortColumn::Created, true, 0, 50)) {
        if (e.key != key)
            continue;
        found << QStringLiteral("--version '%1' --scope '%2'").arg(q(e.version), q(e.scope));
        if (found.size() == 3)
            break;
    }
    if (found.isEmpty())
        return {};
    return QStringLiteral(" (the key exists with %1)").arg(found.join(QStringLiteral(", ")));
}

QString entryLine(const EntryRow& e)
{
    return QStringLiteral("%1  %2  %3  %4  %5  %6  %7  %8  %9\n")
        .arg(QString::fromLatin1(entryStateName(e.state)), -9)
        .arg(q(cs::formatSize(e.size)), 10)
        .arg(e.partCount, 5)
        .arg(timeText(e.created), 20)
        .arg(timeText(e.lastAccess), 20)
        .arg(q(e.sha256.substr(0, 12)), 12)
        .arg(q(e.version), q(e.scope).isEmpty() ? QStringLiteral("-") : q(e.scope))
        .arg(q(e.key));
}

// Positional arguments: exactly `min..max` (max < 0: unbounded).
bool positionals(const QCommandLineParser& p, int min, int max, int& exitCode)
{
    const int n = int(p.positionalArguments().size());
    if (n < min || (max >= 0 && n > max)) {
        printError(QStringLiteral("expected %1 argument(s), got %2 (see --help)")
                       .arg(min == max ? QString::number(min) : QStringLiteral("%1..%2").arg(min).arg(max < 0 ? QStringLiteral("n") : QString::number(max)))
                       .arg(n));
        exitCode = Usage;
        return false;
    }
    return true;
}

QCommandLineOption versionOpt() { return {QStringLiteral("version"), QStringLiteral("Entry version (Actions cache 'version')."), QStringLiteral("V"), QString()}; }
QCommandLineOption scopeOpt() { return {QStringLiteral("scope"), QStringLiteral("Entry scope (e.g. a branch ref)."), QStringLiteral("S"), QString()}; }
QCommandLineOption jsonOpt() { return {QStringLiteral("json"), QStringLiteral("Machine-readable output.")}; }

int runInit(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Create an empty store in DIR (or migrate an existing one)."));
    p.addPositionalArgument(QStringLiteral("DIR"), QStringLiteral("Store folder."));
    int rc = Ok;
    if (!parseOrExit(p, args, rc) || !positionals(p, 1, 1, rc))
        return rc;
    auto store = Store::init(s(p.positionalArguments()[0]));
    printOut(QStringLiteral("initialized store %1 (schema %2)\n").arg(q(store->dir())).arg(store->schemaVersion()));
    return Ok;
}

int runPut(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Upload FILE as KEY in parts (shuffled, from N threads, like a build tool), "
                                               "commit it, then merge it unless --no-merge."));
    p.addPositionalArgument(QStringLiteral("DIR"), QStringLiteral("Store folder."));
    p.addPositionalArgument(QStringLiteral("KEY"), QStringLiteral("Cache key (up to 4 KiB)."));
    p.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("File to store."));
    p.addOption(versionOpt());
    p.addOption(scopeOpt());
    p.addOption({QStringLiteral("part-size"), QStringLiteral("Part size (default 1MiB)."), QStringLiteral("SIZE"), QStringLiteral("1MiB")});
    p.addOption({QStringLiteral("parallel"), QStringLiteral("Upload threads (default 4)."), QStringLiteral("N"), QStringLiteral("4")});
    p.addOption({QStringLiteral("no-merge"), QStringLiteral("Leave the entry unmerged (parts only).")});
    p.addOption(jsonOpt());
    int rc = Ok;
    if (!parseOrExit(p, args, rc) || !positionals(p, 3, 3, rc))
        return rc;
    const auto partSize = cs::parseSize(s(p.value(QStringLiteral("part-size"))));
    if (!partSize || *partSize == 0) {
        printError(QStringLiteral("--part-size '%1' is not a size like 1MiB").arg(p.value(QStringLiteral("part-size"))));
        return Usage;
    }
    bool ok = false;
    const int parallel = p.value(QStringLiteral("parallel")).toInt(&ok);
    if (!ok || parallel < 1 || parallel > 256) {
        printError(QStringLiteral("--parallel must be a number from 1 to 256"));
        return Usage;
    }
    const auto a = p.positionalArguments();
    auto store = Store::open(s(a[0]));
    cs::Job job("store put");
    job.start();
    EntryRow e = store->putFile(s(a[1]), s(a[2]), job, s(p.value(QStringLiteral("version"))),
                                s(p.value(QStringLiteral("scope"))), *partSize, parallel);
    MergeResult m;
    if (!p.isSet(QStringLiteral("no-merge"))) {
        m = store->merge(e.id, job);
        e = store->entry(e.id).value_or(e);
    }
    if (p.isSet(QStringLiteral("json"))) {
        QJsonObject o = entryJson(e);
        if (!p.isSet(QStringLiteral("no-merge")))
            o.insert(QStringLiteral("merge"), QJsonObject{{QStringLiteral("chunks"), double(m.chunks)},
                                                          {QStringLiteral("new_chunks"), double(m.newChunks)},
                                                          {QStringLiteral("appended_bytes"), double(m.appendedBytes)}});
        printJson(QJsonDocument(o));
    } else {
        printOut(QStringLiteral("stored %1 (%2, %3 parts, %4)%5\n")
                     .arg(q(e.key), q(cs::formatSize(e.size)))
                     .arg(e.partCount)
                     .arg(QString::fromLatin1(entryStateName(e.state)))
                     .arg(p.isSet(QStringLiteral("no-merge")) ? QString()
                                                              : QStringLiteral(": %1 chunks, %2 new, %3 appended")
                                                                    .arg(m.chunks)
                                                                    .arg(m.newChunks)
                                                                    .arg(q(cs::formatSize(m.appendedBytes)))));
    }
    return Ok;
}

int runLs(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("List the entries of a store."));
    p.addPositionalArgument(QStringLiteral("DIR"), QStringLiteral("Store folder."));
    p.addOption(jsonOpt());
    int rc = Ok;
    if (!parseOrExit(p, args, rc) || !positionals(p, 1, 1, rc))
        return rc;
    auto store = Store::open(s(p.positionalArguments()[0]));
    const bool json = p.isSet(QStringLiteral("json"));
    QJsonArray list;
    QString text;
    if (!json)
        text = QStringLiteral("%1  %2  %3  %4  %5  %6  %7  %8\n")
                   .arg(QStringLiteral("state"), -9)
                   .arg(QStringLiteral("size"), 10)
                   .arg(QStringLiteral("parts"), 5)
                   .arg(QStringLiteral("created"), 20)
                   .arg(QStringLiteral("last_access"), 20)
                   .arg(QStringLiteral("sha256"), 12)
                   .arg(QStringLiteral("version scope"))
                   .arg(QStringLiteral("key"));
    // Pages of 10,000 by id, each a seek after the last id (OFFSET would walk
    // every row before the page: quadratic on a large catalog).
    const uint64_t page = 10000;
    SortKey last;
    for (const SortKey* after = nullptr;; after = &last) {
        const auto rows = store->listEntriesAfter({}, SortColumn::Id, false, after, 0, page);
        if (!rows.empty())
            last.id = rows.back().id;
        for (const auto& e : rows) {
            if (json)
                list.append(entryJson(e));
            else
                text += entryLine(e);
        }
        if (!json) {
            printOut(text);
            text.clear();
        }
        if (rows.size() < page)
            break;
    }
    if (json)
        printJson(QJsonDocument(list));
    return Ok;
}

int runGet(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Restore KEY to OUT: exact key, then newest with KEY as prefix, then each "
                                               "restore key (exact, then prefix), within version and scope."));
    p.addPositionalArgument(QStringLiteral("DIR"), QStringLiteral("Store folder."));
    p.addPositionalArgument(QStringLiteral("KEY"), QStringLiteral("Cache key."));
    p.addPositionalArgument(QStringLiteral("OUT"), QStringLiteral("Output file (replaced atomically)."));
    p.addOption({QStringLiteral("restore-key"), QStringLiteral("Fallback key or prefix (repeatable)."), QStringLiteral("K")});
    p.addOption(versionOpt());
    p.addOption(scopeOpt());
    p.addOption({QStringLiteral("threads"), QStringLiteral("Decode threads (default: all cores)."), QStringLiteral("N"), QStringLiteral("0")});
    p.addOption(jsonOpt());
    int rc = Ok;
    if (!parseOrExit(p, args, rc) || !positionals(p, 3, 3, rc))
        return rc;
    const auto a = p.positionalArguments();
    StoreOptions opts;
    opts.threads = p.value(QStringLiteral("threads")).toInt();
    auto store = Store::open(s(a[0]), opts);
    RestoreRequest req;
    req.key = s(a[1]);
    for (const auto& k : p.values(QStringLiteral("restore-key")))
        req.restoreKeys.push_back(s(k));
    req.version = s(p.value(QStringLiteral("version")));
    req.scope = s(p.value(QStringLiteral("scope")));
    if (!store->lookup(req)) {
        printError(QStringLiteral("%1: no entry matches key '%2'%3 in version '%4' and scope '%5'%6")
                       .arg(a[0], a[1], req.restoreKeys.empty() ? QString() : QStringLiteral(" or its restore keys"),
                            q(req.version), q(req.scope), otherVersionsHint(*store, req.key)));
        return Failure;
    }
    cs::Job job("store get");
    job.start();
    const RestoreResult r = store->restoreToFile(req, s(a[2]), job);
    if (p.isSet(QStringLiteral("json"))) {
        QJsonObject o = entryJson(r.entry);
        o.insert(QStringLiteral("matched_by"), q(r.matchedBy));
        o.insert(QStringLiteral("merged_now"), r.mergedNow);
        o.insert(QStringLiteral("output"), a[2]);
        printJson(QJsonDocument(o));
    } else {
        printOut(QStringLiteral("restored %1 (%2, matched by %3%4) to %5\n")
                     .arg(q(r.entry.key), q(cs::formatSize(r.bytes)), q(r.matchedBy),
                          r.mergedNow ? QStringLiteral(", merged now") : QString(), a[2]));
    }
    return Ok;
}

int runMerge(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Merge unmerged entries into the pack: the given keys, or --all."));
    p.addPositionalArgument(QStringLiteral("DIR"), QStringLiteral("Store folder."));
    p.addPositionalArgument(QStringLiteral("KEY"), QStringLiteral("Keys to merge."), QStringLiteral("[KEY...]"));
    p.addOption({QStringLiteral("all"), QStringLiteral("Merge every unmerged entry.")});
    p.addOption(versionOpt());
    p.addOption(scopeOpt());
    p.addOption(jsonOpt());
    int rc = Ok;
    if (!parseOrExit(p, args, rc) || !positionals(p, 1, -1, rc))
        return rc;
    const auto a = p.positionalArguments();
    const bool all = p.isSet(QStringLiteral("all"));
    if (all == (a.size() > 1)) {
        printError(QStringLiteral("give either keys or --all (see --help)"));
        return Usage;
    }
    auto store = Store::open(s(a[0]));
    cs::Job job("store merge");
    job.start();
    std::vector<MergeResult> results;
    if (all) {
        results = store->mergeAll(job);
    } else {
        for (int i = 1; i < a.size(); ++i) {
            auto e = store->findEntry(s(a[i]), s(p.value(QStringLiteral("version"))), s(p.value(QStringLiteral("scope"))));
            if (!e) {
                printError(QStringLiteral("%1: no entry with key '%2'").arg(a[0], a[i]));
                return Failure;
            }
            results.push_back(store->merge(e->id, job));
        }
    }
    QJsonArray list;
    QString text;
    for (const auto& m : results) {
        list.append(QJsonObject{{QStringLiteral("key"), q(m.key)},
                                {QStringLiteral("merged"), m.merged},
                                {QStringLiteral("size"), double(m.bytes)},
                                {QStringLiteral("chunks"), double(m.chunks)},
                                {QStringLiteral("new_chunks"), double(m.newChunks)},
                                {QStringLiteral("appended_bytes"), double(m.appendedBytes)},
                                {QStringLiteral("root_offset"), double(m.rootOffset)}});
        text += m.merged ? QStringLiteral("merged %1: %2, %3 chunks (%4 new), %5 appended\n")
                               .arg(q(m.key), q(cs::formatSize(m.bytes)))
                               .arg(m.chunks)
                               .arg(m.newChunks)
                               .arg(q(cs::formatSize(m.appendedBytes)))
                         : QStringLiteral("already merged %1\n").arg(q(m.key));
    }
    if (p.isSet(QStringLiteral("json")))
        printJson(QJsonDocument(list));
    else
        printOut(text.isEmpty() ? QStringLiteral("nothing to merge\n") : text);
    return Ok;
}

int runEvict(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Evict entries (catalog rows and parts; 'store gc' reclaims pack space)."));
    p.addPositionalArgument(QStringLiteral("DIR"), QStringLiteral("Store folder."));
    p.addOption({QStringLiteral("older-than"), QStringLiteral("Created longer ago than DURATION (30d, 12h)."), QStringLiteral("DURATION")});
    p.addOption({QStringLiteral("unused-for"), QStringLiteral("Not restored for DURATION (never restored: since creation)."), QStringLiteral("DURATION")});
    p.addOption({QStringLiteral("max-size"), QStringLiteral("Then least recently used first until entries total SIZE."), QStringLiteral("SIZE")});
    p.addOption({QStringLiteral("key"), QStringLiteral("Evict this key (repeatable)."), QStringLiteral("KEY")});
    p.addOption({QStringLiteral("dry-run"), QStringLiteral("Only list what would go.")});
    p.addOption(jsonOpt());
    int rc = Ok;
    if (!parseOrExit(p, args, rc) || !positionals(p, 1, 1, rc))
        return rc;
    EvictPolicy policy;
    auto duration = [&](const QString& name, std::optional<double>& out) {
        if (!p.isSet(name))
            return true;
        const auto v = cs::parseDurationSeconds(s(p.value(name)));
        if (!v) {
            printError(QStringLiteral("--%1 '%2' is not a duration like 30d or 12h").arg(name, p.value(name)));
            return false;
        }
        out = double(*v);
        return true;
    };
    if (!duration(QStringLiteral("older-than"), policy.olderThanSeconds) || !duration(QStringLiteral("unused-for"), policy.unusedForSeconds))
        return Usage;
    if (p.isSet(QStringLiteral("max-size"))) {
        policy.maxBytes = cs::parseSize(s(p.value(QStringLiteral("max-size"))));
        if (!policy.maxBytes) {
            printError(QStringLiteral("--max-size '%1' is not a size like 10GiB").arg(p.value(QStringLiteral("max-size"))));
            return Usage;
        }
    }
    for (const auto& k : p.values(QStringLiteral("key")))
        policy.keys.push_back(s(k));
    if (!policy.olderThanSeconds && !policy.unusedForSeconds && !policy.maxBytes && policy.keys.empty()) {
        printError(QStringLiteral("say what to evict: --older-than, --unused-for, --max-size or --key (see --help)"));
        return Usage;
    }
    policy.dryRun = p.isSet(QStringLiteral("dry-run"));
    auto store = Store::open(s(p.positionalArguments()[0]));
    cs::Job job("store evict");
    job.start();
    const EvictResult r = store->evict(policy, job);
    if (p.isSet(QStringLiteral("json"))) {
        QJsonArray list;
        for (const auto& e : r.evicted)
            list.append(entryJson(e));
        printJson(QJsonDocument(QJsonObject{{QStringLiteral("dry_run"), r.dryRun},
                                            {QStringLiteral("entries"), list},
                                            {QStringLiteral("bytes"), double(r.bytes)},
                                            {QStringLiteral("part_bytes"), double(r.partBytes)}}));
    } else {
        QString text;
        for (const auto& e : r.evicted)
            text += (r.dryRun ? QStringLiteral("would evict ") : QStringLiteral("evicted ")) + entryLine(e);
        text += QStringLiteral("%1 %2 entries, %3 (%4 of parts)\n")
                    .arg(r.dryRun ? QStringLiteral("would evict") : QStringLiteral("evicted"))
                    .arg(r.evicted.size())
                    .arg(q(cs::formatSize(r.bytes)), q(cs::formatSize(r.partBytes)));
        printOut(text);
    }
    return Ok;
}

QJsonObject problemJson(const FsckProblem& pr)
{
    return {{QStringLiteral("entry_id"), pr.entryId ? QJsonValue(double(pr.entryId)) : QJsonValue()},
            {QStringLiteral("key"), pr.entryId ? QJsonValue(q(pr.key)) : QJsonValue()},
            {QStringLiteral("offset"), pr.offset ? QJsonValue(double(*pr.offset)) : QJsonValue()},
            {QStringLiteral("message"), q(pr.message)},
            {QStringLiteral("path"), pr.path.empty() ? QJsonValue() : QJsonValue(q(pr.path))},
            {QStringLiteral("bytes"), pr.bytes ? QJsonValue(double(*pr.bytes)) : QJsonValue()}};
}

int runFsck(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Check every entry decodes and matches its SHA-256, every part is there "
                                               "and no part is orphaned. Changes nothing unless --repair. "
                                               "Exit 0 when clean, 1 when problems were found (or remain after --repair)."));
    p.addPositionalArgument(QStringLiteral("DIR"), QStringLiteral("Store folder."));
    p.addOption(jsonOpt());
    p.addOption({QStringLiteral("repair"), QStringLiteral("First delete orphaned parts (never those of an upload in "
                                                          "progress), then check.")});
    int rc = Ok;
    if (!parseOrExit(p, args, rc) || !positionals(p, 1, 1, rc))
        return rc;
    auto store = Store::open(s(p.positionalArguments()[0]));
    const bool repair = p.isSet(QStringLiteral("repair"));
    OrphanRemoval removal;
    if (repair) {
        cs::Job rjob("store fsck --repair");
        rjob.start();
        removal = store->removeOrphans(rjob);
    }
    cs::Job job("store fsck");
    job.start();
    const auto problems = store->fsck(job);
    if (p.isSet(QStringLiteral("json"))) {
        QJsonArray list;
        for (const auto& pr : problems)
            list.append(problemJson(pr));
        QJsonObject o{{QStringLiteral("clean"), problems.empty()}, {QStringLiteral("problems"), list}};
        if (repair) {
            QJsonArray removed;
            for (const auto& pr : removal.removed)
                removed.append(problemJson(pr));
            o.insert(QStringLiteral("removed"), removed);
            o.insert(QStringLiteral("removed_bytes"), double(removal.bytes));
        }
        printJson(QJsonDocument(o));
    } else {
        QString text;
        for (const auto& pr : removal.removed)
            text += QStringLiteral("removed: %1 (%2)\n").arg(q(pr.path), q(cs::formatSize(pr.bytes.value_or(0))));
        if (repair)
            text += QStringLiteral("removed %1 orphan(s), %2\n").arg(removal.removed.size()).arg(q(cs::formatSize(removal.bytes)));
        for (const auto& pr : problems)
            text += QStringLiteral("problem: %1%2: %3\n")
                        .arg(pr.entryId ? QStringLiteral("entry %1 '%2'").arg(pr.entryId).arg(q(pr.key))
                                        : pr.path.empty() ? QStringLiteral("catalog") : QStringLiteral("orphan"))
                        .arg(pr.offset ? QStringLiteral(" at %1").arg(*pr.offset) : QString())
                        .arg(q(pr.message));
        text += problems.empty() ? QStringLiteral("clean\n") : QStringLiteral("%1 problem(s)\n").arg(problems.size());
        const auto orphans = std::count_if(problems.begin(), problems.end(), [](const auto& pr) { return !pr.path.empty(); });
        if (orphans && !repair)
            text += QStringLiteral("%1 orphan(s) among them: 'cachescope-cli store fsck --repair %2' removes them\n")
                        .arg(orphans)
                        .arg(p.positionalArguments()[0]);
        printOut(text);
    }
    return problems.empty() ? Ok : Failure;
}

int runStats(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Entries, logical and stored bytes, dedup ratio, unmerged bytes, pack size."));
    p.addPositionalArgument(QStringLiteral("DIR"), QStringLiteral("Store folder."));
    p.addOption(jsonOpt());
    int rc = Ok;
    if (!parseOrExit(p, args, rc) || !positionals(p, 1, 1, rc))
        return rc;
    auto store = Store::open(s(p.positionalArguments()[0]));
    cs::Job job("store stats");
    job.start();
    const StoreStats st = store->stats(job);
    if (p.isSet(QStringLiteral("json"))) {
        printJson(QJsonDocument(QJsonObject{{QStringLiteral("entries"), double(st.entries)},
                                            {QStringLiteral("merged_entries"), double(st.mergedEntries)},
                                            {QStringLiteral("unmerged_entries"), double(st.unmergedEntries)},
                                            {QStringLiteral("uploading_entries"), double(st.uploadingEntries)},
                                            {QStringLiteral("logical_bytes"), double(st.logicalBytes)},
                                            {QStringLiteral("merged_logical_bytes"), double(st.mergedLogicalBytes)},
                                            {QStringLiteral("stored_bytes"), double(st.storedBytes)},
                                            {QStringLiteral("dedup_ratio"), st.dedupRatio},
                                            {QStringLiteral("unmerged_bytes"), double(st.unmergedBytes)},
                                            {QStringLiteral("pack_bytes"), double(st.packBytes)},
                                            {QStringLiteral("chunk_rows"), double(st.chunkRows)}}));
    } else {
        printOut(QStringLiteral("entries        %1 (%2 merged, %3 unmerged, %4 uploading)\n"
                                "logical bytes  %5\n"
                                "stored bytes   %6 (pack bytes referenced by merged entries)\n"
                                "dedup ratio    %7\n"
                                "unmerged bytes %8 (in parts)\n"
                                "pack size      %9\n")
                     .arg(st.entries)
                     .arg(st.mergedEntries)
                     .arg(st.unmergedEntries)
                     .arg(st.uploadingEntries)
                     .arg(q(cs::formatSize(st.logicalBytes)), q(cs::formatSize(st.storedBytes)),
                          QString::number(st.dedupRatio, 'f', 2), q(cs::formatSize(st.unmergedBytes)),
                          q(cs::formatSize(st.packBytes))));
    }
    return Ok;
}

StoreSubcommandRegistration regInit({QStringLiteral("init"), QStringLiteral("DIR  create a store"), runInit});
StoreSubcommandRegistration regPut({QStringLiteral("put"), QStringLiteral("DIR KEY FILE [--version V] [--scope S] [--part-size SIZE] [--parallel N] [--no-merge]"), runPut});
StoreSubcommandRegistration regLs({QStringLiteral("ls"), QStringLiteral("DIR [--json]  list entries"), runLs});
StoreSubcommandRegistration regGet({QStringLiteral("get"), QStringLiteral("DIR KEY OUT [--restore-key K ...] [--version V] [--scope S]"), runGet});
StoreSubcommandRegistration regMerge({QStringLiteral("merge"), QStringLiteral("DIR [KEY ... | --all]"), runMerge});
StoreSubcommandRegistration regEvict({QStringLiteral("evict"), QStringLiteral("DIR [--older-than D] [--unused-for D] [--max-size SIZE] [--key KEY] [--dry-run] [--json]"), runEvict});
StoreSubcommandRegistration regFsck({QStringLiteral("fsck"), QStringLiteral("DIR [--repair]  check the store (exit 1 on problems); --repair deletes orphaned parts"), runFsck});
StoreSubcommandRegistration regStats({QStringLiteral("stats"), QStringLiteral("DIR [--json]"), runStats});

int runStore(const QStringList& args)
{
    const auto subs = storeSubcommands();
    if (args.size() < 2 || args[1] == QLatin1String("--help") || args[1] == QLatin1String("-h")) {
        QString text = QStringLiteral("usage: cachescope-cli store SUBCOMMAND DIR ...\n\nsubcommands:\n");
        for (const auto& sub : subs)
            text += QStringLiteral("  %1  %2\n").arg(sub.name, -12).arg(sub.synopsis);
        printOut(text);
        return args.size() < 2 ? Usage : Ok;
    }
    for (const auto& sub : subs) {
        if (sub.name == args[1]) {
            QStringList rest = args.mid(2);
            rest.prepend(args[0] + QLatin1Char(' ') + sub.name);
            return sub.run(rest);
        }
    }
    printError(QStringLiteral("unknown store subcommand '%1' (see 'cachescope-cli store --help')").arg(args[1]));
    return Usage;
}

CommandRegistration reg({QStringLiteral("store"), QStringLiteral("the native cache store: init, put, ls, get, merge, evict, fsck, stats"), runStore});

} // namespace

} // namespace cli
