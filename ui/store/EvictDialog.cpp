#include "ui/store/EvictDialog.h"

#include "core/jobs/Job.h"
#include "core/util/Units.h"
#include "ui/jobs/JobRunner.h"
#include "ui/shell/Plural.h"
#include "ui/store/EntryTableModel.h"

#include <chrono>

namespace ui {

using PreviewPtr = std::shared_ptr<const cs::store::EvictResult>;

namespace {

cs::store::EvictPolicy policyOf(const EvictFields& f)
{
    cs::store::EvictPolicy p;
    if (f.olderThanSeconds)
        p.olderThanSeconds = double(*f.olderThanSeconds);
    if (f.unusedForSeconds)
        p.unusedForSeconds = double(*f.unusedForSeconds);
    p.maxBytes = f.maxBytes;
    p.keys = f.keys;
    return p;
}

EvictPreviewDialog::Texts storeTexts(size_t selected)
{
    return {EvictPreviewDialog::tr("Evict entries"),
            EvictPreviewDialog::tr("e.g. 30d (created before)"),
            EvictPreviewDialog::tr("e.g. 7d (not restored since; never-read entries count from creation)"),
            selected == 1 ? EvictPreviewDialog::tr("The selected key, any version and scope")
                          : EvictPreviewDialog::tr("The %1 selected keys, any version and scope").arg(selected),
            EvictPreviewDialog::tr("Last access"),
            EvictPreviewDialog::tr("Choose a policy and press Preview: nothing is removed before you confirm.")};
}

} // namespace

EvictDialog::EvictDialog(std::shared_ptr<cs::store::Store> store, std::vector<std::string> selectedKeys, QWidget* parent)
    : EvictPreviewDialog(storeTexts(selectedKeys.size()), selectedKeys, parent), store_(std::move(store))
{
}

std::optional<cs::store::EvictPolicy> EvictDialog::policyFromFields()
{
    const auto fields = fieldsFromEdits();
    return fields ? std::optional(policyOf(*fields)) : std::nullopt;
}

void EvictDialog::startPreview(const EvictFields& fields)
{
    cs::store::EvictPolicy policy = policyOf(fields);
    policy.dryRun = true;
    // The eviction reuses this clock, so it removes what the preview listed.
    policy.now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    pending_ = policy;
    runner()->start(tr("Eviction preview"), [store = store_, p = policy](cs::Job& job) {
        return PreviewPtr(std::make_shared<cs::store::EvictResult>(store->evict(p, job)));
    }, [this](PreviewPtr preview) {
        preview_ = std::move(preview);
        previewed_ = pending_;
        previewed_.dryRun = false;
    });
}

size_t EvictDialog::previewSize() const
{
    return preview_->evicted.size();
}

EvictPreviewRow EvictDialog::previewRow(size_t i) const
{
    const cs::store::EntryRow& r = preview_->evicted[i];
    return {QString::fromUtf8(r.key.data(), qsizetype(r.key.size())), QString::fromStdString(r.version),
            QString::fromStdString(cs::formatSize(r.size)), QLatin1String(cs::store::entryStateName(r.state)),
            EntryTableModel::formatTime(r.lastAccess)};
}

QString EvictDialog::previewSummary(size_t n) const
{
    QString text = tr("%1 would be evicted: %2 of entry data, %3 of parts freed now; pack space is "
                      "reclaimed by the next GC.")
                       .arg(counted(qint64(n), "entry", "entries"),
                            QString::fromStdString(cs::formatSize(preview_->bytes)),
                            QString::fromStdString(cs::formatSize(preview_->partBytes)));
    // A running upload is never evicted, whatever the policy says.
    if (const auto kept = preview_->keptRunningUploads.size())
        text += tr(" %1 still running (idle for less than a day) would be kept: only uploads idle that long are evicted.")
                    .arg(counted(qint64(kept), "upload", "uploads"));
    return text;
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
