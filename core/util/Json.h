// A small JSON value for the core (which has no Qt): build, serialise and
// parse. Objects keep insertion order. Numbers are doubles (integers up to
// 2^53 round-trip exactly). parse() throws cs::Error naming the offset of the
// first problem; nesting deeper than 256 levels is refused.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cs {

class Json {
public:
    enum class Type { Null, Bool, Number, String, Array, Object };
    using Array = std::vector<Json>;
    using Object = std::vector<std::pair<std::string, Json>>;

    Json() = default;
    Json(std::nullptr_t) {}
    Json(bool b) : type_(Type::Bool), bool_(b) {}
    Json(int v) : type_(Type::Number), number_(v) {}
    Json(long v) : type_(Type::Number), number_(double(v)) {}
    Json(long long v) : type_(Type::Number), number_(double(v)) {}
    Json(unsigned v) : type_(Type::Number), number_(v) {}
    Json(unsigned long v) : type_(Type::Number), number_(double(v)) {}
    Json(unsigned long long v) : type_(Type::Number), number_(double(v)) {}
    Json(double v) : type_(Type::Number), number_(v) {}
    Json(const char* s) : type_(Type::String), string_(s) {}
    Json(std::string s) : type_(Type::String), string_(std::move(s)) {}
    Json(std::string_view s) : type_(Type::String), string_(s) {}
    Json(Array a) : type_(Type::Array), array_(std::move(a)) {}

    static Json array() { return Json(Array{}); }
    static Json object() { Json j; j.type_ = Type::Object; return j; }

    Type type() const { return type_; }
    bool isNull() const { return type_ == Type::Null; }
    bool isBool() const { return type_ == Type::Bool; }
    bool isNumber() const { return type_ == Type::Number; }
    bool isString() const { return type_ == Type::String; }
    bool isArray() const { return type_ == Type::Array; }
    bool isObject() const { return type_ == Type::Object; }

    bool toBool(bool fallback = false) const { return isBool() ? bool_ : fallback; }
    double toNumber(double fallback = 0) const { return isNumber() ? number_ : fallback; }
    int64_t toInt(int64_t fallback = 0) const { return isNumber() ? int64_t(number_) : fallback; }
    const std::string& toString() const { static const std::string empty; return isString() ? string_ : empty; }
    const Array& items() const { static const Array empty; return isArray() ? array_ : empty; }
    const Object& members() const { static const Object empty; return isObject() ? object_ : empty; }

    // Object access: operator[] on a non-const value inserts (turning a null into an object).
    Json& operator[](const std::string& key);
    const Json& operator[](const std::string& key) const; // a null when missing
    bool contains(const std::string& key) const;
    // Array access.
    void push(Json value);
    const Json& operator[](size_t index) const { return array_.at(index); }
    size_t size() const { return isArray() ? array_.size() : isObject() ? object_.size() : 0; }

    // Compact when indent < 0, else pretty-printed with that many spaces.
    std::string dump(int indent = -1) const;
    static Json parse(std::string_view text);

    bool operator==(const Json& other) const;

private:
    void dumpTo(std::string& out, int indent, int depth) const;

    Type type_ = Type::Null;
    bool bool_ = false;
    double number_ = 0;
    std::string string_;
    Array array_;
    Object object_;
};

} // namespace cs
