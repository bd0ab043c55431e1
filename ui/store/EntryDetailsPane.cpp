#include "ui/store/EntryDetailsPane.h"
#include "ui/shell/Plural.h"

#include "core/jobs/Job.h"
#include "core/util/Units.h"
#include "ui/jobs/JobRunner.h"
#include "ui/store/EntryTableModel.h"

#include <QHeaderView>
#include <QLabel>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeView>
#include <QVBoxLayout>

namespace ui {

using DetailsPtr = std::shared_ptr<const cs::store::EntryDetails>;

namespace {

QString sizeText(uint64_t bytes)
{
    return QString::fromStdString(cs::formatSize(bytes));
}

QStandardItem* cell(const QString& text, const QVariant& raw = {}, bool right = false)
{
    auto* item = new QStandardItem(text);
    item->setEditable(false);
    if (raw.isValid())
        item->setData(raw, EntryTableModel::SortRole);
    if (right)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

} // namespace

EntryDetailsPane::EntryDetailsPane(std::shared_ptr<cs::store::Store> store, QWidget* parent)
    : QWidget(parent),
      store_(std::move(store)),
      runner_(new JobRunner(this)),
      header_(new QLabel(this)),
      sharing_(new QLabel(this)),
      tabs_(new QTabWidget(this)),
      tree_(new QTreeView(this)),
      objects_(new QStandardItemModel(this)),
      parts_(new QTableWidget(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    header_->setWordWrap(true);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header_->setText(tr("Select an entry to see its parts, objects and shared chunks."));
    sharing_->setWordWrap(true);
    layout->addWidget(header_);
    layout->addWidget(sharing_);

    objects_->setHorizontalHeaderLabels(
        {tr("Object"), tr("Offset"), tr("Stored"), tr("Logical"), tr("Position"), tr("Shared with"), tr("SHA-256")});
    tree_->setModel(objects_);
    tree_->setUniformRowHeights(true);
    tree_->setAlternatingRowColors(true);
    tree_->header()->setStretchLastSection(true);
    tabs_->addTab(tree_, tr("Objects"));

    parts_->setColumnCount(3);
    parts_->setHorizontalHeaderLabels({tr("Part"), tr("Size"), tr("On disk")});
    parts_->verticalHeader()->hide();
    parts_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    parts_->horizontalHeader()->setStretchLastSection(true);
    tabs_->addTab(parts_, tr("Parts"));
    layout->addWidget(tabs_, 1);

    connect(runner_, &JobRunner::finished, this, &EntryDetailsPane::onFinished);
}

bool EntryDetailsPane::isLoading() const
{
    return runner_->isRunning();
}

void EntryDetailsPane::showEntry(int64_t id)
{
    id_ = id;
    if (id == 0) {
        runner_->cancel();
        details_.reset();
        objects_->removeRows(0, objects_->rowCount());
        parts_->setRowCount(0);
        header_->setText(tr("Select an entry to see its parts, objects and shared chunks."));
        sharing_->clear();
        return;
    }
    header_->setText(tr("Loading entry %1…").arg(id));
    runner_->start(tr("Reading entry %1").arg(id), [store = store_, id](cs::Job&) {
        return DetailsPtr(std::make_shared<cs::store::EntryDetails>(store->entryDetails(id)));
    }, [this](DetailsPtr details) {
        details_ = std::move(details);
        fill(*details_);
    });
}

void EntryDetailsPane::onFinished(const JobOutcome& outcome)
{
    if (!outcome.ok()) {
        details_.reset();
        objects_->removeRows(0, objects_->rowCount());
        parts_->setRowCount(0);
        sharing_->clear();
        header_->setText(outcome.cancelled() ? QString() : outcome.message);
    }
    Q_EMIT detailsLoaded(id_, outcome.ok());
}

QString EntryDetailsPane::headerText() const
{
    return header_->text();
}

QString EntryDetailsPane::sharingText() const
{
    return sharing_->text();
}

void EntryDetailsPane::fill(const cs::store::EntryDetails& d)
{
    const cs::store::EntryRow& e = d.entry;
    header_->setText(tr("<b>%1</b><br>id %2 · version %3 · scope %4 · %5 (%6 bytes) · %7<br>sha256 %8")
                         .arg(QString::fromUtf8(e.key.data(), qsizetype(e.key.size())).toHtmlEscaped())
                         .arg(e.id)
                         .arg(QString::fromStdString(e.version).toHtmlEscaped())
                         .arg(QString::fromStdString(e.scope).toHtmlEscaped())
                         .arg(sizeText(e.size))
                         .arg(e.size)
                         .arg(QLatin1String(cs::store::entryStateName(e.state)))
                         .arg(e.sha256.empty() ? tr("(not known yet)") : QString::fromStdString(e.sha256)));

    // Object tree: objects come root first, depth-first in entry order, with
    // their depth, so the parent of an object at depth k is the last one at k-1.
    objects_->removeRows(0, objects_->rowCount());
    std::vector<QStandardItem*> parents;
    uint64_t chunks = 0, shared = 0, sharedBytes = 0;
    const QBrush highlight(QColor(255, 214, 102, 110));
    for (const cs::store::ObjectInfo& o : d.objects) {
        const bool chunk = o.kind == cs::store::ObjectInfo::Chunk;
        QList<QStandardItem*> row;
        row << cell(chunk ? tr("chunk") : (o.depth == 0 ? tr("root node (%1 children)").arg(o.children)
                                                        : tr("node (%1 children)").arg(o.children)))
            << cell(QString::number(o.offset), qulonglong(o.offset), true)
            << cell(sizeText(o.storedBytes), qulonglong(o.storedBytes), true)
            << cell(sizeText(o.logicalSize), qulonglong(o.logicalSize), true)
            << cell(QString::number(o.position), qulonglong(o.position), true)
            << cell(chunk ? (o.sharedWith ? counted(qint64(o.sharedWith), "other entry", "other entries") : tr("—")) : QString(),
                    qulonglong(o.sharedWith), true)
            << cell(QString::fromStdString(o.sha256));
        if (chunk) {
            ++chunks;
            if (o.sharedWith) {
                ++shared;
                sharedBytes += o.logicalSize;
                for (QStandardItem* item : row)
                    item->setBackground(highlight);
            }
            row.front()->setToolTip(tr("Chunk at offset %1: %2 bytes of the entry from position %3, %4 in the pack")
                                        .arg(o.offset)
                                        .arg(o.logicalSize)
                                        .arg(o.position)
                                        .arg(sizeText(o.storedBytes)));
        }
        parents.resize(size_t(std::max(o.depth, 0)));
        if (parents.empty())
            objects_->appendRow(row);
        else
            parents.back()->appendRow(row);
        parents.push_back(row.front());
    }
    tree_->expandToDepth(1);
    for (int c = 0; c < ObjSha; ++c)
        tree_->resizeColumnToContents(c);

    parts_->setRowCount(int(d.parts.size()));
    for (int i = 0; i < int(d.parts.size()); ++i) {
        const cs::store::PartInfo& p = d.parts[size_t(i)];
        parts_->setItem(i, 0, new QTableWidgetItem(QString::number(p.index)));
        parts_->setItem(i, 1, new QTableWidgetItem(sizeText(p.size)));
        parts_->setItem(i, 2, new QTableWidgetItem(p.present ? tr("present") : tr("MISSING")));
        if (!p.present)
            parts_->item(i, 2)->setForeground(QBrush(Qt::red));
    }

    QString text;
    if (e.state == cs::store::EntryState::Merged)
        text = tr("%1; %2 shared with other entries (%3 of %4), highlighted.")
                   .arg(counted(chunks, "chunk", "chunks"))
                   .arg(shared)
                   .arg(sizeText(sharedBytes))
                   .arg(sizeText(e.size));
    else
        text = tr("%1 in parts/ (%2 present); objects appear once the entry is merged.")
                   .arg(counted(qint64(d.parts.size()), "part", "parts"))
                   .arg(std::count_if(d.parts.begin(), d.parts.end(), [](const auto& p) { return p.present; }));
    if (!d.treeError.empty())
        text += QLatin1Char(' ') + tr("Object tree incomplete: %1").arg(QString::fromStdString(d.treeError));
    sharing_->setText(text);
    tabs_->setCurrentWidget(e.state == cs::store::EntryState::Merged ? static_cast<QWidget*>(tree_) : parts_);
}

} // namespace ui
