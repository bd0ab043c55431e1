// A small JSON Schema checker for the CLI's --json outputs: the schemas live
// in docs/cli.md as fenced ```json blocks, each after a line
// `<!-- schema: NAME -->`. Supported keywords (all the docs use): type (a
// name or a list; "integer" means written without fraction or exponent, so
// 64-bit values stay exact), properties, required, additionalProperties
// (false), items, enum, minimum, $ref (the NAME of another block). Keys of
// an object must come in the order of the schema's properties (one key order).
#pragma once
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace testsupport {

using SchemaMap = std::map<std::string, nlohmann::ordered_json>;

inline SchemaMap schemasFromDoc(const std::string& path)
{
    std::ifstream in(path);
    SchemaMap out;
    std::string line, name, body;
    bool inBlock = false;
    while (std::getline(in, line)) {
        if (inBlock) {
            if (line.rfind("```", 0) == 0) {
                out[name] = nlohmann::ordered_json::parse(body); // throws on a broken schema: the test fails
                inBlock = false;
                name.clear();
            } else {
                body += line + "\n";
            }
            continue;
        }
        const std::string marker = "<!-- schema: ";
        if (line.rfind(marker, 0) == 0) {
            name = line.substr(marker.size(), line.find(" -->") - marker.size());
        } else if (!name.empty() && line.rfind("```json", 0) == 0) {
            inBlock = true;
            body.clear();
        }
    }
    return out;
}

inline bool hasType(const nlohmann::ordered_json& v, const std::string& t)
{
    if (t == "null") return v.is_null();
    if (t == "boolean") return v.is_boolean();
    if (t == "integer") return v.is_number_integer();
    if (t == "number") return v.is_number();
    if (t == "string") return v.is_string();
    if (t == "array") return v.is_array();
    if (t == "object") return v.is_object();
    return false;
}

// "" when value matches schema, else the first problem with its JSON path.
inline std::string validateJson(const nlohmann::ordered_json& value, const nlohmann::ordered_json& schema, const SchemaMap& all,
                                 const std::string& at = "$")
{
    if (schema.contains("$ref")) {
        const auto it = all.find(schema["$ref"].get<std::string>());
        if (it == all.end())
            return at + ": unknown $ref " + schema["$ref"].dump();
        return validateJson(value, it->second, all, at);
    }
    if (schema.contains("type")) {
        bool ok = false;
        if (schema["type"].is_array()) {
            for (const auto& t : schema["type"])
                ok = ok || hasType(value, t.get<std::string>());
        } else {
            ok = hasType(value, schema["type"].get<std::string>());
        }
        if (!ok)
            return at + ": " + value.dump() + " is not of type " + schema["type"].dump();
    }
    if (schema.contains("enum")) {
        bool found = false;
        for (const auto& e : schema["enum"])
            found = found || e == value;
        if (!found)
            return at + ": " + value.dump() + " is not one of " + schema["enum"].dump();
    }
    if (schema.contains("minimum") && value.is_number() && value.get<double>() < schema["minimum"].get<double>())
        return at + ": " + value.dump() + " is below the minimum " + schema["minimum"].dump();
    if (value.is_object()) {
        if (schema.contains("required"))
            for (const auto& r : schema["required"])
                if (!value.contains(r.get<std::string>()))
                    return at + ": missing \"" + r.get<std::string>() + "\"";
        const nlohmann::ordered_json props = schema.value("properties", nlohmann::ordered_json::object());
        std::vector<std::string> order;
        for (auto it = props.begin(); it != props.end(); ++it)
            if (value.contains(it.key()))
                order.push_back(it.key());
        size_t next = 0;
        for (auto it = value.begin(); it != value.end(); ++it)
            if (props.contains(it.key()) && order[next++] != it.key())
                return at + ": \"" + it.key() + "\" out of the documented key order";
        for (auto it = value.begin(); it != value.end(); ++it) {
            if (props.contains(it.key())) {
                const std::string problem = validateJson(it.value(), props[it.key()], all, at + "." + it.key());
                if (!problem.empty())
                    return problem;
            } else if (schema.contains("additionalProperties") && schema["additionalProperties"] == false) {
                return at + ": unexpected \"" + it.key() + "\"";
            }
        }
    }
    if (value.is_array() && schema.contains("items")) {
        for (size_t i = 0; i < value.size(); ++i) {
            const std::string problem = validateJson(value[i], schema["items"], all, at + "[" + std::to_string(i) + "]");
            if (!problem.empty())
                return problem;
        }
    }
    return {};
}

} // namespace testsupport
