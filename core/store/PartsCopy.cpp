// The first restore of an unmerged entry into a regular file (the restore
// output): the parts are copied in the kernel (copy_file_range: one copy
// of the page cache, as `cat` does) while a second thread reads them again
// to check each one's CRC-32C. The merge waits for the delivery (Merge.cpp),
// so the two threads have the two cores: the delivery costs what `cat` of
// the parts costs, not a read, a CRC and a write on one thread beside the
// merge (1.5-1.6x cat before, bench_merge "single").
#include "core/store/StoreInternal.h"

#include "core/jobs/Job.h"
#include "core/util/CopyRange.h"
#include "core/util/Crc32c.h"
#include "core/util/Error.h"
#include "core/util/File.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace cs::store {

namespace {

// At most this much is copied between two looks at cancel.
constexpr uint64_t kCopySlice = uint64_t(4) << 20;

} // namespace

void Store::Impl::copyParts(const EntryRow& e, const std::vector<PartInfo>& parts, const PartsTarget& out,
                            uint64_t* sent, Job& job) const
{
    const int dupFd = ::dup(out.fd);
    if (dupFd < 0)
        failErrno("restore output", "cannot duplicate its descriptor");
    File target = File::adopt(dupFd, "restore output");
    // The checker: every part read again in 128 KiB blocks (L2-sized) and
    // its CRC-32C compared; the first bad part (or error) stops both.
    std::atomic<bool> stop{false};
    std::atomic<long> badPart{-1};
    std::exception_ptr checkError;
    auto stopped = [&] { return stop.load(std::memory_order_relaxed); };
    std::thread checker([&] {
        try {
            std::vector<char> buf(size_t(128) << 10);
            for (size_t i = 0; i < parts.size() && !stopped(); ++i) {
                const PartInfo& p = parts[i];
                File f = layout->openPart(e.id, p.index);
                uint32_t crc = 0;
                for (uint64_t pos = 0; pos < p.size && !stopped();) {
                    const size_t want = size_t(std::min<uint64_t>(buf.size(), p.size - pos));
                    f.readAt(buf.data(), want, pos);
                    crc = crc32c(crc, buf.data(), want);
                    pos += want;
                }
                if (!stopped() && (f.size() != p.size || !p.crc32c || crc != *p.crc32c)) {
                    badPart = long(i);
                    stop = true;
                }
            }
        } catch (...) {
            checkError = std::current_exception();
            stop = true;
        }
    });
    struct Join {
        std::thread& t;
        std::atomic<bool>& stop;
        ~Join()
        {
            stop = true;
            if (t.joinable())
                t.join();
        }
    } join{checker, stop};

    uint64_t total = 0;
    for (const auto& p : parts) {
        File f = layout->openPart(e.id, p.index);   // never through a link
        if (f.size() != p.size)
            failPart(e, p);
        for (uint64_t pos = 0; pos < p.size;) {
            job.checkCancel();
            if (stopped())
                break;   // the checker found a bad part or failed: said below
            const uint64_t n = std::min(kCopySlice, p.size - pos);
            copyRange(f, pos, target, *out.pos, n);
            *out.pos += n;
            if (sent)
                *sent += n;
            pos += n;
            total += n;
            job.setStepProgress(total, std::max<uint64_t>(e.size, 1));
        }
        if (stopped())
            break;
    }
    // Every byte is out; nothing is handed over before every part checked.
    checker.join();
    if (checkError)
        std::rethrow_exception(checkError);
    if (badPart >= 0)
        failPart(e, parts[size_t(badPart.load())]);
    job.checkCancel();
    if (total != e.size)
        fail(partsDir(e.id), "the parts of entry '" + e.key + "' hold " + std::to_string(total)
                                 + " bytes, the commit recorded " + std::to_string(e.size));
}

} // namespace cs::store
