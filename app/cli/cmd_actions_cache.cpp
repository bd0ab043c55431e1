// cachescope-cli actions-cache ls|verify|merge|evict|import DB STORAGE ...
// Offline access to a github-actions-cache-server's data (SQLite driver,
// filesystem storage): see core/actions-cache/ActionsCache.h.
#include "Command.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/jobs/Job.h"
#include "core/store/Store.h"
#include "core/util/Units.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>

namespace cli {
namespace {

QJsonValue optMs(const std::optional<int64_t>& v)
{
    return v ? QJsonValue(double(*v)) : QJsonValue(QJsonValue::Null);
}

QString when(int64_t ms)
{
    return ms ? QDateTime::fromMSecsSinceEpoch(ms).toString(Qt::ISODate) : QStringLiteral("-");
}

QJsonObject entryJson(const cs::actions::ActionsEntry& e)
{
    QJsonObject o;
    o[QStringLiteral("id")] = QString::fromStdString(e.id);
    o[QStringLiteral("key")] = QString::fromStdString(e.key);
    o[QStringLiteral("version")] = QString::fromStdString(e.version);
    o[QStringLiteral("size")] = double(e.size);
    o[QStringLiteral("parts")] = double(e.partCount);
    o[QStringLiteral("merged")] = e.merged();
    o[QStringLiteral("folder")] = QString::fromStdString(e.folderName);
    o[QStringLiteral("updated_at_ms")] = double(e.updatedAtMs);
    o[QStringLiteral("merged_at_ms")] = optMs(e.mergedAtMs);
    o[QStringLiteral("parts_deleted_at_ms")] = optMs(e.partsDeletedAtMs);
    o[QStringLiteral("last_downloaded_at_ms")] = optMs(e.lastDownloadedAtMs);
    return o;
}

// Common start of every subcommand: DB STORAGE [extra positionals].
struct Opened {
    std::unique_ptr<cs::actions::ActionsCache> cache;
    QStringList rest;
};

bool openFrom(QCommandLineParser& p, const QStringList& args, int minRest, int maxRest, Opened& out, int& code)
{
    p.addPositionalArgument(QStringLiteral("DB"), QStringLiteral("the server's SQLite file"));
    p.addPositionalArgument(QStringLiteral("STORAGE"), QStringLiteral("the server's storage folder"));
    if (!parseOrExit(p, args, code))
        return false;
    const QStringList pos = p.positionalArguments();
    if (pos.size() < 2 + minRest || (maxRest >= 0 && pos.size() > 2 + maxRest)) {
        printError(QStringLiteral("wrong number of arguments (see --help)"));
        code = Usage;
        return false;
    }
    out.cache = cs::actions::ActionsCache::open(pos[0].toStdString(), pos[1].toStdString());
    out.rest = pos.mid(2);
    return true;
}

int runLs(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Lists the cache entries and pending uploads."));
    p.addOption({QStringLiteral("json"), QStringLiteral("print JSON")});
    Opened o;
    int code = Ok;
    if (!openFrom(p, args, 0, 0, o, code))
        return code;
    const auto entries = o.cache->entries();
    const auto uploads = o.cache->pendingUploads();
    if (p.isSet(QStringLiteral("json"))) {
        QJsonArray arr, up;
        for (const auto& e : entries)
            arr.append(entryJson(e));
        for (const auto& u : uploads) {
            QJsonObject j;
            j[QStringLiteral("id")] = double(u.id);
            j[QStringLiteral("key")] = QString::fromStdString(u.key);
            j[QStringLiteral("version")] = QString::fromStdString(u.version);
            j[QStringLiteral("parts_present")] = double(u.partsPresent);
            j[QStringLiteral("created_at_ms")] = double(u.createdAtMs);
            up.append(j);
        }
        QJsonObject root;
        root[QStringLiteral("entries")] = arr;
        root[QStringLiteral("uploads")] = up;
        printJson(QJsonDocument(root));
        return Ok;
    }
    QString text = QStringLiteral("%1  %2  %3  %4  %5\n").arg(QStringLiteral("SIZE"), 10).arg(QStringLiteral("PARTS"), 5)
                       .arg(QStringLiteral("STATE"), -8).arg(QStringLiteral("UPDATED"), -19).arg(QStringLiteral("KEY"));
    for (const auto& e : entries)
        text += QStringLiteral("%1  %2  %3  %4  %5\n")
                    .arg(QString::fromStdString(cs::formatSize(e.size)), 10)
                    .arg(e.partCount, 5)
                    .arg(e.merged() ? QStringLiteral("merged") : QStringLiteral("unmerged"), -8)
                    .arg(when(e.updatedAtMs), -19)
                    .arg(QString::fromStdString(e.key));
    text += QStringLiteral("%1 entries, %2 pending uploads\n").arg(entries.size()).arg(uploads.size());
    printOut(text);
    return Ok;
}

int runVerify(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Checks every merged entry has its merged file and every unmerged one "
                                               "all its parts. Exit 0 when clean, 1 otherwise."));
    Opened o;
    int code = Ok;
    if (!openFrom(p, args, 0, 0, o, code))
        return code;
    cs::Job job("verify");
    const auto problems = o.cache->verify(job);
    for (const auto& pr : problems)
        printOut(QStringLiteral("%1: %2 (entry '%3')\n")
                     .arg(QString::fromStdString(pr.path), QString::fromStdString(pr.message), QString::fromStdString(pr.entryKey)));
    printOut(QStringLiteral("%1 problems\n").arg(problems.size()));
    return problems.empty() ? Ok : Failure;
}

