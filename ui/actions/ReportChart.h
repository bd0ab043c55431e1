// The server report (core/entries/ServerReport.h) drawn as one
// QCustomPlot, so it exports like every benchmark chart (ui/charts/
// ChartExport.h: PNG, PDF, SVG; the same Export Chart… dialog): a title
// with the totals, four panels of horizontal bars in bytes (binary units on
// the axis, each bar's size and entries printed at its end): the ten
// largest key families, the ten largest scopes, the days since the last
// download with the never-downloaded entries as their own bar, and what is
// past the retention by reason (never downloaded: the server's cleanup never
// deletes it; awaiting cleanup: its daily run has not reached it); then a
// caption with what bars do not show: past retention as counts and how
// many of them are listed, health, compression, repetition, the size index.
// The Report tab and `cachescope --render-report` (what `cachescope-cli
// actions-cache report --plot` runs) draw the same picture.
#pragma once
#include "core/entries/ServerReport.h"

#include <QString>

class QCustomPlot;

namespace ui {

// The panels, in order (the plot's axis rects and plottables).
enum class ReportPanel { Families, Scopes, Age, PastRetention, Count };

// Clears the plot and draws r into it (the plot keeps its theme); sets the
// plot's minimum height to what the panels and the caption need.
void drawServerReport(QCustomPlot* plot, const cs::entries::ServerReport& r);

// The caption's lines (retention, health, compression, repetition, index).
QString serverReportCaption(const cs::entries::ServerReport& r);
// "Past a retention of 30 days: 3 entries (1.2 MiB): 2 never downloaded ..., the oldest 3 of 3 listed."
QString pastRetentionSummary(const cs::entries::ServerReport& r);

// For `cachescope-cli actions-cache report --plot`: the report's JSON (the
// CLI's --json document) drawn to outPath (.png, .pdf, .svg) at
// kReportImageSize.
bool renderServerReport(const QString& jsonPath, const QString& outPath, QString* error);
inline constexpr int kReportImageWidth = 1100, kReportImageHeight = 1300;

} // namespace ui
