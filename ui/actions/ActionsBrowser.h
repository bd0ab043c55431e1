// The cache-server document's Entries tab: a key filter (debounced 300 ms),
// the entries table (ActionsEntryModel behind a sort/filter proxy) and the
// parts pane of the current entry (its parts as listed off the GUI thread,
// each listing opening the data read-only and closing it).
#pragma once
#include "ui/actions/ActionsData.h"

#include <QWidget>

#include <string>
#include <vector>

class QAction;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTimer;

namespace ui {
class ActionsEntryModel;
class ActionsEntryPane;
class ActionsPartsModel;
class JobRunner;

class ActionsBrowser : public QWidget {
    Q_OBJECT
public:
    static constexpr int kFilterDelayMs = 300;
    // A part count is the database's claim: list at most this many missing ones.
    static constexpr size_t kMaxMissingShown = 1000;

    explicit ActionsBrowser(ActionsDataLocation where, QWidget* parent = nullptr);

    // Shows a new read, keeping the selection of entries still there.
    void setSnapshot(ActionsSnapshotPtr snapshot);

    ActionsEntryModel* model() const { return model_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QTableView* table() const { return table_; }
    QLineEdit* filterEdit() const { return filter_; }
    QString countText() const;   // "46 of 450 entries have “x” in their key", ...
    ActionsPartsModel* partsModel() const { return partsModel_; }
    QTableView* partsTable() const { return partsTable_; }
    QLabel* partsHeader() const { return partsHeader_; }
    // Contents, Treemap, Compression and Parts of the current entry.
    ActionsEntryPane* entryPane() const { return entryPane_; }
    bool isLoadingParts() const;

    // The table's right-click menu: actions, then Compare….
    void setContextActions(const QList<QAction*>& actions);
    // Compare… the two selected entries (enabled when exactly two are).
    QAction* compareAction() const { return compare_; }
    void compareSelected();
    // The selected entries (copies from the current read), in table order.
    std::vector<cs::actions::ActionsEntry> selectedEntries() const;
    // Selects the entry at source row (and loads its parts).
    void selectSourceRow(int row);

Q_SIGNALS:
    void selectionChanged();
    // The parts pane finished loading (ok false: the error is in the pane's header).
    void partsLoaded(bool ok);

private:
    void onCurrentChanged();
    void showParts(std::shared_ptr<const std::vector<cs::actions::ActionsPart>> parts);
    void updateCountLabel();

    ActionsDataLocation where_;
    ActionsEntryModel* model_;
    QSortFilterProxyModel* proxy_;
    QLineEdit* filter_;
    QTimer* filterTimer_;
    QLabel* count_;
    QString filterError_;   // why the filter field's text was not applied ("" = it was)
    QTableView* table_;
    QLabel* partsHeader_;
    ActionsPartsModel* partsModel_;
    QTableView* partsTable_;
    JobRunner* partsRunner_;
    ActionsEntryPane* entryPane_ = nullptr;
    QAction* compare_ = nullptr;
    QList<QAction*> contextActions_;
    QString shownEntryId_;
};

} // namespace ui
