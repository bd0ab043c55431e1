// The mapping records of one pack generation as a table: record number,
// offset, end, length, prefix offset. Rows are read straight from the
// memory-mapped N.mapping on demand (MappingFile::at), so millions of records
// cost nothing until they scroll into view. The model holds the generation
// it shows (shared), so it stays readable after a GC swaps it out; the view
// gives it the new one after a refresh.
#pragma once
#include "core/pack/Pack.h"

#include <QAbstractTableModel>

#include <memory>

namespace ui {

class MappingTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Record, Offset, End, Length, PrefixOffset, ColumnCount };

    explicit MappingTableModel(QObject* parent = nullptr);

    void setGeneration(std::shared_ptr<const cs::pack::Generation> generation);
    const std::shared_ptr<const cs::pack::Generation>& generation() const { return generation_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const cs::pack::Generation> generation_;
};

} // namespace ui
