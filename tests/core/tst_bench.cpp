// core/bench: each scenario in a tiny configuration gives a consistent result,
// the history stores and reads back runs and samples, compare computes
// percentages, bad parameters are refused before anything runs.
#include "common/TestSupport.h"

#include "core/bench/Bench.h"
#include "core/bench/SamplesCsv.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonArray>
#include <QJsonObject>

#include <atomic>
#include <map>
#include <set>
#include <thread>

class TestBench : public QObject {
    Q_OBJECT

private:
    QTemporaryDir tmp_;
    QByteArray oldTmp_;

    static std::set<std::string> seriesOf(const cs::BenchRun& run)
    {
        std::set<std::string> s;
        for (const auto& x : run.samples)
            s.insert(x.series);
        return s;
    }

    // The phases cover the run from t = 0 to the last sample, each starting
    // where the one before ended; every sample lies in one; the byte counter
    // restarts in each (it never falls inside a phase); the phase table has
    // a row per phase with the same figures.
    static bool phasesCoverTheRun(const cs::BenchRun& run, QByteArray& why)
    {
        const auto& ph = run.result.phases;
        auto fail = [&why](const std::string& s) { why = QByteArray::fromStdString(s); return false; };
        if (ph.empty())
            return fail("no phases");
        if (ph.front().start != 0)
            return fail("the first phase starts at " + std::to_string(ph.front().start));
        bool ours = false;
        for (size_t i = 0; i < ph.size(); ++i) {
            if (ph[i].label.empty() || ph[i].end < ph[i].start)
                return fail("phase " + std::to_string(i) + " has no label or ends before it starts");
            if (i + 1 < ph.size() && ph[i].end != ph[i + 1].start)
                return fail("a gap or overlap between '" + ph[i].label + "' and '" + ph[i + 1].label + "'");
            ours = ours || ph[i].role == cs::PhaseRole::Ours;
            if (ph[i].role == cs::PhaseRole::Reference && (ph[i].tool.empty() || ph[i].tool == "cachescope"))
                return fail("reference phase '" + ph[i].label + "' names no reference tool");
            if (ph[i].userSeconds < 0 || ph[i].sysSeconds < 0 || ph[i].otherCores < 0 || ph[i].ioWaitCores < 0)
                return fail("phase '" + ph[i].label + "' has a negative CPU figure");
        }
        if (!ours)
            return fail("no phase of ours");
        std::map<int, double> lastDone;
        for (const auto& s : run.samples) {
            if (s.t < 0 || s.t > ph.back().end)
                return fail(s.series + " sample at " + std::to_string(s.t) + " is outside the phases");
            const int k = cs::phaseAt(ph, s.t);
            if (k < 0 || s.t < ph[size_t(k)].start || s.t > ph[size_t(k)].end)
                return fail("phaseAt(" + std::to_string(s.t) + ") is not the phase holding it");
            if (s.series == "done MB") {
                auto it = lastDone.find(k);
                if (it != lastDone.end() && s.value < it->second)
                    return fail("done MB fell inside phase '" + ph[size_t(k)].label + "'");
                lastDone[k] = s.value;
            }
        }
        const cs::ResultSubTable* table = nullptr;
        for (const auto& t : run.result.tables)
            if (t.title == "phases")
                table = &t;
        if (!table || table->rowNames.size() != ph.size())
            return fail("no phases table with a row per phase");
        for (size_t i = 0; i < ph.size(); ++i)
            if (table->values[i][1] != ph[i].wall() || table->values[i][2] != ph[i].cores())
                return fail("the phases table differs from phase '" + ph[i].label + "'");
        return true;
    }

