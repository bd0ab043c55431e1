#include "CommandTree.h"

#include "core/util/Escape.h"
#include "core/util/Units.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>

namespace cli {

namespace {

std::vector<TreeNode>& registry()
{
    static std::vector<TreeNode> nodes;
    return nodes;
}

std::vector<const CLI::Option*>& shownRequiredSet()
{
    static std::vector<const CLI::Option*> options;
    return options;
}

bool isShownRequired(const CLI::Option* o)
{
    const auto& s = shownRequiredSet();
    return o->get_required() || std::find(s.begin(), s.end(), o) != s.end();
}

int& exitCodeSlot()
{
    static int code = Ok;
    return code;
}

// The tool's own flags (help everywhere, version at the top), not a
// command's options: a command may have its own --version (store put).
bool isHelpOrVersion(const CLI::App* app, const CLI::Option* o)
{
    return o == app->get_help_ptr() || o == app->get_help_all_ptr() ||
           (app->get_parent() == nullptr && o->get_name() == "--version");
}

// Usage lines name every word: a leaf prints its full path, its positionals
// in order and each option ("[--chunk SIZE]", "[--key KEY ...]"), so the line
// runs as printed once the placeholders are filled in. A group prints the
// usage line of every leaf below it.
class UsageFormatter : public CLI::Formatter {
public:
    static std::string leafUsage(const CLI::App* app, const std::string& name)
    {
        std::string out = name;
        // Hidden positionals (empty group) are old forms kept as aliases.
        for (const CLI::Option* o : app->get_options([](const CLI::Option* o) { return o->get_positional(); })) {
            if (o->get_group().empty())
                continue;
            std::string word = o->get_name(true);
            if (o->get_expected_max() > 1)
                word += " ...";
            out += " " + (isShownRequired(o) ? word : "[" + word + "]");
        }
        // Options that exclude each other are one choice: "[--write | --dry-run]".
        std::vector<const CLI::Option*> shown;
        auto optionWord = [](const CLI::Option* o) {
            std::string word = o->get_name();
            if (!o->get_type_name().empty())
                word += " " + o->get_type_name();
            if (o->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll)
                word += " ...";
            return word;
        };
        for (const CLI::Option* o : app->get_options([](const CLI::Option* o) { return o->nonpositional(); })) {
            if (isHelpOrVersion(app, o) || std::find(shown.begin(), shown.end(), o) != shown.end())
                continue;
            std::string word = optionWord(o);
            for (const CLI::Option* other : o->get_excludes()) {
                word += " | " + optionWord(other);
                shown.push_back(other);
            }
            out += " [" + word + "]";
        }
        return out;
    }

    static void leafLines(const CLI::App* app, const std::string& name, std::vector<std::string>& lines)
    {
        const auto subs = app->get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); });
        if (subs.empty()) {
            lines.push_back(leafUsage(app, name));
            return;
        }
        for (const CLI::App* s : subs)
            leafLines(s, name + " " + s->get_name(), lines);
    }

    // CLI11 ends an option group with a blank line when a hidden group (an
    // alias positional, group "") follows it: no more than one blank line.
    std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override
    {
        std::string out = CLI::Formatter::make_help(app, std::move(name), mode);
        for (size_t at; (at = out.find("\n\n\n")) != std::string::npos;)
            out.erase(at, 1);
        return out;
    }

    // The usage line shows exclusive options as one choice; the option list
    // does not repeat it after the type ("--write Excludes: --dry-run").
    std::string make_option_opts(const CLI::Option* o) const override
    {
        std::string out = CLI::Formatter::make_option_opts(o);
        const size_t at = out.find(" Excludes:");
        return at == std::string::npos ? out : out.substr(0, at);
    }

    // Usage first, then what the command does (CLI11 puts the description first).
    std::string make_description(const CLI::App*) const override { return {}; }

    std::string make_usage(const CLI::App* app, std::string name) const override
    {
        std::string out;
        if (app->get_parent() == nullptr) {
            out = "Usage: " + name + " [--help | --help-all | --version] COMMAND ...\n";
        } else {
            std::vector<std::string> lines;
            leafLines(app, name, lines);
            for (size_t i = 0; i < lines.size(); ++i)
                out += (i ? "       " : "Usage: ") + lines[i] + "\n";
        }
        if (!app->get_description().empty())
            out += "\n" + app->get_description() + "\n";
        return out;
    }
};

void buildUnder(CLI::App& parent, const std::string& parentName)
{
    for (const auto& node : nodesUnder(parentName)) {
        CLI::App* app = node.build(parent);
        if (app)
            buildUnder(*app, parentName.empty() ? node.name : parentName + " " + node.name);
    }
}

} // namespace

std::vector<std::string> usageLines(const CLI::App* command)
{
    std::vector<std::string> lines;
    UsageFormatter::leafLines(command, "cachescope-cli" + (command->get_parent() ? " " + commandPath(command) : std::string()),
                              lines);
    return lines;
}

bool isToolFlag(const CLI::App* command, const CLI::Option* o) { return isHelpOrVersion(command, o); }

void registerNode(TreeNode node) { registry().push_back(std::move(node)); }

std::vector<TreeNode> nodesUnder(const std::string& parent)
{
    std::vector<TreeNode> out;
    for (const auto& n : registry())
        if (n.parent == parent)
            out.push_back(n);
    std::sort(out.begin(), out.end(), [](const TreeNode& a, const TreeNode& b) { return a.name < b.name; });
    return out;
}

