// Colours a QCustomPlot from the widget palette (background, axes, ticks,
// labels, grid, legend) and again on every QEvent::PaletteChange, so plots
// follow light and dark themes. Series colours come from seriesColor(), a
// fixed set that reads on both. Attach once: PlotTheme::attach(plot).
#pragma once
#include <QColor>
#include <QObject>

class QCustomPlot;
class QPalette;

namespace ui {

class PlotTheme : public QObject {
    Q_OBJECT
public:
    // The theme is a child of the plot and lives as long as it.
    static PlotTheme* attach(QCustomPlot* plot);
    // Applies the palette now (and replots).
    static void apply(QCustomPlot* plot);
    static QColor seriesColor(int index);
    static bool isDark(const QPalette& palette);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit PlotTheme(QCustomPlot* plot);
    QCustomPlot* plot_;
};

} // namespace ui
