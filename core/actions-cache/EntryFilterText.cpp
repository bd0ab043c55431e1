#include "core/actions-cache/EntryFilterText.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/util/Units.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace cs::actions {

namespace {

std::vector<std::string_view> words(std::string_view text)
{
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
            ++i;
        size_t j = i;
        while (j < text.size() && text[j] != ' ' && text[j] != '\t')
            ++j;
        if (j > i)
            out.push_back(text.substr(i, j - i));
        i = j;
    }
    return out;
}

enum class Op { Less, LessEq, Eq, GreaterEq, Greater };

// "size>=10M" -> field "size", Op::GreaterEq, value "10M"; nullopt when the
// word is not field, comparison, value.
struct Comparison {
    std::string_view field, value;
    Op op;
};

std::optional<Comparison> comparison(std::string_view w)
{
    const size_t at = w.find_first_of("<>=");
    if (at == 0 || at == std::string_view::npos)
        return std::nullopt;
    Comparison c{w.substr(0, at), {}, Op::Eq};
    std::string_view rest = w.substr(at);
    if (rest.starts_with("<="))
        c.op = Op::LessEq, rest.remove_prefix(2);
    else if (rest.starts_with(">="))
        c.op = Op::GreaterEq, rest.remove_prefix(2);
    else if (rest.starts_with("<"))
        c.op = Op::Less, rest.remove_prefix(1);
    else if (rest.starts_with(">"))
        c.op = Op::Greater, rest.remove_prefix(1);
    else
        c.op = Op::Eq, rest.remove_prefix(1);
    c.value = rest;
    return c;
}

// Narrows [lo, hi] (inclusive) by one comparison against v; false when the
// range is empty by construction (size<0), which no entry matches.
template <typename T>
bool narrow(std::optional<T>& lo, std::optional<T>& hi, Op op, T v)
{
    auto raise = [&](T x) { lo = lo ? std::max(*lo, x) : x; };
    auto lower = [&](T x) { hi = hi ? std::min(*hi, x) : x; };
    switch (op) {
    case Op::Less:
        if (v == std::numeric_limits<T>::min())
            return false;
        lower(T(v - 1));
        break;
    case Op::LessEq: lower(v); break;
    case Op::Eq: raise(v), lower(v); break;
    case Op::GreaterEq: raise(v); break;
    case Op::Greater:
        if (v == std::numeric_limits<T>::max())
            return false;
        raise(T(v + 1));
        break;
    }
    return true;
}

} // namespace

EntryFilterText parseEntryFilterText(std::string_view text, const EntryQuery& base)
{
    EntryFilterText out;
    out.query.order = base.order;
    EntryQuery& q = out.query;
    std::string keyWords;
    bool empty = false;   // a bound no entry can meet (size<0)
    for (std::string_view w : words(text)) {
        const std::string word(w);
        if (auto c = comparison(w); c && (c->field == "size" || c->field == "parts")) {
            if (c->field == "size") {
                auto v = parseSize(c->value);
                if (!v) {
                    out.error = "'" + word + "': size wants a size such as 100M, 1.5GiB or 4096";
                    return out;
                }
                empty |= !narrow<uint64_t>(q.minSize, q.maxSize, c->op, *v);
            } else {
                auto v = parseInteger(c->value);
                if (!v || *v < 0) {
                    out.error = "'" + word + "': parts wants a whole number such as 2";
                    return out;
                }
                empty |= !narrow<int64_t>(q.minParts, q.maxParts, c->op, *v);
            }
            continue;
        }
        const size_t colon = w.find(':');
        const std::string_view field = colon == std::string_view::npos ? std::string_view() : w.substr(0, colon);
        const std::string_view value = colon == std::string_view::npos ? std::string_view() : w.substr(colon + 1);
        if (field == "state") {
            size_t i = 0;
            do {
                const size_t j = std::min(value.find(',', i), value.size());
                auto s = entryStateFromName(value.substr(i, j - i));
                if (!s) {
                    out.error = "'" + word + "': state wants unmerged, merge-started, merged or parts-deleted";
                    return out;
                }
                q.stateMask |= 1u << unsigned(*s);
                i = j + 1;
            } while (i <= value.size());
            continue;
        }
        if ((field == "key" || field == "scope" || field == "repo") && !value.empty()) {
            std::string& slot = field == "key" ? q.keyPrefix : field == "scope" ? q.scope : q.repoId;
            if (!slot.empty() && slot != value) {
                out.error = "'" + word + "': " + std::string(field) + " is given twice";
                return out;
            }
            slot = std::string(value);
            continue;
        }
        if (!keyWords.empty())
            keyWords += ' ';
        keyWords += word;
    }
    q.keyContains = keyWords;
    if (empty) {
        // No entry is smaller than 0 bytes or has fewer than 0 parts: a range
        // that holds nothing, which the index answers with no rows.
        q.minSize = 1, q.maxSize = 0;
    }
    return out;
}

} // namespace cs::actions
