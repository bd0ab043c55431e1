// Renders benchmark samples read from a CSV file (the dialect of
// core/bench/SamplesCsv.h, which `cachescope-cli bench --csv` and the GUI's
// sample export write) to PNG, PDF or SVG. The GUI binary
// does this for `cachescope-cli bench --plot`, so the command-line tool stays
// a Qt Core program that loads no widget libraries at start.
#pragma once
#include <QString>

#include <vector>

namespace cs { struct Sample; }

namespace ui {

bool readSamplesCsv(const QString& path, std::vector<cs::Sample>& out, QString* error);
bool renderSamplesChart(const QString& csvPath, const QString& outPath, QString* error);

} // namespace ui
