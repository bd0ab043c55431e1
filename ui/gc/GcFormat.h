// Text for GC figures in the views: sizes, offsets, durations, counts.
#pragma once
#include <QString>

#include <cstdint>

namespace ui::gcfmt {

QString size(uint64_t bytes);          // "8.0 MiB"
QString offset(uint64_t offset);       // "0x1a2b3c (1,715,004)"
QString count(uint64_t n);             // "1,715,004"
QString seconds(double s);             // "12.3 ms", "1.52 s"
QString percent(double p);             // "87.5 %", "n/a" when p < 0

} // namespace ui::gcfmt
