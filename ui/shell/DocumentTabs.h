// The main window's tabs, made to hold thousands of documents (3,000 files
// named on the command line; issue 22). QTabBar lays out every tab again on
// each insertion, measuring each tab's text, and with a close button on
// every tab it also elides every title again: 3,000 tabs took minutes. Here
// a tab's size is measured once per title (DocumentTabBar::tabSizeHint
// caches it until the font or style changes) and only the current tab has a
// close button (Ctrl+W closes the current tab too), so adding a tab costs a
// pass over cached sizes.
#pragma once
#include <QAbstractButton>
#include <QHash>
#include <QPointer>
#include <QTabBar>
#include <QTabWidget>


namespace ui {

class DocumentTabBar : public QTabBar {
    Q_OBJECT
public:
    explicit DocumentTabBar(QWidget* parent = nullptr);
    // The current tab's close button (emits tabCloseRequested), null when there is no tab.
    QAbstractButton* closeButton() const { return closeButton_; }

protected:
    QSize tabSizeHint(int index) const override;
    QSize minimumTabSizeHint(int index) const override;
    void changeEvent(QEvent* event) override;

private:
    void moveCloseButton(int current);
    ButtonPosition closeSide() const;

    QPointer<QAbstractButton> closeButton_;
    mutable QHash<QString, QSize> sizes_[2];   // by title, without and with the close button
};

class DocumentTabs : public QTabWidget {
    Q_OBJECT
public:
    explicit DocumentTabs(QWidget* parent = nullptr);
    DocumentTabBar* documentTabBar() const { return bar_; }

private:
    DocumentTabBar* bar_;
};

} // namespace ui
