// Linked into the GUI test programs of a ThreadSanitizer build only
// (tests/CMakeLists.txt): Qt's raster engine paints and converts images on
// the calling thread instead of handing parts to Qt's global thread pool.
//
// Qt 6.4 splits large fills (qdrawhelper), smooth scaling (qimagescale) and
// image conversions into segments, starts each on QThreadPool::globalInstance()
// and waits for them on a QSemaphore; each of those code paths takes the
// serial path when globalInstance() returns null (Debian's libQt6Gui 6.4.2
// calls it from 45 places, and each tests the pointer: objdump -d). No other
// Qt library the tests load imports it (nm -D). The distribution's Qt is
// not built with TSan, so the pool's queue and that semaphore are invisible
// to it: every large paint was reported (a runnable, its queue node and a
// std::function made by the GUI thread and freed by a pool thread, pixel rows
// written by both), though no code of ours takes part (docs/reliability.md,
// Sanitizers). No code of ours uses Qt's thread pool (ctest no_qt_threads),
// so this changes how Qt parallelises its own painting in these tests and
// nothing else.
//
// This definition comes first in the program's symbol lookup, before
// libQt6Core's, so libQt6Gui's calls reach it; libQt6Core's own calls do not.
#include <QThreadPool>

QThreadPool* QThreadPool::globalInstance()
{
    return nullptr;
}
