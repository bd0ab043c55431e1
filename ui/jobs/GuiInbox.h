// Calls for the GUI thread, posted from any thread: a queue under a
// std::mutex, and an eventfd the poster writes and the GUI thread's event
// loop watches with a QSocketNotifier.
//
// Instead of QMetaObject::invokeMethod(..., Qt::QueuedConnection) or a
// QFutureWatcher from a worker: a worker thread never calls into Qt, so no
// Qt object (posted event, slot object, future state) is made on one thread
// and freed on another behind synchronisation inside the distribution's
// libQt6Core, which ThreadSanitizer cannot see. The queue's mutex orders
// everything the worker wrote before post() with the call on the GUI thread
// in a way TSan models (docs/reliability.md, Sanitizers).
//
// Calls run in the order posted, from the GUI thread's event loop (any
// loop: exec(), QSignalSpy::wait, QTest::qWait, a modal dialog's).
#pragma once
#include <functional>

namespace ui::GuiInbox {

// Makes the GUI side (the notifier) if it does not exist; call on the GUI
// thread, with the QCoreApplication made, before anything is posted.
void attach();

// From any thread: call runs on the GUI thread. A call posted while no
// application exists waits for the next attach().
void post(std::function<void()> call);

} // namespace ui::GuiInbox
