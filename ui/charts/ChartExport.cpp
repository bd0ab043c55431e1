#include "ui/charts/ChartExport.h"

#include <QAbstractItemModel>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>
#include <qcustomplot.h>

namespace ui {

namespace {

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

// Writes SVG through a QSaveFile, so a failed export leaves no half file.
// paint gets the generator and must begin/end its own painter (QCustomPlot
// needs a QCPPainter, plain pictures a QPainter).
bool writeSvg(const QString& path, QSize size, const std::function<bool(QSvgGenerator&)>& paint, QString* error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return setError(error, QObject::tr("%1: cannot write: %2.").arg(path, file.errorString()));
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(QFileInfo(path).completeBaseName());
    svg.setDescription(QStringLiteral("cachescope"));
    if (!paint(svg))
        return setError(error, QObject::tr("%1: cannot start the SVG writer.").arg(path));
    if (!file.commit())
        return setError(error, QObject::tr("%1: cannot write: %2.").arg(path, file.errorString()));
    return true;
}

bool paintSvg(QSvgGenerator& svg, const std::function<void(QPainter&)>& paint)
{
    QPainter painter;
    if (!painter.begin(&svg))
        return false;
    paint(painter);
    painter.end();
    return true;
}

bool writePdf(const QString& path, QSize size, const std::function<void(QPainter&)>& paint, QString* error)
{
    {
        QFile probe(path);
        if (!probe.open(QIODevice::WriteOnly))
            return setError(error, QObject::tr("%1: cannot write: %2.").arg(path, probe.errorString()));
    }
    QPdfWriter pdf(path);
    pdf.setCreator(QStringLiteral("cachescope"));
    pdf.setResolution(72);  // one pixel of the picture = one point on the page
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
    pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point, QString(), QPageSize::ExactMatch));
    QPainter painter;
    if (!painter.begin(&pdf))
        return setError(error, QObject::tr("%1: cannot start the PDF writer.").arg(path));
    paint(painter);
    painter.end();
    return checkWritten(path, error);
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

bool exportPlot(QCustomPlot* plot, const QString& path, QString* error, QSize size)
{
    if (size.isEmpty())
        size = plot->size().isEmpty() ? QSize(800, 500) : plot->size();
    const QString ext = suffixOf(path);
    if (ext == QLatin1String("png")) {
        if (!plot->savePng(path, size.width(), size.height()))
            return setError(error, QObject::tr("%1: the PNG image could not be written.").arg(path));
        return checkWritten(path, error);
    }
    if (ext == QLatin1String("pdf")) {
        {
            QFile probe(path);
            if (!probe.open(QIODevice::WriteOnly))
                return setError(error, QObject::tr("%1: cannot write: %2.").arg(path, probe.errorString()));
        }
        if (!plot->savePdf(path, size.width(), size.height(), QCP::epNoCosmetic, QStringLiteral("cachescope")))
            return setError(error, QObject::tr("%1: the PDF document could not be written.").arg(path));
        return checkWritten(path, error);
    }
    if (ext == QLatin1String("svg")) {
        return writeSvg(path, size, [&](QSvgGenerator& svg) {
            QCPPainter painter;
            if (!painter.begin(&svg))
                return false;
            painter.setMode(QCPPainter::pmVectorized);
            painter.setMode(QCPPainter::pmNoCaching);
            plot->toPainter(&painter, size.width(), size.height());
            painter.end();
            return true;
        }, error);
    }
    return unsupported(path, error, QStringLiteral(".png, .pdf or .svg"));
}

bool exportPainting(const PaintFunction& paint, QSize size, const QString& path, QString* error)
{
    const QString ext = suffixOf(path);
    if (ext == QLatin1String("png")) {
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        {
            QPainter painter(&image);
            painter.setRenderHint(QPainter::Antialiasing, false);
            paint(painter, size);
        }
        if (!image.save(path, "PNG"))
            return setError(error, QObject::tr("%1: the PNG image could not be written.").arg(path));
        return checkWritten(path, error);
    }
    if (ext == QLatin1String("pdf"))
        return writePdf(path, size, [&](QPainter& p) { paint(p, size); }, error);
    if (ext == QLatin1String("svg"))
        return writeSvg(path, size, [&](QSvgGenerator& svg) { return paintSvg(svg, [&](QPainter& p) { paint(p, size); }); }, error);
    return unsupported(path, error, QStringLiteral(".png, .pdf or .svg"));
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

QString askPath(QWidget* parent, const QString& title, const QString& suggestedName, const QString& filter)
{
    return QFileDialog::getSaveFileName(parent, title, suggestedName, filter);
}

bool report(QWidget* parent, bool ok, const QString& error)
{
    if (!ok)
        QMessageBox::warning(parent, QObject::tr("Export failed"), error);
    return ok;
}

} // namespace

bool askAndExportPlot(QWidget* parent, QCustomPlot* plot, const QString& suggestedName)
{
    const QString path = askPath(parent, QObject::tr("Export chart"), suggestedName, imageExportFilter());
    if (path.isEmpty())
        return false;
    QString error;
    return report(parent, exportPlot(plot, path, &error), error);
}

bool askAndExportPainting(QWidget* parent, const PaintFunction& paint, QSize size, const QString& suggestedName)
{
    const QString path = askPath(parent, QObject::tr("Export picture"), suggestedName, imageExportFilter());
    if (path.isEmpty())
        return false;
    QString error;
    return report(parent, exportPainting(paint, size, path, &error), error);
}

bool askAndExportCsv(QWidget* parent, const QAbstractItemModel* model, const QString& suggestedName)
{
    const QString path = askPath(parent, QObject::tr("Export table"), suggestedName, csvExportFilter());
    if (path.isEmpty())
        return false;
    QString error;
    return report(parent, exportCsv(model, path, &error), error);
}

} // namespace ui
