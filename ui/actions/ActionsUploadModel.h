// The pending uploads table: rows of the server's uploads table (uploads
// begun and not yet finalized) from the last read: the part uploads the
// server counted as started and finished, the parts on disk, and the time
// since the last part arrived (or since creation when none did).
#pragma once
#include "ui/actions/ActionsData.h"

#include <QAbstractTableModel>

namespace ui {

class ActionsUploadModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Id, Key, Version, Scope, Started, Finished, PartsOnDisk, Age, Folder, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit ActionsUploadModel(QObject* parent = nullptr);
    void setSnapshot(ActionsSnapshotPtr snapshot);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    ActionsSnapshotPtr snapshot_;
};

} // namespace ui
