// What a QSignalSpy on a finished signal carrying a ui::JobOutcome (a
// JobRunner's, a document's actionFinished, scanFinished) recorded.
#pragma once
#include "ui/jobs/JobOutcome.h"

#include <QSignalSpy>

inline ui::JobOutcome outcomeAt(const QSignalSpy& spy, qsizetype i)
{
    return spy.at(i).at(0).value<ui::JobOutcome>();
}

inline ui::JobOutcome lastOutcome(const QSignalSpy& spy)
{
    return outcomeAt(spy, spy.size() - 1);
}
