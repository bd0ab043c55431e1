// The command tree of cachescope-cli: every usage line, run as printed with
// real arguments, parses to its own command; --help at every level exits 0
// and names the command; unknown flags exit 2; --version/-V; sizes parse the
// same under de_DE.UTF-8; progress appears on a pseudo-terminal and not on a
// pipe or with --quiet; the tool loads no Qt library.
#include "common/Pty.h"
#include "common/TestSupport.h"

#include "CommandTree.h"
#include "core/util/Units.h"

#include <QProcessEnvironment>
#include <QRegularExpression>

#include <clocale>
#include <cstring>

inline testsupport::ProcessResult runCli(const QStringList& args) { return testsupport::cli(args); }

namespace {

struct Node {
    std::string path;       // "snapshot create"; "" for the top level
    bool leaf = false;
};

void collect(const CLI::App* app, std::vector<Node>& out)
{
    const auto subs = app->get_subcommands([](const CLI::App* s) {
        return !s->get_name().empty() && s->get_name().rfind("__", 0) != 0 && !s->get_prefix_command();
    });
    out.push_back({cli::commandPath(app), subs.empty()});
    for (const CLI::App* s : subs)
        collect(s, out);
}

std::vector<Node> treeNodes()
{
    CLI::App app;
    cli::configureTopLevel(app);
    cli::buildTree(app);
    std::vector<Node> nodes;
    collect(&app, nodes);
    return nodes;
}

QStringList words(const std::string& path)
{
    return QString::fromStdString(path).split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

// Parses argv with a fresh tree in parse-only mode; returns the command that
// would run, or the error.
struct ParseOutcome {
    bool ok = false;
    bool help = false;
    std::string command;
    std::string error;
};

ParseOutcome parse(const QStringList& args)
{
    CLI::App app;
    cli::configureTopLevel(app);
    cli::buildTree(app);
    std::vector<std::string> storage{"cachescope-cli"};
    for (const auto& a : args)
        storage.push_back(a.toStdString());
    std::vector<char*> argv;
    for (auto& s : storage)
        argv.push_back(s.data());
    ParseOutcome r;
    try {
        cli::setParseOnly(true);
        app.parse(int(argv.size()), argv.data());
        r.ok = true;
        r.command = cli::parsedCommand();
    } catch (const CLI::CallForHelp&) {
        r.help = true;
    } catch (const CLI::ParseError& e) {
        r.error = e.what();
    } catch (const cli::UsageError& e) { // a command's own check (onRun)
        r.error = e.what();
    }
    cli::setParseOnly(false);
    return r;
}

} // namespace

class TestCliTree : public QObject {
    Q_OBJECT
    QTemporaryDir tmp;
    QString file, dir, zst;

    QString path(const QString& name) const { return tmp.path() + QLatin1Char('/') + name; }

    // A real value for each placeholder of a usage line.
    QString valueFor(const QString& placeholder) const
    {
        static const QHash<QString, QString> simple{
            {"SIZE", "8.5MiB"}, {"N", "2"}, {"L", "3"}, {"DURATION", "30d"}, {"V", "v1"}, {"S", "refs/heads/main"},
            {"K", "key-"},      {"KEY", "key"}, {"RUN_A", "1"}, {"RUN_B", "2"}, {"ID", "1"}, {"NAME", "gc"},
            {"SCENARIO", "gc"}, {"A", "1"},     {"B", "2"},      {"k=v", "objects=1000"},
            {"URL", "http://127.0.0.1:9000"}, {"REGION", "eu-west-1"},
            {"ENTRY_ID", "5f0c0001-aaaa-4bbb-8ccc-000000000001"}, {"ID_A", "a"}, {"ID_B", "b"},
            {"PREFIX", "key-"}, {"REF", "refs/heads/main"}, {"DAYS", "30"}};
        if (simple.contains(placeholder))
            return simple.value(placeholder);
        if (placeholder == "FILE" || placeholder == "SRC" || placeholder == "DB")
            return file;
        if (placeholder == "SNAP")
            return zst;
        if (placeholder == "PATH|URL") // --db and --storage: only parsed here, never opened
            return path(QStringLiteral("location"));
        if (placeholder == "DIR" || placeholder == "STORE" || placeholder == "STORAGE" || placeholder == "DATA_DIR")
            return dir;
        if (placeholder == "OUT")
            return path(QStringLiteral("out.bin"));
        if (placeholder.startsWith(QLatin1String("FILE.")))
            return path(QStringLiteral("plot.png"));
        if (placeholder.contains(QLatin1Char('|')))   // a choice ("asc|desc"): the first
            return placeholder.section(QLatin1Char('|'), 0, 0);
        return {};
    }

