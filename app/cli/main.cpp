#include "Command.h"

#include <QCoreApplication>
#include <QTextStream>

#include <cstdio>
#include <cstring>
#include <memory>
#include <algorithm>

namespace cli {

static std::vector<Command>& registry()
{
    static std::vector<Command> commands;
    return commands;
}

void registerCommand(Command command)
{
    registry().push_back(std::move(command));
}

const std::vector<Command>& commands()
{
    auto& r = registry();
    std::sort(r.begin(), r.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
    return r;
}

bool parseOrExit(QCommandLineParser& parser, const QStringList& args, int& exitCode)
{
    parser.addHelpOption();
    if (!parser.parse(args)) {
        printError(parser.errorText() + " (see --help)");
        exitCode = Usage;
        return false;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(parser.helpText());
        exitCode = Ok;
        return false;
    }
    return true;
}

bool parseOrExit(QCommandLineParser& parser, const QStringList& args, int& exitCode, int positionals,
                 const QString& wants)
{
    if (!parseOrExit(parser, args, exitCode))
        return false;
    if (parser.positionalArguments().size() != positionals) {
        printError(wants + QStringLiteral(" (see --help)"));
        exitCode = Usage;
        return false;
    }
    return true;
}

void printError(const QString& message)
{
    std::fprintf(stderr, "cachescope-cli: %s\n", message.toLocal8Bit().constData());
    std::fflush(stderr);
}

void printOut(const QString& text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

void printJson(const QJsonDocument& doc)
{
    printOut(QString::fromUtf8(doc.toJson(QJsonDocument::Indented)));
}

} // namespace cli

static void printUsage()
{
    QString text = QStringLiteral("usage: cachescope-cli COMMAND [options]\n\ncommands:\n");
    for (const auto& c : cli::commands())
        text += QStringLiteral("  %1  %2\n").arg(c.name, -14).arg(c.synopsis);
    text += QStringLiteral("\n'cachescope-cli COMMAND --help' describes one command.\n");
    cli::printOut(text);
}

int main(int argc, char** argv)
{
    // Headless: Qt Core only (bench --plot draws through the GUI binary).
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("cachescope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(CACHESCOPE_VERSION));
    const QStringList args = QCoreApplication::arguments();
    if (args.size() < 2 || args[1] == QLatin1String("--help") || args[1] == QLatin1String("-h")) {
        printUsage();
        return args.size() < 2 ? cli::Usage : cli::Ok;
    }
    if (args[1] == QLatin1String("--version")) {
        cli::printOut(QStringLiteral("cachescope-cli %1\n").arg(QCoreApplication::applicationVersion()));
        return cli::Ok;
    }
    for (const auto& c : cli::commands()) {
        if (c.name == args[1]) {
            QStringList rest = args.mid(2);
            rest.prepend(QStringLiteral("cachescope-cli ") + c.name);
            try {
                return c.run(rest);
            } catch (const std::exception& e) {
                cli::printError(QString::fromUtf8(e.what()));
                return cli::Failure;
            }
        }
    }
    cli::printError(QStringLiteral("unknown command '%1' (see --help)").arg(args[1]));
    return cli::Usage;
}
