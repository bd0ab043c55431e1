#include "ui/store/EvictDialog.h"
#include "ui/shell/Plural.h"

#include "core/jobs/Job.h"
#include "core/util/Units.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/JobRunner.h"
#include "ui/store/EntryTableModel.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <chrono>

namespace ui {

using PreviewPtr = std::shared_ptr<const cs::store::EvictResult>;

EvictDialog::EvictDialog(std::shared_ptr<cs::store::Store> store, std::vector<std::string> selectedKeys, QWidget* parent)
    : QDialog(parent),
      store_(std::move(store)),
      selectedKeys_(std::move(selectedKeys)),
      runner_(new JobRunner(this)),
      progress_(new JobProgressWidget(this)),
      olderThan_(new QLineEdit(this)),
      unusedFor_(new QLineEdit(this)),
      maxSize_(new QLineEdit(this)),
      selectedBox_(new QCheckBox(this)),
      previewButton_(new QPushButton(tr("Preview"), this)),
      table_(new QTableWidget(this)),
      message_(new QLabel(this)),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Evict entries"));
    resize(760, 520);
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    olderThan_->setPlaceholderText(tr("e.g. 30d (created before)"));
    unusedFor_->setPlaceholderText(tr("e.g. 7d (not restored since; never-read entries count from creation)"));
    maxSize_->setPlaceholderText(tr("e.g. 10GiB (then least recently used first)"));
    selectedBox_->setText(selectedKeys_.size() == 1 ? tr("The selected key, any version and scope")
                                                     : tr("The %1 selected keys, any version and scope").arg(selectedKeys_.size()));
    selectedBox_->setEnabled(!selectedKeys_.empty());
    selectedBox_->setChecked(!selectedKeys_.empty());
    form->addRow(tr("Older than:"), olderThan_);
    form->addRow(tr("Unused for:"), unusedFor_);
    form->addRow(tr("Down to a budget of:"), maxSize_);
    form->addRow(QString(), selectedBox_);
    layout->addLayout(form);
    auto* previewRow = new QHBoxLayout;
    previewRow->addWidget(previewButton_);
    previewRow->addWidget(progress_, 1);
    layout->addLayout(previewRow);

    table_->setColumnCount(5);
    table_->setHorizontalHeaderLabels({tr("Key"), tr("Version"), tr("Size"), tr("State"), tr("Last access")});
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionMode(QAbstractItemView::NoSelection);
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    layout->addWidget(table_, 1);
    message_->setWordWrap(true);
    message_->setText(tr("Choose a policy and press Preview: nothing is removed before you confirm."));
    layout->addWidget(message_);

    evictButton_ = buttons_->addButton(tr("Evict"), QDialogButtonBox::DestructiveRole);
    evictButton_->setEnabled(false);
    layout->addWidget(buttons_);

    progress_->attach(runner_);
    connect(previewButton_, &QPushButton::clicked, this, &EvictDialog::runPreview);
    connect(runner_, &JobRunner::finished, this, &EvictDialog::onPreviewFinished);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(evictButton_, &QPushButton::clicked, this, &QDialog::accept);
    for (QLineEdit* e : {olderThan_, unusedFor_, maxSize_})
        connect(e, &QLineEdit::textChanged, this, &EvictDialog::invalidatePreview);
    connect(selectedBox_, &QCheckBox::toggled, this, &EvictDialog::invalidatePreview);
}

void EvictDialog::invalidatePreview()
{
    evictButton_->setEnabled(false);
    preview_.reset();
    table_->setRowCount(0);
    message_->setText(tr("The policy changed: press Preview again."));
}

