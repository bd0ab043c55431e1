// cachescope-cli commands. Each file in app/cli/ defines one top-level
// command (frames, snapshot, store, actions-cache, bench) and registers it
// with a static CommandRegistration; main.cpp dispatches on the first word.
//
// Exit codes: 0 success, 1 the operation failed (one sentence on stderr
// naming the file and offset), 2 bad usage.
#pragma once
#include <QCommandLineParser>
#include <QJsonDocument>
#include <QString>
#include <QStringList>

#include <functional>

namespace cli {

enum ExitCode { Ok = 0, Failure = 1, Usage = 2 };

struct Command {
    QString name;        // "frames"
    QString synopsis;    // one line for the top-level help
    // args[0] is "cachescope-cli <name>", the rest are the command's own words.
    std::function<int(const QStringList& args)> run;
};

void registerCommand(Command command);
const std::vector<Command>& commands();

struct CommandRegistration {
    explicit CommandRegistration(Command command) { registerCommand(std::move(command)); }
};

// Parses args with the parser (adds --help); on a usage error prints it and
// returns false with exitCode set to Usage; on --help prints help, exitCode Ok.
bool parseOrExit(QCommandLineParser& parser, const QStringList& args, int& exitCode);
// The same, and then exactly `positionals` positional arguments, else prints
// `wants` (what the command takes, one sentence) and sets Usage.
bool parseOrExit(QCommandLineParser& parser, const QStringList& args, int& exitCode, int positionals,
                 const QString& wants);

// One clear sentence on stderr, prefixed by "cachescope-cli: ".
void printError(const QString& message);
void printOut(const QString& text);        // stdout, no newline added
void printJson(const QJsonDocument& doc);  // indented, trailing newline

} // namespace cli
