#include "Command.h"

#include "core/util/Escape.h"

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
    // One line whatever the message quotes (cs::escapeControl).
    const std::string line = cs::escapeControl(message.toUtf8().toStdString());
    std::fprintf(stderr, "cachescope-cli: %s\n", line.c_str());
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

// Commands not yet on the CLI11 tree (main.cpp) run through their own
// QCommandLineParser until they are ported.
bool isLegacyCommand(const std::string& name)
{
    for (const auto& c : cli::commands())
        if (c.name.toStdString() == name)
            return true;
    return false;
}

std::vector<std::pair<std::string, std::string>> legacyCommands()
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& c : cli::commands())
        out.emplace_back(c.name.toStdString(), c.synopsis.toStdString());
    return out;
}

int runLegacyCommand(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("cachescope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(CACHESCOPE_VERSION));
    const QStringList args = QCoreApplication::arguments();
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
    return cli::Usage;
}

} // namespace cli
