#include "core/bench/Bench.h"

#include "core/util/Error.h"

#include <algorithm>
#include <cstdio>

namespace cs {

void ResultTable::add(std::string name, double value, std::string unit)
{
    rows.push_back({std::move(name), value, std::move(unit), {}});
}

void ResultTable::addText(std::string name, std::string text)
{
    rows.push_back({std::move(name), 0, {}, std::move(text)});
}

std::string betterDirection(const std::string& unit)
{
    if (unit == "MB/s" || unit == "x" || unit.find("/s") != std::string::npos)
        return "higher";
    return "lower";
}

Json Comparison::toJsonValue() const
{
    Json o = Json::object();
    o["name"] = name;
    o["ours"] = ours;
    o["reference"] = reference;
    o["reference_tool"] = referenceTool;
    o["unit"] = unit;
    o["ratio"] = ratio;
    o["better"] = better;
    return o;
}

Comparison Comparison::fromJson(const Json& j)
{
    Comparison c;
    c.name = text(field(j, "name"));
    c.ours = number(field(j, "ours"));
    c.reference = number(field(j, "reference"));
    c.referenceTool = text(field(j, "reference_tool"));
    c.unit = text(field(j, "unit"));
    c.ratio = number(field(j, "ratio"));
    c.better = text(field(j, "better"));
    return c;
}

void ResultTable::compare(const std::string& oursRow, const std::string& referenceRow, const std::string& referenceTool,
                          const std::string& phase)
{
    const ResultRow* a = find(oursRow);
    const ResultRow* b = find(referenceRow);
    if (!a || !b || !a->text.empty() || !b->text.empty())
        throw Error("benchmark result: no figure '" + (a ? referenceRow : oursRow) + "' to compare");
    if (a->unit != b->unit)
        throw Error("benchmark result: '" + oursRow + "' is in " + a->unit + " and '" + referenceRow + "' in " + b->unit);
    if (a->value <= 0 || b->value <= 0) {
        addText("not compared: " + oursRow, "'" + (a->value <= 0 ? oursRow : referenceRow) +
                                                  "' was not measured (the program ended before it could be read)");
        return;
    }
    Comparison c;
    c.name = oursRow;
    c.ours = a->value;
    c.reference = b->value;
    c.referenceTool = referenceTool;
    c.unit = a->unit;
    c.ratio = b->value != 0 ? a->value / b->value : 0;
    c.better = betterDirection(a->unit);
    c.referenceRow = referenceRow;
    c.phase = phase;
    comparisons.push_back(std::move(c));
}

const ResultRow* ResultTable::find(const std::string& name) const
{
    for (const auto& r : rows)
        if (r.name == name)
            return &r;
    return nullptr;
}

double ResultTable::value(const std::string& name, double fallback) const
{
    const ResultRow* r = find(name);
    return r && r->text.empty() ? r->value : fallback;
}

Json ResultTable::toJsonValue() const
{
    Json j = Json::object();
    Json rs = Json::array();
    for (const auto& r : rows) {
        Json o = Json::object();
        o["name"] = r.name;
        if (r.text.empty()) {
            o["value"] = r.value;
            o["unit"] = r.unit;
        } else {
            o["text"] = r.text;
        }
        rs.push_back(std::move(o));
    }
    j["rows"] = std::move(rs);
    Json ts = Json::array();
    for (const auto& t : tables) {
        Json o = Json::object();
        o["title"] = t.title;
        Json cols = Json::array();
        for (const auto& c : t.columns)
            cols.push_back(c);
        o["columns"] = std::move(cols);
        Json rowsJ = Json::array();
        for (size_t i = 0; i < t.rowNames.size(); ++i) {
            Json row = Json::object();
            row["name"] = t.rowNames[i];
            Json vals = Json::array();
            if (i < t.values.size())
                for (double v : t.values[i])
                    vals.push_back(v);
            row["values"] = std::move(vals);
            rowsJ.push_back(std::move(row));
        }
        o["rows"] = std::move(rowsJ);
        ts.push_back(std::move(o));
    }
    j["tables"] = std::move(ts);
    Json ps = Json::array();
    for (const auto& p : phases)
        ps.push_back(p.toJsonValue());
    j["phases"] = std::move(ps);
    Json cs = Json::array();
    for (const auto& c : comparisons)
        cs.push_back(c.toJsonValue());
    j["comparisons"] = std::move(cs);
    return j;
}

std::string ResultTable::toJson() const { return dumpJson(toJsonValue()); }

ResultTable ResultTable::fromJson(const Json& j)
{
    ResultTable t;
    for (const auto& r : elements(field(j, "rows"))) {
        ResultRow row;
        row.name = text(field(r, "name"));
        row.value = number(field(r, "value"));
        row.unit = text(field(r, "unit"));
        row.text = text(field(r, "text"));
        t.rows.push_back(std::move(row));
    }
    for (const auto& s : elements(field(j, "tables"))) {
        ResultSubTable sub;
        sub.title = text(field(s, "title"));
        for (const auto& c : elements(field(s, "columns")))
            sub.columns.push_back(text(c));
        for (const auto& r : elements(field(s, "rows"))) {
            sub.rowNames.push_back(text(field(r, "name")));
            std::vector<double> vals;
            for (const auto& v : elements(field(r, "values")))
                vals.push_back(number(v));
            sub.values.push_back(std::move(vals));
        }
        t.tables.push_back(std::move(sub));
    }
    for (const auto& p : elements(field(j, "phases")))
        t.phases.push_back(Phase::fromJson(p));
    for (const auto& c : elements(field(j, "comparisons"))) {
        Comparison x = Comparison::fromJson(c);
        // The JSON holds the contract's fields only: our phase is the
        // longest label of one of ours that starts the comparison's name.
        for (const auto& p : t.phases)
            if (p.role == PhaseRole::Ours && x.name.rfind(p.label, 0) == 0 && p.label.size() > x.phase.size())
                x.phase = p.label;
        t.comparisons.push_back(std::move(x));
    }
    return t;
}

static std::string formatNumber(double v)
{
    char buf[64];
    if (v == double(int64_t(v)) && v < 1e15 && v > -1e15)
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    else if (std::abs(v) >= 100)
        std::snprintf(buf, sizeof buf, "%.1f", v);
    else
        std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

std::string ResultTable::toText() const
{
    size_t w = 4;
    for (const auto& r : rows)
        w = std::max(w, r.name.size());
    std::string out;
    for (const auto& r : rows) {
        out += r.name + std::string(w + 2 - r.name.size(), ' ');
        out += r.text.empty() ? formatNumber(r.value) + (r.unit.empty() ? "" : " " + r.unit) : r.text;
        out += '\n';
    }
    for (const auto& t : tables) {
        out += "\n" + t.title + ":\n";
        std::vector<size_t> widths;
        size_t nameW = 4;
        for (const auto& n : t.rowNames)
            nameW = std::max(nameW, n.size());
        std::string line(nameW + 2, ' ');
        for (const auto& c : t.columns) {
            widths.push_back(std::max<size_t>(c.size(), 10));
            line += std::string(widths.back() - c.size(), ' ') + c + "  ";
        }
        out += line + "\n";
        for (size_t i = 0; i < t.rowNames.size(); ++i) {
            line = t.rowNames[i] + std::string(nameW + 2 - t.rowNames[i].size(), ' ');
            for (size_t c = 0; c < t.columns.size(); ++c) {
                const std::string v = i < t.values.size() && c < t.values[i].size() ? formatNumber(t.values[i][c]) : "";
                line += std::string(widths[c] > v.size() ? widths[c] - v.size() : 0, ' ') + v + "  ";
            }
            out += line + "\n";
        }
    }
    return out;
}

} // namespace cs
