#include "ui/shell/DocumentTabs.h"

#include <QAbstractButton>
#include <QEnterEvent>
#include <QEvent>
#include <QPainter>
#include <QStyleOption>

namespace ui {

namespace {

// Drawn as QTabBar draws its own close buttons (PE_IndicatorTabClose).
class TabCloseButton : public QAbstractButton {
public:
    explicit TabCloseButton(QWidget* parent) : QAbstractButton(parent)
    {
        setFocusPolicy(Qt::NoFocus);
        setCursor(Qt::ArrowCursor);
        setToolTip(QTabBar::tr("Close Tab"));
        resize(sizeHint());
    }

    QSize sizeHint() const override
    {
        ensurePolished();
        return {style()->pixelMetric(QStyle::PM_TabCloseIndicatorWidth, nullptr, this),
                style()->pixelMetric(QStyle::PM_TabCloseIndicatorHeight, nullptr, this)};
    }

protected:
    void enterEvent(QEnterEvent* event) override
    {
        update();
        QAbstractButton::enterEvent(event);
    }
    void leaveEvent(QEvent* event) override
    {
        update();
        QAbstractButton::leaveEvent(event);
    }
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        QStyleOption opt;
        opt.initFrom(this);
        opt.state |= QStyle::State_AutoRaise | QStyle::State_Selected;   // only the current tab has one
        if (isEnabled() && underMouse() && !isDown())
            opt.state |= QStyle::State_Raised;
        if (isDown())
            opt.state |= QStyle::State_Sunken;
        style()->drawPrimitive(QStyle::PE_IndicatorTabClose, &opt, &p, this);
    }
};

} // namespace

DocumentTabBar::DocumentTabBar(QWidget* parent) : QTabBar(parent)
{
    connect(this, &QTabBar::currentChanged, this, &DocumentTabBar::moveCloseButton);
}

QTabBar::ButtonPosition DocumentTabBar::closeSide() const
{
    return ButtonPosition(style()->styleHint(QStyle::SH_TabBar_CloseButtonPosition, nullptr, this));
}

void DocumentTabBar::moveCloseButton(int current)
{
    const ButtonPosition side = closeSide();
    if (closeButton_) {
        // Still on its tab, unless that tab was removed (QTabBar then deletes it).
        for (int i = 0; i < count(); ++i)
            if (tabButton(i, side) == closeButton_) {
                if (i == current)
                    return;
                setTabButton(i, side, nullptr);
                closeButton_->deleteLater();
                break;
            }
        closeButton_ = nullptr;
    }
    if (current < 0)
        return;
    auto* button = new TabCloseButton(this);
    connect(button, &QAbstractButton::clicked, this, [this, button] {
        const ButtonPosition side = closeSide();
        for (int i = 0; i < count(); ++i)
            if (tabButton(i, side) == button) {
                Q_EMIT tabCloseRequested(i);
                return;
            }
    });
    closeButton_ = button;
    setTabButton(current, side, button);
}

QSize DocumentTabBar::tabSizeHint(int index) const
{
    const bool withButton = tabButton(index, LeftSide) || tabButton(index, RightSide);
    QHash<QString, QSize>& sizes = sizes_[withButton ? 1 : 0];
    const QString title = tabText(index);
    const auto it = sizes.constFind(title);
    if (it != sizes.constEnd())
        return *it;
    const QSize size = QTabBar::tabSizeHint(index);
    sizes.insert(title, size);
    return size;
}

QSize DocumentTabBar::minimumTabSizeHint(int index) const
{
    // Titles are not elided (measuring the elided title of every tab is what
    // costs); a row of many tabs scrolls instead.
    return tabSizeHint(index);
}

void DocumentTabBar::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange)
        for (auto& sizes : sizes_)
            sizes.clear();
    QTabBar::changeEvent(event);
}

DocumentTabs::DocumentTabs(QWidget* parent) : QTabWidget(parent), bar_(new DocumentTabBar(this))
{
    setTabBar(bar_);
    bar_->setUsesScrollButtons(true);
    // QTabWidget forwards the bar's close requests only when its tabs are
    // closable (a close button on every tab), which these are not.
    connect(bar_, &QTabBar::tabCloseRequested, this, &QTabWidget::tabCloseRequested);
}

} // namespace ui
