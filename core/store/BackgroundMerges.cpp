// Merges that run behind the command that started them (Store.h,
// "Background merges"): a store-wide lease that the kernel keeps, and the
// per-entry merge lock read without taking it.
#include "core/store/StoreInternal.h"

#include "core/jobs/Job.h"
#include "core/pack/FileLock.h"
#include "core/util/Error.h"

#include <sys/file.h>

#include <cerrno>
#include <chrono>
#include <thread>

namespace cs::store {

FileLock Store::holdBackgroundMerge() const
{
    return FileLock(d->layout->root(), StoreLayout::kMergesLock, FileLock::Shared);
}

bool Store::backgroundMergesRunning() const
{
    if (d->catalog->readOnly() && d->layout->root().kindOf(StoreLayout::kMergesLock) == Folder::Kind::Missing)
        return false;   // nobody who could write this store ever merged behind
    return !FileLock::tryLock(d->layout->root(), StoreLayout::kMergesLock, FileLock::Exclusive).held();
}

void Store::waitForBackgroundMerges(Job& job) const
{
    if (d->catalog->readOnly() && d->layout->root().kindOf(StoreLayout::kMergesLock) == Folder::Kind::Missing)
        return;
    // Polled, not a blocking flock: a wait must stay cancellable.
    while (!FileLock::tryLock(d->layout->root(), StoreLayout::kMergesLock, FileLock::Exclusive).held()) {
        job.checkCancel();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

bool Store::mergeRunning(int64_t id) const { return d->mergeLockHeld(id); }

bool Store::Impl::mergeLockHeld(int64_t id) const
{
    // Every merge, in any process, holds an exclusive flock on parts/<id>
    // (EntryMergeLock in Merge.cpp). A shared try on a description of our own
    // fails exactly while one holds it; a gone folder means no merge is left.
    std::optional<Folder> parts;
    try {
        parts = layout->partsOf(id);
    } catch (const Error&) {
        return false;
    }
    if (!parts)
        return false;
    // partsOf opened a description of its own: closing it drops the probe.
    if (::flock(parts->fd(), LOCK_SH | LOCK_NB) == 0)
        return false;
    return errno == EWOULDBLOCK;
}

} // namespace cs::store