    // Every comparison holds the figures of its two rows, the unit they
    // share, ours / reference as its ratio and the direction the unit is
    // better in; in JSON it has exactly the seven fields of issue 25.
    static bool comparisonsMatchTheRows(const cs::BenchRun& run, QByteArray& why)
    {
        auto fail = [&why](const std::string& s) { why = QByteArray::fromStdString(s); return false; };
        const std::map<std::string, std::string> better = {
            {"MB/s", "higher"}, {"x", "higher"}, {"s", "lower"}, {"ms", "lower"}, {"MB", "lower"}};
        for (const auto& c : run.result.comparisons) {
            const cs::ResultRow* a = run.result.find(c.name);
            const cs::ResultRow* b = run.result.find(c.referenceRow);
            if (!a || !b)
                return fail("comparison '" + c.name + "' names a row that is not there");
            if (a->value != c.ours || b->value != c.reference || a->unit != c.unit || b->unit != c.unit)
                return fail("comparison '" + c.name + "' differs from its rows");
            if (c.reference <= 0 || c.ours <= 0 || std::abs(c.ratio - c.ours / c.reference) > 1e-12 * c.ratio)
                return fail("comparison '" + c.name + "' has the ratio " + std::to_string(c.ratio));
            if (!better.count(c.unit) || better.at(c.unit) != c.better)
                return fail("comparison '" + c.name + "' in " + c.unit + " says " + c.better + " is better");
            if (c.referenceTool.empty())
                return fail("comparison '" + c.name + "' names no reference tool");
        }
        const QJsonObject result = QJsonDocument::fromJson(QByteArray::fromStdString(cs::runToJson(run, false).dump()))
                                       .object().value(QStringLiteral("result")).toObject();
        const QJsonArray list = result.value(QStringLiteral("comparisons")).toArray();
        if (!result.contains(QStringLiteral("comparisons")) || size_t(list.size()) != run.result.comparisons.size())
            return fail("the JSON has not every comparison");
        const QStringList keys = {"better", "name", "ours", "ratio", "reference", "reference_tool", "unit"};
        for (int i = 0; i < list.size(); ++i) {
            const QJsonObject o = list[i].toObject();
            if (o.keys() != keys)
                return fail("JSON comparison fields: " + o.keys().join(QLatin1Char(',')).toStdString());
            const auto& c = run.result.comparisons[size_t(i)];
            if (o.value(QStringLiteral("ours")).toDouble() != c.ours ||
                o.value(QStringLiteral("ratio")).toDouble() != c.ratio ||
                o.value(QStringLiteral("better")).toString().toStdString() != c.better)
                return fail("JSON comparison " + std::to_string(i) + " differs");
        }
        return true;
    }

