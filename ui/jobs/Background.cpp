#include "ui/jobs/Background.h"

namespace ui {

Background::Background() : state_(std::make_shared<State>())
{
    GuiInbox::attach();
}

Background::~Background()
{
    state_->alive = false;
}

void Background::begin()
{
    std::lock_guard lock(state_->mutex);
    ++state_->running;
}

void Background::State::endOne()
{
    {
        std::lock_guard lock(mutex);
        --running;
    }
    idle.notify_all();
}

void Background::waitForAll()
{
    std::unique_lock lock(state_->mutex);
    state_->idle.wait(lock, [this] { return state_->running == 0; });
}

int Background::running() const
{
    std::lock_guard lock(state_->mutex);
    return state_->running;
}

void Background::Link::toGui(std::function<void()> call) const
{
    GuiInbox::post([state = state_, call = std::move(call)] {
        if (state->alive)
            call();
    });
}

} // namespace ui
