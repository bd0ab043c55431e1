#include "ui/gc/GcStepList.h"

#include "core/gc/Gc.h"

#include <QPainter>
#include <QPainterPath>

namespace ui {

namespace {
constexpr int kIconSize = 16;
}

GcStepList::GcStepList(QWidget* parent) : QListWidget(parent)
{
    setIconSize(QSize(kIconSize, kIconSize));
    setSelectionMode(QAbstractItemView::NoSelection);
    setFocusPolicy(Qt::NoFocus);
    spin_.setInterval(80);
    connect(&spin_, &QTimer::timeout, this, &GcStepList::turn);
}

QSize GcStepList::sizeHint() const
{
    return {220, 6 * (fontMetrics().height() + 8) + 8};
}

void GcStepList::setSteps(const QStringList& names)
{
    if (names == names_)
        return;
    names_ = names;
    clear();
    states_.assign(size_t(names.size()), StepState::Pending);
    current_ = -1;
    for (int i = 0; i < names.size(); ++i) {
        auto* item = new QListWidgetItem(iconFor(StepState::Pending), names[i], this);
        item->setSizeHint(QSize(0, fontMetrics().height() + 8));
        item->setToolTip(QString::fromStdString(cs::gc::gcStepWork(names[i].toStdString())));
    }
}

GcStepList::StepState GcStepList::stepState(int row) const
{
    return row >= 0 && size_t(row) < states_.size() ? states_[size_t(row)] : StepState::Pending;
}

void GcStepList::setState(int row, StepState state, const QString& detail)
{
    if (row < 0 || row >= count())
        return;
    states_[size_t(row)] = state;
    QListWidgetItem* it = item(row);
    it->setIcon(iconFor(state));
    it->setText(detail.isEmpty() ? names_[row] : QStringLiteral("%1 — %2").arg(names_[row], detail));
}

void GcStepList::showStatus(const cs::JobStatus& status)
{
    QStringList names;
    for (const auto& s : status.steps)
        names << QString::fromStdString(s);
    if (!names.isEmpty())
        setSteps(names);
    if (status.step < 0)
        return;
    for (int i = 0; i < count(); ++i) {
        if (i < status.step && states_[size_t(i)] != StepState::Done)
            setState(i, StepState::Done);
    }
    if (status.step != current_ || states_[size_t(status.step)] != StepState::Running) {
        current_ = status.step;
        setState(current_, StepState::Running, QString::fromStdString(status.message));
    } else if (current_ >= 0) {
        item(current_)->setText(status.message.empty() ? names_[current_]
                                                       : QStringLiteral("%1 — %2").arg(names_[current_],
                                                                                      QString::fromStdString(status.message)));
    }
    if (!spin_.isActive())
        spin_.start();
}

void GcStepList::finish(bool ok)
{
    spin_.stop();
    for (int i = 0; i < count(); ++i) {
        if (ok)
            setState(i, StepState::Done);
        else if (i < current_)
            setState(i, StepState::Done);
        else if (i == current_)
            setState(i, StepState::Failed);
        else
            setState(i, StepState::Pending);
    }
    current_ = -1;
}

void GcStepList::turn()
{
    angle_ = (angle_ + 30) % 360;
    if (current_ >= 0 && current_ < count() && states_[size_t(current_)] == StepState::Running)
        item(current_)->setIcon(iconFor(StepState::Running));
}

QIcon GcStepList::iconFor(StepState state) const
{
    const qreal dpr = devicePixelRatioF();
    QPixmap pm(QSize(kIconSize, kIconSize) * dpr);
    pm.setDevicePixelRatio(dpr);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF r(2, 2, kIconSize - 4, kIconSize - 4);
    switch (state) {
    case StepState::Pending:
        p.setPen(QPen(palette().color(QPalette::Mid), 1.5));
        p.drawEllipse(r);
        break;
    case StepState::Running:
        p.setPen(QPen(palette().color(QPalette::Mid).lighter(120), 2));
        p.drawEllipse(r);
        p.setPen(QPen(palette().color(QPalette::Highlight), 2.5, Qt::SolidLine, Qt::RoundCap));
        p.drawArc(r, -angle_ * 16, 110 * 16);
        break;
    case StepState::Done: {
        p.setPen(QPen(QColor(0x2e, 0x9d, 0x56), 2.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        QPainterPath path;
        path.moveTo(3, 8.5);
        path.lineTo(6.5, 12);
        path.lineTo(13, 4);
        p.drawPath(path);
        break;
    }
    case StepState::Failed:
        p.setPen(QPen(QColor(0xc0, 0x39, 0x2b), 2.5, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(QPointF(4, 4), QPointF(12, 12));
        p.drawLine(QPointF(12, 4), QPointF(4, 12));
        break;
    }
    return QIcon(pm);
}

} // namespace ui
