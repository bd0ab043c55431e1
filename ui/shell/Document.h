// What the main window may ask of a tab's widget. A widget added with
// MainWindow::addDocument() can also derive from ui::Document (optional):
// its export actions fill File > Export, its job runner drives the status
// bar's job text and progress bar while the tab is current, View > Refresh
// (F5) calls refresh(), and Edit > Find (Ctrl+F) focuses filterEdit().
#pragma once
#include <QList>

class QAction;
class QLineEdit;

namespace ui {
class JobRunner;

class Document {
public:
    virtual ~Document() = default;
    virtual QList<QAction*> exportActions() const { return {}; }
    virtual JobRunner* jobRunner() const { return nullptr; }
    // Re-reads what the document shows from its file or store.
    virtual void refresh() {}
    // The document's filter box, made visible (an inner tab may be switched
    // to it); nullptr when the document has none.
    virtual QLineEdit* showFilter() { return nullptr; }
};

} // namespace ui