    static const cs::Phase* phaseNamed(const cs::BenchRun& run, const std::string& label)
    {
        for (const auto& p : run.result.phases)
            if (p.label == label)
                return &p;
        return nullptr;
    }

#define CHECK_PHASES_AND_COMPARISONS(run)                                   \
    do {                                                                    \
        QByteArray why;                                                     \
        QVERIFY2(phasesCoverTheRun(run, why), why.constData());             \
        QVERIFY2(comparisonsMatchTheRows(run, why), why.constData());       \
    } while (0)

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(tmp_.isValid());
        // Scenario scratch folders go here, so the test can see they are removed.
        oldTmp_ = qgetenv("TMPDIR");
        QDir(tmp_.path()).mkpath(QStringLiteral("scratch"));
        qputenv("TMPDIR", (tmp_.path() + QStringLiteral("/scratch")).toUtf8());
    }
    void cleanupTestCase() { qputenv("TMPDIR", oldTmp_); }

    void scenariosAreListed()
    {
        const auto names = cs::scenarioNames();
        QVERIFY(std::find(names.begin(), names.end(), "snapshot") != names.end());
        QVERIFY(std::find(names.begin(), names.end(), "boot") != names.end());
        QVERIFY(std::find(names.begin(), names.end(), "restore") != names.end());
        QVERIFY(std::find(names.begin(), names.end(), "gc") != names.end());
        for (const auto& n : names) {
            auto s = cs::makeScenario(n);
            QVERIFY(s);
            QCOMPARE(s->name(), n);
            QVERIFY(!s->params().empty());
        }
        QVERIFY(!cs::makeScenario("nope"));
    }

    void badParametersAreRefused()
    {
        cs::Job job;
        cs::RunOptions o;
        o.params["populated"] = "lots";
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::runScenario("snapshot", o, job));
        o.params.clear();
        o.params["nope"] = "1";
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::runScenario("snapshot", o, job));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::runScenario("nope", {}, job));
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::Params::splitAssignment("novalue"));
        const auto kv = cs::Params::splitAssignment("a=b=c");
        QCOMPARE(kv.first, std::string("a"));
        QCOMPARE(kv.second, std::string("b=c"));
    }

    void snapshotScenarioIsConsistent()
    {
        cs::Job job;
        cs::RunOptions o;
        o.params = {{"populated", "3MiB"}, {"sparse", "12MiB"}, {"chunk", "256KiB"}, {"workers", "2"}};
        std::atomic<int> live{0};
        o.onSample = [&](const cs::Sample&) { live++; };
        const cs::BenchRun run = cs::runScenario("snapshot", o, job);
        QVERIFY2(run.status == "done", run.error.c_str());
        QCOMPARE(job.status().state, cs::JobState::Done);
        const auto& r = run.result;
        QVERIFY(r.find("decoded equals input") && r.find("decoded equals input")->text == "yes");
        QVERIFY(r.find("stock zstd decodes ours") && r.find("stock zstd decodes ours")->text == "yes");
        QCOMPARE(r.value("input logical"), 12.0 * 1048576 / 1e6);
        QCOMPARE(r.value("input populated"), 3.0 * 1048576 / 1e6);
        // 3 MiB of data in 256 KiB frames: at least 12 data frames, all sized.
        QVERIFY(r.value("sized frames") >= 12);
        QVERIFY(r.value("frames") >= r.value("sized frames"));
        QVERIFY(r.value("largest frame") > 0);
        QVERIFY(r.value("ratio ours") > 1);
        QVERIFY(r.value("ratio zstd") > 1);
        QVERIFY(r.value("write 1 worker MB/s") > 0);
        QVERIFY(r.value("write 2 workers MB/s") > 0);
        QVERIFY(r.value("decode 2 threads MB/s") > 0);
        QVERIFY(r.value("zstd -d MB/s") > 0);
        QVERIFY(r.value("snapshot size") > 0);
        QVERIFY(r.value("snapshot size") < r.value("input populated"));
        // The sampler's standard series are there, and every sample reached the live consumer.
        const auto series = seriesOf(run);
        for (const char* s : {"RSS MB", "CPU cores", "throughput MB/s", "done MB"})
            QVERIFY2(series.count(s), s);
        CHECK_PHASES_AND_COMPARISONS(run);
        // Ours and zstd's runs are phases of their own, in the order they ran.
        std::vector<std::string> labels;
        for (const auto& p : r.phases)
            if (p.role != cs::PhaseRole::Setup)
                labels.push_back(p.label + "/" + p.tool);
        QCOMPARE(labels, (std::vector<std::string>{"write 1 worker/cachescope", "write 2 workers/cachescope",
                                                   "decode 2 threads/cachescope", "zstd -3 -T1/zstd", "zstd -3 -T2/zstd",
                                                   "zstd -d/zstd"}));
        // Each pair of ours and zstd's: speeds, peak memory (when zstd ran
        // long enough to be read) and the ratio.
        QVERIFY(r.comparisons.size() >= 4 && r.comparisons.size() <= 7);
        QCOMPARE(r.comparisons[1].name, std::string("write 2 workers MB/s"));
        QCOMPARE(r.comparisons[1].referenceTool, std::string("zstd -3 -T2"));
        QCOMPARE(r.comparisons.back().name, std::string("ratio ours"));
        // The cores row is the phase's own CPU over its wall time.
        const cs::Phase* w2 = phaseNamed(run, "write 2 workers");
        QVERIFY(w2 && w2->userSeconds > 0);
        QCOMPARE(r.value("write 2 workers cores"), (w2->userSeconds + w2->sysSeconds) / w2->wall());
        // Speeds count the populated bytes, not the holes.
        QCOMPARE(r.value("write 2 workers MB/s"), 3.0 * 1048576 / 1e6 / w2->wall());
        QVERIFY(r.find("MB/s counts")->text.find("populated") != std::string::npos);
        double lastDone = 0;
        for (const auto& s : run.samples)
            if (s.series == "done MB" && cs::phaseAt(r.phases, s.t) == int(w2 - r.phases.data()))
                lastDone = s.value;
        QVERIFY2(lastDone <= 3.0 * 1048576 / 1e6 + 1e-9, qPrintable(QString::number(lastDone)));
        QCOMPARE(live.load(), int(run.samples.size()));
        for (const auto& s : run.samples)
            QVERIFY(s.t >= 0 && s.t <= run.finished - run.started + 1);
        QVERIFY(run.machine.cores > 0);
        QVERIFY(!run.machine.cpu.empty());
        QCOMPARE(run.version, std::string(CACHESCOPE_VERSION));
        QCOMPARE(run.params.at("chunk"), std::string("256KiB"));
        QCOMPARE(run.params.at("level"), std::string("3"));  // default filled in
        QVERIFY(QDir(tmp_.path() + QStringLiteral("/scratch")).isEmpty());
    }

    void restoreScenarioIsConsistent()
    {
        cs::Job job;
        cs::RunOptions o;
        o.params = {{"entries", "3"}, {"parts", "6"}, {"part_size", "128KiB"}, {"threads", "2"}};
        const cs::BenchRun run = cs::runScenario("restore", o, job);
        QVERIFY2(run.status == "done", run.error.c_str());
        const auto& r = run.result;
        const double stored = 3 * 6 * 131072 / 1e6;
        QCOMPARE(r.value("bytes stored"), stored);
        QCOMPARE(r.value("first restore bytes"), stored);   // bytes restored equal bytes stored
        QCOMPARE(r.value("warm restore bytes"), stored);
        QCOMPARE(r.value("merged by first restore"), 3.0);  // first restore = stream + merge
        QCOMPARE(r.value("entries merged after"), 3.0);
        QVERIFY(r.value("first restore MB/s") > 0);
        QVERIFY(r.value("warm restore MB/s") > 0);
        QVERIFY(r.value("warm restore peak RSS") > 0);
        CHECK_PHASES_AND_COMPARISONS(run);
        QCOMPARE(r.comparisons.size(), size_t(4));
        QCOMPARE(r.comparisons[0].referenceTool, std::string("cat | sha256sum"));
        QVERIFY(phaseNamed(run, "cat | sha256sum of the parts"));
        QCOMPARE(phaseNamed(run, "cat | sha256sum of the parts")->role, cs::PhaseRole::Reference);
        QVERIFY(QDir(tmp_.path() + QStringLiteral("/scratch")).isEmpty());
    }

    void gcScenarioFiguresAddUp()
    {
        cs::Job job;
        cs::RunOptions o;
        o.params = {{"objects", "3000"}, {"entries", "40"}, {"chunk", "1KiB"}, {"evict", "0.5"}};
        const cs::BenchRun run = cs::runScenario("gc", o, job);
        QVERIFY2(run.status == "done", run.error.c_str());
        const auto& r = run.result;
        QCOMPARE(r.value("entries"), 40.0);
        QCOMPARE(r.value("evicted entries"), 20.0);
        QCOMPARE(r.value("roots"), 20.0);
        QVERIFY(r.value("objects visited") > 20);
        QVERIFY(r.value("objects visited") < r.value("objects"));
        QCOMPARE(r.find("live + reclaimed = objects bytes")->text, std::string("yes"));
        QVERIFY(std::abs(r.value("live bytes") + r.value("reclaimed bytes") - r.value("pack objects bytes")) < 1e-6);
        QVERIFY(r.value("reclaimed bytes") > 0);
        QVERIFY(r.value("pack after") < r.value("pack before"));
        QVERIFY(r.value("chunks verified after GC") > 0);
        QCOMPARE(r.tables.size(), size_t(2));
        const auto& steps = r.tables[0];
        QCOMPARE(steps.title, std::string("steps"));
        CHECK_PHASES_AND_COMPARISONS(run);
        QVERIFY(!r.comparisons.empty() && r.comparisons.size() <= 2);
        QCOMPARE(r.comparisons[0].name, std::string("GC wall"));
        QCOMPARE(r.comparisons[0].better, std::string("lower"));
        QCOMPARE(steps.rowNames.size(), size_t(6));
        QCOMPARE(steps.columns.front(), std::string("wall s"));
        double wall = 0;
        for (const auto& row : steps.values) {
            QCOMPARE(row.size(), steps.columns.size());
            wall += row[0];
        }
        QVERIFY(std::abs(wall - r.value("GC wall")) < 1e-9);  // the steps add up to the GC's wall time
        QVERIFY(QDir(tmp_.path() + QStringLiteral("/scratch")).isEmpty());
    }

    void cancelledRunLeavesNothing()
    {
        cs::Job job;
        cs::RunOptions o;
        o.params = {{"populated", "64MiB"}, {"sparse", "256MiB"}, {"chunk", "1MiB"}, {"workers", "2"}};
        std::thread canceller([&] {
            while (job.status().step < 1)
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            job.cancel();
        });
        const cs::BenchRun run = cs::runScenario("snapshot", o, job);
        canceller.join();
        QCOMPARE(run.status, std::string("cancelled"));
        QCOMPARE(job.status().state, cs::JobState::Cancelled);
        QVERIFY(QDir(tmp_.path() + QStringLiteral("/scratch")).isEmpty());
    }

    void historyRoundTrip()
    {
        const std::string path = (tmp_.path() + QStringLiteral("/hist/bench-history.db")).toStdString();
        cs::BenchHistory h = cs::BenchHistory::openFile(path);
        cs::BenchRun run;
        run.scenario = "snapshot";
        run.params = {{"populated", "1MiB"}, {"sparse", "4MiB"}};
        run.started = 1700000000.25;
        run.finished = 1700000003.5;
        run.version = "9.9.9";
        run.machine = cs::currentMachine();
        run.status = "done";
        run.result.add("write MB/s", 123.5, "MB/s");
        run.result.addText("frame layout", "4 zstd frames, \"splittable\"");
        cs::ResultSubTable steps{"steps", {"wall s", "maxrss MB"}, {"walk", "copy"}, {{1.5, 10}, {2.5, 20}}};
        run.result.tables.push_back(steps);
        for (int i = 0; i < 500; ++i)
            run.samples.push_back({i * 0.1, i % 2 ? "RSS MB" : "CPU cores", double(i)});
        run.result.add("ours MB/s", 300, "MB/s");
        run.result.add("ref MB/s", 200, "MB/s");
        run.result.compare("ours MB/s", "ref MB/s", "ref");
        run.result.phases = {{"ours", cs::PhaseRole::Ours, "cachescope", 0, 20, 1.5, 0.25, 0.5, 0.125},
                             {"ref", cs::PhaseRole::Reference, "ref", 20, 50, 2, 0.5, 0, 0}};
        const int64_t id = h.save(run);
        QVERIFY(id > 0);
        cs::BenchRun failed = run;
        failed.status = "failed";
        failed.error = "disk full at offset 42";
        failed.samples.clear();
        const int64_t id2 = h.save(failed);
        QVERIFY(id2 > id);

        // Reopen: everything reads back.
        cs::BenchHistory h2 = cs::BenchHistory::openFile(path);
        const auto runs = h2.list();
        QCOMPARE(runs.size(), size_t(2));
        QCOMPARE(runs[0].id, id2);  // newest first
        QCOMPARE(runs[0].error, failed.error);
        QCOMPARE(h2.list("gc").size(), size_t(0));
        const auto back = h2.load(id);
        QVERIFY(back);
        QCOMPARE(back->scenario, run.scenario);
        QCOMPARE(back->params, run.params);
        QCOMPARE(back->started, run.started);
        QCOMPARE(back->finished, run.finished);
        QCOMPARE(back->version, run.version);
        QCOMPARE(back->machine.cpu, run.machine.cpu);
        QCOMPARE(back->machine.memoryBytes, run.machine.memoryBytes);
        QCOMPARE(back->status, std::string("done"));
        QCOMPARE(back->result.value("write MB/s"), 123.5);
        QCOMPARE(back->result.find("frame layout")->text, run.result.find("frame layout")->text);
        QCOMPARE(back->result.tables.size(), size_t(1));
        QCOMPARE(back->result.tables[0].values[1][1], 20.0);
        QCOMPARE(back->result.toJson(), run.result.toJson());
        QCOMPARE(back->result.phases.size(), size_t(2));
        QCOMPARE(back->result.phases[1].role, cs::PhaseRole::Reference);
        QCOMPARE(back->result.phases[0].cores(), 1.75 / 20);
        QCOMPARE(back->result.comparisons.size(), size_t(1));
        QCOMPARE(back->result.comparisons[0].ratio, 1.5);
        QCOMPARE(back->result.comparisons[0].phase, std::string("ours"));  // from the name, as JSON has no phase
        QCOMPARE(cs::runFromJson(cs::runToJson(*back, true)).result.toJson(), run.result.toJson());
        QCOMPARE(cs::runFromJson(cs::runToJson(*back, true)).samples.size(), run.samples.size());
        QCOMPARE(back->samples.size(), run.samples.size());
        for (size_t i = 0; i < run.samples.size(); ++i) {
            QCOMPARE(back->samples[i].t, run.samples[i].t);
            QCOMPARE(back->samples[i].series, run.samples[i].series);
            QCOMPARE(back->samples[i].value, run.samples[i].value);
        }
        QVERIFY(!h2.load(id2 + 100));
        // The run's JSON parses with an independent parser.
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(cs::runToJson(*back, true).dump()));
        QVERIFY(doc.isObject());
        QCOMPARE(doc.object().value(QStringLiteral("samples")).toArray().size(), 500);
        QCOMPARE(doc.object().value(QStringLiteral("params")).toObject().value(QStringLiteral("sparse")).toString(),
                 QStringLiteral("4MiB"));
        QVERIFY(h2.remove(id));
        QVERIFY(!h2.load(id));
        QCOMPARE(h2.list().size(), size_t(1));
    }

    void historyInStoreNeedsItsTables()
    {
        const QString dir = tmp_.path() + QStringLiteral("/notastore");
        QDir().mkpath(dir);
        QVERIFY_THROWS_EXCEPTION(cs::Error, cs::BenchHistory::openStore(dir.toStdString()));
    }

    void defaultPathFollowsXdg()
    {
        const QByteArray old = qgetenv("XDG_DATA_HOME");
        qputenv("XDG_DATA_HOME", "/some/where");
        QCOMPARE(cs::BenchHistory::defaultPath(), std::string("/some/where/cachescope/bench-history.db"));
        qunsetenv("XDG_DATA_HOME");
        const std::string home = qgetenv("HOME").toStdString();
        QCOMPARE(cs::BenchHistory::defaultPath(), home + "/.local/share/cachescope/bench-history.db");
        if (!old.isEmpty())
            qputenv("XDG_DATA_HOME", old);
    }

    void compareComputesPercentages()
    {
        cs::BenchRun a, b;
        a.result.add("MB/s", 200, "MB/s");
        a.result.add("peak", 0, "MB");
        a.result.add("only in a", 5);
        a.result.addText("note", "text rows are not compared");
        a.result.tables.push_back({"steps", {"wall s"}, {"walk", "copy"}, {{2}, {4}}});
        b.result.add("MB/s", 300, "MB/s");
        b.result.add("peak", 10, "MB");
        b.result.add("only in b", 7);
        b.result.tables.push_back({"steps", {"wall s"}, {"walk", "copy"}, {{1}, {5}}});
        const auto rows = cs::compareRuns(a, b);
        auto find = [&](const std::string& n) -> const cs::ComparisonRow* {
            for (const auto& r : rows)
                if (r.name == n)
                    return &r;
            return nullptr;
        };
        QCOMPARE(rows.size(), size_t(6));
        QCOMPARE(*find("MB/s")->percent, 150.0);
        QCOMPARE(find("MB/s")->unit, std::string("MB/s"));
        QVERIFY(!find("peak")->percent);  // A is 0
        QVERIFY(!find("only in a")->b);
        QVERIFY(!find("only in b")->a);
        QCOMPARE(*find("only in b")->b, 7.0);
        QCOMPARE(*find("steps/walk/wall s")->percent, 50.0);
        QCOMPARE(*find("steps/copy/wall s")->percent, 125.0);
        QCOMPARE(find("steps/copy/wall s")->unit, std::string("s"));
        QVERIFY(!find("note"));
        QCOMPARE(rows.back().name, std::string("only in b"));
    }

    void resultTableJsonRoundTrip()
    {
        cs::ResultTable t;
        t.add("a", 1.25, "s");
        t.addText("b", "x\ny");
        t.tables.push_back({"steps", {"c1", "c2"}, {"r1"}, {{3, 4}}});
        const cs::ResultTable back = cs::ResultTable::fromJson(cs::Json::parse(t.toJson()));
        QCOMPARE(back.toJson(), t.toJson());
        QVERIFY(t.toText().find("steps:") != std::string::npos);
    }

    void samplerFeedsStandardSeries()
    {
        std::vector<cs::Sample> seen;
        std::mutex m;
        cs::SampleSink sink([&](const cs::Sample& s) {
            std::lock_guard lock(m);
            seen.push_back(s);
        });
        sink.startSampling(0.02);
        for (int i = 0; i < 20; ++i) {
            sink.addBytes(1000000);
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        sink.add("custom MB", 7);
        sink.stopSampling();
        double lastDone = -1;
        int rss = 0;
        for (const auto& s : sink.samples()) {
            if (s.series == "done MB")
                lastDone = s.value;
            if (s.series == "RSS MB") {
                ++rss;
                QVERIFY(s.value > 0);
            }
        }
        QCOMPARE(lastDone, 20.0);  // the final sample after stop counts every byte
        QVERIFY(rss >= 2);
        QCOMPARE(seen.size(), sink.samples().size());
        QVERIFY(sink.peakRss() > 0);
        QCOMPARE(cs::seriesUnit("throughput MB/s"), std::string("MB/s"));
        QCOMPARE(cs::seriesUnit("count"), std::string());
    }

    void bootScenarioProfilesTheGui()
    {
        cs::Job job;
        cs::RunOptions o;
        o.params = {{"gui", CACHESCOPE_GUI}, {"idle", "0.5"}, {"platform", "offscreen"}, {"timeout", "50"}};
        const cs::BenchRun run = cs::runScenario("boot", o, job);
        QVERIFY2(run.status == "done", run.error.c_str());
        const auto& r = run.result;
        QVERIFY(r.value("first painted window") > 0);
        QVERIFY(r.value("first painted window") < r.value("process wall") * 1000);
        QVERIFY(r.value("idle RSS") > 1);
        QVERIFY(r.value("peak RSS") >= r.value("idle RSS") * 0.5);
        QVERIFY(r.value("longest stall") >= 0);
        QCOMPARE(r.value("idle"), 0.5);
        QCOMPARE(r.find("platform")->text, std::string("offscreen"));
        QCOMPARE(r.find("start measured from")->text, std::string("parent"));
        QVERIFY(seriesOf(run).count("GUI RSS MB"));
        CHECK_PHASES_AND_COMPARISONS(run);
        // The GUI's own CPU, from wait4, in its phase.
        QVERIFY(phaseNamed(run, "boot and idle") && phaseNamed(run, "boot and idle")->userSeconds > 0);
    }

    void cliRunsListsAndCompares()
    {
        const QByteArray oldXdg = qgetenv("XDG_DATA_HOME");
        qputenv("XDG_DATA_HOME", (tmp_.path() + QStringLiteral("/xdg")).toUtf8());
        const QString csv = tmp_.path() + QStringLiteral("/gc.csv"), png = tmp_.path() + QStringLiteral("/gc.png");
        const QStringList runArgs = {"bench", "gc", "--param", "objects=800", "--param", "entries=10", "--json",
                                     "--csv", csv, "--plot", png};
        const auto a = testsupport::cli(runArgs);
        QVERIFY2(a.exitCode == 0, a.err.constData());
        const auto b = testsupport::cli(runArgs);
        QVERIFY2(b.exitCode == 0, b.err.constData());
        const QJsonObject ra = QJsonDocument::fromJson(a.out).object(), rb = QJsonDocument::fromJson(b.out).object();
        QCOMPARE(ra.value(QStringLiteral("status")).toString(), QStringLiteral("done"));
        QCOMPARE(ra.value(QStringLiteral("params")).toObject().value(QStringLiteral("objects")).toString(), QStringLiteral("800"));
        // --json carries the comparisons, each with exactly the fields.
        const QJsonArray comparisons =
            ra.value(QStringLiteral("result")).toObject().value(QStringLiteral("comparisons")).toArray();
        QVERIFY(comparisons.size() >= 1);
        QCOMPARE(comparisons[0].toObject().keys(),
                 (QStringList{"better", "name", "ours", "ratio", "reference", "reference_tool", "unit"}));
        QCOMPARE(comparisons[0].toObject().value(QStringLiteral("reference_tool")).toString(), QStringLiteral("cp + sync"));
        QVERIFY(rb.value(QStringLiteral("id")).toInteger() > ra.value(QStringLiteral("id")).toInteger());
        // CSV: header and one line per sample of the run in the history.
        const auto history = cs::BenchHistory::openDefault();
        const auto stored = history.load(rb.value(QStringLiteral("id")).toInteger());
        QVERIFY(stored);
        const auto lines = testsupport::readFile(csv).trimmed().split('\n');
        QCOMPARE(lines.first(), QByteArray("t,series,value"));
        QCOMPARE(size_t(lines.size()), stored->samples.size() + 1);
        // The dialect the GUI reads (core/bench/SamplesCsv.h): every sample back exactly.
        const auto parsed = cs::readSamplesCsvFile(csv.toStdString());
        QCOMPARE(parsed.size(), stored->samples.size());
        for (size_t i = 0; i < parsed.size(); ++i) {
            QCOMPARE(parsed[i].t, stored->samples[i].t);
            QCOMPARE(parsed[i].series, stored->samples[i].series);
            QCOMPARE(parsed[i].value, stored->samples[i].value);
        }
        QVERIFY(testsupport::readFile(png).startsWith("\x89PNG"));

        const auto h = testsupport::cli({"bench", "history", "--json"});
        QCOMPARE(h.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(h.out).array().size(), 2);
        const auto c = testsupport::cli({"bench", "compare", QString::number(ra.value(QStringLiteral("id")).toInteger()),
                                         QString::number(rb.value(QStringLiteral("id")).toInteger()), "--json"});
        QCOMPARE(c.exitCode, 0);
        bool found = false;
        for (const auto& row : QJsonDocument::fromJson(c.out).object().value(QStringLiteral("rows")).toArray()) {
            const QJsonObject o = row.toObject();
            if (o.value(QStringLiteral("name")).toString() == QLatin1String("objects visited")) {
                found = true;  // same parameters and seed: the same objects
                QCOMPARE(o.value(QStringLiteral("percent")).toDouble(), 100.0);
            }
        }
        QVERIFY(found);
        QCOMPARE(testsupport::cli({"bench", "gc", "--param", "objects=many"}).exitCode, 2);
        QCOMPARE(testsupport::cli({"bench", "nope"}).exitCode, 2);
        QCOMPARE(testsupport::cli({"bench", "compare", "1", "999"}).exitCode, 1);
        const auto list = testsupport::cli({"bench", "list", "--json"});
        QCOMPARE(list.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(list.out).array().size(), int(cs::scenarioNames().size()));
        qputenv("XDG_DATA_HOME", oldXdg);
    }

    void bootScenarioReportsAMissingGui()
    {
        cs::Job job;
        cs::RunOptions o;
        o.params = {{"gui", "/nonexistent/cachescope"}, {"platform", "offscreen"}};
        const cs::BenchRun run = cs::runScenario("boot", o, job);
        QCOMPARE(run.status, std::string("failed"));
        QVERIFY(run.error.find("/nonexistent/cachescope") != std::string::npos);
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestBench)
#include "tst_bench.moc"
