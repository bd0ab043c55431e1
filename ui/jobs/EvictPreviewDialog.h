// One eviction dialog for every kind of store: the operator picks a policy
// (older than, unused for, a byte budget, the selected keys), a read-only
// job lists exactly what would go, and only then can the eviction be
// confirmed. What a policy means and how a preview is computed belong to
// the store (cs::store::Store::evict with dryRun, or the cache server's
// planEvict); this class owns the fields, their parsing, the preview job,
// the table and the rule that any change of a field voids the preview.
#pragma once
#include <QDialog>
#include <QString>

#include <cstdint>
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
struct JobOutcome;
class JobProgressWidget;
class JobRunner;

// The fields as parsed: durations in seconds, the budget in bytes.
struct EvictFields {
    std::optional<int64_t> olderThanSeconds;
    std::optional<int64_t> unusedForSeconds;
    std::optional<uint64_t> maxBytes;
    std::vector<std::string> keys;   // the selected keys when their box is checked
};

// One row of the preview table, already formatted.
struct EvictPreviewRow {
    QString key, version, size, state, time;
};

class EvictPreviewDialog : public QDialog {
    Q_OBJECT
public:
    // The words that differ between stores.
    struct Texts {
        QString title;
        QString olderThanHint;
        QString unusedForHint;
        QString selectedKeys;   // the box's label, with the count
        QString timeColumn;     // last access, last download
        QString intro;
    };

    QLineEdit* olderThanEdit() const { return olderThan_; }
    QLineEdit* unusedForEdit() const { return unusedFor_; }
    QLineEdit* maxSizeEdit() const { return maxSize_; }
    QCheckBox* selectedKeysBox() const { return selectedBox_; }
    QTableWidget* previewTable() const { return table_; }
    QPushButton* previewButton() const { return previewButton_; }
    QPushButton* evictButton() const { return evictButton_; }
    QLabel* messageLabel() const { return message_; }

    // The fields parsed; nullopt (and the reason shown) when a field does not
    // parse or no rule is chosen.
    std::optional<EvictFields> fieldsFromEdits();

public Q_SLOTS:
    void runPreview();

Q_SIGNALS:
    void previewFinished(bool ok);

protected:
    EvictPreviewDialog(const Texts& texts, std::vector<std::string> selectedKeys, QWidget* parent);

    JobRunner* runner() const { return runner_; }
    // Starts the read-only preview of these fields on runner(); its onResult
    // keeps what the preview found.
    virtual void startPreview(const EvictFields& fields) = 0;
    // How many entries the finished preview would evict; previewRow() then
    // formats each of them.
    virtual size_t previewSize() const = 0;
    virtual EvictPreviewRow previewRow(size_t i) const = 0;
    // The sentence under the table for a non-empty preview of n entries.
    virtual QString previewSummary(size_t n) const = 0;
    // Appended to a non-empty preview's sentence (rich text allowed), and
    // the confirm button's label.
    virtual QString previewWarning() const;
    virtual QString confirmText() const;
    // The fields changed: forget what the last preview found.
    virtual void dropPreview() = 0;

private:
    void onPreviewFinished(const JobOutcome& outcome);
    void invalidatePreview();

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
};

} // namespace ui
