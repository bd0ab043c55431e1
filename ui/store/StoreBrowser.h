// The store browser tab: a key filter (debounced 300 ms), the entries table
// (EntryTableModel, sorted by the catalog) and the details pane of the
// selected entry, side by side.
#pragma once
#include <QWidget>

#include <memory>
#include <vector>

class QAction;
class QLabel;
class QLineEdit;
class QTableView;
class QTimer;

namespace cs::store { class Store; }

namespace ui {
class EntryDetailsPane;
class EntryTableModel;

class StoreBrowser : public QWidget {
    Q_OBJECT
public:
    static constexpr int kFilterDelayMs = 300;

    // pages: the connection the table reads on the GUI thread; work: the one
    // used off the GUI thread (counts with a filter, details).
    StoreBrowser(std::shared_ptr<cs::store::Store> pages, std::shared_ptr<cs::store::Store> work,
                 QWidget* parent = nullptr);

    EntryTableModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    QLineEdit* filterEdit() const { return filter_; }
    EntryDetailsPane* details() const { return details_; }

    // Actions shown in the table's context menu.
    void setContextActions(const QList<QAction*>& actions) { contextActions_ = actions; }
    // Catalog ids of the selected rows.
    std::vector<int64_t> selectedEntryIds() const;
    // Selects row (and shows its details).
    void selectRow(int row);
    // Re-reads the table (keeping the filter and sort) and the details.
    void refresh();
    // After another process changed the store: re-reads the table without a
    // reset (EntryTableModel::refreshInPlace), keeping the scroll position
    // and the selected entries selected where they are now (when their rows
    // are loaded), and re-reads the details.
    void refreshInPlace();

Q_SIGNALS:
    void selectionChanged();

private:
    void onCurrentRowChanged();
    void updateCountLabel();

    EntryTableModel* model_;
    QLineEdit* filter_;
    QTimer* filterTimer_;
    QLabel* count_;
    QTableView* table_;
    EntryDetailsPane* details_;
    QList<QAction*> contextActions_;
    int pendingDetailsRow_ = -1;  // current row whose page is still being read
    int reselectRow_ = -1;        // after refresh(): the row and entry to select again
    int64_t reselectId_ = 0;
    std::vector<int64_t> keepSelected_;   // refreshInPlace(): entries to select again
    int64_t keepCurrent_ = 0;
};

} // namespace ui
