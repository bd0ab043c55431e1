#include "ui/actions/ActionsEvictDialog.h"

#include "core/jobs/Job.h"
#include "core/util/Units.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/JobRunner.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ui {

struct ActionsEvictDialog::Preview {
    std::vector<cs::actions::ActionsEntry> entries;
    cs::actions::Activity activity;
};
using PreviewPtr = std::shared_ptr<const ActionsEvictDialog::Preview>;

ActionsEvictDialog::ActionsEvictDialog(ActionsDataLocation where, std::vector<std::string> selectedKeys, QWidget* parent)
    : QDialog(parent),
      where_(std::move(where)),
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
    setWindowTitle(tr("Evict cache-server entries"));
    resize(760, 520);
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    olderThan_->setPlaceholderText(tr("e.g. 30d (updated before)"));
    unusedFor_->setPlaceholderText(tr("e.g. 7d (not downloaded since; never-downloaded entries count from their update)"));
    maxSize_->setPlaceholderText(tr("e.g. 10GiB (then least recently used first)"));
    selectedBox_->setText(tr("Only the %n selected key(s), any version", nullptr, int(selectedKeys_.size())));
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
    table_->setHorizontalHeaderLabels({tr("Key"), tr("Version"), tr("Size"), tr("State"), tr("Last download")});
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionMode(QAbstractItemView::NoSelection);
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    layout->addWidget(table_, 1);
    message_->setWordWrap(true);
    message_->setText(tr("Choose a policy and press Preview: the preview only reads, and nothing is removed before "
                         "you confirm."));
    layout->addWidget(message_);

    evictButton_ = buttons_->addButton(tr("Evict"), QDialogButtonBox::DestructiveRole);
    evictButton_->setEnabled(false);
    layout->addWidget(buttons_);

    progress_->attach(runner_);
    connect(previewButton_, &QPushButton::clicked, this, &ActionsEvictDialog::runPreview);
    connect(runner_, &JobRunner::finished, this, &ActionsEvictDialog::onPreviewFinished);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(evictButton_, &QPushButton::clicked, this, &QDialog::accept);
    for (QLineEdit* e : {olderThan_, unusedFor_, maxSize_})
        connect(e, &QLineEdit::textChanged, this, &ActionsEvictDialog::invalidatePreview);
    connect(selectedBox_, &QCheckBox::toggled, this, &ActionsEvictDialog::invalidatePreview);
}

void ActionsEvictDialog::invalidatePreview()
{
    evictButton_->setEnabled(false);
    preview_.reset();
    table_->setRowCount(0);
    message_->setText(tr("The policy changed: press Preview again."));
}

std::optional<cs::actions::ActionsEvictPolicy> ActionsEvictDialog::policyFromFields()
{
    cs::actions::ActionsEvictPolicy p;
    auto duration = [&](QLineEdit* edit, const QString& what, std::optional<int64_t>& out) {
        const QString t = edit->text().trimmed();
        if (t.isEmpty())
            return true;
        const auto v = cs::parseDurationSeconds(t.toStdString());
        if (!v || *v < 0) {
            message_->setText(tr("%1 \"%2\" is not a duration; use e.g. 90s, 15m, 12h, 30d or 2w.").arg(what, t));
            return false;
        }
        out = *v * 1000;
        return true;
    };
    if (!duration(olderThan_, tr("Older than"), p.olderThanMs) || !duration(unusedFor_, tr("Unused for"), p.unusedForMs))
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
    if (!p.olderThanMs && !p.unusedForMs && !p.maxBytes && p.keys.empty()) {
        message_->setText(tr("Choose at least one rule: an age, an idle time, a budget or the selected keys."));
        return std::nullopt;
    }
    return p;
}

void ActionsEvictDialog::runPreview()
{
    auto policy = policyFromFields();
    if (!policy)
        return;
    pending_ = *policy;
    evictButton_->setEnabled(false);
    previewButton_->setEnabled(false);
    message_->setText(tr("Previewing…"));
    runner_->start(tr("Eviction preview"), [where = where_, p = *policy](cs::Job&) {
        auto cache = openActionsForReading(where);   // a plan: nothing is written
        auto preview = std::make_shared<Preview>();
        preview->entries = cache->planEvict(p);
        preview->activity = cache->activity();
        return std::any(PreviewPtr(std::move(preview)));
    });
}

void ActionsEvictDialog::onPreviewFinished(bool ok, const QString& resultOrError)
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
    activeAtPreview_ = preview_->activity.active;
    constexpr int kShown = 5000;   // never a widget per row of a huge preview
    const auto& rows = preview_->entries;
    const int shown = int(std::min<size_t>(rows.size(), kShown));
    table_->setRowCount(shown);
    uint64_t bytes = 0;
    for (const auto& e : rows)
        bytes += e.size;
    for (int i = 0; i < shown; ++i) {
        const cs::actions::ActionsEntry& e = rows[size_t(i)];
        table_->setItem(i, 0, new QTableWidgetItem(QString::fromStdString(e.key)));
        table_->setItem(i, 1, new QTableWidgetItem(QString::fromStdString(e.version)));
        table_->setItem(i, 2, new QTableWidgetItem(QString::fromStdString(cs::formatSize(e.size))));
        table_->setItem(i, 3, new QTableWidgetItem(actionsEntryStateName(e.state)));
        table_->setItem(i, 4, new QTableWidgetItem(formatEpochMs(e.lastDownloadedAtMs)));
    }
    QString text = rows.empty() ? tr("Nothing matches: no entry would be evicted.")
                                : tr("%n entries would be evicted: their database rows and storage folders go "
                                     "together, freeing %1.",
                                     nullptr, int(rows.size()))
                                      .arg(QString::fromStdString(cs::formatSize(bytes)));
    if (int(rows.size()) > shown)
        text += QLatin1Char(' ') + tr("(the first %1 are listed)").arg(shown);
    if (activeAtPreview_ && !rows.empty())
        text += QStringLiteral("<p><b>") + tr("The server looks active: %1.")
                    .arg(QString::fromStdString(preview_->activity.reason).toHtmlEscaped())
                + QStringLiteral("</b> ") + tr("Evicting now could race it; stop it first, or evict anyway.");
    message_->setText(text);
    evictButton_->setText(activeAtPreview_ ? tr("Evict anyway") : tr("Evict"));
    evictButton_->setEnabled(!rows.empty());
    Q_EMIT previewFinished(true);
}

const std::vector<cs::actions::ActionsEntry>& ActionsEvictDialog::previewEntries() const
{
    static const std::vector<cs::actions::ActionsEntry> none;
    return preview_ ? preview_->entries : none;
}

} // namespace ui