    // "Usage: cachescope-cli store put DIR KEY FILE [--version V] [--key KEY ...]"
    // -> the arguments after the program, placeholders filled in, repeatable
    // options given twice.
    QStringList argumentsOf(const QString& usage, const std::string& commandPath)
    {
        QString rest = usage.mid(QStringLiteral("Usage: cachescope-cli").size());
        QStringList args = words(commandPath);
        rest = rest.mid(QString::fromStdString(commandPath).size() + 1);
        static const QRegularExpression item(QStringLiteral(R"(\[([^\]]+)\]|(\S+))"));
        for (auto it = item.globalMatch(rest); it.hasNext();) {
            const auto m = it.next();
            QStringList parts = (m.captured(1).isEmpty() ? m.captured(2) : m.captured(1)).split(QLatin1Char(' '));
            // "[--write | --dry-run]": one choice, the first.
            if (parts.contains(QStringLiteral("|")))
                parts = parts.mid(0, parts.indexOf(QStringLiteral("|")));
            const bool repeated = parts.last() == QLatin1String("...");
            if (repeated)
                parts.removeLast();
            for (int times = 0; times < (repeated ? 2 : 1); ++times) {
                for (const QString& p : parts) {
                    if (p.startsWith(QLatin1Char('-'))) {
                        args << p;
                    } else {
                        const QString v = valueFor(p);
                        if (v.isEmpty())
                            qFatal("no value for placeholder %s in '%s'", qPrintable(p), qPrintable(usage));
                        args << v;
                    }
                }
            }
        }
        return args;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(tmp.isValid());
        file = path(QStringLiteral("in.bin"));
        QVERIFY(testsupport::writeFile(file, testsupport::textBytes(3 << 20, 7)));
        dir = path(QStringLiteral("store"));
        QVERIFY(QDir().mkpath(dir));
        zst = path(QStringLiteral("in.zst"));
        QCOMPARE(testsupport::zstd({QStringLiteral("-q"), QStringLiteral("-f"), file, QStringLiteral("-o"), zst}).exitCode, 0);
    }

    // Each leaf's usage line, as --help prints it, names the whole command and
    // parses to that command when run with real arguments in every slot.
    void usageLinesParse()
    {
        int leaves = 0;
        for (const Node& n : treeNodes()) {
            if (!n.leaf)
                continue;
            ++leaves;
            const auto help = runCli(words(n.path) << QStringLiteral("--help"));
            QVERIFY2(help.exitCode == 0, n.path.c_str());
            const QString text = QString::fromUtf8(help.out);
            const QString usage = text.section(QLatin1Char('\n'), 0, 0);
            QVERIFY2(usage.startsWith(QStringLiteral("Usage: cachescope-cli ") + QString::fromStdString(n.path)),
                     qPrintable(usage));
            const QStringList args = argumentsOf(usage, n.path);
            const ParseOutcome r = parse(args);
            QVERIFY2(r.ok, qPrintable(args.join(' ') + ": " + QString::fromStdString(r.error)));
            QCOMPARE(QString::fromStdString(r.command), QString::fromStdString(n.path));
            // Without its required positionals the same command is a usage error.
            if (usage.contains(QRegularExpression(QStringLiteral(" [A-Z][A-Z_]*( |$)")))) {
                const ParseOutcome bare = parse(words(n.path));
                QVERIFY2(!bare.ok && !bare.help, n.path.c_str());
            }
        }
        QVERIFY(leaves >= 3);
    }

