#include "ui/frames/ScanQueue.h"

#include <algorithm>

namespace ui {

ScanQueue& ScanQueue::instance()
{
    static ScanQueue queue;
    return queue;
}

void ScanQueue::watch(QObject* owner)
{
    if (std::find(watched_.begin(), watched_.end(), owner) != watched_.end())
        return;
    watched_.push_back(owner);
    connect(owner, &QObject::destroyed, this, [this, owner] { forget(owner); });
}

void ScanQueue::request(QObject* owner, std::function<void()> start)
{
    watch(owner);
    if (std::find(running_.begin(), running_.end(), owner) != running_.end()) {
        start();
        return;
    }
    const auto w = std::find_if(waiting_.begin(), waiting_.end(), [owner](const Waiting& x) { return x.owner == owner; });
    if (w != waiting_.end()) {
        w->start = std::move(start);
        return;
    }
    if (int(running_.size()) < kMaxScansAtOnce) {
        running_.push_back(owner);
        start();
        return;
    }
    waiting_.push_back({owner, std::move(start)});
}

void ScanQueue::release(QObject* owner)
{
    const auto r = std::find(running_.begin(), running_.end(), owner);
    if (r == running_.end())
        return;
    running_.erase(r);
    startNext();
}

void ScanQueue::forget(QObject* owner)
{
    watched_.erase(std::remove(watched_.begin(), watched_.end(), owner), watched_.end());
    waiting_.erase(std::remove_if(waiting_.begin(), waiting_.end(), [owner](const Waiting& x) { return x.owner == owner; }),
                   waiting_.end());
    release(owner);
}

void ScanQueue::startNext()
{
    while (int(running_.size()) < kMaxScansAtOnce && !waiting_.empty()) {
        Waiting next = std::move(waiting_.front());
        waiting_.pop_front();
        running_.push_back(next.owner);
        next.start();
    }
}

} // namespace ui
