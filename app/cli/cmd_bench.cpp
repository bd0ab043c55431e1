// cachescope-cli bench: run benchmark scenarios headless, list the history,
// compare two runs (see docs/cli.md, section "bench").
//
//   bench list [--json]
//   bench SCENARIO [--param k=v ...] [--json] [--csv FILE] [--plot FILE.png|.pdf|.svg]
//                  [--store DIR] [--no-save]
//   bench history [--json] [--scenario NAME] [--store DIR]
//   bench compare A B [--json] [--store DIR]
#include "Command.h"

#include "core/bench/Bench.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/Units.h"

#include <QCoreApplication>
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QDateTime>
#include <QFile>
#include <QTextStream>

#include <cstdio>
#include <mutex>

namespace cli {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

cs::BenchHistory openHistory(const QString& store)
{
    return store.isEmpty() ? cs::BenchHistory::openDefault() : cs::BenchHistory::openStore(store.toStdString());
}

void addStoreOption(QCommandLineParser& p)
{
    p.addOption({QStringLiteral("store"), QStringLiteral("Keep the history in this store's catalog instead of the user's history database."),
                 QStringLiteral("DIR")});
}

int listScenarios(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("List the benchmark scenarios and their parameters."));
    p.addOption({QStringLiteral("json"), QStringLiteral("Machine-readable output.")});
    int code = Ok;
    if (!parseOrExit(p, args, code))
        return code;
    cs::Json all = cs::Json::array();
    QString text;
    for (const auto& name : cs::scenarioNames()) {
        auto s = cs::makeScenario(name);
        cs::Json o = cs::Json::object();
        o["name"] = name;
        o["description"] = s->description();
        cs::Json params = cs::Json::array();
        text += q(name) + QStringLiteral("  ") + q(s->description()) + QLatin1Char('\n');
        for (const auto& spec : s->params()) {
            cs::Json ps = cs::Json::object();
            ps["name"] = spec.name;
            ps["kind"] = cs::paramKindName(spec.kind);
            ps["default"] = spec.defaultValue;
            ps["description"] = spec.description;
            params.push(std::move(ps));
            text += QStringLiteral("    %1 (%2, default '%3'): %4\n")
                        .arg(q(spec.name), QString::fromLatin1(cs::paramKindName(spec.kind)), q(spec.defaultValue),
                             q(spec.description));
        }
        o["params"] = std::move(params);
        all.push(std::move(o));
    }
    printOut(p.isSet(QStringLiteral("json")) ? q(all.dump(2)) + QLatin1Char('\n') : text);
    return Ok;
}

QString startedText(double unixSeconds)
{
    return QDateTime::fromMSecsSinceEpoch(qint64(unixSeconds * 1000)).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

int history(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("List earlier benchmark runs, newest first."));
    p.addOption({QStringLiteral("json"), QStringLiteral("Machine-readable output.")});
    p.addOption({QStringLiteral("scenario"), QStringLiteral("Only runs of this scenario."), QStringLiteral("NAME")});
    addStoreOption(p);
    int code = Ok;
    if (!parseOrExit(p, args, code))
        return code;
    const cs::BenchHistory h = openHistory(p.value(QStringLiteral("store")));
    const auto runs = h.list(p.value(QStringLiteral("scenario")).toStdString());
    if (p.isSet(QStringLiteral("json"))) {
        cs::Json all = cs::Json::array();
        for (const auto& r : runs)
            all.push(cs::runToJson(r, false));
        printOut(q(all.dump(2)) + QLatin1Char('\n'));
        return Ok;
    }
    QString text = QStringLiteral("%1  %2  %3  %4  %5  %6\n")
                       .arg(QStringLiteral("id"), 5)
                       .arg(QStringLiteral("started"), -19)
                       .arg(QStringLiteral("scenario"), -9)
                       .arg(QStringLiteral("status"), -9)
                       .arg(QStringLiteral("wall"), 9)
                       .arg(QStringLiteral("version"));
    for (const auto& r : runs)
        text += QStringLiteral("%1  %2  %3  %4  %5  %6\n")
                    .arg(r.id, 5)
                    .arg(startedText(r.started), -19)
                    .arg(q(r.scenario), -9)
                    .arg(q(r.status), -9)
                    .arg(q(cs::formatDuration(r.finished - r.started)), 9)
                    .arg(q(r.version));
    text += QStringLiteral("(%1 runs in %2)\n").arg(runs.size()).arg(q(h.path()));
    printOut(text);
    return Ok;
}

