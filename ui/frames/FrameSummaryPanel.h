// The verdict of a frame layout (can a parallel decoder split it, into how
// many pieces, and why) and its summary figures, as labels.
#pragma once
#include "core/frames/FrameLayout.h"

#include <QWidget>

class QGridLayout;
class QLabel;

namespace ui {

class FrameSummaryPanel : public QWidget {
    Q_OBJECT
public:
    explicit FrameSummaryPanel(QWidget* parent = nullptr);

    void setLayoutSummary(const cs::FrameLayout& layout);
    void showError(const QString& message);
    void clear();

    // "Splittable: yes · 12 independent pieces — <reason>"
    QString verdictText() const;
    QLabel* verdictLabel() const { return verdict_; }

private:
    QLabel* addFigure(QGridLayout* grid, int row, int column, const QString& name);

    QLabel* verdict_;
    QLabel* frames_;
    QLabel* sized_;
    QLabel* compressed_;
    QLabel* content_;
    QLabel* ratio_;
    QLabel* largest_;
    QLabel* seekTable_;
    QLabel* checksums_;
};

} // namespace ui
