// Help > User Guide: docs/guide.md (compiled into the program as the
// resource :/guide/guide.md, with its screenshots beside it) rendered by a
// QTextBrowser. Links to other sections of the guide stay inside; links to
// the web open in the desktop's browser.
#pragma once
#include <QDialog>

class QTextBrowser;

namespace ui {

class GuideWindow : public QDialog {
    Q_OBJECT
public:
    static constexpr const char* kGuideUrl = "qrc:/guide/guide.md";

    explicit GuideWindow(QWidget* parent = nullptr);
    QTextBrowser* browser() const { return browser_; }

private:
    QTextBrowser* browser_;
};

} // namespace ui