int runMerge(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Merges the parts of unmerged entries into their merged file, as the "
                                               "server does on a first download (all entries, or the given ids)."));
    p.addPositionalArgument(QStringLiteral("[ID...]"), QStringLiteral("cache_entries ids (default: all)"));
    Opened o;
    int code = Ok;
    if (!openFrom(p, args, 0, -1, o, code))
        return code;
    std::vector<std::string> ids;
    for (const auto& s : o.rest)
        ids.push_back(s.toStdString());
    cs::Job job("merge");
    const auto results = o.cache->merge(ids, job);
    int merged = 0;
    for (const auto& r : results) {
        if (r.merged) {
            ++merged;
            printOut(QStringLiteral("merged %1 (%2)\n").arg(QString::fromStdString(r.key), QString::fromStdString(cs::formatSize(r.bytes))));
        }
    }
    printOut(QStringLiteral("%1 merged, %2 already merged\n").arg(merged).arg(results.size() - size_t(merged)));
    return Ok;
}

int runEvict(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Deletes entries (rows and files) updated or used too long ago."));
    p.addOption({QStringLiteral("older-than"), QStringLiteral("updated before now - DURATION (30d, 12h)"), QStringLiteral("DURATION")});
    p.addOption({QStringLiteral("unused-for"), QStringLiteral("not downloaded for DURATION"), QStringLiteral("DURATION")});
    p.addOption({QStringLiteral("dry-run"), QStringLiteral("only list what would go")});
    Opened o;
    int code = Ok;
    if (!openFrom(p, args, 0, 0, o, code))
        return code;
    cs::actions::ActionsEvictPolicy policy;
    for (const char* name : {"older-than", "unused-for"}) {
        const QString opt = QString::fromLatin1(name);
        if (!p.isSet(opt))
            continue;
        const auto d = cs::parseDurationSeconds(p.value(opt).toStdString());
        if (!d) {
            printError(QStringLiteral("--%1 wants a duration like 30d or 12h, not '%2'").arg(opt, p.value(opt)));
            return Usage;
        }
        (opt == QLatin1String("older-than") ? policy.olderThanSeconds : policy.unusedForSeconds) = double(*d);
    }
    if (!policy.olderThanSeconds && !policy.unusedForSeconds) {
        printError(QStringLiteral("actions-cache evict wants --older-than or --unused-for"));
        return Usage;
    }
    policy.dryRun = p.isSet(QStringLiteral("dry-run"));
    cs::Job job("evict");
    const auto gone = o.cache->evict(policy, job);
    for (const auto& e : gone)
        printOut(QStringLiteral("%1 %2 (%3)\n").arg(policy.dryRun ? QStringLiteral("would evict") : QStringLiteral("evicted"),
                                                   QString::fromStdString(e.key), QString::fromStdString(cs::formatSize(e.size))));
    printOut(QStringLiteral("%1 entries\n").arg(gone.size()));
    return Ok;
}

int runImport(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Imports every entry into a native cachescope store (created when missing)."));
    p.addPositionalArgument(QStringLiteral("STORE"), QStringLiteral("the native store folder"));
    p.addOption({QStringLiteral("scope"), QStringLiteral("scope of the imported entries (default: actions)"), QStringLiteral("S")});
    p.addOption({QStringLiteral("part-size"), QStringLiteral("upload part size (default 1MiB)"), QStringLiteral("SIZE")});
    p.addOption({QStringLiteral("no-merge"), QStringLiteral("leave the imported entries unmerged")});
    Opened o;
    int code = Ok;
    if (!openFrom(p, args, 1, 1, o, code))
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
    auto store = cs::store::Store::init(o.rest[0].toStdString());
    cs::Job job("import");
    const uint64_t n = o.cache->importInto(*store, p.value(QStringLiteral("scope")).isEmpty() ? std::string("actions")
                                                                                              : p.value(QStringLiteral("scope")).toStdString(),
                                           partSize, p.isSet(QStringLiteral("no-merge")), job);
    printOut(QStringLiteral("imported %1 entries into %2\n").arg(n).arg(o.rest[0]));
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
        printOut(QStringLiteral("usage: cachescope-cli actions-cache ls|verify|merge|evict|import DB STORAGE ...\n"));
        return Ok;
    }
    printError(QStringLiteral("actions-cache wants ls, verify, merge, evict or import (see --help)"));
    return Usage;
}

CommandRegistration reg({QStringLiteral("actions-cache"),
                         QStringLiteral("browse, verify, merge, evict or import a github-actions-cache-server's data"), run});

} // namespace
} // namespace cli