    // --help at every level exits 0 and shows the command's usage; an unknown
    // flag exits 2 with one sentence on stderr.
    void helpAtEveryLevel()
    {
        for (const Node& n : treeNodes()) {
            for (const char* flag : {"--help", "-h"}) {
                const auto r = runCli(words(n.path) << QString::fromLatin1(flag));
                QVERIFY2(r.exitCode == 0, qPrintable(QString::fromStdString(n.path) + " " + flag));
                QVERIFY2(r.out.startsWith("Usage: cachescope-cli" + QByteArray(n.path.empty() ? "" : " ") + n.path.c_str()),
                         r.out.constData());
                QVERIFY(r.err.isEmpty());
            }
            const auto bad = runCli(words(n.path) << QStringLiteral("--no-such-flag"));
            QVERIFY2(bad.exitCode == 2, n.path.c_str());
            QCOMPARE(bad.err.count('\n'), 1);
            QVERIFY2(bad.err.contains("--no-such-flag") && bad.err.contains("--help"), bad.err.constData());
        }
        const auto all = runCli({QStringLiteral("--help-all")});
        QCOMPARE(all.exitCode, 0);
        for (const Node& n : treeNodes())
            if (n.leaf)
                QVERIFY2(all.out.contains(QByteArray::fromStdString(n.path.substr(n.path.rfind(' ') + 1))), n.path.c_str());
        for (const char* flag : {"--version", "-V"}) {
            const auto v = runCli({QString::fromLatin1(flag)});
            QCOMPARE(v.exitCode, 0);
            QCOMPARE(v.out, QByteArray("cachescope-cli " CACHESCOPE_VERSION "\n"));
        }
        const auto none = runCli({});
        QCOMPARE(none.exitCode, 2);
        const auto unknown = runCli({QStringLiteral("frobnicate")});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY(unknown.err.contains("unknown command 'frobnicate'"));
    }

    // The tool links no Qt (the tests do; the program they run must not).
    void noQt()
    {
        const auto ldd = testsupport::run(QStringLiteral("ldd"), {QStringLiteral(CACHESCOPE_CLI)});
        QCOMPARE(ldd.exitCode, 0);
        QVERIFY(ldd.out.contains("libzstd"));
        QVERIFY2(!ldd.out.toLower().contains("libqt"), ldd.out.constData());
    }

    // Whole numbers are decimal from the one parser (cs::parseInteger), as
    // --chunk is: "010" is 10 (CLI11 read octal 8), "0x10" and "+3" are
    // usage errors (CLI11 read 16 and 3).
    void numbersAreDecimal()
    {
        const QString out = path(QStringLiteral("d.zst"));
        const auto ten = runCli({"snapshot", "create", file, out, "--threads", "010", "--json"});
        QVERIFY2(ten.exitCode == 0, ten.err.constData());
        QVERIFY2(ten.out.contains("\"threads\": 10,") || ten.out.contains("\"threads\": 10\n"), ten.out.constData());
        const auto level = runCli({"snapshot", "create", file, out, "--level", "09", "--json"});
        QVERIFY2(level.exitCode == 0, level.err.constData());
        for (const QStringList& bad : {QStringList{"--threads", "0x10"}, QStringList{"--threads", "+3"},
                                       QStringList{"--threads", " 4"}, QStringList{"--level", "0x3"},
                                       QStringList{"--threads", "1e1"}}) {
            const auto r = runCli(QStringList{"snapshot", "create", file, path(QStringLiteral("x.zst"))} + bad);
            QVERIFY2(r.exitCode == 2, qPrintable(bad.join(' ')));
            QVERIFY2(r.err.contains(bad[0].toUtf8()) && r.err.contains("decimal"), r.err.constData());
            QVERIFY(!QFileInfo::exists(path(QStringLiteral("x.zst"))));
        }
        const auto cmp = runCli({"store", "gc-compare", dir, "0x1", "2"});
        QCOMPARE(cmp.exitCode, 2);
    }

    // Ranges are usage errors that name the option.
    void rangesAreUsageErrors()
    {
        const QString out = path(QStringLiteral("r.zst"));
        for (const QStringList& extra : {QStringList{"--threads", "0"}, QStringList{"--threads", "257"},
                                         QStringList{"--level", "99"}, QStringList{"--chunk", "2GiB"},
                                         QStringList{"--chunk", "512"}, QStringList{"--chunk", "lots"}}) {
            const auto r = runCli(QStringList{"snapshot", "create", file, out} + extra);
            QVERIFY2(r.exitCode == 2, qPrintable(extra.join(' ')));
            QVERIFY2(r.err.contains(extra[0].toUtf8()), r.err.constData());
            QVERIFY(!QFileInfo::exists(out));
        }
    }

