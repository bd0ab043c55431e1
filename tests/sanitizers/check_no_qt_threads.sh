#!/usr/bin/env bash
# cachescope's own code never runs on a thread Qt starts: work off the GUI
# thread goes through ui/jobs (WorkerPool: std::thread; GuiInbox: back to the
# GUI thread), never QThreadPool, QtConcurrent, QRunnable, QFuture, a QThread
# subclass or moveToThread: one owner for the hand-over between the GUI and
# its workers, made of primitives ThreadSanitizer models. The TSan build of
# the GUI tests relies on it too: it takes Qt's global thread pool away from
# Qt's painting (tests/sanitizers/TsanSerialQtPainting.cpp), which would
# break code of ours that used that pool.
# Usage: check_no_qt_threads.sh SOURCE_DIR   (ctest: no_qt_threads)
set -euo pipefail
src=$1
pattern='QThreadPool|QtConcurrent|QRunnable|QFuture(Watcher)?\b|moveToThread|public QThread\b|QThread::create|new QThread\b'
found=$(cd "$src" && grep -rnE --include='*.cpp' --include='*.h' "$pattern" ui app tests core \
    | grep -vE '^[^:]+:[0-9]+:\s*//' | grep -v '^tests/sanitizers/' || true)
if [ -n "$found" ]; then
    echo "no_qt_threads: code that would run on a thread Qt starts (use ui::Background, ui/jobs/Background.h):" >&2
    echo "$found" >&2
    exit 1
fi
echo "no_qt_threads: no QThreadPool, QtConcurrent, QRunnable, QFuture, QThread subclass or moveToThread in ui/ app/ tests/ core/"
