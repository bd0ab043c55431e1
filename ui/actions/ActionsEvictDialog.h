// Evict cache-server entries with a preview, in the style of the native
// store's EvictDialog: the operator picks a policy (updated before, not
// downloaded for, a byte budget, the selected keys); a read-only job lists
// exactly what would go (ActionsCache::planEvict) and whether the server
// looks active; only then can the eviction be confirmed ("Evict anyway"
// when the server looked active). The dialog never writes; the document
// runs the confirmed policy as a job.
#pragma once
#include "ui/actions/ActionsData.h"

#include <QDialog>

#include <memory>
#include <optional>
#include <string>
#include <vector>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace ui {
class JobProgressWidget;
class JobRunner;

class ActionsEvictDialog : public QDialog {
    Q_OBJECT
public:
    struct Preview;   // what a preview found (ActionsEvictDialog.cpp)

    ActionsEvictDialog(ActionsDataLocation where, std::vector<std::string> selectedKeys, QWidget* parent = nullptr);

    QLineEdit* olderThanEdit() const { return olderThan_; }
    QLineEdit* unusedForEdit() const { return unusedFor_; }
    QLineEdit* maxSizeEdit() const { return maxSize_; }
    QCheckBox* selectedKeysBox() const { return selectedBox_; }
    QTableWidget* previewTable() const { return table_; }
    QPushButton* previewButton() const { return previewButton_; }
    QPushButton* evictButton() const { return evictButton_; }
    QLabel* messageLabel() const { return message_; }

    // The policy from the fields; nullopt (and the reason shown) when a field
    // does not parse or nothing is chosen.
    std::optional<cs::actions::ActionsEvictPolicy> policyFromFields();
    // The previewed policy; valid after previewFinished(true).
    const cs::actions::ActionsEvictPolicy& confirmedPolicy() const { return previewed_; }
    // The server looked active at the preview (the user saw why).
    bool serverLookedActive() const { return activeAtPreview_; }
    const std::vector<cs::actions::ActionsEntry>& previewEntries() const;

public Q_SLOTS:
    void runPreview();

Q_SIGNALS:
    void previewFinished(bool ok);

private:
    void onPreviewFinished(bool ok, const QString& resultOrError);
    void invalidatePreview();

    ActionsDataLocation where_;
    std::vector<std::string> selectedKeys_;
    JobRunner* runner_;
    JobProgressWidget* progress_;
    QLineEdit* olderThan_;
    QLineEdit* unusedFor_;
    QLineEdit* maxSize_;
    QCheckBox* selectedBox_;
    QPushButton* previewButton_;
    QTableWidget* table_;
    QLabel* message_;
    QDialogButtonBox* buttons_;
    QPushButton* evictButton_;
    cs::actions::ActionsEvictPolicy pending_;
    cs::actions::ActionsEvictPolicy previewed_;
    bool activeAtPreview_ = false;
    std::shared_ptr<const Preview> preview_;
};

} // namespace ui
