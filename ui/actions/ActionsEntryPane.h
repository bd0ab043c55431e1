// The cache-server document's entry pane: tabs for the current entry's
// Contents (folder tree with sizes, sortable, searchable), Treemap (the same
// folders; click a tile to drill in), Compression (the frame band, verdict
// and table of its blob, ui/frames) and Parts (the parts pane the browser
// gives it). Contents and Compression read the blob (core/entries) off the
// GUI thread, each through its own JobRunner with progress and cancel, only
// when their tab is shown; a result for an entry that is no longer the
// current one is dropped.
#pragma once
#include "core/actions-cache/ActionsCache.h"
#include "core/frames/FrameLayout.h"
#include "ui/actions/EntryTree.h"

#include <QWidget>

#include <optional>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTimer;
class QTreeView;

namespace ui {
class EntryTreeModel;
class EntryTreemap;
class FrameBandWidget;
class FrameSummaryPanel;
class FrameTableModel;
class JobProgressWidget;
class JobRunner;

class ActionsEntryPane : public QWidget {
    Q_OBJECT
public:
    enum Tab { Contents, Treemap, Compression, Parts };

    ActionsEntryPane(cs::actions::DataDirPaths paths, QWidget* partsPane, QWidget* parent = nullptr);
    ~ActionsEntryPane() override;

    // The entry to show (nullopt: none). Reads start when their tab shows.
    void setEntry(const std::optional<cs::actions::ActionsEntry>& entry);
    void showTab(Tab tab);

    QTabWidget* tabs() const { return tabs_; }
    EntryTreeModel* treeModel() const { return treeModel_; }
    QSortFilterProxyModel* treeProxy() const { return treeProxy_; }
    QTreeView* tree() const { return tree_; }
    QLineEdit* searchEdit() const { return search_; }
    EntryTreemap* treemap() const { return treemap_; }
    QLabel* contentsHeader() const { return contentsHeader_; }
    FrameSummaryPanel* frameSummary() const { return frameSummary_; }
    FrameTableModel* frameModel() const { return frameModel_; }
    JobRunner* contentsRunner() const { return contentsRunner_; }
    JobRunner* framesRunner() const { return framesRunner_; }
    // Id of the entry whose contents / frames are shown ("" when none).
    const std::string& contentsEntryId() const { return contentsShown_; }
    const std::string& framesEntryId() const { return framesShown_; }

Q_SIGNALS:
    void contentsLoaded(bool ok);
    void framesLoaded(bool ok);

private:
    struct FramesResult;
    void loadVisibleTab();
    void loadContents();
    void loadFrames();
    // The finished jobs' results, dropped when another entry is current.
    void showContents(EntryTreePtr tree);
    void showFrames(const FramesResult& r);

    cs::actions::DataDirPaths paths_;
    std::optional<cs::actions::ActionsEntry> entry_;
    QTabWidget* tabs_;
    QLabel* contentsHeader_;
    JobProgressWidget* contentsProgress_;
    QLineEdit* search_;
    QTimer* searchTimer_;
    EntryTreeModel* treeModel_;
    QSortFilterProxyModel* treeProxy_;
    QTreeView* tree_;
    EntryTreemap* treemap_;
    QLabel* framesHeader_;
    JobProgressWidget* framesProgress_;
    FrameSummaryPanel* frameSummary_;
    FrameBandWidget* band_;
    FrameTableModel* frameModel_;
    QTableView* frameTable_;
    JobRunner* contentsRunner_;
    JobRunner* framesRunner_;
    std::string contentsShown_, contentsLoading_;   // entry ids
    std::string framesShown_, framesLoading_;
};

} // namespace ui