std::optional<cs::store::EvictPolicy> EvictDialog::policyFromFields()
{
    cs::store::EvictPolicy p;
    auto duration = [&](QLineEdit* edit, const QString& what, std::optional<double>& out) {
        const QString t = edit->text().trimmed();
        if (t.isEmpty())
            return true;
        const auto v = cs::parseDurationSeconds(t.toStdString());
        if (!v || *v < 0) {
            message_->setText(tr("%1 \"%2\" is not a duration; use e.g. 90s, 15m, 12h, 30d or 2w.").arg(what, t));
            return false;
        }
        out = double(*v);
        return true;
    };
    if (!duration(olderThan_, tr("Older than"), p.olderThanSeconds) || !duration(unusedFor_, tr("Unused for"), p.unusedForSeconds))
        return std::nullopt;
    const QString budget = maxSize_->text().trimmed();
    if (!budget.isEmpty()) {
        const auto v = cs::parseSize(budget.toStdString());
        if (!v) {
            message_->setText(tr("Budget \"%1\" is not a size; use e.g. 512MiB or 10GiB.").arg(budget));
            return std::nullopt;
        }
        p.maxBytes = *v;
    }
    if (selectedBox_->isChecked())
        p.keys = selectedKeys_;
    if (!p.olderThanSeconds && !p.unusedForSeconds && !p.maxBytes && p.keys.empty()) {
        message_->setText(tr("Choose at least one rule: an age, an idle time, a budget or the selected keys."));
        return std::nullopt;
    }
    return p;
}

void EvictDialog::runPreview()
{
    auto policy = policyFromFields();
    if (!policy)
        return;
    policy->dryRun = true;
    // The eviction reuses this clock, so it removes what the preview listed.
    policy->now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    pending_ = *policy;
    evictButton_->setEnabled(false);
    previewButton_->setEnabled(false);
    message_->setText(tr("Previewing…"));
    runner_->start(tr("Eviction preview"), [store = store_, p = *policy](cs::Job& job) {
        return std::any(PreviewPtr(std::make_shared<cs::store::EvictResult>(store->evict(p, job))));
    });
}

void EvictDialog::onPreviewFinished(bool ok, const QString& resultOrError)
{
    previewButton_->setEnabled(true);
    if (!ok) {
        message_->setText(resultOrError == QLatin1String("cancelled") ? tr("Preview cancelled.")
                                                                      : tr("Preview failed: %1").arg(resultOrError));
        Q_EMIT previewFinished(false);
        return;
    }
    preview_ = std::any_cast<PreviewPtr>(runner_->result());
    previewed_ = pending_;
    previewed_.dryRun = false;
    // Show the first rows only: a preview of a million entries must not
    // build a million widgets.
    constexpr int kShown = 5000;
    const auto& rows = preview_->evicted;
    const int shown = int(std::min<size_t>(rows.size(), kShown));
    table_->setRowCount(shown);
    for (int i = 0; i < shown; ++i) {
        const cs::store::EntryRow& r = rows[size_t(i)];
        table_->setItem(i, 0, new QTableWidgetItem(QString::fromUtf8(r.key.data(), qsizetype(r.key.size()))));
        table_->setItem(i, 1, new QTableWidgetItem(QString::fromStdString(r.version)));
        table_->setItem(i, 2, new QTableWidgetItem(QString::fromStdString(cs::formatSize(r.size))));
        table_->setItem(i, 3, new QTableWidgetItem(QLatin1String(cs::store::entryStateName(r.state))));
        table_->setItem(i, 4, new QTableWidgetItem(EntryTableModel::formatTime(r.lastAccess)));
    }
    QString text = rows.empty()
                       ? tr("Nothing matches: no entry would be evicted.")
                       : tr("%1 would be evicted: %2 of entry data, %3 of parts freed now; pack space is "
                            "reclaimed by the next GC.")
                             .arg(counted(qint64(rows.size()), "entry", "entries"),
                                  QString::fromStdString(cs::formatSize(preview_->bytes)),
                                  QString::fromStdString(cs::formatSize(preview_->partBytes)));
    if (int(rows.size()) > shown)
        text += QLatin1Char(' ') + tr("(the first %1 are listed)").arg(shown);
    message_->setText(text);
    evictButton_->setEnabled(!rows.empty());
    Q_EMIT previewFinished(true);
}

std::vector<int64_t> EvictDialog::previewIds() const
{
    std::vector<int64_t> ids;
    if (preview_)
        for (const auto& r : preview_->evicted)
            ids.push_back(r.id);
    return ids;
}

} // namespace ui
