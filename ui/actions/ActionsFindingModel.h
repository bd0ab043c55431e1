// The verify findings table: one row per finding of
// cs::actions::ActionsCache::verify, naming its kind, the entry (key and
// id, or the upload / location / folder it is about) and the path, with
// the core's sentence.
#pragma once
#include "core/actions-cache/ActionsCache.h"

#include <QAbstractTableModel>

#include <vector>

namespace ui {

class ActionsFindingModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Kind, Entry, Path, Finding, ColumnCount };

    explicit ActionsFindingModel(QObject* parent = nullptr);
    void setFindings(std::vector<cs::actions::Finding> findings);
    const std::vector<cs::actions::Finding>& findings() const { return findings_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<cs::actions::Finding> findings_;
};

} // namespace ui