void configureTopLevel(CLI::App& app)
{
    shownRequiredSet().clear(); // one tree at a time: a new tree's options replace the old ones
    app.name("cachescope-cli");
    app.description("Inspect zstd files and snapshots, run a build-cache store, GC and benchmarks, headless.\n"
                    "Exit codes: 0 success, 1 the operation failed, 2 bad usage, 130 (143) cancelled by Ctrl-C (SIGTERM).");
    app.formatter(std::make_shared<UsageFormatter>());
    app.get_formatter()->column_width(32);
    app.set_help_flag("-h,--help", "Print this help and exit");
    app.set_help_all_flag("--help-all", "Print the help of every command and exit");
    app.set_version_flag("-V,--version", std::string("cachescope-cli ") + CACHESCOPE_VERSION,
                         "Print the version and exit");
    app.require_subcommand(1);
    app.footer("'cachescope-cli COMMAND --help' describes one command; docs/cli.md has the JSON schemas.");
}

void buildTree(CLI::App& app) { buildUnder(app, ""); }

bool buildCommand(CLI::App& app, const std::string& name)
{
    for (const auto& node : nodesUnder(""))
        if (node.name == name) {
            if (CLI::App* command = node.build(app))
                buildUnder(*command, node.name);
            return true;
        }
    return false;
}

namespace {
bool g_parseOnly = false;
std::string g_parsedCommand;
} // namespace

void setParseOnly(bool parseOnly) { g_parseOnly = parseOnly; }
const std::string& parsedCommand() { return g_parsedCommand; }

std::string commandPath(const CLI::App* command)
{
    std::string path;
    for (const CLI::App* at = command; at && at->get_parent(); at = at->get_parent())
        path = path.empty() ? at->get_name() : at->get_name() + " " + path;
    return path;
}

CLI::Option* shownRequired(CLI::Option* positional)
{
    shownRequiredSet().push_back(positional);
    return positional;
}

void onRun(CLI::App* command, std::function<int()> action, std::function<void()> check)
{
    command->callback([command, action = std::move(action), check = std::move(check)] {
        if (check)
            check();
        if (g_parseOnly) {
            g_parsedCommand = commandPath(command);
            exitCodeSlot() = Ok;
            return;
        }
        exitCodeSlot() = action();
    });
}

int lastExitCode() { return exitCodeSlot(); }

void printError(std::string_view message)
{
    // One line whatever the message quotes: a key holding a newline or an
    // escape sequence is shown escaped (cs::escapeControl).
    const std::string line = cs::escapeControl(message);
    std::fprintf(stderr, "cachescope-cli: %s\n", line.c_str());
    std::fflush(stderr);
}

void printOut(std::string_view text)
{
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
}

void printJson(const Json& value)
{
    printOut(cs::dumpJson(value, 2) + "\n");
}

void printSummary(std::string_view text, bool stdoutCarriesData)
{
    if (stdoutCarriesData) {
        std::fwrite(text.data(), 1, text.size(), stderr);
        std::fflush(stderr);
    } else {
        printOut(text);
    }
}

CLI::Option* addSizeOption(CLI::App* app, const std::string& name, std::optional<uint64_t>& out,
                           const std::string& description, uint64_t min, uint64_t max)
{
    const std::string flag = "--" + name;
    return app
        ->add_option_function<std::string>(
            flag,
            [&out, flag, min, max](const std::string& text) {
                const auto v = cs::parseSize(text);
                if (!v || *v < min || *v > max) {
                    std::string range = max == UINT64_MAX ? (min ? "of at least " + cs::formatSize(min) : "like 1MiB")
                                                          : "from " + cs::formatSize(min) + " to " + cs::formatSize(max);
                    throw CLI::ValidationError(flag, "wants a size " + range + " (64KiB, 1.5MiB, 8M), not '" + text + "'");
                }
                out = *v;
            },
            description)
        ->type_name("SIZE");
}

CLI::Option* addDurationOption(CLI::App* app, const std::string& name, std::optional<double>& out,
                               const std::string& description)
{
    const std::string flag = "--" + name;
    return app
        ->add_option_function<std::string>(
            flag,
            [&out, flag](const std::string& text) {
                const auto v = cs::parseDurationSeconds(text);
                if (!v)
                    throw CLI::ValidationError(flag, "'" + text + "' is not a duration like 30d, 12h, 90m, 45s or 2w");
                out = double(*v);
            },
            description)
        ->type_name("DURATION");
}

CLI::Option* addRepeatable(CLI::App* app, const std::string& name, std::vector<std::string>& out,
                           const std::string& typeName, const std::string& description)
{
    return app->add_option("--" + name, out, description)
        ->type_name(typeName)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

CLI::Option* addPath(CLI::App* app, const std::string& name, std::string& out, const std::string& description)
{
    return app->add_option(name, out, description)->required()->type_name("");
}

namespace {

// Given with ->transform(), never ->check(): a check's rewrite of the text is
// dropped, and CLI11 would then read "010" itself (as octal 8).
CLI::Validator decimalIn(int64_t min, int64_t max)
{
    return CLI::Validator(
        [min, max](std::string& text) -> std::string {
            const auto v = cs::parseInteger(text);
            if (!v)
                return "'" + text + "' is not a whole number in decimal digits";
            if (*v < min || *v > max)
                return "Value " + text + " not in range [" + std::to_string(min) + " - " + std::to_string(max) + "]";
            text = std::to_string(*v);
            return {};
        },
        "");
}

} // namespace

CLI::Validator decimal() { return decimalIn(INT64_MIN, INT64_MAX); }

CLI::Validator range(int64_t min, int64_t max) { return decimalIn(min, max); }

CLI::Option* addQuiet(CLI::App* app, bool& quiet)
{
    return app->add_flag("-q,--quiet", quiet, "No progress on the terminal");
}

std::string fixed(double value, int decimals)
{
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, decimals);
    return r.ec == std::errc() ? std::string(buf, r.ptr) : std::string("-");
}

} // namespace cli
