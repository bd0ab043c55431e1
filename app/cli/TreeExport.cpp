// `cachescope-cli __export man|bash|zsh`: the man page and the shell
// completions, generated at build time from the same command tree that
// parses the command line (app/CMakeLists.txt), so they cannot drift from it.
// Hidden from --help (empty group).
#include "CommandTree.h"

#include "core/util/OutputFile.h"

#include <sstream>

namespace cli {
namespace {

struct Leaf {
    std::string path;                 // "store put"
    const CLI::App* app = nullptr;
};

std::vector<const CLI::App*> visible(const CLI::App* app)
{
    return app->get_subcommands([](const CLI::App* s) {
        return !s->get_name().empty() && s->get_name().rfind("__", 0) != 0 && !s->get_prefix_command();
    });
}

void walk(const CLI::App* app, std::vector<const CLI::App*>& all)
{
    all.push_back(app);
    for (const CLI::App* s : visible(app))
        walk(s, all);
}

std::vector<const CLI::Option*> optionsOf(const CLI::App* app)
{
    return app->get_options([](const CLI::Option* o) { return o->nonpositional(); });
}

// Options whose value is a path complete file names; others take no completion.
bool takesPath(const CLI::Option* o)
{
    const std::string t = o->get_type_name();
    return t == "FILE" || t == "DIR" || t.rfind("FILE.", 0) == 0;
}

std::string roffEscape(const std::string& s)
{
    std::string out;
    bool lineStart = true;
    for (char c : s) {
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else if (lineStart && (c == '.' || c == '\''))
            out += "\\&" + std::string(1, c);
        else
            out += c;
        lineStart = c == '\n';
    }
    return out;
}

std::string usageOf(const CLI::App* app)
{
    std::string out;
    for (const auto& line : usageLines(app))
        out += line + "\n";
    return out;
}

std::string manPage(const CLI::App& top)
{
    std::vector<const CLI::App*> all;
    walk(&top, all);
    std::ostringstream m;
    m << ".TH CACHESCOPE-CLI 1 \"\" \"cachescope " << CACHESCOPE_VERSION << "\" \"User Commands\"\n";
    m << ".SH NAME\ncachescope\\-cli \\- inspect zstd files and snapshots, run a build\\-cache store, GC and benchmarks\n";
    m << ".SH SYNOPSIS\n.nf\n";
    for (const CLI::App* a : all)
        if (visible(a).empty() && a != &top)
            m << roffEscape(usageOf(a));
    m << ".fi\n.SH DESCRIPTION\n" << roffEscape(top.get_description()) << "\n";
    m << ".PP\nEvery command prints a human summary, or JSON with \\fB\\-\\-json\\fR (schemas in docs/cli.md). "
         "Long commands draw their progress on standard error when it is a terminal (not with \\fB\\-\\-quiet\\fR).\n";
    m << ".SH OPTIONS\n";
    for (const CLI::Option* o : optionsOf(&top))
        m << ".TP\n\\fB" << roffEscape(o->get_name(false, true)) << "\\fR\n" << roffEscape(o->get_description()) << "\n";
    m << ".SH COMMANDS\n";
    for (const CLI::App* a : all) {
        if (a == &top)
            continue;
        m << ".SS " << roffEscape(commandPath(a)) << "\n" << roffEscape(a->get_description()) << "\n";
        if (!visible(a).empty())
            continue;
        m << ".PP\n.nf\n" << roffEscape(usageOf(a)) << ".fi\n";
        if (!a->get_footer().empty())
            m << ".PP\n" << roffEscape(a->get_footer()) << "\n";
        for (const CLI::Option* o : a->get_options()) {
            if (isToolFlag(a, o))
                continue;
            std::string label = o->get_positional() ? o->get_name(true) : o->get_name(false, true);
            if (!o->get_positional() && !o->get_type_name().empty())
                label += " " + o->get_type_name();
            m << ".TP\n\\fB" << roffEscape(label) << "\\fR\n" << roffEscape(o->get_description()) << "\n";
        }
    }
    m << ".SH EXIT STATUS\n0 success, 1 the operation failed (one sentence on standard error naming the file and "
         "offset), 2 bad usage.\n";
    m << ".SH SEE ALSO\n\\fBcachescope\\fR(1), \\fBzstd\\fR(1)\n";
    return m.str();
}

std::string joinNames(const std::vector<const CLI::App*>& apps)
{
    std::string out;
    for (const CLI::App* a : apps)
        out += (out.empty() ? "" : " ") + a->get_name();
    return out;
}

std::string optionWords(const CLI::App* app)
{
    std::string out;
    for (const CLI::Option* o : optionsOf(app)) {
        for (const std::string& n : {o->get_name(false, true)}) {
            std::istringstream in(n);
            for (std::string w; std::getline(in, w, ',');)
                out += (out.empty() ? "" : " ") + w;
        }
    }
    return out;
}

// A command's words as the completion scripts match them: "" for the top,
// "/store/get" for `store get`.
std::string slashPath(const CLI::App* a, const CLI::App& top)
{
    if (a == &top)
        return {};
    std::string p = "/" + commandPath(a);
    for (char& c : p)
        if (c == ' ')
            c = '/';
    return p;
}

// Every command's slash path but the top's, joined by '|' (a shell case
// pattern).
std::string knownPaths(const std::vector<const CLI::App*>& all, const CLI::App& top)
{
    std::string known;
    for (const CLI::App* a : all)
        if (a != &top)
            known += (known.empty() ? "" : "|") + slashPath(a, top);
    return known;
}

std::string bashCompletion(const CLI::App& top)
{
    std::vector<const CLI::App*> all;
    walk(&top, all);
    std::ostringstream b;
    b << "# bash completion for cachescope-cli, generated from its command tree (cachescope-cli __export bash)\n";
    b << "_cachescope_cli()\n{\n";
    b << "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" path=\"\" i\n";
    b << "    for ((i = 1; i < COMP_CWORD; i++)); do\n        case \"$path/${COMP_WORDS[i]}\" in\n";
    b << "            " << knownPaths(all, top) << ") path=\"$path/${COMP_WORDS[i]}\" ;;\n        esac\n    done\n";
    b << "    local subs=\"\" opts=\"\" valued=\"\" paths=\"\"\n    case \"$path\" in\n";
    for (const CLI::App* a : all) {
        const std::string p = slashPath(a, top);
        std::string valued, paths;
        for (const CLI::Option* o : optionsOf(a)) {
            if (o->get_type_name().empty())
                continue;
            (takesPath(o) ? paths : valued) += (takesPath(o) ? paths : valued).empty() ? o->get_name() : " " + o->get_name();
        }
        b << "        \"" << p << "\") subs=\"" << joinNames(visible(a)) << "\"; opts=\"" << optionWords(a)
          << "\"; valued=\"" << valued << "\"; paths=\"" << paths << "\" ;;\n";
    }
    b << "    esac\n";
    b << "    if [[ \" $paths \" == *\" $prev \"* ]]; then COMPREPLY=($(compgen -f -- \"$cur\")); return; fi\n";
    b << "    if [[ -n \"$valued\" && \" $valued \" == *\" $prev \"* ]]; then COMPREPLY=(); return; fi\n";
    b << "    if [[ \"$cur\" == -* ]]; then COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n";
    b << "    elif [[ -n \"$subs\" ]]; then COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n";
    b << "    else COMPREPLY=($(compgen -f -- \"$cur\")); fi\n}\n";
    b << "complete -o filenames -F _cachescope_cli cachescope-cli\n";
    return b.str();
}

std::string zshQuote(const std::string& s)
{
    std::string out;
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else if (c == '[' || c == ']' || c == ':')
            out += std::string("\\") + c;
        else
            out += c;
    }
    return out;
}

std::string zshCompletion(const CLI::App& top)
{
    std::vector<const CLI::App*> all;
    walk(&top, all);
    std::ostringstream z;
    z << "#compdef cachescope-cli\n# zsh completion for cachescope-cli, generated from its command tree "
         "(cachescope-cli __export zsh)\n";
    z << "_cachescope_cli() {\n    local p='' i depth=1\n    for ((i = 2; i < CURRENT; i++)); do\n"
         "        case \"$p/${words[i]}\" in\n";
    z << "            (" << knownPaths(all, top) << ") p=\"$p/${words[i]}\"; depth=$i ;;\n        esac\n    done\n";
    z << "    case $p in\n";
    for (const CLI::App* a : all) {
        const std::string p = slashPath(a, top);
        z << "        ('" << p << "')\n";
        const auto subs = visible(a);
        if (!subs.empty()) {
            z << "            local -a subs=(";
            for (const CLI::App* s : subs)
                z << " '" << zshQuote(s->get_name()) << ":" << zshQuote(s->get_description()) << "'";
            z << " )\n            if [[ $PREFIX == -* ]]; then compadd -- " << optionWords(a)
              << "; else _describe -t commands 'command' subs; fi ;;\n";
            continue;
        }
        z << "            local -a args=(";
        for (const CLI::Option* o : optionsOf(a)) {
            std::string spec = zshQuote(o->get_name()) + "[" + zshQuote(o->get_description()) + "]";
            if (!o->get_type_name().empty())
                spec += ":" + zshQuote(o->get_type_name()) + ":" + (takesPath(o) ? "_files" : " ");
            if (o->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll)
                spec = "*" + spec;
            z << " '" << spec << "'";
        }
        z << " '*:file:_files' )\n            words=(\"${words[@]:$depth}\"); (( CURRENT -= depth ))\n"
             "            _arguments -s $args ;;\n";
    }
    z << "    esac\n}\n_cachescope_cli \"$@\"\n";
    return z.str();
}

TreeRegistration reg("", "__export", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("__export", "Print the man page or a shell completion (build time)");
    c->group("");
    auto format = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    c->add_option("FORMAT", *format, "man, bash or zsh")->required()->check(CLI::IsMember({"man", "bash", "zsh"}));
    c->add_option("OUT", *out, "File to write (default: standard output)");
    onRun(c, [c, format, out] {
        const CLI::App* top = c;
        while (top->get_parent())
            top = top->get_parent();
        const std::string text = *format == "man"    ? manPage(*top)
                                 : *format == "bash" ? bashCompletion(*top)
                                                     : zshCompletion(*top);
        if (out->empty()) {
            printOut(text);
            return Ok;
        }
        cs::writeFileAtomic(*out, text);   // OutputFile: replaced atomically, or in place
        return Ok;
    });
    return c;
});

} // namespace
} // namespace cli