int compare(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Compare two runs: both results and B as a percentage of A."));
    p.addPositionalArgument(QStringLiteral("A"), QStringLiteral("Run id of the baseline."));
    p.addPositionalArgument(QStringLiteral("B"), QStringLiteral("Run id to compare with it."));
    p.addOption({QStringLiteral("json"), QStringLiteral("Machine-readable output.")});
    addStoreOption(p);
    int code = Ok;
    if (!parseOrExit(p, args, code))
        return code;
    const QStringList pos = p.positionalArguments();
    bool okA = false, okB = false;
    const qint64 a = pos.value(0).toLongLong(&okA), b = pos.value(1).toLongLong(&okB);
    if (pos.size() != 2 || !okA || !okB) {
        printError(QStringLiteral("compare needs two run ids (see 'bench history')"));
        return Usage;
    }
    const cs::BenchHistory h = openHistory(p.value(QStringLiteral("store")));
    const auto ra = h.load(a), rb = h.load(b);
    if (!ra || !rb) {
        printError(QStringLiteral("%1: no run with id %2").arg(q(h.path())).arg(!ra ? a : b));
        return Failure;
    }
    if (p.isSet(QStringLiteral("json"))) {
        printOut(q(cs::comparisonToJson(*ra, *rb).dump(2)) + QLatin1Char('\n'));
        return Ok;
    }
    const auto rows = cs::compareRuns(*ra, *rb);
    int w = 4;
    for (const auto& r : rows)
        w = std::max(w, int(r.name.size()));
    auto num = [](const std::optional<double>& v) {
        return v ? QString::number(*v, 'g', 6) : QStringLiteral("-");
    };
    QString text = QStringLiteral("A = run %1 (%2, %3)\nB = run %4 (%5, %6)\n\n")
                       .arg(a).arg(q(ra->scenario), startedText(ra->started))
                       .arg(b).arg(q(rb->scenario), startedText(rb->started));
    text += QStringLiteral("%1  %2  %3  %4  %5\n").arg(QStringLiteral("name"), -w).arg(QStringLiteral("A"), 12)
                .arg(QStringLiteral("B"), 12).arg(QStringLiteral("B % of A"), 9).arg(QStringLiteral("unit"));
    for (const auto& r : rows)
        text += QStringLiteral("%1  %2  %3  %4  %5\n")
                    .arg(q(r.name), -w)
                    .arg(num(r.a), 12)
                    .arg(num(r.b), 12)
                    .arg(r.percent ? QString::number(*r.percent, 'f', 1) + QLatin1Char('%') : QStringLiteral("-"), 9)
                    .arg(q(r.unit));
    printOut(text);
    return Ok;
}

