// GC benchmark: packs of 100,000 and 1,000,000 objects (small chunks, a root
// node per entry, some chunks shared between entries), half the entries
// dropped, then GC runs, each in a fresh child process (so its maxrss is the
// GC's own). Prints the per-step table of the median run, the peak RSS
// growth during the traversal per live object (and the frontier's own
// bytes), and the GC wall time against `cp` of the live bytes (the new
// prefix) in the same runs, and against the walk alone (a dry run).
//
//   bench_gc [OBJECTS ...] [--dir DIR] [--reps N] [--priority normal|fifo]
//     (default 100000 1000000, DIR under /tmp, 5 runs per size, each from a
//     copy of the same pack after a sync; medians reported)
//   --priority fifo: the repetitions (the GC children, cp, sync) run under
//     SCHED_FIFO, inherited from this process while they run (FifoPriority.h);
//     the pack is built at normal priority.
//   BENCH_GC_BLOCK_KIB=N sets the block the walk copies live objects through.
//   --keep leaves DIR/gc-N with the pack before the GC (pack.before) and the
//   roots, to profile one GC on its own:
//     cp -r DIR/gc-N/pack.before P && perf record bench_gc --child P DIR/gc-N/roots.bin
#include "core/gc/Gc.h"
#include "core/jobs/Job.h"
#include "core/pack/Pack.h"
#include "core/util/File.h"
#include "core/util/Sha256.h"
#include "BenchOptions.h"
#include "ChildRun.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/resource.h>
#include <random>

using namespace cs;
using bench::median;

namespace {

constexpr int kChunksPerEntry = 9;     // one shared + 8 new chunks, + 1 root node: 9 new objects per entry
constexpr int kSharedPool = 1000;

// Builds the pack straight through Pack::appendAll in batches; returns the roots.
std::vector<uint64_t> buildPack(pack::Pack& p, uint64_t objects, uint64_t& chunkCount)
{
    std::mt19937_64 rng(42);
    auto randomChunk = [&] {
        std::string s(32 + rng() % 96, '\0');
        for (auto& c : s)
            c = char(rng());
        const auto sha = Sha256::of(s.data(), s.size());
        return std::make_pair(pack::encodeChunk(sha, uint32_t(s.size()), pack::compressChunkFrame(s.data(), s.size(), 1)),
                              uint64_t(s.size()));
    };
    std::vector<std::pair<uint64_t, uint64_t>> shared; // offset, raw size
    {
        std::vector<std::string> batch;
        std::vector<uint64_t> sizes;
        for (int i = 0; i < kSharedPool; ++i) {
            auto [obj, raw] = randomChunk();
            batch.push_back(std::move(obj));
            sizes.push_back(raw);
        }
        const auto offs = p.appendAll(batch);
        for (size_t i = 0; i < offs.size(); ++i)
            shared.push_back({offs[i], sizes[i]});
    }
    chunkCount = kSharedPool;
    std::vector<uint64_t> roots;
    uint64_t made = kSharedPool;
    while (made < objects) {
        // One batch of entries; offsets computed ahead (we are the only writer).
        std::vector<std::string> batch;
        uint64_t at = p.end();
        const uint64_t first = at;
        std::vector<uint64_t> batchRoots;
        for (int e = 0; e < 1000 && made < objects; ++e) {
            std::vector<pack::ChildRef> children;
            for (int c = 0; c < kChunksPerEntry; ++c) {
                if (c == 0) {
                    const auto& s = shared[rng() % shared.size()];
                    children.push_back({s.first, s.second});
                    continue;
                }
                auto [obj, raw] = randomChunk();
                children.push_back({at, raw});
                at += obj.size();
                batch.push_back(std::move(obj));
                ++made;
                ++chunkCount;
            }
            std::string node = pack::encodeNode(children);
            batchRoots.push_back(at);
            at += node.size();
            batch.push_back(std::move(node));
            ++made;
        }
        const auto offs = p.appendAll(batch);
        if (offs.front() != first) {
            std::fprintf(stderr, "bench_gc: someone else appended to the pack\n");
            std::exit(1);
        }
        roots.insert(roots.end(), batchRoots.begin(), batchRoots.end());
    }
    p.sync();
    return roots;
}

int child(const QString& packDir, const QString& rootsFile, bool dryRun)
{
    auto p = pack::Pack::open(packDir.toStdString(), false);
    const std::string raw = readWholeFile(rootsFile.toStdString(), size_t(1) << 30);
    std::vector<uint64_t> roots(raw.size() / 8);
    std::memcpy(roots.data(), raw.data(), roots.size() * 8);
    gc::GcOptions o;
    o.dryRun = dryRun;
    o.roots = std::move(roots);
    if (qEnvironmentVariableIsSet("BENCH_GC_BLOCK_KIB"))
        o.copyBufferBytes = size_t(qEnvironmentVariableIntValue("BENCH_GC_BLOCK_KIB")) << 10;
    // Peak RSS of the traversal alone: reset the process's high-water mark
    // (Linux >= 4.0: "5" > /proc/self/clear_refs) when the open step ends,
    // note the resident size then, and read the high-water mark after the walk.
    qint64 rssAtOpen = -1, hwmAfterTraverse = -1;
    auto statusKiB = [](const char* field) -> qint64 {
        QFile f("/proc/self/status");
        if (!f.open(QIODevice::ReadOnly))
            return -1;
        for (const QByteArray& line : f.readAll().split('\n'))
            if (line.startsWith(field))
                return line.mid(int(strlen(field))).trimmed().split(' ').front().toLongLong();
        return -1;
    };
    o.hook = [&](const char* point) {
        if (std::string(point) == "open") {
            QFile clear("/proc/self/clear_refs");
            if (clear.open(QIODevice::WriteOnly))
                clear.write("5");
            rssAtOpen = statusKiB("VmRSS:");
        } else if (std::string(point) == "traverse") {
            hwmAfterTraverse = statusKiB("VmHWM:");
        }
    };
    Job job("gc");
    QElapsedTimer t;
    t.start();
    const auto r = gc::collectGarbage(*p, o, job);
    const double wall = double(t.nsecsElapsed()) / 1e9;
    QJsonObject out = QJsonDocument::fromJson(QByteArray::fromStdString(r.stats.toJson())).object();
    out.insert("wall_s", wall);
    out.insert("rss_at_open_kib", rssAtOpen);
    out.insert("hwm_after_traverse_kib", hwmAfterTraverse);
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Compact).constData());
    return 0;
}

