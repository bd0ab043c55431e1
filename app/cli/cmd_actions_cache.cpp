// cachescope-cli actions-cache ls|verify|merge|evict|import DATA_DIR ...
// A github-actions-cache-server's data (SQLite + filesystem storage), read
// read-only unless --write: core/actions-cache/ActionsCache.h does the work
// and ActionsReport.h builds the output; this file only parses options.
// The old form `actions-cache CMD DB STORAGE ...` is kept as an alias.
#include "Command.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/ActionsReport.h"
#include "core/jobs/Job.h"
#include "core/store/Store.h"
#include "core/util/Units.h"

#include <filesystem>

namespace cli {
namespace {

namespace fs = std::filesystem;
using namespace cs::actions;

const QString kJson = QStringLiteral("json");
const QString kWrite = QStringLiteral("write");
const QString kForce = QStringLiteral("force");

void addCommon(QCommandLineParser& p)
{
    p.addPositionalArgument(QStringLiteral("DATA_DIR"),
                            QStringLiteral("the server's data folder (sqlite.db and storage/ in it), or its sqlite.db"));
    p.addOption({QStringLiteral("db"),
                 QStringLiteral("the server's SQLite file (default DATA_DIR/sqlite.db), or its PostgreSQL database "
                                "(postgres://USER@HOST:PORT/DB; the password from PGPASSWORD or ~/.pgpass)"),
                 QStringLiteral("PATH|URL")});
    p.addOption({QStringLiteral("storage"),
                 QStringLiteral("the storage folder (default DATA_DIR/storage/filesystem, else DATA_DIR/storage), or "
                                "its S3 bucket (s3://BUCKET[/ROOT]; credentials from AWS_ACCESS_KEY_ID and "
                                "AWS_SECRET_ACCESS_KEY)"),
                 QStringLiteral("PATH|URL")});
    p.addOption({QStringLiteral("endpoint"),
                 QStringLiteral("S3 endpoint URL for MinIO, Ceph, R2 (default AWS_ENDPOINT_URL, else AWS)"),
                 QStringLiteral("URL")});
    p.addOption({QStringLiteral("region"), QStringLiteral("S3 region (default AWS_REGION, else us-east-1)"),
                 QStringLiteral("REGION")});
    p.addOption({kJson, QStringLiteral("print JSON")});
}

void addWrite(QCommandLineParser& p)
{
    p.addOption({kWrite, QStringLiteral("change the data (without it: list what would be done, change nothing)")});
    p.addOption({kForce, QStringLiteral("write even while the server looks active")});
}

// DATA_DIR plus the rest of the positionals, or the old DB STORAGE form: a
// file, then a folder that is not a native store.
bool resolve(QCommandLineParser& p, const QStringList& args, int minRest, int maxRest, DataDirPaths& paths,
             QStringList& rest, int& code)
{
    if (!parseOrExit(p, args, code))
        return false;
    QStringList pos = p.positionalArguments();
    std::error_code ec;
    std::optional<std::string> db, storage;
    if (p.isSet(QStringLiteral("db")))
        db = p.value(QStringLiteral("db")).toStdString();
    if (p.isSet(QStringLiteral("storage")))
        storage = p.value(QStringLiteral("storage")).toStdString();
    if (pos.size() >= 2 && fs::is_regular_file(pos[0].toStdString(), ec) && fs::is_directory(pos[1].toStdString(), ec)
        && !fs::exists(pos[1].toStdString() + "/catalog.db", ec) && !db && !storage) {
        db = pos[0].toStdString();
        storage = pos[1].toStdString();
        pos.removeFirst();
    }
    // A deployment named by --db and --storage needs no DATA_DIR (PostgreSQL + S3).
    if (db && storage && (pos.isEmpty() || !fs::exists(fs::symlink_status(pos[0].toStdString(), ec))))
        pos.prepend(QString());
    if (pos.isEmpty() || pos.size() - 1 < minRest || (maxRest >= 0 && pos.size() - 1 > maxRest)) {
        printError(QStringLiteral("wrong number of arguments (see --help)"));
        code = Usage;
        return false;
    }
    paths = resolveDataDir(pos[0].toStdString(), db, storage);
    paths.endpoint = p.value(QStringLiteral("endpoint")).toStdString();
    paths.region = p.value(QStringLiteral("region")).toStdString();
    rest = pos.mid(1);
    return true;
}

void print(QCommandLineParser& p, const cs::Json& json, const std::string& text)
{
    if (p.isSet(kJson))
        printOut(QString::fromStdString(json.dump(2) + "\n"));
    else
        printOut(QString::fromStdString(text));
}

int runLs(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Lists the cache entries (size from the files, state) and pending uploads. Reads only: no byte changes."));
    addCommon(p);
    DataDirPaths paths;
    QStringList rest;
    int code = Ok;
    if (!resolve(p, args, 0, 0, paths, rest, code))
        return code;
    auto cache = ActionsCache::open(paths);
    const auto entries = cache->entries();
    const auto uploads = cache->uploads();
    printOut(QString::fromStdString(p.isSet(kJson) ? listingJsonText(entries, uploads) : listingText(entries, uploads)));
    return Ok;
}

int runVerify(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Checks rows against files: missing or extra parts, merged objects missing or of the wrong size, orphan "
        "folders, locations without entries, unfinished uploads, stalled merges. Exit 1 when there are findings."));
    addCommon(p);
    DataDirPaths paths;
    QStringList rest;
    int code = Ok;
    if (!resolve(p, args, 0, 0, paths, rest, code))
        return code;
    auto cache = ActionsCache::open(paths);
    cs::Job job("verify");
    const auto findings = cache->verify(job);
    print(p, findingsJson(findings), findingsText(findings));
    return findings.empty() ? Ok : Failure;
}

