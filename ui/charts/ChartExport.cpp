#include "ui/charts/ChartExport.h"

#include "ui/charts/ChartExportDialog.h"

#include <QAbstractItemModel>
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>
#include <qcustomplot.h>

namespace ui {

namespace {

constexpr double kScreenDpi = 96.0;

QString suffixOf(const QString& path)
{
    return QFileInfo(path).suffix().toLower();
}

bool setError(QString* error, const QString& text)
{
    if (error)
        *error = text;
    return false;
}

bool unsupported(const QString& path, QString* error, const QString& allowed)
{
    return setError(error, QObject::tr("%1: cannot export to “.%2”; use %3.").arg(path, suffixOf(path), allowed));
}

bool checkWritten(const QString& path, QString* error)
{
    const QFileInfo info(path);
    if (!info.exists() || info.size() == 0)
        return setError(error, QObject::tr("%1: the file could not be written.").arg(path));
    return true;
}

// Colours of the margin around a picture and of its title.
struct Look {
    QColor background = Qt::white;
    QColor text = Qt::black;
};

// Draws the title (if any) across the top of a size-sized page and the
// body below it. The painter's units are 96-dpi pixels.
using Body = std::function<void(QCPPainter&, const QSize&)>;

void paintPage(QCPPainter& painter, QSize size, const QString& title, const Look& look, const Body& body)
{
    painter.fillRect(QRect(QPoint(0, 0), size), look.background);
    if (!title.isEmpty()) {
        QFont font = QApplication::font();
        font.setBold(true);
        font.setPointSizeF(font.pointSizeF() * 1.35);
        painter.setFont(font);
        painter.setPen(look.text);
        const int height = qRound(QFontMetricsF(font, painter.device()).height() * 1.8);
        painter.drawText(QRect(0, 0, size.width(), height), Qt::AlignCenter, title);
        painter.translate(0, height);
        size.setHeight(qMax(1, size.height() - height));
    }
    body(painter, size);
}

// Writes SVG through a QSaveFile, so a failed export leaves no half file.
bool writeSvg(const QString& path, QSize page, const std::function<bool(QSvgGenerator&)>& paint, QString* error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return setError(error, QObject::tr("%1: cannot write: %2.").arg(path, file.errorString()));
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setResolution(int(kScreenDpi));
    svg.setSize(page);
    svg.setViewBox(QRect(QPoint(0, 0), page));
    svg.setTitle(QFileInfo(path).completeBaseName());
    svg.setDescription(QStringLiteral("cachescope"));
    if (!paint(svg))
        return setError(error, QObject::tr("%1: cannot start the SVG writer.").arg(path));
    if (!file.commit())
        return setError(error, QObject::tr("%1: cannot write: %2.").arg(path, file.errorString()));
    return true;
}

// The one writer of pictures: picks the format by extension. PNG pages are
// options.size pixels painted at dpi / 96 scale; PDF and SVG pages are the
// same picture in 96-dpi units (vectorized says the body is a QCustomPlot
// that must draw vector paths).
bool writePicture(const QString& path, const ExportOptions& options, const Look& look, bool vectorized,
                  const Body& body, QString* error)
{
    const QString ext = suffixOf(path);
    if (ext != QLatin1String("png") && ext != QLatin1String("pdf") && ext != QLatin1String("svg"))
        return unsupported(path, error, QStringLiteral(".png, .pdf or .svg"));
    if (options.size.isEmpty())
        return setError(error, QObject::tr("%1: the picture has no size.").arg(path));
    if (options.dpi < 24 || options.dpi > 1200)
        return setError(error, QObject::tr("%1: %2 dpi is outside 24..1200.").arg(path).arg(options.dpi));
    const double scale = options.dpi / kScreenDpi;
    const QSize page = (QSizeF(options.size) / scale).toSize().expandedTo(QSize(1, 1));

    if (ext == QLatin1String("png")) {
        QImage image(options.size, QImage::Format_ARGB32_Premultiplied);
        image.fill(look.background);
        {
            QCPPainter painter(&image);
            // Plots antialias per element; paintings are pixel-aligned bands.
            painter.setRenderHint(QPainter::Antialiasing, false);
            painter.setRenderHint(QPainter::TextAntialiasing);
            painter.scale(scale, scale);
            paintPage(painter, page, options.title, look, body);
        }
        // Set after painting: QPainter sizes point fonts by the device's dpi.
        const int dotsPerMeter = qRound(options.dpi / 0.0254);
        image.setDotsPerMeterX(dotsPerMeter);
        image.setDotsPerMeterY(dotsPerMeter);
        QSaveFile file(path);
        if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit())
            return setError(error, QObject::tr("%1: the PNG image could not be written: %2.").arg(path, file.errorString()));
        return checkWritten(path, error);
    }
    auto paintVector = [&](QPaintDevice* device) {
        QCPPainter painter;
        if (!painter.begin(device))
            return false;
        if (vectorized) {
            painter.setMode(QCPPainter::pmVectorized);
            painter.setMode(QCPPainter::pmNoCaching);
        }
        paintPage(painter, page, options.title, look, body);
        painter.end();
        return true;
    };
    if (ext == QLatin1String("pdf")) {
        {
            QFile probe(path);
            if (!probe.open(QIODevice::WriteOnly))
                return setError(error, QObject::tr("%1: cannot write: %2.").arg(path, probe.errorString()));
        }
        QPdfWriter pdf(path);
        pdf.setCreator(QStringLiteral("cachescope"));
        pdf.setTitle(options.title);
        pdf.setResolution(int(kScreenDpi));   // one unit of the picture = one 96-dpi pixel
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setPageSize(QPageSize(QSizeF(page) * 72.0 / kScreenDpi, QPageSize::Point, QString(), QPageSize::ExactMatch));
        if (!paintVector(&pdf))
            return setError(error, QObject::tr("%1: cannot start the PDF writer.").arg(path));
        return checkWritten(path, error);
    }
    return writeSvg(path, page, [&](QSvgGenerator& svg) { return paintVector(&svg); }, error);
}

QString csvField(QString s)
{
    if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) || s.contains(QLatin1Char('\n')) ||
        s.contains(QLatin1Char('\r'))) {
        s.replace(QLatin1String("\""), QLatin1String("\"\""));
        return QLatin1Char('"') + s + QLatin1Char('"');
    }
    return s;
}

} // namespace

