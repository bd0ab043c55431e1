#include "core/entries/EntryDiff.h"

#include "core/jobs/Job.h"
#include "core/util/Error.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <unordered_map>

namespace cs::entries {

namespace {

struct Record {
    MemberType type;
    uint64_t size;
    uint32_t mode;
    std::string link;
    std::optional<Digest> sha;
};
using Records = std::unordered_map<std::string, Record>;

std::string differences(const Record& a, const Record& b)
{
    std::string out;
    const auto add = [&out](const char* what) { out += out.empty() ? what : std::string(", ") + what; };
    if (a.type != b.type)
        add("type");
    if (a.size != b.size)
        add("size");
    else if (a.sha != b.sha)
        add("content");
    if (a.mode != b.mode)
        add("mode");
    if (a.link != b.link)
        add("link target");
    return out;
}

} // namespace

EntryDiff diffEntries(const EntryBlob& a, const EntryBlob& b, const ContentsOptions& options, Job& job)
{
    ContentsOptions hashing = options;
    hashing.hashMembers = true;
    EntryDiff diff;
    Records ra, rb;
    // Each side is its own Job (one thread each); side A forwards both
    // sides' progress to the caller's job, and both watch its cancel.
    const uint64_t total = a.size() + b.size();
    std::atomic<uint64_t> doneA{0}, doneB{0};
    Job sideA, sideB;
    sideA.setListener([&](const JobStatus& s) {
        doneA = uint64_t(s.stepFraction * double(a.size()));
        job.setStepProgress(doneA.load() + doneB.load(), total);
        if (job.isCancelled())
            sideA.cancel(), sideB.cancel();
    });
    sideB.setListener([&](const JobStatus& s) {
        doneB = uint64_t(s.stepFraction * double(b.size()));
        if (job.isCancelled())
            sideA.cancel(), sideB.cancel();
    });
    const auto record = [](Records& into) {
        return [&into](const Member& m) { into[m.path] = Record{m.type, m.size, m.mode, m.linkTarget, m.sha256}; };
    };
    std::exception_ptr errorA, errorB;
    std::thread other([&] {
        try {
            diff.b = readContents(b, hashing, sideB, record(rb));
        } catch (...) {
            errorB = std::current_exception();
            sideA.cancel();
        }
    });
    try {
        diff.a = readContents(a, hashing, sideA, record(ra));
    } catch (...) {
        errorA = std::current_exception();
        sideB.cancel();
    }
    other.join();
    job.checkCancel();
    // A real error wins over the Cancelled it caused on the other side.
    const auto cancelled = [](const std::exception_ptr& e) {
        try {
            std::rethrow_exception(e);
        } catch (const Cancelled&) {
            return true;
        } catch (...) {
            return false;
        }
    };
    for (const auto& e : {errorA, errorB})
        if (e && !cancelled(e))
            std::rethrow_exception(e);
    for (const auto& e : {errorA, errorB})
        if (e)
            std::rethrow_exception(e);

    for (const auto& [path, rec] : rb) {
        const auto it = ra.find(path);
        if (it == ra.end()) {
            diff.added.push_back({path, rec.type, rec.size});
            diff.bytesAdded += rec.size;
            continue;
        }
        std::string what = differences(it->second, rec);
        if (!what.empty()) {
            diff.changed.push_back({path, it->second.size, rec.size, std::move(what)});
            if (rec.size > it->second.size)
                diff.bytesAdded += rec.size - it->second.size;
            else
                diff.bytesRemoved += it->second.size - rec.size;
        }
        ra.erase(it);
    }
    for (const auto& [path, rec] : ra) {
        diff.removed.push_back({path, rec.type, rec.size});
        diff.bytesRemoved += rec.size;
    }
    const auto byPath = [](const auto& x, const auto& y) { return x.path < y.path; };
    std::sort(diff.added.begin(), diff.added.end(), byPath);
    std::sort(diff.removed.begin(), diff.removed.end(), byPath);
    std::sort(diff.changed.begin(), diff.changed.end(), byPath);
    return diff;
}

} // namespace cs::entries