int runMerge(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Merges the parts of unmerged entries (all, or the given ids) the way the server does on a first download, "
        "and deletes parts left after a merge. Without --write it lists what it would do."));
    addCommon(p);
    addWrite(p);
    p.addPositionalArgument(QStringLiteral("[ID...]"), QStringLiteral("cache entry ids (default: every entry)"));
    DataDirPaths paths;
    QStringList rest;
    int code = Ok;
    if (!resolve(p, args, 0, -1, paths, rest, code))
        return code;
    std::vector<std::string> ids;
    for (const auto& s : rest)
        ids.push_back(s.toStdString());
    const bool write = p.isSet(kWrite);
    auto cache = ActionsCache::open(paths, write);
    cs::Job job("merge");
    const auto results = write ? cache->merge(ids, job, {p.isSet(kForce)}) : cache->planMerge(ids, p.isSet(kForce));
    print(p, mergeJson(results, write), mergeText(results, write));
    for (const auto& r : results)
        if (r.error && write)
            return Failure;
    return Ok;
}

int runEvict(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Deletes entries, their rows and their folder together. Never-downloaded entries age from their update "
        "time. Without --write (or with --dry-run) it lists what would go."));
    addCommon(p);
    addWrite(p);
    p.addOption({QStringLiteral("older-than"), QStringLiteral("updated before now - DURATION (30d, 12h)"),
                 QStringLiteral("DURATION")});
    p.addOption({QStringLiteral("unused-for"), QStringLiteral("not downloaded for DURATION"), QStringLiteral("DURATION")});
    p.addOption({QStringLiteral("max-size"), QStringLiteral("then least recently used first until the rest fits SIZE"),
                 QStringLiteral("SIZE")});
    p.addOption({QStringLiteral("key"), QStringLiteral("only this key (repeatable; a trailing * matches a prefix)"),
                 QStringLiteral("K")});
    p.addOption({QStringLiteral("dry-run"), QStringLiteral("only list what would go (the default without --write)")});
    DataDirPaths paths;
    QStringList rest;
    int code = Ok;
    if (!resolve(p, args, 0, 0, paths, rest, code))
        return code;
    if (p.isSet(kWrite) && p.isSet(QStringLiteral("dry-run"))) {
        printError(QStringLiteral("--dry-run and --write contradict each other"));
        return Usage;
    }
    ActionsEvictPolicy policy;
    for (const char* name : {"older-than", "unused-for"}) {
        const QString opt = QString::fromLatin1(name);
        if (!p.isSet(opt))
            continue;
        const auto d = cs::parseDurationSeconds(p.value(opt).toStdString());
        if (!d || *d < 0) {
            printError(QStringLiteral("--%1 wants a duration like 30d or 12h, not '%2'").arg(opt, p.value(opt)));
            return Usage;
        }
        (opt == QLatin1String("older-than") ? policy.olderThanMs : policy.unusedForMs) = *d * 1000;
    }
    if (p.isSet(QStringLiteral("max-size"))) {
        const auto s = cs::parseSize(p.value(QStringLiteral("max-size")).toStdString());
        if (!s) {
            printError(QStringLiteral("--max-size wants a size like 10GiB, not '%1'").arg(p.value(QStringLiteral("max-size"))));
            return Usage;
        }
        policy.maxBytes = *s;
    }
    for (const auto& k : p.values(QStringLiteral("key")))
        policy.keys.push_back(k.toStdString());
    if (!policy.olderThanMs && !policy.unusedForMs && !policy.maxBytes && policy.keys.empty()) {
        printError(QStringLiteral("actions-cache evict wants --older-than, --unused-for, --max-size or --key"));
        return Usage;
    }
    const bool write = p.isSet(kWrite);
    auto cache = ActionsCache::open(paths, write);
    cs::Job job("evict");
    const auto victims = write ? cache->evict(policy, job, {p.isSet(kForce)}) : cache->planEvict(policy);
    print(p, evictJson(victims, write), evictText(victims, write));
    return Ok;
}

