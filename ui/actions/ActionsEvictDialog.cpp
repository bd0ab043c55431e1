#include "ui/actions/ActionsEvictDialog.h"

#include "core/jobs/Job.h"
#include "core/util/Units.h"
#include "ui/jobs/JobRunner.h"

namespace ui {

struct ActionsEvictDialog::Preview {
    std::vector<cs::actions::ActionsEntry> entries;
    std::vector<cs::actions::ActionsSkip> kept;   // what the write would keep, and why
    cs::actions::Activity activity;
    uint64_t bytes = 0;
};
using PreviewPtr = std::shared_ptr<const ActionsEvictDialog::Preview>;

namespace {

// The server's timestamps are epoch milliseconds.
cs::actions::ActionsEvictPolicy policyOf(const EvictFields& f)
{
    cs::actions::ActionsEvictPolicy p;
    if (f.olderThanSeconds)
        p.olderThanMs = *f.olderThanSeconds * 1000;
    if (f.unusedForSeconds)
        p.unusedForMs = *f.unusedForSeconds * 1000;
    p.maxBytes = f.maxBytes;
    p.keys = f.keys;
    return p;
}

EvictPreviewDialog::Texts actionsTexts(size_t selected)
{
    return {EvictPreviewDialog::tr("Evict cache-server entries"),
            EvictPreviewDialog::tr("e.g. 30d (updated before)"),
            EvictPreviewDialog::tr("e.g. 7d (not downloaded since; never-downloaded entries count from their update)"),
            EvictPreviewDialog::tr("Only the %n selected key(s), any version", nullptr, int(selected)),
            EvictPreviewDialog::tr("Last download"),
            EvictPreviewDialog::tr("Choose a policy and press Preview: the preview only reads, and nothing is "
                                   "removed before you confirm.")};
}

} // namespace

ActionsEvictDialog::ActionsEvictDialog(ActionsDataLocation where, std::vector<std::string> selectedKeys, QWidget* parent)
    : EvictPreviewDialog(actionsTexts(selectedKeys.size()), selectedKeys, parent), where_(std::move(where))
{
}

std::optional<cs::actions::ActionsEvictPolicy> ActionsEvictDialog::policyFromFields()
{
    const auto fields = fieldsFromEdits();
    return fields ? std::optional(policyOf(*fields)) : std::nullopt;
}

void ActionsEvictDialog::startPreview(const EvictFields& fields)
{
    pending_ = policyOf(fields);
    runner()->start(tr("Eviction preview"), [paths = where_.paths, p = pending_](cs::Job&) {
        auto cache = openActionsForReading(paths);   // a plan: nothing is written
        auto preview = std::make_shared<Preview>();
        preview->entries = cache->planEvict(p);
        // The write's own skip rules (a recent download, a lease of the
        // server's), with the options the write uses (ActionsDocumentActions).
        preview->kept = cache->holdBackFromEvict(preview->entries, cs::actions::WriteOptions{});
        preview->activity = cache->activity();
        for (const auto& e : preview->entries)
            preview->bytes += e.size;
        return PreviewPtr(std::move(preview));
    }, [this](PreviewPtr preview) {
        preview_ = std::move(preview);
        previewed_ = pending_;
        activeAtPreview_ = preview_->activity.active;
    });
}

size_t ActionsEvictDialog::previewSize() const
{
    return preview_->entries.size();
}

EvictPreviewRow ActionsEvictDialog::previewRow(size_t i) const
{
    const cs::actions::ActionsEntry& e = preview_->entries[i];
    return {QString::fromStdString(e.key), QString::fromStdString(e.version),
            QString::fromStdString(cs::formatSize(e.size)), actionsEntryStateName(e.state),
            formatEpochMs(e.lastDownloadedAtMs)};
}

QString ActionsEvictDialog::previewSummary(size_t n) const
{
    QString text = tr("%n entries would be evicted: their database rows and storage folders go together, freeing %1.",
                      nullptr, int(n))
                       .arg(QString::fromStdString(cs::formatSize(preview_->bytes)));
    if (!preview_->kept.empty())
        text += QLatin1Char(' ')
                + tr("%n more would be kept, the first (%1) because %2.", nullptr, int(preview_->kept.size()))
                      .arg(QString::fromStdString(preview_->kept.front().entry.key),
                           QString::fromStdString(preview_->kept.front().reason));
    return text;
}

QString ActionsEvictDialog::previewWarning() const
{
    if (!activeAtPreview_)
        return {};
    return QStringLiteral("<p><b>") + tr("The server looks active: %1.")
                .arg(QString::fromStdString(preview_->activity.reason).toHtmlEscaped())
        + QStringLiteral("</b> ") + tr("Evicting now could race it; stop it first, or evict anyway.");
}

QString ActionsEvictDialog::confirmText() const
{
    return activeAtPreview_ ? tr("Evict anyway") : tr("Evict");
}

const std::vector<cs::actions::ActionsEntry>& ActionsEvictDialog::previewEntries() const
{
    static const std::vector<cs::actions::ActionsEntry> none;
    return preview_ ? preview_->entries : none;
}

} // namespace ui