struct Timing {
    double wall = 0, cpu = 0;
};

// Wall time and CPU time (user + sys of the child) of a command; under
// --priority fifo it inherits this process's SCHED_FIFO.
Timing timeCommand(const QString& program, const QStringList& args)
{
    std::vector<std::string> argv{program.toStdString()};
    for (const auto& a : args)
        argv.push_back(a.toStdString());
    const bench::ChildRun r = bench::runChild(argv, {.mayFail = true});
    return {r.wall, r.cpu};
}

bool keepDirs = false;
bool fifoPriority = false;
int reps = 5;


QJsonObject stepOf(const QJsonObject& run, const QString& name)
{
    for (const auto& v : run["steps"].toArray())
        if (v.toObject()["name"].toString() == name)
            return v.toObject();
    return {};
}

double sumOfSteps(const QJsonObject& run, const char* field)
{
    double t = 0;
    for (const auto& v : run["steps"].toArray())
        t += v.toObject()[field].toDouble();
    return t;
}

void runOne(const QString& base, uint64_t objects)
{
    const QString dir = base + QStringLiteral("/gc-%1").arg(objects);
    QDir(dir).removeRecursively();
    QDir().mkpath(dir);
    const QString packDir = dir + "/pack";
    uint64_t chunks = 0;
    std::vector<uint64_t> roots;
    QElapsedTimer build;
    build.start();
    {
        auto p = pack::Pack::open(packDir.toStdString(), true);
        roots = buildPack(*p, objects, chunks);
    }
    const double buildS = double(build.nsecsElapsed()) / 1e9;
    // Keep every other entry.
    std::string kept;
    uint64_t keptRoots = 0;
    for (size_t i = 0; i < roots.size(); i += 2) {
        kept.append(reinterpret_cast<const char*>(&roots[i]), 8);
        ++keptRoots;
    }
    {
        File f = File::create((dir + "/roots.bin").toStdString());
        f.writeAll(kept.data(), kept.size());
    }
    // Every run starts from the same pack and from a clean page cache state
    // (sync: no writeback of earlier runs going on), the GC and cp alike.
    const QString pristine = dir + "/pack.before";
    QProcess::execute("cp", {"-r", packDir, pristine});
    {
        // The second GC of each run keeps every other entry the first kept.
        std::string half;
        for (size_t i = 0; i < kept.size() / 8; i += 2)
            half.append(kept, i * 8, 8);
        File f = File::create((dir + "/roots2.bin").toStdString());
        f.writeAll(half.data(), half.size());
    }
    auto runChild = [&](const char* mode, const QString& rootsFile, bool fresh) {
        if (fresh) {
            QDir(packDir).removeRecursively();
            QProcess::execute("cp", {"-r", pristine, packDir});
        }
        QProcess::execute("sync", {});
        QProcess proc;
        proc.start(QCoreApplication::applicationFilePath(), {mode, packDir, rootsFile});
        proc.waitForFinished(-1);
        if (proc.exitCode() != 0) {
            std::fprintf(stderr, "bench_gc: GC child failed: %s\n", proc.readAllStandardError().constData());
            std::exit(1);
        }
        return QJsonDocument::fromJson(proc.readAllStandardOutput()).object();
    };
    std::vector<QJsonObject> runs;
    std::vector<double> walkOnly, cpWall, cpSyncWall, cpCpu, secondWall, secondCpWall;
    double secondLive = 0;
    auto timeCp = [&](const QJsonObject& run, bool withSync) {
        const QString prefix = packDir + QStringLiteral("/%1.prefix").arg(run["generation"].toInteger());
        QProcess::execute("sync", {});
        const Timing t = withSync ? timeCommand("sh", {"-c", QStringLiteral("cp '%1' '%2/cp-copy' && sync '%2/cp-copy'").arg(prefix, dir)})
                                  : timeCommand("cp", {prefix, dir + "/cp-copy"});
        QFile::remove(dir + "/cp-copy");
        return t;
    };
    for (int rep = 0; rep < reps; ++rep) {
        const bench::FifoScope fifo(fifoPriority);
        if (!fifo.ok()) {
            std::fprintf(stderr, "bench_gc: --priority fifo: cannot use SCHED_FIFO (needs root or CAP_SYS_NICE)\n");
            std::exit(2);
        }
        walkOnly.push_back(stepOf(runChild("--child-dry", dir + "/roots.bin", true), "traverse")["wall_s"].toDouble());
        runs.push_back(runChild("--child", dir + "/roots.bin", true));
        const Timing cp = timeCp(runs.back(), false);
        const Timing cpSync = timeCp(runs.back(), true);
        cpWall.push_back(cp.wall);
        cpCpu.push_back(cp.cpu);
        cpSyncWall.push_back(cpSync.wall);
        // A second GC, from the generation the first one wrote (a prefix
        // and a mapping to read through).
        const QJsonObject second = runChild("--child", dir + "/roots2.bin", false);
        secondWall.push_back(sumOfSteps(second, "wall_s"));
        secondLive = second["live_bytes"].toDouble();
        secondCpWall.push_back(timeCp(second, false).wall);
    }
    // The run with the median GC wall time stands for all in the step table.
    std::vector<std::pair<double, size_t>> byWall;
    for (size_t i = 0; i < runs.size(); ++i)
        byWall.push_back({sumOfSteps(runs[i], "wall_s"), i});
    std::sort(byWall.begin(), byWall.end());
    const QJsonObject s = runs[byWall[byWall.size() / 2].second];
    const QJsonArray steps = s["steps"].toArray();
    double gcWall = 0, gcCpu = 0;
    std::vector<double> gcWalls;
    for (const auto& [w, i] : byWall)
        gcWalls.push_back(w);
    qint64 rssOpen = 0, rssTraverse = 0;
    double load[3] = {0, 0, 0};
    getloadavg(load, 3);
    std::printf("\n== %llu objects (%llu entries, %llu kept; %llu chunks incl. %d shared), pack built in %.2f s;"
                " median of %d runs; priority %s; load average %.2f %.2f %.2f ==\n",
                (unsigned long long)objects, (unsigned long long)roots.size(), (unsigned long long)keptRoots,
                (unsigned long long)chunks, kSharedPool, buildS, reps, fifoPriority ? "SCHED_FIFO" : "normal", load[0],
                load[1], load[2]);
    std::printf("%-14s %8s %8s %8s %11s %8s %6s %8s %8s %7s %7s\n", "step", "wall s", "user s", "sys s", "maxrss KiB",
                "minflt", "majflt", "inblock", "oublock", "nvcsw", "nivcsw");
    for (const auto& v : steps) {
        const QJsonObject st = v.toObject();
        gcWall += st["wall_s"].toDouble();
        gcCpu += st["user_s"].toDouble() + st["sys_s"].toDouble();
        if (st["name"].toString() == "open")
            rssOpen = st["maxrss_kib"].toInteger();
        if (st["name"].toString() == "traverse")
            rssTraverse = st["maxrss_kib"].toInteger();
        std::printf("%-14s %8.3f %8.3f %8.3f %11lld %8lld %6lld %8lld %8lld %7lld %7lld\n",
                    st["name"].toString().toUtf8().constData(), st["wall_s"].toDouble(), st["user_s"].toDouble(),
                    st["sys_s"].toDouble(), st["maxrss_kib"].toInteger(), st["minflt"].toInteger(),
                    st["majflt"].toInteger(), st["inblock"].toInteger(), st["oublock"].toInteger(),
                    st["nvcsw"].toInteger(), st["nivcsw"].toInteger());
    }
    const double live = s["objects_visited"].toDouble();
    const double frontier = s["largest_frontier"].toDouble();
    std::printf("objects visited %.0f, live %.1f MiB in %lld ranges, reclaimed %.1f MiB, pack %.1f -> %.1f MiB\n", live,
                s["live_bytes"].toDouble() / 1048576.0, s["ranges"].toInteger(),
                s["reclaimed_bytes"].toDouble() / 1048576.0, s["pack_bytes_before"].toDouble() / 1048576.0,
                s["pack_bytes_after"].toDouble() / 1048576.0);
    const qint64 rssAtOpen = s["rss_at_open_kib"].toInteger(), hwm = s["hwm_after_traverse_kib"].toInteger();
    std::printf("traversal peak RSS: %lld KiB resident when the walk starts, high-water %lld KiB after it: growth %lld KiB"
                " = %.1f bytes per live object (getrusage maxrss %lld -> %lld KiB)\n",
                rssAtOpen, hwm, hwm - rssAtOpen, double(hwm - rssAtOpen) * 1024.0 / live, rssOpen, rssTraverse);
    std::printf("traversal frontier: largest %.0f offsets = %.2f bytes per live object (x8 bytes; x16 with vector growth: %.2f)\n",
                frontier, frontier * 8.0 / live, frontier * 16.0 / live);
    const double cpMed = median(cpWall), cpSyncMed = median(cpSyncWall), cpCpuMed = median(cpCpu);
    const double gcMed = median(gcWalls), walkMed = median(walkOnly);
    std::printf("GC wall %.3f s (sum of steps; runs:", gcMed);
    for (double w : gcWalls)
        std::printf(" %.3f", w);
    std::printf(")\n  vs cp of the live bytes %.3f s: %.2fx; vs cp + fsync %.3f s: %.2fx\n", cpMed, gcMed / cpMed,
                cpSyncMed, gcMed / cpSyncMed);
    std::printf("  the walk alone (a dry run's traverse, no copy) %.3f s = %.2fx cp\n", walkMed, walkMed / cpMed);
    std::printf("GC CPU %.3f s (user + sys, median run) vs cp CPU %.3f s (%.2fx)\n", gcCpu, cpCpuMed,
                cpCpuMed > 0 ? gcCpu / cpCpuMed : 0.0);
    const double secondMed = median(secondWall), secondCpMed = median(secondCpWall);
    std::printf("second GC (from the generation the first wrote, every other kept entry dropped, %.1f MiB live):"
                " %.3f s vs cp %.3f s: %.2fx\n",
                secondLive / 1048576.0, secondMed, secondCpMed, secondCpMed > 0 ? secondMed / secondCpMed : 0.0);
    if (!keepDirs)
        QDir(dir).removeRecursively();
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments();
    if (args.size() == 4 && (args[1] == "--child" || args[1] == "--child-dry"))
        return child(args[2], args[3], args[1] == "--child-dry");
    std::string base = (QDir::tempPath() + "/bench_gc").toStdString();
    std::vector<uint64_t> counts;
    CLI::App cli{"GC of packs of small objects against cp of the live bytes, with the traversal's memory",
                 "bench_gc"};
    cli.add_option("objects", counts, "pack sizes in objects (default 100000 1000000)")->check(CLI::PositiveNumber);
    cli.add_option("--dir", base, "work folder")->capture_default_str();
    cli.add_flag("--keep", keepDirs, "leave DIR/gc-N with the pack before the GC and the roots");
    cli.add_option("--reps", reps, "runs per size (medians)")->check(CLI::PositiveNumber)->capture_default_str();
    bench::addPriorityOption(cli, &fifoPriority);
    if (const int exit = bench::parseOrExit(cli, argc, argv); exit >= 0)
        return exit;
    if (counts.empty())
        counts = {100000, 1000000};
    for (uint64_t n : counts)
        runOne(QString::fromStdString(base), n);
    return 0;
}
