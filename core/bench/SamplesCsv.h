// The one CSV dialect of benchmark samples, written by `cachescope-cli bench
// --csv`, by the GUI's Export Samples as CSV and read by `cachescope
// --render-samples` (and by spreadsheets):
//
//   t,series,value
//   0.5,"throughput MB/s",812.25
//
// One header line, then one line per sample: t in seconds since the run
// started, the series name always quoted (RFC 4180: a quote inside is
// doubled; commas are allowed), the value; numbers in the shortest form that
// reads back exactly, '.' as the decimal point in every locale. Lines end
// in '\n'. The reader also takes an unquoted series, '\r\n' line ends and
// blank lines.
#pragma once
#include "core/bench/Bench.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace cs {

inline constexpr const char* kSamplesCsvHeader = "t,series,value";

void writeSamplesCsv(std::ostream& out, const std::vector<Sample>& samples);
std::string samplesCsv(const std::vector<Sample>& samples);

// Throws cs::Error "<name>: line N: ..." on anything not in the dialect.
std::vector<Sample> parseSamplesCsv(std::istream& in, const std::string& name);
std::vector<Sample> readSamplesCsvFile(const std::string& path);

} // namespace cs
