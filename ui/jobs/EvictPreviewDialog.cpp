#include "ui/jobs/EvictPreviewDialog.h"

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

EvictPreviewDialog::EvictPreviewDialog(const Texts& texts, std::vector<std::string> selectedKeys, QWidget* parent)
    : QDialog(parent),
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
    setWindowTitle(texts.title);
    resize(760, 520);
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    olderThan_->setPlaceholderText(texts.olderThanHint);
    unusedFor_->setPlaceholderText(texts.unusedForHint);
    maxSize_->setPlaceholderText(tr("e.g. 10GiB (then least recently used first)"));
    selectedBox_->setText(texts.selectedKeys);
    selectedBox_->setEnabled(!selectedKeys_.empty());
    selectedBox_->setChecked(!selectedKeys_.empty());
    form->addRow(tr("Older than:"), olderThan_);
    form->addRow(tr("Unused for:"), unusedFor_);
    form->addRow(tr("Down to a budget of:"), maxSize_);
    form->addRow(QString(), selectedBox_);
    layout->addLayout(form);
    auto* previewRow = new QHBoxLayout;
    // The button keeps its size; the progress bar, shown while a preview
    // runs, takes the rest of the row (the stretch does when it is hidden).
    previewRow->addWidget(previewButton_);
    previewRow->addWidget(progress_, 1);
    previewRow->addStretch(0);
    layout->addLayout(previewRow);

    table_->setColumnCount(5);
    table_->setHorizontalHeaderLabels({tr("Key"), tr("Version"), tr("Size"), tr("State"), texts.timeColumn});
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionMode(QAbstractItemView::NoSelection);
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    layout->addWidget(table_, 1);
    message_->setWordWrap(true);
    message_->setText(texts.intro);
    layout->addWidget(message_);

    evictButton_ = buttons_->addButton(tr("Evict"), QDialogButtonBox::DestructiveRole);
    evictButton_->setEnabled(false);
    layout->addWidget(buttons_);

    progress_->attach(runner_);
    connect(previewButton_, &QPushButton::clicked, this, &EvictPreviewDialog::runPreview);
    connect(runner_, &JobRunner::finished, this, &EvictPreviewDialog::onPreviewFinished);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(evictButton_, &QPushButton::clicked, this, &QDialog::accept);
    for (QLineEdit* e : {olderThan_, unusedFor_, maxSize_})
        connect(e, &QLineEdit::textChanged, this, &EvictPreviewDialog::invalidatePreview);
    connect(selectedBox_, &QCheckBox::toggled, this, &EvictPreviewDialog::invalidatePreview);
}

QString EvictPreviewDialog::confirmText() const
{
    return tr("Evict");
}

QString EvictPreviewDialog::previewWarning() const
{
    return {};
}

void EvictPreviewDialog::invalidatePreview()
{
    evictButton_->setEnabled(false);
    dropPreview();
    table_->setRowCount(0);
    message_->setText(tr("The policy changed: press Preview again."));
}

std::optional<EvictFields> EvictPreviewDialog::fieldsFromEdits()
{
    EvictFields f;
    auto duration = [&](QLineEdit* edit, const QString& what, std::optional<int64_t>& out) {
        const QString t = edit->text().trimmed();
        if (t.isEmpty())
            return true;
        const auto v = cs::parseDurationSeconds(t.toStdString());
        if (!v || *v < 0) {
            message_->setText(tr("%1 \"%2\" is not a duration; use e.g. 90s, 15m, 12h, 30d or 2w.").arg(what, t));
            return false;
        }
        out = int64_t(*v);
        return true;
    };
    if (!duration(olderThan_, tr("Older than"), f.olderThanSeconds) || !duration(unusedFor_, tr("Unused for"), f.unusedForSeconds))
        return std::nullopt;
    const QString budget = maxSize_->text().trimmed();
    if (!budget.isEmpty()) {
        const auto v = cs::parseSize(budget.toStdString());
        if (!v) {
            message_->setText(tr("Budget \"%1\" is not a size; use e.g. 512MiB or 10GiB.").arg(budget));
            return std::nullopt;
        }
        f.maxBytes = *v;
    }
    if (selectedBox_->isChecked())
        f.keys = selectedKeys_;
    if (!f.olderThanSeconds && !f.unusedForSeconds && !f.maxBytes && f.keys.empty()) {
        message_->setText(tr("Choose at least one rule: an age, an idle time, a budget or the selected keys."));
        return std::nullopt;
    }
    return f;
}

void EvictPreviewDialog::runPreview()
{
    const auto fields = fieldsFromEdits();
    if (!fields)
        return;
    evictButton_->setEnabled(false);
    previewButton_->setEnabled(false);
    message_->setText(tr("Previewing…"));
    startPreview(*fields);
}

void EvictPreviewDialog::onPreviewFinished(const JobOutcome& outcome)
{
    previewButton_->setEnabled(true);
    if (!outcome.ok()) {
        message_->setText(outcome.cancelled() ? tr("Preview cancelled.") : tr("Preview failed: %1").arg(outcome.message));
        Q_EMIT previewFinished(false);
        return;
    }
    const size_t n = previewSize();
    // The first rows only: a preview of a million entries must not build a
    // million widgets.
    constexpr size_t kShown = 5000;
    const int shown = int(std::min(n, kShown));
    table_->setRowCount(shown);
    for (int i = 0; i < shown; ++i) {
        const EvictPreviewRow r = previewRow(size_t(i));
        int column = 0;
        for (const QString* text : {&r.key, &r.version, &r.size, &r.state, &r.time})
            table_->setItem(i, column++, new QTableWidgetItem(*text));
    }
    QString text = n == 0 ? tr("Nothing matches: no entry would be evicted.") : previewSummary(n);
    if (n > size_t(shown))
        text += QLatin1Char(' ') + tr("(the first %1 are listed)").arg(shown);
    if (n > 0)
        text += previewWarning();
    message_->setText(text);
    evictButton_->setText(confirmText());
    evictButton_->setEnabled(n > 0);
    Q_EMIT previewFinished(true);
}

} // namespace ui
