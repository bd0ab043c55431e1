// The one owner of "run this off the GUI thread and hand the result back":
// a GUI object keeps a Background, runs work on the WorkerPool through it,
// and gets each result on the GUI thread (through the GuiInbox) for as long
// as it exists. Results that arrive after it was destroyed are dropped.
//
// Every hand-over is a std::mutex (the pool's queue, the inbox's queue), so
// a ThreadSanitizer build sees what the GUI thread wrote before run() as
// happening before the work, and what the work wrote as happening before
// done() (docs/reliability.md, Sanitizers). A worker never calls into Qt.
//
// The destructor does not wait for work still running: work must hold what
// it reads (shared_ptr captures, never `this`); waitForAll() waits, for
// owners that must outlive their work (JobRunner) and for tests.
//
// Work captures plain C++ values (std::string, core types, shared_ptr), and
// results hold them too, not Qt's implicitly shared types (QString,
// QByteArray, QList): their reference counts also change inside libQt6Core,
// where TSan cannot see it, so a worker dropping its copy of a string the GUI
// thread shares looks to TSan like a race with the GUI thread's free. Convert
// on the GUI thread (toStdString) before handing over.
#pragma once
#include "ui/jobs/GuiInbox.h"
#include "ui/jobs/WorkerPool.h"

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

namespace ui {

class Background {
    struct State;

public:
    // A copyable handle for work that reports as it goes: toGui(call) from
    // any thread runs call on the GUI thread unless the Background is gone.
    class Link {
    public:
        void toGui(std::function<void()> call) const;

    private:
        friend class Background;
        explicit Link(std::shared_ptr<State> state) : state_(std::move(state)) {}
        std::shared_ptr<State> state_;
    };

    // On the GUI thread, with the application made.
    Background();
    ~Background();
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;

    // work() on a worker thread, at background priority; then done(result)
    // (done() for work returning void) on the GUI thread, in the order the
    // results arrive. work must not throw.
    template <typename Work, typename Done>
    void run(Work work, Done done)
    {
        using Result = std::invoke_result_t<Work&>;
        begin();
        WorkerPool::instance().post([link = link(), work = std::move(work), done = std::move(done)]() mutable {
            if constexpr (std::is_void_v<Result>) {
                work();
                link.toGui(std::move(done));
            } else {
                link.toGui([done = std::move(done), result = work()]() mutable { done(std::move(result)); });
            }
            link.state_->endOne();
        });
    }

    Link link() const { return Link(state_); }
    // Blocks until every work started through this Background has returned
    // (its result may still be on its way to the GUI thread).
    void waitForAll();
    // Work started through this Background that has not returned yet.
    int running() const;

private:
    struct State {
        std::mutex mutex;
        std::condition_variable idle;
        int running = 0;
        bool alive = true;   // read and written on the GUI thread only
        void endOne();
    };
    void begin();

    std::shared_ptr<State> state_;
};

} // namespace ui
