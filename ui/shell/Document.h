// What the main window may ask of a tab's widget. A widget added with
// MainWindow::addDocument() can also derive from ui::Document (optional):
// its export actions fill File > Export, and its job runner drives the
// status bar's job text and progress bar while the tab is current.
#pragma once
#include <QList>

class QAction;

namespace ui {
class JobRunner;

class Document {
public:
    virtual ~Document() = default;
    virtual QList<QAction*> exportActions() const { return {}; }
    virtual JobRunner* jobRunner() const { return nullptr; }
};

} // namespace ui
