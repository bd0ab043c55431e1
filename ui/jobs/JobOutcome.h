// How a job ended, as the GUI sees it. Code branches on the kind (a
// cancelled job is not a failure to report); the message is for people.
#pragma once
#include <QMetaType>
#include <QString>

namespace cs { struct JobStatus; }

namespace ui {

struct JobOutcome {
    enum class Kind { Ok, Failed, Cancelled };

    Kind kind = Kind::Failed;
    // Ok: the job's result line (what the work passed to job.finish(), may be
    // empty); Failed: the error sentence; Cancelled: the core's name of the
    // state, for a status line. Code asks cancelled(), never the text.
    QString message;

    bool ok() const { return kind == Kind::Ok; }
    bool failed() const { return kind == Kind::Failed; }
    bool cancelled() const { return kind == Kind::Cancelled; }

    // completed: cs::Job::run returned true (the work returned).
    static JobOutcome of(bool completed, const cs::JobStatus& status);
    static JobOutcome success(const QString& message) { return {Kind::Ok, message}; }
};

} // namespace ui

Q_DECLARE_METATYPE(ui::JobOutcome)
