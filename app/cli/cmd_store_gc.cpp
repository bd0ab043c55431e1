// cachescope-cli store gc DIR [--dry-run] [--json] [--ranges]
// cachescope-cli store gc-history DIR [--json]
// cachescope-cli store gc-compare DIR RUN_A RUN_B [--json]
// (schema in docs/cli.md, section "store gc").
#include "Command.h"
#include "StoreSubcommands.h"

#include "core/gc/Gc.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/Units.h"

#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>

#include <unistd.h>

namespace cli {

namespace {

QString size(uint64_t b) { return QString::fromStdString(cs::formatSize(b)); }

QJsonObject statsJson(const cs::gc::GcStats& s)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(s.toJson())).object();
}

QJsonArray rangesJson(const std::vector<cs::gc::PackRange>& ranges)
{
    QJsonArray a;
    for (const auto& r : ranges)
        a.append(QJsonObject{{QStringLiteral("offset"), double(r.offset)}, {QStringLiteral("length"), double(r.length)}});
    return a;
}

QString stepTable(const cs::gc::GcStats& s)
{
    QString t = QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 %10 %11\n")
                    .arg(QStringLiteral("step"), -14)
                    .arg(QStringLiteral("wall s"), 9).arg(QStringLiteral("user s"), 9).arg(QStringLiteral("sys s"), 9)
                    .arg(QStringLiteral("maxrss KiB"), 11).arg(QStringLiteral("minflt"), 9).arg(QStringLiteral("majflt"), 7)
                    .arg(QStringLiteral("inblock"), 9).arg(QStringLiteral("oublock"), 9).arg(QStringLiteral("nvcsw"), 8)
                    .arg(QStringLiteral("nivcsw"), 8);
    for (const auto& st : s.steps)
        t += QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 %10 %11\n")
                 .arg(QString::fromStdString(st.name), -14)
                 .arg(st.wallSeconds, 9, 'f', 3).arg(st.userSeconds, 9, 'f', 3).arg(st.sysSeconds, 9, 'f', 3)
                 .arg(st.maxrssKiB, 11).arg(st.minflt, 9).arg(st.majflt, 7).arg(st.inblock, 9).arg(st.oublock, 9)
                 .arg(st.nvcsw, 8).arg(st.nivcsw, 8);
    return t;
}

QString catalogOf(const QString& dir)
{
    return dir + QStringLiteral("/catalog.db");
}

