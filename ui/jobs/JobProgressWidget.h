// A progress bar (0..1000) with the job's step and time left, and a Cancel
// button, for a view to embed above its content. Shows itself when the
// attached runner starts a job and hides when the job ends. The text never
// widens the widget nor asks for a new layout (StatusText: elided, the whole
// of it in the tooltip), so the Cancel button and the view around it stay
// put while a job reports.
#pragma once
#include <QWidget>

class QProgressBar;
class QPushButton;

namespace cs { struct JobStatus; }

namespace ui {
class JobRunner;
class StatusText;

class JobProgressWidget : public QWidget {
    Q_OBJECT
public:
    explicit JobProgressWidget(QWidget* parent = nullptr);
    void attach(JobRunner* runner);
    // Keep the widget's space while no job runs, so the content below does
    // not move when a job starts and ends.
    void setKeepSpaceWhenHidden(bool keep);

    QProgressBar* bar() const { return bar_; }
    StatusText* label() const { return label_; }
    QPushButton* cancelButton() const { return cancel_; }

private:
    void showStatus(const cs::JobStatus& status);

    StatusText* label_;
    QProgressBar* bar_;
    QPushButton* cancel_;
};

} // namespace ui
