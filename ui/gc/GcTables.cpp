#include "ui/gc/GcTables.h"

#include "ui/charts/ChartExport.h"
#include "ui/charts/PlotTheme.h"
#include "ui/gc/GcFormat.h"

#include <QDateTime>
#include <QStandardItemModel>
#include <qcustomplot.h>

namespace ui::gctables {

namespace {

QStandardItem* textItem(const QString& text)
{
    auto* item = new QStandardItem(text);
    item->setEditable(false);
    item->setData(text, RawValueRole);
    return item;
}

QStandardItem* numberItem(const QString& text, double raw)
{
    auto* item = new QStandardItem(text);
    item->setEditable(false);
    item->setData(raw, RawValueRole);
    item->setData(QVariant(Qt::AlignRight | Qt::AlignVCenter), Qt::TextAlignmentRole);
    return item;
}

QStandardItem* countItem(uint64_t n) { return numberItem(gcfmt::count(n), double(n)); }
QStandardItem* sizeItem(uint64_t n) { return numberItem(gcfmt::size(n), double(n)); }
QStandardItem* secondsItem(double s) { return numberItem(gcfmt::seconds(s), s); }

void reset(QStandardItemModel* model, const QStringList& headers)
{
    model->clear();
    model->setHorizontalHeaderLabels(headers);
}

QString runLabel(const cs::gc::GcStats& s)
{
    return s.dryRun ? QObject::tr("dry run") : QObject::tr("GC");
}

} // namespace

double totalWallSeconds(const cs::gc::GcStats& stats)
{
    double t = 0;
    for (const auto& s : stats.steps)
        t += s.wallSeconds;
    return t;
}

void fillSteps(QStandardItemModel* model, const cs::gc::GcStats& stats)
{
    reset(model, {QObject::tr("Step"), QObject::tr("Wall"), QObject::tr("User"), QObject::tr("Sys"),
                  QObject::tr("Max RSS"), QObject::tr("minflt"), QObject::tr("majflt"), QObject::tr("inblock"),
                  QObject::tr("oublock"), QObject::tr("nvcsw"), QObject::tr("nivcsw"), QObject::tr("What it does")});
    cs::gc::StepStats total;
    total.name = QObject::tr("total").toStdString();
    auto addRow = [&](const cs::gc::StepStats& s, bool bold) {
        QList<QStandardItem*> row{textItem(QString::fromStdString(s.name)), secondsItem(s.wallSeconds),
                                  secondsItem(s.userSeconds), secondsItem(s.sysSeconds),
                                  numberItem(gcfmt::size(s.maxrssKiB * 1024), double(s.maxrssKiB)),
                                  countItem(s.minflt), countItem(s.majflt), countItem(s.inblock), countItem(s.oublock),
                                  countItem(s.nvcsw), countItem(s.nivcsw),
                                  textItem(QString::fromStdString(cs::gc::gcStepWork(s.name)))};
        row.front()->setToolTip(row.back()->text());
        if (bold)
            for (QStandardItem* it : row) {
                QFont f = it->font();
                f.setBold(true);
                it->setFont(f);
            }
        model->appendRow(row);
    };
    for (const auto& s : stats.steps) {
        addRow(s, false);
        total.wallSeconds += s.wallSeconds;
        total.userSeconds += s.userSeconds;
        total.sysSeconds += s.sysSeconds;
        total.maxrssKiB = std::max(total.maxrssKiB, s.maxrssKiB);
        total.minflt += s.minflt;
        total.majflt += s.majflt;
        total.inblock += s.inblock;
        total.oublock += s.oublock;
        total.nvcsw += s.nvcsw;
        total.nivcsw += s.nivcsw;
    }
    addRow(total, true);
}

void fillTotals(QStandardItemModel* model, const cs::gc::GcStats& st)
{
    reset(model, {QObject::tr("Figure"), QObject::tr("Value")});
    auto add = [&](const QString& name, QStandardItem* value) { model->appendRow({textItem(name), value}); };
    add(QObject::tr("Kind"), textItem(runLabel(st)));
    add(QObject::tr("Status"), textItem(QString::fromStdString(st.status) +
                                        (st.error.empty() ? QString() : QStringLiteral(": ") + QString::fromStdString(st.error))));
    add(QObject::tr("Generation"),
        numberItem(st.dryRun ? QString::number(st.generationBefore)
                             : QStringLiteral("%1 → %2").arg(st.generationBefore).arg(st.generation),
                   double(st.generation)));
    add(QObject::tr("Split point"), sizeItem(st.split));
    add(QObject::tr("Roots (live entries)"), countItem(st.roots));
    add(QObject::tr("Objects visited"), countItem(st.objectsVisited));
    add(QObject::tr("Live bytes"), sizeItem(st.liveBytes));
    add(QObject::tr("Reclaimed bytes"), sizeItem(st.reclaimedBytes));
    if (st.dryRun)
        add(QObject::tr("Dead objects"), countItem(st.deadObjects));
    add(QObject::tr("Live ranges (mapping records)"), countItem(st.ranges));
    add(QObject::tr("Largest frontier"), countItem(st.largestFrontier));
    add(QObject::tr("Bytes copied"), sizeItem(st.bytesCopied));
    add(QObject::tr("Appended during GC"), sizeItem(st.appendedDuringGc));
    add(QObject::tr("Chunk rows deleted"), countItem(st.chunkRowsDeleted));
    add(QObject::tr("Pack before"), sizeItem(st.packBytesBefore()));
    add(QObject::tr("Pack after"), sizeItem(st.packBytesAfter()));
    add(QObject::tr("  suffix before → after"),
        numberItem(QStringLiteral("%1 → %2").arg(gcfmt::size(st.before.suffix), gcfmt::size(st.after.suffix)),
                   double(st.after.suffix)));
    add(QObject::tr("  prefix before → after"),
        numberItem(QStringLiteral("%1 → %2").arg(gcfmt::size(st.before.prefix), gcfmt::size(st.after.prefix)),
                   double(st.after.prefix)));
    add(QObject::tr("  mapping before → after"),
        numberItem(QStringLiteral("%1 → %2").arg(gcfmt::size(st.before.mapping), gcfmt::size(st.after.mapping)),
                   double(st.after.mapping)));
    add(QObject::tr("Wall time"), secondsItem(totalWallSeconds(st)));
}

void fillHistory(QStandardItemModel* model, const std::vector<cs::gc::GcRun>& runs)
{
    reset(model, {QObject::tr("Run"), QObject::tr("Started"), QObject::tr("Kind"), QObject::tr("Status"),
                  QObject::tr("Generation"), QObject::tr("Wall"), QObject::tr("Live"), QObject::tr("Reclaimed"),
                  QObject::tr("Pack before"), QObject::tr("Pack after")});
    for (const auto& r : runs) {
        auto* id = numberItem(QString::number(r.id), double(r.id));
        id->setData(qlonglong(r.id), Qt::UserRole);
        const QDateTime started = QDateTime::fromMSecsSinceEpoch(qint64(r.started * 1000.0));
        model->appendRow({id, numberItem(started.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")), r.started),
                          textItem(runLabel(r.stats)), textItem(QString::fromStdString(r.status)),
                          countItem(r.generation), secondsItem(totalWallSeconds(r.stats)),
                          sizeItem(r.stats.liveBytes), sizeItem(r.stats.reclaimedBytes),
                          sizeItem(r.stats.packBytesBefore()), sizeItem(r.stats.packBytesAfter())});
    }
}

void fillCompare(QStandardItemModel* model, const std::vector<cs::gc::GcCompareRow>& rows, const QString& labelA,
                 const QString& labelB)
{
    reset(model, {QObject::tr("Figure"), labelA, labelB, QObject::tr("B as % of A")});
    for (const auto& r : rows) {
        const QString figure = QString::fromStdString(r.figure);
        auto value = [&](double v) {
            if (figure.endsWith(QLatin1String("_s")))
                return secondsItem(v);
            if (figure.contains(QLatin1String("bytes")))
                return sizeItem(uint64_t(v));
            if (figure.endsWith(QLatin1String("_kib")))
                return numberItem(gcfmt::size(uint64_t(v) * 1024), v);
            return countItem(uint64_t(v));
        };
        auto* pct = numberItem(gcfmt::percent(r.percent), r.percent);
        if (r.percent >= 0 && r.a != 0) {
            // Below 100 % is less (faster, smaller) in B.
            if (r.percent < 90)
                pct->setForeground(QColor(0x2e, 0x8b, 0x57));
            else if (r.percent > 110)
                pct->setForeground(QColor(0xc0, 0x39, 0x2b));
        }
        model->appendRow({textItem(figure), value(r.a), value(r.b), pct});
    }
}

void plotStepWalls(QCustomPlot* plot, const cs::gc::GcStats& a, const cs::gc::GcStats& b, const QString& labelA,
                   const QString& labelB)
{
    plot->clearPlottables();
    const auto& names = cs::gc::gcStepNames();
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    QVector<double> keys;
    for (int i = 0; i < int(names.size()); ++i) {
        keys << i + 1;
        // "write mapping" -> two lines, so neighbouring labels do not overlap on a narrow chart.
        ticker->addTick(i + 1, QString::fromStdString(names[size_t(i)]).replace(QLatin1Char(' '), QLatin1Char('\n')));
    }
    auto wallsOf = [&](const cs::gc::GcStats& s) {
        QVector<double> v(keys.size(), 0.0);
        for (const auto& st : s.steps)
            for (int i = 0; i < int(names.size()); ++i)
                if (st.name == names[size_t(i)])
                    v[i] = st.wallSeconds * 1000.0;
        return v;
    };
    auto* group = new QCPBarsGroup(plot);
    double top = 0;
    int index = 0;
    for (const auto& [label, stats] : {std::pair{labelA, &a}, std::pair{labelB, &b}}) {
        auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setName(label);
        bars->setWidth(0.35);
        bars->setBarsGroup(group);
        const QColor c = PlotTheme::seriesColor(index++);
        bars->setPen(QPen(c.darker(120)));
        bars->setBrush(c);
        const QVector<double> walls = wallsOf(*stats);
        bars->setData(keys, walls);
        for (double w : walls)
            top = std::max(top, w);
    }
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setRange(0.4, double(names.size()) + 0.6);
    plot->yAxis->setLabel(QObject::tr("wall time (ms)"));
    plot->yAxis->setRange(0, top > 0 ? top * 1.15 : 1.0);
    plot->legend->setVisible(true);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    PlotTheme::apply(plot);
    plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace ui::gctables
