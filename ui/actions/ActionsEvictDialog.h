// Evict cache-server entries with a preview (EvictPreviewDialog): the
// operator picks a policy (updated before, not downloaded for, a byte
// budget, the selected keys); a read-only job lists exactly what would go
// (ActionsCache::planEvict) and whether the server looks active; only then
// can the eviction be confirmed ("Evict anyway" when the server looked
// active). The dialog never writes; the document runs the confirmed policy
// as a job.
#pragma once
#include "ui/actions/ActionsData.h"
#include "ui/jobs/EvictPreviewDialog.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ui {

class ActionsEvictDialog : public EvictPreviewDialog {
    Q_OBJECT
public:
    struct Preview;   // what a preview found (ActionsEvictDialog.cpp)

    ActionsEvictDialog(ActionsDataLocation where, std::vector<std::string> selectedKeys, QWidget* parent = nullptr);

    // The policy from the fields; nullopt (and the reason shown) when a field
    // does not parse or nothing is chosen.
    std::optional<cs::actions::ActionsEvictPolicy> policyFromFields();
    // The previewed policy; valid after previewFinished(true).
    const cs::actions::ActionsEvictPolicy& confirmedPolicy() const { return previewed_; }
    // The server looked active at the preview (the user saw why).
    bool serverLookedActive() const { return activeAtPreview_; }
    const std::vector<cs::actions::ActionsEntry>& previewEntries() const;

protected:
    void startPreview(const EvictFields& fields) override;
    size_t previewSize() const override;
    EvictPreviewRow previewRow(size_t i) const override;
    QString previewSummary(size_t n) const override;
    QString previewWarning() const override;
    QString confirmText() const override;
    void dropPreview() override { preview_.reset(); }

private:
    ActionsDataLocation where_;
    cs::actions::ActionsEvictPolicy pending_;
    cs::actions::ActionsEvictPolicy previewed_;
    bool activeAtPreview_ = false;
    std::shared_ptr<const Preview> preview_;
};

} // namespace ui
