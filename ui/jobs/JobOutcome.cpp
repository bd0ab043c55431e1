#include "ui/jobs/JobOutcome.h"

#include "core/jobs/Job.h"

namespace ui {

JobOutcome JobOutcome::of(bool completed, const cs::JobStatus& s)
{
    if (completed)
        return {Kind::Ok, QString::fromStdString(s.result)};
    if (s.state == cs::JobState::Cancelled)
        return {Kind::Cancelled, QString::fromLatin1(cs::jobStateName(s.state))};
    return {Kind::Failed, QString::fromStdString(s.message)};
}

} // namespace ui
