// Details of one entry of the store browser, loaded off the GUI thread
// (Store::entryDetails through a JobRunner): the catalog row, its parts
// (unmerged entries), the object tree (root, nodes, chunks with offsets and
// sizes) and, per chunk, how many other live entries share it; shared chunks
// are highlighted.
#pragma once
#include "core/store/Store.h"

#include <QWidget>

#include <memory>

class QLabel;
class QStandardItemModel;
class QTabWidget;
class QTableWidget;
class QTreeView;

namespace ui {
struct JobOutcome;
class JobRunner;

class EntryDetailsPane : public QWidget {
    Q_OBJECT
public:
    enum ObjectColumn { ObjKind, ObjOffset, ObjStored, ObjLogical, ObjPosition, ObjShared, ObjSha, ObjColumnCount };

    explicit EntryDetailsPane(std::shared_ptr<cs::store::Store> store, QWidget* parent = nullptr);

    // Loads the entry's details (id 0 clears the pane).
    void showEntry(int64_t id);
    int64_t entryId() const { return id_; }
    bool isLoading() const;
    const cs::store::EntryDetails* details() const { return details_.get(); }

    QStandardItemModel* objectModel() const { return objects_; }
    QTreeView* objectTree() const { return tree_; }
    QTableWidget* partsTable() const { return parts_; }
    QString headerText() const;
    QString sharingText() const;

Q_SIGNALS:
    void detailsLoaded(qint64 id, bool ok);

private:
    void onFinished(const JobOutcome& outcome);
    void fill(const cs::store::EntryDetails& d);

    std::shared_ptr<cs::store::Store> store_;
    JobRunner* runner_;
    int64_t id_ = 0;
    QLabel* header_;
    QLabel* sharing_;
    QTabWidget* tabs_;
    QTreeView* tree_;
    QStandardItemModel* objects_;
    QTableWidget* parts_;
    std::shared_ptr<const cs::store::EntryDetails> details_;
};

} // namespace ui
