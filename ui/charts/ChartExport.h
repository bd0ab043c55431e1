// Chart and table export, picked by the file's extension:
//  - a QCustomPlot to .png (savePng), .pdf (savePdf) or .svg (QSvgGenerator
//    painted through QCPPainter, so the SVG holds vector paths);
//  - any painting (a custom widget such as the frame band) to the same three;
//  - a table model to .csv (RFC 4180 quoting, header row from headerData).
// Every function returns false with one sentence in *error naming the file;
// the caller shows it (QMessageBox), nothing here is silent or modal.
#pragma once
#include <QSize>
#include <QString>

#include <functional>

class QAbstractItemModel;
class QCustomPlot;
class QPainter;
class QWidget;

namespace ui {

// Models may return the unformatted value for CSV under this role (numbers
// without thousands separators or units); DisplayRole is used otherwise.
constexpr int RawValueRole = 0x0100 + 1;  // Qt::UserRole + 1

// "PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg)"
QString imageExportFilter();
QString csvExportFilter();

// size: output size in pixels (points for PDF); empty = the plot's own size.
bool exportPlot(QCustomPlot* plot, const QString& path, QString* error, QSize size = {});

// paint(painter, size) draws the picture in a size-sized rectangle at (0,0).
using PaintFunction = std::function<void(QPainter&, const QSize&)>;
bool exportPainting(const PaintFunction& paint, QSize size, const QString& path, QString* error);
// A widget as it renders itself (raster content stays raster inside PDF/SVG).
bool exportWidget(QWidget* widget, const QString& path, QString* error);

bool exportCsv(const QAbstractItemModel* model, const QString& path, QString* error);

// Asks for a file name (starting with suggestedName) and exports; shows a
// message box on failure. Returns true when a file was written.
bool askAndExportPlot(QWidget* parent, QCustomPlot* plot, const QString& suggestedName);
bool askAndExportPainting(QWidget* parent, const PaintFunction& paint, QSize size, const QString& suggestedName);
bool askAndExportCsv(QWidget* parent, const QAbstractItemModel* model, const QString& suggestedName);

} // namespace ui
