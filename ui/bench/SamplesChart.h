// Draws benchmark charts to PNG, PDF or SVG for `cachescope-cli bench`,
// which links no Qt and runs the GUI binary offscreen to draw:
//  - renderRunChart: the summary chart (SummaryChart) of a run read from
//    its JSON (cs::runToJson with samples), for `bench --plot`;
//  - renderSamplesChart: the timeline of samples read from a CSV file (the
//    dialect of core/bench/SamplesCsv.h, which `bench --csv` and the GUI's
//    sample export write), for `bench --plot-timeline`.
#pragma once
#include <QString>

#include <vector>

namespace cs { struct Sample; }

namespace ui {

bool readSamplesCsv(const QString& path, std::vector<cs::Sample>& out, QString* error);
bool renderSamplesChart(const QString& csvPath, const QString& outPath, QString* error);
bool renderRunChart(const QString& jsonPath, const QString& outPath, QString* error);

} // namespace ui
