#include "core/bench/SamplesCsv.h"

#include "core/util/Error.h"

#include <charconv>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>
#include <system_error>

namespace cs {

namespace {

void putNumber(std::ostream& out, double v)
{
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);   // shortest round-trip, '.' always
    out.write(buf, res.ptr - buf);
}

bool parseNumber(std::string_view text, double& out)
{
    if (text.empty())
        return false;
    const auto res = std::from_chars(text.data(), text.data() + text.size(), out);
    return res.ec == std::errc() && res.ptr == text.data() + text.size();
}

[[noreturn]] void failLine(const std::string& name, uint64_t line, const std::string& what)
{
    fail(name, "line " + std::to_string(line) + ": " + what);
}

} // namespace

void writeSamplesCsv(std::ostream& out, const std::vector<Sample>& samples)
{
    out << kSamplesCsvHeader << '\n';
    for (const Sample& s : samples) {
        putNumber(out, s.t);
        out << ",\"";
        for (char c : s.series) {
            if (c == '"')
                out << '"';
            out << c;
        }
        out << "\",";
        putNumber(out, s.value);
        out << '\n';
    }
}

std::string samplesCsv(const std::vector<Sample>& samples)
{
    std::ostringstream out;
    writeSamplesCsv(out, samples);
    return out.str();
}

std::vector<Sample> parseSamplesCsv(std::istream& in, const std::string& name)
{
    std::string line;
    uint64_t n = 0;
    auto next = [&] {
        if (!std::getline(in, line))
            return false;
        ++n;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        return true;
    };
    if (!next())
        fail(name, "empty file; expected the header " + std::string(kSamplesCsvHeader));
    if (line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0)   // a spreadsheet's byte order mark
        line.erase(0, 3);
    if (line != kSamplesCsvHeader)
        failLine(name, 1, "expected the header " + std::string(kSamplesCsvHeader));
    std::vector<Sample> samples;
    while (next()) {
        if (line.empty())
            continue;
        const size_t firstComma = line.find(',');
        if (firstComma == std::string::npos)
            failLine(name, n, "expected t,series,value");
        Sample s;
        if (!parseNumber(std::string_view(line).substr(0, firstComma), s.t))
            failLine(name, n, "t is not a number");
        size_t pos = firstComma + 1;
        if (pos < line.size() && line[pos] == '"') {
            ++pos;
            for (;;) {
                if (pos >= line.size())
                    failLine(name, n, "the quoted series has no closing quote");
                if (line[pos] == '"') {
                    if (pos + 1 < line.size() && line[pos + 1] == '"') {
                        s.series += '"';
                        pos += 2;
                        continue;
                    }
                    ++pos;
                    break;
                }
                s.series += line[pos++];
            }
            if (pos >= line.size() || line[pos] != ',')
                failLine(name, n, "expected a comma after the quoted series");
        } else {
            const size_t comma = line.find(',', pos);
            if (comma == std::string::npos)
                failLine(name, n, "expected t,series,value");
            s.series = line.substr(pos, comma - pos);
            if (s.series.find('"') != std::string::npos)
                failLine(name, n, "a quote inside an unquoted series");
            pos = comma;
        }
        if (!parseNumber(std::string_view(line).substr(pos + 1), s.value))
            failLine(name, n, "value is not a number");
        samples.push_back(std::move(s));
    }
    return samples;
}

std::vector<Sample> readSamplesCsvFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        failErrno(path, "cannot read");
    return parseSamplesCsv(in, path);
}

} // namespace cs
