// At most kMaxScansAtOnce frame documents read their file at the same time;
// the others wait, in the order they asked. A scan holds its frames as they
// are read, so tabs shown in quick succession (or many files opened at once)
// cannot all be reading, and holding what they read, together. Lives on the
// GUI thread; a document that goes away gives back its slot or its place.
#pragma once
#include <QObject>

#include <deque>
#include <functional>
#include <vector>

namespace ui {

class ScanQueue : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxScansAtOnce = 2;
    static ScanQueue& instance();

    // Runs start now if owner holds a slot or one is free, else when one
    // frees (a later request of a waiting owner replaces its start).
    void request(QObject* owner, std::function<void()> start);
    // Owner's scan ended: its slot goes to the next waiting owner.
    void release(QObject* owner);

    int running() const { return int(running_.size()); }
    int waiting() const { return int(waiting_.size()); }

private:
    struct Waiting {
        QObject* owner;
        std::function<void()> start;
    };
    void forget(QObject* owner);
    void startNext();
    void watch(QObject* owner);

    std::vector<QObject*> running_;
    std::deque<Waiting> waiting_;
    std::vector<QObject*> watched_;
};

} // namespace ui
