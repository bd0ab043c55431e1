#include "ui/jobs/GuiInbox.h"

#include <QCoreApplication>
#include <QPointer>
#include <QSocketNotifier>
#include <QThread>

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <utility>

namespace ui::GuiInbox {
namespace {

// Workers may post until the process ends: the queue is never destroyed.
struct Queue {
    std::mutex mutex;
    std::deque<std::pair<uint64_t, std::function<void()>>> calls;   // numbered in posting order
    uint64_t posted = 0;
    int fd = -1;   // eventfd: non-zero while calls may be waiting
};

Queue& queue()
{
    static Queue* q = [] {
        auto* made = new Queue;
        made->fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (made->fd < 0) {
            std::perror("cachescope: eventfd for the GUI thread's inbox");
            std::abort();
        }
        return made;
    }();
    return *q;
}

void wake(Queue& q)
{
    const uint64_t one = 1;
    while (::write(q.fd, &one, sizeof one) < 0 && errno == EINTR) {
    }
    // EAGAIN: the counter is at its maximum, the GUI thread is woken anyway.
}

// Runs, on the GUI thread, the calls posted before it started, one at a
// time: a call may run a nested event loop (whose own drain runs the calls
// behind it) or post new ones. Calls posted meanwhile wake the loop again and
// wait for its next turn, as Qt's posted events do, so a worker reporting
// faster than the GUI thread handles its reports cannot hold the GUI thread
// here and starve painting and input.
void drain()
{
    Queue& q = queue();
    uint64_t count = 0;
    while (::read(q.fd, &count, sizeof count) < 0 && errno == EINTR) {
    }
    uint64_t end = 0;
    {
        std::lock_guard lock(q.mutex);
        end = q.posted;
    }
    for (;;) {
        std::function<void()> call;
        {
            std::lock_guard lock(q.mutex);
            if (q.calls.empty() || q.calls.front().first >= end)
                return;
            call = std::move(q.calls.front().second);
            q.calls.pop_front();
        }
        call();
    }
}

// The GUI side; a child of the application, so it goes with it.
QPointer<QSocketNotifier>& notifier()
{
    static QPointer<QSocketNotifier> n;
    return n;
}

} // namespace

void attach()
{
    QCoreApplication* app = QCoreApplication::instance();
    Q_ASSERT(app && QThread::currentThread() == app->thread());
    if (notifier())
        return;
    Queue& q = queue();
    auto* n = new QSocketNotifier(q.fd, QSocketNotifier::Read, app);
    QObject::connect(n, &QSocketNotifier::activated, n, [] { drain(); });
    notifier() = n;
    // Calls posted while no notifier existed.
    std::lock_guard lock(q.mutex);
    if (!q.calls.empty())
        wake(q);
}

void post(std::function<void()> call)
{
    Queue& q = queue();
    {
        std::lock_guard lock(q.mutex);
        q.calls.emplace_back(q.posted++, std::move(call));
    }
    wake(q);
}

} // namespace ui::GuiInbox
