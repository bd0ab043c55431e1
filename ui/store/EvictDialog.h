// Evict entries of the native store with a preview (EvictPreviewDialog):
// the preview is Store::evict with dryRun, and the confirmed policy carries
// the preview's clock, so the eviction removes what the preview listed
// (unless the store changed in between).
#pragma once
#include "core/store/Store.h"
#include "ui/jobs/EvictPreviewDialog.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ui {

class EvictDialog : public EvictPreviewDialog {
    Q_OBJECT
public:
    EvictDialog(std::shared_ptr<cs::store::Store> store, std::vector<std::string> selectedKeys,
                QWidget* parent = nullptr);

    // The policy from the fields; nullopt (and the reason shown) when a field
    // does not parse or nothing is chosen.
    std::optional<cs::store::EvictPolicy> policyFromFields();
    // The previewed policy (dryRun false, now = the preview's clock); valid
    // after previewFinished(true).
    const cs::store::EvictPolicy& confirmedPolicy() const { return previewed_; }
    // Catalog ids listed by the last preview, in its order.
    std::vector<int64_t> previewIds() const;

protected:
    void startPreview(const EvictFields& fields) override;
    size_t previewSize() const override;
    EvictPreviewRow previewRow(size_t i) const override;
    QString previewSummary(size_t n) const override;
    void dropPreview() override { preview_.reset(); }

private:
    std::shared_ptr<cs::store::Store> store_;
    cs::store::EvictPolicy pending_;
    cs::store::EvictPolicy previewed_;
    std::shared_ptr<const cs::store::EvictResult> preview_;
};

} // namespace ui