bool writeSamplesCsv(const std::vector<cs::Sample>& samples, const QString& path, QString* error)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        *error = QStringLiteral("%1: cannot write: %2").arg(path, f.errorString());
        return false;
    }
    QTextStream out(&f);
    out << "t,series,value\n";
    for (const auto& s : samples)
        out << QString::number(s.t, 'f', 4) << ",\"" << q(s.series) << "\"," << QString::number(s.value, 'g', 10) << '\n';
    out.flush();
    if (f.error() != QFile::NoError) {
        *error = QStringLiteral("%1: cannot write: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

// Charts are drawn by the GUI binary next to this one (offscreen), so this
// tool stays a Qt Core program: no widget libraries to load at every start.
bool renderPlot(const std::vector<cs::Sample>& samples, const QString& plotPath, QString* error)
{
    QTemporaryDir tmp;
    const QString csv = tmp.filePath(QStringLiteral("samples.csv"));
    if (!tmp.isValid() || !writeSamplesCsv(samples, csv, error)) {
        if (error->isEmpty())
            *error = QStringLiteral("cannot create a temporary folder for the chart data");
        return false;
    }
    const QString gui = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("cachescope"));
    QProcess proc;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    proc.setProcessEnvironment(env);
    proc.start(gui, {QStringLiteral("--render-samples"), csv, QStringLiteral("--output"), QDir::current().absoluteFilePath(plotPath)});
    if (!proc.waitForStarted(30000)) {
        *error = QStringLiteral("%1: cannot start it to draw the chart: %2").arg(gui, proc.errorString());
        return false;
    }
    proc.waitForFinished(120000);
    if (proc.exitStatus() != QProcess::NormalExit || proc.exitCode() != 0) {
        *error = QString::fromLocal8Bit(proc.readAllStandardError()).trimmed();
        if (error->isEmpty())
            *error = QStringLiteral("%1: drawing the chart failed").arg(plotPath);
        return false;
    }
    return true;
}

int runBench(const QString& scenario, const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Run a benchmark scenario headless ('bench list' shows them)."));
    p.addPositionalArgument(QStringLiteral("scenario"), QStringLiteral("snapshot, restore, gc or boot."));
    p.addOption({QStringLiteral("param"), QStringLiteral("A scenario parameter (repeatable)."), QStringLiteral("k=v")});
    p.addOption({QStringLiteral("json"), QStringLiteral("Print the run as JSON.")});
    p.addOption({QStringLiteral("csv"), QStringLiteral("Write the samples (t,series,value) to FILE."), QStringLiteral("FILE")});
    p.addOption({QStringLiteral("plot"), QStringLiteral("Draw the samples to FILE.png, .pdf or .svg."), QStringLiteral("FILE")});
    p.addOption({QStringLiteral("no-save"), QStringLiteral("Do not keep the run in the history.")});
    addStoreOption(p);
    int code = Ok;
    if (!parseOrExit(p, args, code, 1, QStringLiteral("bench takes one scenario (see 'bench list')")))
        return code;
    cs::RunOptions options;
    try {
        for (const QString& kv : p.values(QStringLiteral("param"))) {
            auto [k, v] = cs::Params::splitAssignment(kv.toStdString());
            options.params[k] = v;
        }
    } catch (const cs::Error& e) {
        printError(QString::fromUtf8(e.what()));
        return Usage;
    }
    const QString plotPath = p.value(QStringLiteral("plot"));
    if (!cs::makeScenario(scenario.toStdString())) {
        printError(QStringLiteral("unknown scenario '%1' (see 'bench list')").arg(scenario));
        return Usage;
    }
    // Open the history first so a bad --store fails before a long run.
    std::optional<cs::BenchHistory> hist;
    if (!p.isSet(QStringLiteral("no-save")))
        hist.emplace(openHistory(p.value(QStringLiteral("store"))));

    cs::Job job("bench " + scenario.toStdString());
    std::mutex m;
    int lastStep = -2;
    const bool quiet = p.isSet(QStringLiteral("json"));
    job.setListener([&](const cs::JobStatus& st) {
        std::lock_guard lock(m);
        if (st.step != lastStep && st.step >= 0 && st.step < int(st.steps.size())) {
            lastStep = st.step;
            std::fprintf(stderr, "[%s] %s\n", scenario.toLocal8Bit().constData(), st.steps[size_t(st.step)].c_str());
        }
    });
    cs::BenchRun run;
    try {
        run = cs::runScenario(scenario.toStdString(), options, job);
    } catch (const cs::Error& e) {  // bad parameters: nothing ran
        printError(QString::fromUtf8(e.what()));
        return Usage;
    }
    if (hist)
        hist->save(run);

    QString error;
    if (!p.value(QStringLiteral("csv")).isEmpty() && !writeSamplesCsv(run.samples, p.value(QStringLiteral("csv")), &error)) {
        printError(error);
        return Failure;
    }
    if (!plotPath.isEmpty() && !renderPlot(run.samples, plotPath, &error)) {
        printError(error);
        return Failure;
    }
    if (quiet) {
        printOut(q(cs::runToJson(run, false).dump(2)) + QLatin1Char('\n'));
    } else {
        QString text = QStringLiteral("%1: %2").arg(scenario, q(run.status));
        if (hist)
            text += QStringLiteral(" (run %1 in %2)").arg(run.id).arg(q(hist->path()));
        text += QLatin1Char('\n');
        text += q(run.result.toText());
        printOut(text);
    }
    if (run.status != "done") {
        printError(QStringLiteral("%1: %2").arg(scenario, run.error.empty() ? q(run.status) : q(run.error)));
        return Failure;
    }
    return Ok;
}

int benchMain(const QStringList& args)
{
    // Dispatch on the first word that is not an option.
    QString word;
    for (int i = 1; i < args.size(); ++i)
        if (!args[i].startsWith(QLatin1Char('-'))) {
            word = args[i];
            break;
        }
    QStringList rest = args;
    if (word == QLatin1String("list") || word == QLatin1String("history") || word == QLatin1String("compare")) {
        rest.removeAt(rest.indexOf(word, 1));
        rest[0] += QLatin1Char(' ') + word;
        if (word == QLatin1String("list"))
            return listScenarios(rest);
        if (word == QLatin1String("history"))
            return history(rest);
        return compare(rest);
    }
    if (word.isEmpty()) {
        QCommandLineParser p;
        p.setApplicationDescription(QStringLiteral(
            "Benchmarks: 'bench list', 'bench SCENARIO [--param k=v ...]', 'bench history', 'bench compare A B'."));
        int code = Ok;
        if (!parseOrExit(p, args, code))
            return code;
        printError(QStringLiteral("bench needs a scenario or list, history, compare (see --help)"));
        return Usage;
    }
    return runBench(word, args);
}

CommandRegistration reg({QStringLiteral("bench"),
                         QStringLiteral("run benchmark scenarios, list their history, compare runs"), benchMain});

} // namespace

} // namespace cli
