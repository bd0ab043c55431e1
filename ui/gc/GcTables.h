// The GC figures as table models and a chart, shared by the GC run view:
// per-step getrusage table, totals, history of runs, two runs compared.
// Cells show formatted text; RawValueRole holds the plain number for CSV.
#pragma once
#include "core/gc/Gc.h"

#include <QString>

#include <vector>

class QCustomPlot;
class QStandardItemModel;

namespace ui::gctables {

// One row per step (wall, user, sys, maxrss, minflt, majflt, inblock,
// oublock, nvcsw, nivcsw, what the step does: the copies are in "traverse")
// and a total row (sums; maxrss is the maximum).
void fillSteps(QStandardItemModel* model, const cs::gc::GcStats& stats);
// Figure / value: objects visited, live and reclaimed bytes, pack before and after, ...
void fillTotals(QStandardItemModel* model, const cs::gc::GcStats& stats);
// One row per run, newest first (as gcHistory returns them); the run id under Qt::UserRole of column 0.
void fillHistory(QStandardItemModel* model, const std::vector<cs::gc::GcRun>& runs);
// Figure, A, B, B as % of A.
void fillCompare(QStandardItemModel* model, const std::vector<cs::gc::GcCompareRow>& rows, const QString& labelA,
                 const QString& labelB);
// Grouped bars of each step's wall time (ms) for runs A and B.
void plotStepWalls(QCustomPlot* plot, const cs::gc::GcStats& a, const cs::gc::GcStats& b, const QString& labelA,
                   const QString& labelB);

double totalWallSeconds(const cs::gc::GcStats& stats);

} // namespace ui::gctables