    // Sizes parse and print the same under de_DE.UTF-8 (decimal comma): the
    // locale is made with localedef into a temp folder when not installed.
    void germanLocale()
    {
        QString locpath;
        const auto installed = testsupport::run(QStringLiteral("locale"), {QStringLiteral("-a")});
        if (!installed.out.contains("de_DE.utf8")) {
            locpath = path(QStringLiteral("locales"));
            QVERIFY(QDir().mkpath(locpath));
            const auto made = testsupport::run(QStringLiteral("localedef"),
                                               {QStringLiteral("-i"), QStringLiteral("de_DE"), QStringLiteral("-f"),
                                                QStringLiteral("UTF-8"), locpath + QStringLiteral("/de_DE.UTF-8")});
            QVERIFY2(made.exitCode == 0 || QFileInfo::exists(locpath + QStringLiteral("/de_DE.UTF-8/LC_NUMERIC")),
                     qPrintable("localedef de_DE.UTF-8 failed (package 'locales'): " + QString::fromUtf8(made.err)));
            qputenv("LOCPATH", locpath.toUtf8());
        }
        // In process: the locale is really active (decimal comma), and the
        // core's parsing and printing ignore it.
        const std::string saved = std::setlocale(LC_ALL, nullptr);
        QVERIFY2(std::setlocale(LC_ALL, "de_DE.UTF-8"), "cannot switch to de_DE.UTF-8");
        QCOMPARE(QByteArray(std::localeconv()->decimal_point), QByteArray(","));
        QCOMPARE(cs::parseSize("1.5MiB"), std::optional<uint64_t>(1572864));
        QCOMPARE(cs::parseSize("1,5MiB"), std::optional<uint64_t>());
        QCOMPARE(cs::parseDurationSeconds("1.5h"), std::optional<int64_t>(5400));
        QCOMPARE(cs::parseDurationSeconds("1,5h"), std::optional<int64_t>());
        // Past ~31 million years a duration is refused, not rounded into
        // undefined behaviour (llround) or an int64 overflow in milliseconds.
        QCOMPARE(cs::parseDurationSeconds("99999999999999999999w"), std::optional<int64_t>());
        QCOMPARE(cs::parseDurationSeconds("1000000000000000s"), std::optional<int64_t>(1000000000000000));
        QCOMPARE(cs::formatSize(1572864), std::string("1.5 MiB"));
        QCOMPARE(cs::formatDuration(2.25), std::string("2.2 s"));
        std::setlocale(LC_ALL, saved.c_str());

        // The tool, run under the locale.
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LC_ALL"), QStringLiteral("de_DE.UTF-8"));
        env.insert(QStringLiteral("LANG"), QStringLiteral("de_DE.UTF-8"));
        if (!locpath.isEmpty())
            env.insert(QStringLiteral("LOCPATH"), locpath);
        p.setProcessEnvironment(env);
        auto run = [&](const QString& chunk, const QString& out) {
            p.start(QStringLiteral(CACHESCOPE_CLI), {QStringLiteral("snapshot"), QStringLiteral("create"), file, out,
                                                    QStringLiteral("--chunk"), chunk, QStringLiteral("--json")});
            p.waitForFinished(60000);
            return p.exitCode();
        };
        QCOMPARE(run(QStringLiteral("1.5MiB"), path(QStringLiteral("de.zst"))), 0);
        const auto j = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
        QCOMPARE(j[QStringLiteral("chunk")].toInteger(), 1572864);
        QCOMPARE(j[QStringLiteral("frames")].toInteger(), 2);
        QCOMPARE(run(QStringLiteral("1,5MiB"), path(QStringLiteral("de2.zst"))), 2);
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("de2.zst"))));
    }

    // The man page and the completions come from the tree: every leaf is in
    // the man page (which groff renders without warnings), bash completes
    // commands, subcommands and options, zsh parses the script.
    void manPageAndCompletions()
    {
        const QString man = path(QStringLiteral("cachescope-cli.1"));
        QCOMPARE(runCli({"__export", "man", man}).exitCode, 0);
        const auto lint = testsupport::run(QStringLiteral("groff"), {"-man", "-Tutf8", "-ww", "-z", man});
        QVERIFY2(lint.exitCode == 0 && lint.err.isEmpty(), lint.err.constData());
        const auto rendered = testsupport::run(QStringLiteral("groff"), {"-man", "-Tascii", "-P-c", "-P-b", "-P-u", man});
        QCOMPARE(rendered.exitCode, 0);
        for (const Node& n : treeNodes())
            if (n.leaf)
                QVERIFY2(rendered.out.contains(QByteArray("cachescope-cli ") + n.path.c_str()), n.path.c_str());
        QVERIFY(rendered.out.contains("EXIT STATUS"));

        const QString bash = path(QStringLiteral("cachescope-cli.bash"));
        QCOMPARE(runCli({"__export", "bash", bash}).exitCode, 0);
        auto complete = [&](const QString& line) {
            const QString script = QStringLiteral("source '%1'; COMP_WORDS=(%2); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); "
                                                  "_cachescope_cli; printf '%s\\n' \"${COMPREPLY[@]}\"")
                                       .arg(bash, line);
            const auto r = testsupport::run(QStringLiteral("bash"), {"-c", script});
            return QString::fromUtf8(r.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        };
        QCOMPARE(complete(QStringLiteral("cachescope-cli snap")), QStringList{"snapshot"});
        QCOMPARE(complete(QStringLiteral("cachescope-cli snapshot ''")), (QStringList{"create", "restore"}));
        QCOMPARE(complete(QStringLiteral("cachescope-cli snapshot create a b --ch")), QStringList{"--chunk"});
        QCOMPARE(complete(QStringLiteral("cachescope-cli snapshot create --chunk ''")), QStringList{});
        QCOMPARE(complete(QStringLiteral("cachescope-cli --vers")), QStringList{"--version"});
        QCOMPARE(complete(QStringLiteral("cachescope-cli actions-cache ''")),
                 (QStringList{"contents", "diff", "evict", "frames", "import", "ls", "merge", "reap-uploads", "report", "verify"}));
        QCOMPARE(complete(QStringLiteral("cachescope-cli actions-cache evict d --dry")), QStringList{"--dry-run"});

        const QString zsh = path(QStringLiteral("_cachescope-cli"));
        QCOMPARE(runCli({"__export", "zsh", zsh}).exitCode, 0);
        const auto parsed = testsupport::run(QStringLiteral("zsh"), {"-n", zsh});
        QVERIFY2(parsed.exitCode == 0 && parsed.err.isEmpty(), qPrintable("zsh (package zsh): " + QString::fromUtf8(parsed.err)));
        QVERIFY(testsupport::readFile(zsh).contains("--chunk[Input bytes per frame"));
    }

    // Progress is drawn on a terminal (redrawn in place with \r), never on a
    // pipe, and not with --quiet.
    void progressOnlyOnATerminal()
    {
        const auto onPty = testsupport::cliOnPty;
        const QString big = path(QStringLiteral("big.bin"));
        QVERIFY(testsupport::writeFile(big, testsupport::textBytes(24 << 20, 3)));
        const QString snap = path(QStringLiteral("big.zst"));
        const auto [code, tty] = onPty({"snapshot", "create", big, snap, "--chunk", "1MiB", "--level", "9"});
        QCOMPARE(code, 0);
        QVERIFY2(tty.contains("\rsnapshot create [") && tty.contains(" %") && tty.contains("\033[K"), tty.constData());
        QVERIFY2(tty.contains(" / 24.0 MiB"), tty.constData());
        const auto [rcode, rtty] = onPty({"snapshot", "restore", snap, path(QStringLiteral("big.out")), "--threads", "2"});
        QCOMPARE(rcode, 0);
        QVERIFY2(rtty.contains("\rsnapshot restore ["), rtty.constData());

        const QString store = path(QStringLiteral("pty-store"));
        QCOMPARE(runCli({"store", "init", store}).exitCode, 0);
        const auto [pcode, put] = onPty({"store", "put", "--wait", store, "k", big});
        QCOMPARE(pcode, 0);
        QVERIFY2(put.contains("\rstore put") && put.contains(" / 24.0 MiB"), put.constData());
        const auto [gcode, get] = onPty({"store", "get", "--wait", store, "k", path(QStringLiteral("k.out"))});
        QCOMPARE(gcode, 0);
        QVERIFY2(get.contains("\rstore get"), get.constData());

        const auto [qcode, quiet] = onPty({"snapshot", "create", big, snap, "--quiet"});
        QCOMPARE(qcode, 0);
        QVERIFY2(!quiet.contains('\r' + QByteArray("snapshot create")) && !quiet.contains("\033[K"), quiet.constData());

        const auto piped = runCli({"snapshot", "create", big, snap});
        QCOMPARE(piped.exitCode, 0);
        QVERIFY2(piped.err.isEmpty(), piped.err.constData());
        QVERIFY(piped.out.contains(" -> "));
    }
};

QTEST_GUILESS_MAIN(TestCliTree)
#include "tst_cli_tree.moc"