int runGc(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Collects the pack objects no merged entry reaches: copies the live ranges into a new "
        "generation and swaps it in atomically. Merges and uploads may go on meanwhile."));
    p.addPositionalArgument(QStringLiteral("DIR"), QStringLiteral("The store folder."));
    p.addOption({QStringLiteral("dry-run"), QStringLiteral("Only report what would be kept and reclaimed.")});
    p.addOption({QStringLiteral("json"), QStringLiteral("Print the run as JSON.")});
    p.addOption({QStringLiteral("ranges"), QStringLiteral("With --json, list the live and dead ranges too.")});
    int code = Ok;
    if (!parseOrExit(p, args, code, 1, QStringLiteral("store gc takes one store folder")))
        return code;
    const QString dir = p.positionalArguments().front();
    if (!QFileInfo::exists(catalogOf(dir))) {
        printError(dir + QStringLiteral(": not a cachescope store (no catalog.db)"));
        return Failure;
    }
    cs::gc::GcOptions o;
    o.dryRun = p.isSet(QStringLiteral("dry-run"));
    o.collectRanges = p.isSet(QStringLiteral("ranges"));
    const bool json = p.isSet(QStringLiteral("json"));
    cs::Job job("store gc");
    const bool tty = ::isatty(2);
    if (tty)
        job.setListener([](const cs::JobStatus& s) {
            const QString step = s.step >= 0 && size_t(s.step) < s.steps.size() ? QString::fromStdString(s.steps[size_t(s.step)])
                                                                                 : QString();
            QString line = QStringLiteral("\r%1 %2 %%").arg(step, -14).arg(s.fraction * 100, 5, 'f', 1);
            if (s.secondsLeft >= 0)
                line += QStringLiteral(", %1 left").arg(QString::fromStdString(cs::formatDuration(s.secondsLeft)));
            std::fprintf(stderr, "%-60s", line.toLocal8Bit().constData());
            std::fflush(stderr);
        });
    cs::gc::GcResult r;
    std::string error;
    job.run([&](cs::Job& j) {
        try {
            r = cs::gc::collectStoreGarbage(dir.toStdString(), o, j);
        } catch (const std::exception& e) {
            error = e.what();
            throw;
        }
    });
    if (tty)
        std::fprintf(stderr, "\n");
    if (!error.empty()) {
        printError(QString::fromStdString(error));
        return Failure;
    }
    const auto& s = r.stats;
    if (json) {
        QJsonObject out = statsJson(s);
        out.insert(QStringLiteral("run_id"), double(r.runId));
        if (o.collectRanges) {
            out.insert(QStringLiteral("live_ranges"), rangesJson(r.liveRanges));
            out.insert(QStringLiteral("dead_ranges"), rangesJson(r.deadRanges));
        }
        printJson(QJsonDocument(out));
        return Ok;
    }
    QString t;
    t += s.dryRun ? QStringLiteral("dry run (nothing written), generation %1\n").arg(s.generation)
                  : QStringLiteral("generation %1 -> %2 (run %3)\n").arg(s.generationBefore).arg(s.generation).arg(r.runId);
    t += QStringLiteral("roots %1, objects visited %2, largest frontier %3\n").arg(s.roots).arg(s.objectsVisited).arg(s.largestFrontier);
    t += QStringLiteral("live %1 in %2 ranges, reclaimed %3%4\n")
             .arg(size(s.liveBytes)).arg(s.ranges).arg(size(s.reclaimedBytes))
             .arg(s.dryRun ? QStringLiteral(" (%1 dead objects)").arg(s.deadObjects) : QString());
    t += QStringLiteral("pack %1 -> %2").arg(size(s.packBytesBefore())).arg(size(s.packBytesAfter()));
    if (!s.dryRun)
        t += QStringLiteral(", %1 appended during GC kept, %2 chunk rows deleted").arg(size(s.appendedDuringGc)).arg(s.chunkRowsDeleted);
    t += QStringLiteral("\n\n") + stepTable(s);
    printOut(t);
    return Ok;
}