QString imageExportFilter()
{
    return QObject::tr("PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg)");
}

QString csvExportFilter()
{
    return QObject::tr("CSV table (*.csv)");
}

QString withExtension(const QString& path, const QString& selectedFilter)
{
    if (path.isEmpty() || !QFileInfo(path).suffix().isEmpty())
        return path;
    static const QRegularExpression pattern(QStringLiteral("\\*\\.([A-Za-z0-9]+)"));
    const QRegularExpressionMatch m = pattern.match(selectedFilter);
    return m.hasMatch() ? path + QLatin1Char('.') + m.captured(1).toLower() : path;
}

bool exportPlot(QCustomPlot* plot, const QString& path, QString* error, QSize size)
{
    ExportOptions options;
    options.size = size.isEmpty() ? (plot->size().isEmpty() ? QSize(800, 500) : plot->size()) : size;
    return exportPlot(plot, path, options, error);
}

bool exportPlot(QCustomPlot* plot, const QString& path, const ExportOptions& options, QString* error)
{
    const Look look{plot->palette().color(QPalette::Base), plot->palette().color(QPalette::Text)};
    const bool ok = writePicture(path, options, look, true, [plot](QCPPainter& painter, const QSize& size) {
        plot->toPainter(&painter, size.width(), size.height());
    }, error);
    // toPainter laid the plot out for the file's size: lay it out again for the screen.
    plot->replot(QCustomPlot::rpQueuedReplot);
    return ok;
}

bool exportPainting(const PaintFunction& paint, QSize size, const QString& path, QString* error)
{
    ExportOptions options;
    options.size = size;
    return exportPainting(paint, options, path, error);
}

bool exportPainting(const PaintFunction& paint, const ExportOptions& options, const QString& path, QString* error)
{
    return writePicture(path, options, Look{}, false,
                        [&paint](QCPPainter& painter, const QSize& size) { paint(painter, size); }, error);
}

bool exportWidget(QWidget* widget, const QString& path, QString* error)
{
    return exportPainting([widget](QPainter& p, const QSize&) { widget->render(&p); }, widget->size(), path, error);
}

bool exportCsv(const QAbstractItemModel* model, const QString& path, QString* error)
{
    if (suffixOf(path) != QLatin1String("csv"))
        return unsupported(path, error, QStringLiteral(".csv"));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return setError(error, QObject::tr("%1: cannot write: %2.").arg(path, file.errorString()));
    const int rows = model->rowCount();
    const int cols = model->columnCount();
    QByteArray line;
    auto endLine = [&] {
        line += '\n';
        file.write(line);
        line.clear();
    };
    for (int c = 0; c < cols; ++c) {
        if (c)
            line += ',';
        line += csvField(model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString()).toUtf8();
    }
    endLine();
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            if (c)
                line += ',';
            const QModelIndex index = model->index(r, c);
            QVariant v = model->data(index, RawValueRole);
            if (!v.isValid())
                v = model->data(index, Qt::DisplayRole);
            line += csvField(v.toString()).toUtf8();
        }
        endLine();
    }
    if (!file.commit())
        return setError(error, QObject::tr("%1: cannot write: %2.").arg(path, file.errorString()));
    return true;
}

namespace {

bool report(QWidget* parent, bool ok, const QString& error)
{
    if (!ok)
        QMessageBox::warning(parent, QObject::tr("Export failed"), error);
    return ok;
}

} // namespace

bool askAndExportPlot(QWidget* parent, QCustomPlot* plot, const QString& suggestedName)
{
    ChartExportDialog dialog(parent, suggestedName, plot->size().isEmpty() ? QSize(800, 500) : plot->size());
    if (dialog.exec() != QDialog::Accepted)
        return false;
    QString error;
    return report(parent, exportPlot(plot, dialog.path(), dialog.options(), &error), error);
}

bool askAndExportPainting(QWidget* parent, const PaintFunction& paint, QSize size, const QString& suggestedName)
{
    ChartExportDialog dialog(parent, suggestedName, size);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    QString error;
    return report(parent, exportPainting(paint, dialog.options(), dialog.path(), &error), error);
}

bool askAndExportCsv(QWidget* parent, const QAbstractItemModel* model, const QString& suggestedName)
{
    QString filter = csvExportFilter();
    const QString path = withExtension(
        QFileDialog::getSaveFileName(parent, QObject::tr("Export table"), withExtension(suggestedName, filter), filter, &filter),
        filter);
    if (path.isEmpty())
        return false;
    QString error;
    return report(parent, exportCsv(model, path, &error), error);
}

} // namespace ui
