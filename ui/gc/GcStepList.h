// The GC's steps as a list: pending, running (a turning spinner), done (a
// check mark), failed or cancelled (a cross), with the step's detail text.
// Driven by JobStatus updates; the icons are painted, no font glyphs needed.
#pragma once
#include "core/jobs/Job.h"

#include <QListWidget>
#include <QTimer>

namespace ui {

class GcStepList : public QListWidget {
    Q_OBJECT
public:
    enum class StepState { Pending, Running, Done, Failed };

    explicit GcStepList(QWidget* parent = nullptr);

    void setSteps(const QStringList& names);
    void showStatus(const cs::JobStatus& status);
    // The job ended: steps before the current one done, the current one done
    // (ok) or failed, the rest pending.
    void finish(bool ok);
    StepState stepState(int row) const;

    QSize sizeHint() const override;

private:
    void setState(int row, StepState state, const QString& detail = {});
    void turn();
    QIcon iconFor(StepState state) const;

    QStringList names_;
    std::vector<StepState> states_;
    int current_ = -1;
    int angle_ = 0;
    QTimer spin_;
};

} // namespace ui
