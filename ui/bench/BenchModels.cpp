#include "ui/bench/BenchModels.h"

#include "core/util/Units.h"
#include "ui/charts/ChartExport.h"

#include <QDateTime>

#include <algorithm>
#include <utility>

namespace ui {

static QString q(const std::string& s) { return QString::fromStdString(s); }

static QString number(double v)
{
    if (v == double(qint64(v)) && std::abs(v) < 1e15)
        return QString::number(qint64(v));
    return QString::number(v, 'f', std::abs(v) >= 100 ? 1 : std::abs(v) >= 1 ? 2 : 3);
}

// ---- samples

void SampleTableModel::setRuns(std::vector<std::vector<cs::Sample>> runs, QStringList labels)
{
    beginResetModel();
    runs_ = std::move(runs);
    labels_ = std::move(labels);
    starts_.clear();
    size_t n = 0;
    for (const auto& r : runs_) {
        starts_.push_back(n);
        n += r.size();
    }
    rows_ = int(n);
    endResetModel();
}

int SampleTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : rows_; }
int SampleTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : 4; }

QVariant SampleTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || (role != Qt::DisplayRole && role != RawValueRole))
        return {};
    size_t run = 0;
    while (run + 1 < starts_.size() && size_t(index.row()) >= starts_[run + 1])
        ++run;
    const cs::Sample& s = runs_[run][size_t(index.row()) - starts_[run]];
    switch (index.column()) {
    case 0: return labels_.value(int(run));
    case 1: return role == RawValueRole ? QVariant(s.t) : QVariant(QString::number(s.t, 'f', 3));
    case 2: return q(s.series);
    case 3: return role == RawValueRole ? QVariant(s.value) : QVariant(number(s.value));
    }
    return {};
}

QVariant SampleTableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    static const char* names[] = {"run", "t", "series", "value"};
    return section >= 0 && section < 4 ? QString::fromLatin1(names[section]) : QVariant();
}

// ---- results

bool PagedTableModel::canFetchMore(const QModelIndex& parent) const
{
    return !parent.isValid() && !resetting_ && fetched_ < totalRows();
}

void PagedTableModel::fetchMore(const QModelIndex& parent)
{
    if (!canFetchMore(parent))
        return;
    const int n = std::min(kPageRows, totalRows() - fetched_);
    beginInsertRows({}, fetched_, fetched_ + n - 1);
    fetched_ += n;
    endInsertRows();
}

void PagedTableModel::resetRows(const std::function<void()>& change)
{
    resetting_ = true;
    beginResetModel();
    change();
    fetched_ = std::min(totalRows(), kPageRows);
    endResetModel();
    resetting_ = false;
}

void PagedTableModel::fetchThrough(int row)
{
    while (row >= fetched_ && canFetchMore({}))
        fetchMore({});
}

void ResultTableModel::setResult(const cs::ResultTable& t)
{
    resetRows([&] {
        comparison_ = false;
        rows_.clear();
        for (const auto& r : t.rows)
            rows_.push_back({q(r.name), q(r.unit), q(r.text),
                             r.text.empty() ? std::optional<double>(r.value) : std::nullopt, std::nullopt, std::nullopt});
        for (const auto& sub : t.tables)
            for (size_t i = 0; i < sub.rowNames.size() && i < sub.values.size(); ++i)
                for (size_t c = 0; c < sub.columns.size() && c < sub.values[i].size(); ++c)
                    rows_.push_back({q(sub.title + " / " + sub.rowNames[i] + " / " + sub.columns[c]),
                                     q(cs::seriesUnit(sub.columns[c])), {}, sub.values[i][c], std::nullopt,
                                     std::nullopt});
    });
}

void ResultTableModel::setComparison(const std::vector<cs::ComparisonRow>& rows, const QString& a, const QString& b)
{
    resetRows([&] {
        comparison_ = true;
        labelA_ = a;
        labelB_ = b;
        rows_.clear();
        for (const auto& r : rows)
            rows_.push_back({q(r.name), q(r.unit), {}, r.a, r.b, r.percent});
    });
}

int ResultTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : comparison_ ? 5 : 3; }

QVariant ResultTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    const Row& r = rows_[size_t(index.row())];
    // A text value (a sentence, such as why fewer cores) reads from the
    // left and is whole in its tooltip; numbers line up on the right.
    const bool textValue = !comparison_ && index.column() == 1 && !r.a;
    if (role == Qt::TextAlignmentRole)
        return index.column() == 0 || textValue ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole)
        return textValue ? QVariant(r.text) : QVariant();
    if (role != Qt::DisplayRole && role != RawValueRole)
        return {};
    const bool raw = role == RawValueRole;
    auto val = [&](const std::optional<double>& v) -> QVariant {
        if (!v)
            return raw ? QVariant() : QVariant(QStringLiteral("–"));
        return raw ? QVariant(*v) : QVariant(number(*v));
    };
    if (!comparison_) {
        switch (index.column()) {
        case 0: return r.name;
        case 1: return r.a ? val(r.a) : QVariant(r.text);
        case 2: return r.unit;
        }
        return {};
    }
    switch (index.column()) {
    case 0: return r.name;
    case 1: return r.unit;
    case 2: return val(r.a);
    case 3: return val(r.b);
    case 4:
        if (!r.percent)
            return raw ? QVariant() : QVariant(QStringLiteral("–"));
        return raw ? QVariant(*r.percent) : QVariant(QString::number(*r.percent, 'f', 1) + QStringLiteral(" %"));
    }
    return {};
}

QVariant ResultTableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    if (!comparison_) {
        const QStringList names = {tr("result"), tr("value"), tr("unit")};
        return names.value(section);
    }
    const QStringList names = {tr("result"), tr("unit"), labelA_, labelB_, tr("B % of A")};
    return names.value(section);
}

// ---- history

void HistoryModel::setRuns(std::vector<cs::BenchRun> runs)
{
    resetRows([&] { runs_ = std::move(runs); });
}

int HistoryModel::rowOf(int64_t id)
{
    const int row = std::as_const(*this).rowOf(id);
    fetchThrough(row);
    return row;
}

int HistoryModel::rowOf(int64_t id) const
{
    for (size_t i = 0; i < runs_.size(); ++i)
        if (runs_[i].id == id)
            return int(i);
    return -1;
}

int HistoryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : 5; }

QVariant HistoryModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || (role != Qt::DisplayRole && role != RawValueRole && role != Qt::ToolTipRole))
        return {};
    const cs::BenchRun& r = runs_[size_t(index.row())];
    if (role == Qt::ToolTipRole) {
        QString params;
        for (const auto& [k, v] : r.params)
            params += QStringLiteral("%1=%2 ").arg(q(k), q(v));
        return QStringLiteral("%1\n%2\nversion %3%4")
            .arg(params.trimmed(), q(r.machine.describe()), q(r.version),
                 r.error.empty() ? QString() : QStringLiteral("\n") + q(r.error));
    }
    switch (index.column()) {
    case 0: return role == RawValueRole ? QVariant(qint64(r.id)) : QVariant(QString::number(r.id));
    case 1: return QDateTime::fromMSecsSinceEpoch(qint64(r.started * 1000)).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    case 2: return q(r.scenario);
    case 3: return q(r.status);
    case 4: return role == RawValueRole ? QVariant(r.finished - r.started) : QVariant(q(cs::formatDuration(r.finished - r.started)));
    }
    return {};
}

QVariant HistoryModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    const QStringList names = {tr("run"), tr("started"), tr("scenario"), tr("status"), tr("wall")};
    return names.value(section);
}

} // namespace ui