int runImport(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Copies entries (all, or the given ids) into a native cachescope store (created when missing), merged "
        "there; reports dedup and compression. Reads the server's data only."));
    addCommon(p);
    p.addPositionalArgument(QStringLiteral("STORE"), QStringLiteral("the native store folder"));
    p.addPositionalArgument(QStringLiteral("[ID...]"), QStringLiteral("cache entry ids (default: every entry)"));
    p.addOption({QStringLiteral("scope"), QStringLiteral("scope of the imported entries (default: actions)"),
                 QStringLiteral("S")});
    p.addOption({QStringLiteral("part-size"), QStringLiteral("upload part size (default 1MiB)"), QStringLiteral("SIZE")});
    p.addOption({QStringLiteral("no-merge"), QStringLiteral("leave the imported entries unmerged")});
    DataDirPaths paths;
    QStringList rest;
    int code = Ok;
    if (!resolve(p, args, 1, -1, paths, rest, code))
        return code;
    uint64_t partSize = 1 << 20;
    if (p.isSet(QStringLiteral("part-size"))) {
        const auto s = cs::parseSize(p.value(QStringLiteral("part-size")).toStdString());
        if (!s || *s == 0 || *s > cs::store::kMaxPartBytes) {
            printError(QStringLiteral("--part-size wants a size from 1 byte to 256MiB"));
            return Usage;
        }
        partSize = *s;
    }
    std::vector<std::string> ids;
    for (const auto& s : rest.mid(1))
        ids.push_back(s.toStdString());
    auto cache = ActionsCache::open(paths);
    auto store = cs::store::Store::init(rest[0].toStdString());
    cs::Job job("import");
    const std::string scope = p.isSet(QStringLiteral("scope")) ? p.value(QStringLiteral("scope")).toStdString() : "actions";
    const auto r = cache->importInto(*store, ids, scope, partSize, p.isSet(QStringLiteral("no-merge")), job);
    print(p, importJson(r, rest[0].toStdString()), importText(r, rest[0].toStdString()));
    return Ok;
}

int run(const QStringList& args)
{
    const QString sub = args.size() > 1 ? args[1] : QString();
    QStringList rest = args.mid(1);
    if (!rest.isEmpty())
        rest[0] = args[0] + QLatin1Char(' ') + sub;
    if (sub == QLatin1String("ls")) return runLs(rest);
    if (sub == QLatin1String("verify")) return runVerify(rest);
    if (sub == QLatin1String("merge")) return runMerge(rest);
    if (sub == QLatin1String("evict")) return runEvict(rest);
    if (sub == QLatin1String("import")) return runImport(rest);
    if (sub == QLatin1String("--help") || sub == QLatin1String("-h")) {
        printOut(QStringLiteral(
            "usage: cachescope-cli actions-cache ls|verify|merge|evict|import DATA_DIR [--db PATH] [--storage PATH] "
            "[--json] ...\n"
            "       cachescope-cli actions-cache ls|verify|merge|evict|import --db postgres://USER@HOST:PORT/DB "
            "--storage s3://BUCKET[/ROOT] [--endpoint URL] [--region R] [--json] ...\n"
            "Reads open the server's database read-only and change no byte; merge and evict change data only with "
            "--write.\n"));
        return Ok;
    }
    printError(QStringLiteral("actions-cache wants ls, verify, merge, evict or import (see --help)"));
    return Usage;
}

CommandRegistration reg({QStringLiteral("actions-cache"),
                         QStringLiteral("browse, verify, merge, evict or import a github-actions-cache-server's data"),
                         run});

} // namespace
} // namespace cli
