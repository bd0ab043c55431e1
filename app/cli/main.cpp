// cachescope-cli: builds the command tree (CommandTree.h), parses, runs the
// chosen command. Exit codes: 0 success, 1 the operation failed, 2 bad usage,
// 128 + N cancelled by signal N (130 Ctrl-C, 143 SIGTERM; SignalCancel.h).
#include "CommandTree.h"
#include "SignalCancel.h"

#include "core/util/Error.h"

#include <cstring>
#include <string>
#include <vector>

namespace {

// The chain of commands the user named, for the "see --help" hint.
std::string chosenPath(const CLI::App& app)
{
    std::string path = app.get_name();
    const CLI::App* at = &app;
    while (true) {
        const auto subs = at->get_subcommands();
        if (subs.empty())
            return path;
        at = subs.front();
        path += " " + at->get_name();
    }
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app;
    cli::configureTopLevel(app);
    // A run of one command builds that command's part of the tree only, and
    // --version none of it (the start of every run, bench_startup); a flag
    // at the top level (--help, --help-all) or a misspelt command builds it
    // all, as their text lists every command; so does __export (the man
    // page and completions of the whole tree).
    const bool versionOnly = argc == 2 && (std::strcmp(argv[1], "--version") == 0 || std::strcmp(argv[1], "-V") == 0);
    const bool oneCommand = argc >= 2 && argv[1][0] != '-' && std::strncmp(argv[1], "__", 2) != 0;
    if (!versionOnly && !(oneCommand && cli::buildCommand(app, argv[1])))
        cli::buildTree(app);

    const auto named = app.get_subcommands([&](const CLI::App* c) { return argc >= 2 && c->get_name() == argv[1]; });
    if (argc >= 2 && argv[1][0] != '-' && named.empty()) {
        cli::printError(std::string("unknown command '") + argv[1] + "' (see 'cachescope-cli --help')");
        return cli::Usage;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        cli::printOut(app.help());
        return cli::Ok;
    } catch (const CLI::CallForAllHelp&) {
        cli::printOut(app.help("", CLI::AppFormatMode::All));
        return cli::Ok;
    } catch (const CLI::CallForVersion&) {
        cli::printOut(app.version() + "\n");
        return cli::Ok;
    } catch (const CLI::ParseError& e) {
        // CLI11 reports a missing subcommand before words it did not expect:
        // name the unexpected word, the likelier mistake.
        std::string message = e.what();
        const CLI::App* deepest = &app;
        while (!deepest->get_subcommands().empty())
            deepest = deepest->get_subcommands().front();
        const auto rest = deepest->remaining(true);
        if (dynamic_cast<const CLI::RequiredError*>(&e) && !rest.empty())
            message = "unknown option or command '" + rest.front() + "'";
        else if (dynamic_cast<const CLI::RequiredError*>(&e) && message == "A subcommand is required") {
            std::string names;
            for (const CLI::App* c : deepest->get_subcommands([](const CLI::App* c) { return c->get_group() != ""; }))
                names += (names.empty() ? "" : ", ") + c->get_name();
            message = (deepest == &app ? std::string("a command is required: ")
                                       : "'" + chosenPath(app) + "' needs a subcommand: ") + names;
        }
        cli::printError(message + " (see '" + chosenPath(app) + " --help')");
        return cli::Usage;
    } catch (const cli::UsageError& e) {
        cli::printError(std::string(e.what()) + " (see '" + chosenPath(app) + " --help')");
        return cli::Usage;
    } catch (const cs::Cancelled& e) {
        if (const int sig = cli::cancellingSignal()) {
            cli::printError(cli::interruptionSentence());
            return 128 + sig;
        }
        cli::printError(e.what());
        return cli::Failure;
    } catch (const std::exception& e) {
        cli::printError(e.what());
        return cli::Failure;
    }
    return cli::lastExitCode();
}