int runHistory(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Lists the store's GC runs, newest first."));
    p.addPositionalArgument(QStringLiteral("DIR"), QStringLiteral("The store folder."));
    p.addOption({QStringLiteral("json"), QStringLiteral("Print the runs as JSON.")});
    int code = Ok;
    if (!parseOrExit(p, args, code, 1, QStringLiteral("store gc-history takes one store folder")))
        return code;
    const QString catalog = catalogOf(p.positionalArguments().front());
    if (!QFileInfo::exists(catalog)) {
        printError(p.positionalArguments().front() + QStringLiteral(": not a cachescope store (no catalog.db)"));
        return Failure;
    }
    const auto runs = cs::gc::gcHistory(catalog.toStdString());
    if (p.isSet(QStringLiteral("json"))) {
        QJsonArray a;
        for (const auto& r : runs)
            a.append(QJsonObject{{QStringLiteral("id"), double(r.id)},
                                 {QStringLiteral("started"), r.started},
                                 {QStringLiteral("finished"), r.finished},
                                 {QStringLiteral("generation"), double(r.generation)},
                                 {QStringLiteral("dry_run"), r.dryRun},
                                 {QStringLiteral("status"), QString::fromStdString(r.status)},
                                 {QStringLiteral("stats"), statsJson(r.stats)}});
        printJson(QJsonDocument(QJsonObject{{QStringLiteral("runs"), a}}));
        return Ok;
    }
    QString t = QStringLiteral("%1  %2  %3 %4 %5 %6 %7 %8 %9 %10\n")
                    .arg(QStringLiteral("id"), 5).arg(QStringLiteral("started"), -19).arg(QStringLiteral("status"), -9)
                    .arg(QStringLiteral("dry"), -3).arg(QStringLiteral("gen"), 4).arg(QStringLiteral("objects"), 9)
                    .arg(QStringLiteral("live"), 11).arg(QStringLiteral("reclaimed"), 11).arg(QStringLiteral("pack after"), 11)
                    .arg(QStringLiteral("wall s"), 8);
    for (const auto& r : runs) {
        double wall = 0;
        for (const auto& st : r.stats.steps)
            wall += st.wallSeconds;
        t += QStringLiteral("%1  %2  %3 %4 %5 %6 %7 %8 %9 %10\n")
                 .arg(r.id, 5)
                 .arg(QDateTime::fromMSecsSinceEpoch(qint64(r.started * 1000)).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")), -19)
                 .arg(QString::fromStdString(r.status), -9).arg(r.dryRun ? QStringLiteral("yes") : QStringLiteral("no"), -3)
                 .arg(r.generation, 4).arg(r.stats.objectsVisited, 9).arg(size(r.stats.liveBytes), 11)
                 .arg(size(r.stats.reclaimedBytes), 11).arg(size(r.stats.packBytesAfter()), 11).arg(wall, 8, 'f', 3);
    }
    if (runs.empty())
        t += QStringLiteral("(no GC runs yet)\n");
    printOut(t);
    return Ok;
}

int runCompare(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Two GC runs side by side, B as a percentage of A per figure."));
    p.addPositionalArgument(QStringLiteral("DIR"), QStringLiteral("The store folder."));
    p.addPositionalArgument(QStringLiteral("RUN_A"), QStringLiteral("Run id (see gc-history)."));
    p.addPositionalArgument(QStringLiteral("RUN_B"), QStringLiteral("Run id."));
    p.addOption({QStringLiteral("json"), QStringLiteral("Print the comparison as JSON.")});
    int code = Ok;
    if (!parseOrExit(p, args, code))
        return code;
    const QStringList pos = p.positionalArguments();
    bool okA = false, okB = false;
    const qint64 a = pos.size() == 3 ? pos[1].toLongLong(&okA) : 0;
    const qint64 b = pos.size() == 3 ? pos[2].toLongLong(&okB) : 0;
    if (pos.size() != 3 || !okA || !okB) {
        printError(QStringLiteral("store gc-compare takes a store folder and two run ids (see --help)"));
        return Usage;
    }
    const QString catalog = catalogOf(pos[0]);
    if (!QFileInfo::exists(catalog)) {
        printError(pos[0] + QStringLiteral(": not a cachescope store (no catalog.db)"));
        return Failure;
    }
    const auto runA = cs::gc::gcRun(catalog.toStdString(), a);
    const auto runB = cs::gc::gcRun(catalog.toStdString(), b);
    const auto rows = cs::gc::compareGcRuns(runA.stats, runB.stats);
    if (p.isSet(QStringLiteral("json"))) {
        QJsonArray list;
        for (const auto& r : rows)
            list.append(QJsonObject{{QStringLiteral("figure"), QString::fromStdString(r.figure)},
                                    {QStringLiteral("a"), r.a},
                                    {QStringLiteral("b"), r.b},
                                    {QStringLiteral("percent"), r.percent < 0 ? QJsonValue() : QJsonValue(r.percent)}});
        printJson(QJsonDocument(QJsonObject{{QStringLiteral("run_a"), double(a)}, {QStringLiteral("run_b"), double(b)},
                                            {QStringLiteral("rows"), list}}));
        return Ok;
    }
    auto num = [](double v) {
        return v == double(qint64(v)) ? QString::number(qint64(v)) : QString::number(v, 'f', 3);
    };
    QString t = QStringLiteral("%1 %2 %3 %4\n").arg(QStringLiteral("figure"), -24).arg(QStringLiteral("run %1").arg(a), 16)
                    .arg(QStringLiteral("run %1").arg(b), 16).arg(QStringLiteral("B/A"), 9);
    for (const auto& r : rows)
        t += QStringLiteral("%1 %2 %3 %4\n").arg(QString::fromStdString(r.figure), -24).arg(num(r.a), 16).arg(num(r.b), 16)
                 .arg(r.percent < 0 ? QStringLiteral("-") : QStringLiteral("%1 %").arg(r.percent, 0, 'f', 1), 9);
    printOut(t);
    return Ok;
}

StoreSubcommandRegistration regGc({QStringLiteral("gc"), QStringLiteral("DIR [--dry-run] [--json]  collect unreachable pack objects"), runGc});
StoreSubcommandRegistration regHistory({QStringLiteral("gc-history"), QStringLiteral("DIR [--json]  list GC runs"), runHistory});
StoreSubcommandRegistration regCompare({QStringLiteral("gc-compare"), QStringLiteral("DIR RUN_A RUN_B  two GC runs side by side"), runCompare});

} // namespace

} // namespace cli
