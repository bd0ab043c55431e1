// The command line of the benchmark programs, on CLI11 like cachescope-cli:
// one parse with the usage and --help for free, the same exit codes (0 after
// --help, 2 after a usage error, with the error and the usage on stderr).
#pragma once
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

namespace bench {

// --priority normal|fifo (FifoPriority.h); fifo sets *fifo.
inline void addPriorityOption(CLI::App& app, bool* fifo)
{
    app.add_option_function<std::string>(
           "--priority", [fifo](const std::string& v) { *fifo = v == "fifo"; },
           "fifo: the measured commands run under SCHED_FIFO, this program above them (root only)")
        ->check(CLI::IsMember({"normal", "fifo"}));
}

// Parses argv; -1 to go on, or the exit code to return.
inline int parseOrExit(CLI::App& app, int argc, char** argv)
{
    try {
        app.parse(argc, argv);
        return -1;
    } catch (const CLI::CallForHelp&) {
        std::printf("%s", app.help().c_str());
        return 0;
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "%s: %s\n%s", app.get_name().c_str(), e.what(), app.help().c_str());
        return 2;
    }
}

} // namespace bench
