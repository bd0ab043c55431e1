// The command tree of cachescope-cli (CLI11). Every file in app/cli/ adds its
// commands with one static TreeRegistration: a builder that creates a CLI::App
// under its parent ("" = the top level, "store" = under `store`), declares the
// arguments and sets the action with onRun(). main.cpp builds the tree once and
// parses; from the same tree come the usage lines, --help at every level, the
// man page and the shell completions (app/cli/TreeExport.cpp).
//
// Exit codes: 0 success, 1 the operation failed (one sentence on stderr
// naming the file and offset), 2 bad usage (anything CLI11 rejects, and
// UsageError thrown by a command for what CLI11 cannot check).
#pragma once
#include "core/util/Json.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cli {

enum ExitCode { Ok = 0, Failure = 1, Usage = 2 };

// The one JSON stack of the tool and the core (core/util/Json.h,
// nlohmann::ordered_json): exact 64-bit integers, keys in insertion order.
using Json = cs::Json;

using Builder = std::function<CLI::App*(CLI::App& parent)>;

struct TreeNode {
    std::string parent; // "" for a top-level command, else the parent command's name
    std::string name;
    Builder build;
};

void registerNode(TreeNode node);
std::vector<TreeNode> nodesUnder(const std::string& parent); // sorted by name

struct TreeRegistration {
    TreeRegistration(std::string parent, std::string name, Builder build)
    {
        registerNode({std::move(parent), std::move(name), std::move(build)});
    }
};

// Builds the whole tree under app (app is the top level: its formatter,
// help, help-all and version flags are inherited by every command).
void buildTree(CLI::App& app);
// Builds only the top-level command `name` (with everything under it): a run
// of one command declares its own options, not every command's. False when
// no top-level command has that name.
bool buildCommand(CLI::App& app, const std::string& name);
// The top-level app as the tool configures it (name, description, flags).
void configureTopLevel(CLI::App& app);

// The action of a leaf command, run after the whole command line parsed.
// check (optional) finds the usage errors CLI11 cannot (throws UsageError);
// it runs before the action, and also in parse-only mode, so the tests of
// the tree see the same usage errors as a real run.
void onRun(CLI::App* command, std::function<int()> action, std::function<void()> check = {});
int lastExitCode();

// For the tests of the tree (tests/core/tst_cli_tree.cpp): parse without
// running; the action records the command's path ("store put") instead.
void setParseOnly(bool parseOnly);
const std::string& parsedCommand();
// "store put" for the store's put command.
std::string commandPath(const CLI::App* command);
// The usage lines of a command, as --help prints them without "Usage: ":
// one per leaf below it ("cachescope-cli store put DIR KEY FILE [--version V] ...").
std::vector<std::string> usageLines(const CLI::App* command);
// Whether o is one of the tool's own flags (--help, --help-all, the top
// level's --version) rather than an option of the command.
bool isToolFlag(const CLI::App* command, const CLI::Option* o);

// A usage problem found after parsing (exit 2), e.g. "give either keys or --all".
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Output. Errors: one sentence on stderr prefixed by "cachescope-cli: ".
void printError(std::string_view message);
void printOut(std::string_view text);  // stdout as is
void printJson(const Json& value);     // indented by 2, trailing newline; invalid UTF-8 as U+FFFD
// A human summary: on stderr when stdout carries data (an output of '-'),
// else on stdout.
void printSummary(std::string_view text, bool stdoutCarriesData);

// Options whose values parse the same in every locale (core/util/Units).
// A value out of [min, max] or that does not parse is a usage error naming
// the option and the accepted range.
CLI::Option* addSizeOption(CLI::App* app, const std::string& name, std::optional<uint64_t>& out,
                           const std::string& description, uint64_t min = 0, uint64_t max = UINT64_MAX);
CLI::Option* addDurationOption(CLI::App* app, const std::string& name, std::optional<double>& out,
                               const std::string& description);
// A repeatable option, one value per occurrence ("--key a --key b").
CLI::Option* addRepeatable(CLI::App* app, const std::string& name, std::vector<std::string>& out,
                           const std::string& typeName, const std::string& description);
// A positional that is a path; "-" (stdin/stdout) is accepted where the
// command says so.
CLI::Option* addPath(CLI::App* app, const std::string& name, std::string& out, const std::string& description);

// A positional the usage line shows as required ("STORE", not "[STORE]")
// although CLI11 may leave it empty: the command's check decides, because an
// optional positional before it (actions-cache's DATA_DIR) can take its word.
CLI::Option* shownRequired(CLI::Option* positional);

// Whole numbers are read by the core's one parser (cs::parseInteger), not by
// CLI11, which takes "010" as octal 8 and "0x10" as 16: decimal() refuses
// anything but decimal digits and hands CLI11 the number in canonical form.
CLI::Validator decimal();
// decimal() and a range check that adds nothing to the option's type name
// (the description says the range; the usage line keeps "[--threads N]").
CLI::Validator range(int64_t min, int64_t max);

// `-q, --quiet`: no progress on the terminal.
CLI::Option* addQuiet(CLI::App* app, bool& quiet);

// "1.234" with a fixed number of decimals, independent of the C locale.
std::string fixed(double value, int decimals);

} // namespace cli
