// Chart and table export, picked by the file's extension:
//  - a QCustomPlot to .png, .pdf or .svg (SVG through QSvgGenerator painted
//    by a QCPPainter, so it holds vector paths);
//  - any painting (a custom widget such as the frame band) to the same three;
//  - a table model to .csv (RFC 4180 quoting, header row from headerData).
// Pictures are exported at a chosen size and resolution with an optional
// title above them (ExportOptions). Every function returns false with one
// sentence in *error naming the file; the caller shows it (QMessageBox),
// nothing here is silent or modal.
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

// path with the extension of selectedFilter ("PNG image (*.png)" -> .png;
// the filter's first pattern) appended when path has no extension at all.
// A path with another extension is left as it is (and refused later).
QString withExtension(const QString& path, const QString& selectedFilter);

struct ExportOptions {
    // PNG: the image's size in pixels. PDF and SVG: the size in pixels at
    // dpi, drawn as a page of size * 96 / dpi points or SVG units, so text
    // and lines keep the proportions the PNG has.
    QSize size;
    // Pixels per inch: text and lines are drawn dpi / 96 times thicker than
    // on a standard screen, and PNG files record it.
    int dpi = 96;
    QString title;   // drawn centred above the picture when not empty
};

// size: output size in pixels; empty = the plot's own size.
bool exportPlot(QCustomPlot* plot, const QString& path, QString* error, QSize size = {});
bool exportPlot(QCustomPlot* plot, const QString& path, const ExportOptions& options, QString* error);

// paint(painter, size) draws the picture in a size-sized rectangle at (0,0).
using PaintFunction = std::function<void(QPainter&, const QSize&)>;
bool exportPainting(const PaintFunction& paint, QSize size, const QString& path, QString* error);
bool exportPainting(const PaintFunction& paint, const ExportOptions& options, const QString& path, QString* error);
// A widget as it renders itself (raster content stays raster inside PDF/SVG).
bool exportWidget(QWidget* widget, const QString& path, QString* error);

bool exportCsv(const QAbstractItemModel* model, const QString& path, QString* error);

// Asks for a file, size, resolution and title (ChartExportDialog, starting
// with suggestedName and size) and exports; shows a message box on
// failure. Returns true when a file was written.
bool askAndExportPlot(QWidget* parent, QCustomPlot* plot, const QString& suggestedName);
bool askAndExportPainting(QWidget* parent, const PaintFunction& paint, QSize size, const QString& suggestedName);
bool askAndExportCsv(QWidget* parent, const QAbstractItemModel* model, const QString& suggestedName);

} // namespace ui
