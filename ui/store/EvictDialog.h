// Evict with a preview: the operator picks a policy (older than, unused for,
// a byte budget, the selected keys), the dialog runs a dry run off the GUI
// thread and lists exactly what would go; only then can the eviction be
// confirmed. The confirmed policy carries the preview's clock, so the
// eviction removes what the preview listed (unless the store changed).
#pragma once
#include "core/store/Store.h"

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

class EvictDialog : public QDialog {
    Q_OBJECT
public:
    EvictDialog(std::shared_ptr<cs::store::Store> store, std::vector<std::string> selectedKeys,
                QWidget* parent = nullptr);

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
    std::optional<cs::store::EvictPolicy> policyFromFields();
    // The previewed policy (dryRun false, now = the preview's clock); valid
    // after previewFinished(true).
    const cs::store::EvictPolicy& confirmedPolicy() const { return previewed_; }
    // Catalog ids listed by the last preview, in its order.
    std::vector<int64_t> previewIds() const;

public Q_SLOTS:
    void runPreview();

Q_SIGNALS:
    void previewFinished(bool ok);

private:
    void onPreviewFinished(bool ok, const QString& resultOrError);
    void invalidatePreview();

    std::shared_ptr<cs::store::Store> store_;
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
    cs::store::EvictPolicy pending_;
    cs::store::EvictPolicy previewed_;
    std::shared_ptr<const cs::store::EvictResult> preview_;
};

} // namespace ui
