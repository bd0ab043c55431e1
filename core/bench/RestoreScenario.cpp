// The `restore` scenario of a CI cache server: N entries uploaded as P parts
// of S bytes each (left unmerged), then restored concurrently (the first
// restore streams the parts and merges at the same time), then restored
// again warm from the pack. Every restore is SHA-256 checked against the
// hash computed here while the parts were generated.
#include "core/bench/Scenarios.h"

#include "core/store/Store.h"
#include "core/store/StoreLayout.h"
#include "core/util/Error.h"
#include "core/util/File.h"
#include "core/util/Sha256.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <mutex>
#include <random>
#include <thread>

namespace cs {

namespace {

// Part bytes: 3 of 4 parts text-like, 1 random; a quarter of each entry's
// parts repeat parts of entry 0 (shared dependencies across cache keys).
void fillPart(std::string& buf, int entry, int part)
{
    const bool sharedPart = part % 4 == 1;
    std::mt19937_64 rng((uint64_t(sharedPart ? 0 : entry) << 32) ^ uint64_t(part) * 0x9e3779b97f4a7c15ULL);
    if (part % 4 == 3) {
        for (size_t i = 0; i + 8 <= buf.size(); i += 8) {
            const uint64_t v = rng();
            std::memcpy(&buf[i], &v, 8);
        }
        return;
    }
    static const char* words[] = {"cache ", "entry ", "part ", "merge ", "restore ", "frame ", "zstd ", "node\n"};
    size_t i = 0;
    while (i < buf.size()) {
        const char* w = words[rng() % 8];
        const size_t n = std::min(std::strlen(w), buf.size() - i);
        std::memcpy(&buf[i], w, n);
        i += n;
    }
}

// work(0) .. work(n - 1), each on a thread of its own, all at once (as n
// jobs restore n entries); the first error any of them throws is thrown
// after all have ended, a cancel before it.
void onThreads(int n, Job& job, const std::function<void(int)>& work)
{
    std::mutex errorMutex;
    std::string error;
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i)
        threads.emplace_back([&, i] {
            try {
                work(i);
            } catch (const std::exception& ex) {
                std::lock_guard lock(errorMutex);
                if (error.empty())
                    error = ex.what();
            }
        });
    for (auto& t : threads)
        t.join();
    job.checkCancel();
    if (!error.empty())
        throw Error(error);
}

class RestoreScenario : public Scenario {
public:
    std::string name() const override { return "restore"; }
    std::string description() const override
    {
        return "N unmerged entries of P parts restored concurrently (stream + merge), then again warm; SHA-256 checked.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {
            {"entries", ParamKind::Int, "4", "entries restored concurrently"},
            {"parts", ParamKind::Int, "96", "parts per entry"},
            {"part_size", ParamKind::Size, "1MiB", "bytes per part"},
            {"threads", ParamKind::Int, "0", "the store's worker threads (0 = all cores)"},
            {"dir", ParamKind::Path, "", "scratch folder for the store (default $TMPDIR or /tmp)"},
        };
    }

    ResultTable run(const Params& p, SampleSink& sink, Job& job) override
    {
        const int entries = int(p.integer("entries"));
        const int parts = int(p.integer("parts"));
        const uint64_t partSize = p.size("part_size");
        if (entries < 1 || entries > 256 || parts < 1 || parts > 100000)
            throw Error("parameters need 1 <= entries <= 256 and 1 <= parts <= 100000");
        if (partSize < 1 || partSize > store::kMaxPartBytes)
            throw Error("parameter part_size is out of range");
        const std::string sh = findProgram("sh"), cat = findProgram("cat"), sha256sum = findProgram("sha256sum");
        if (sh.empty() || cat.empty() || sha256sum.empty())
            throw Error("the reference needs sh, cat and sha256sum on $PATH");
        const std::string refLabel = "cat | sha256sum of the parts";
        job.setSteps({"upload parts", refLabel, "first restore (stream + merge)", "warm restore"}, {2, 2, 3, 2});
        ScratchDir dir(p.text("dir").empty() ? tempRoot() : p.text("dir"), "cachescope-bench-restore");
        store::StoreOptions so;
        so.threads = int(p.integer("threads"));
        auto st = store::Store::init(dir.file("store"), so);

        job.beginStep(0);
        sink.beginPhase("upload parts", PhaseRole::Setup);
        const uint64_t entryBytes = partSize * uint64_t(parts);
        const uint64_t total = entryBytes * uint64_t(entries);
        std::vector<int64_t> ids;
        std::vector<Digest> expected;
        std::string buf(partSize, '\0');
        uint64_t uploaded = 0;
        for (int e = 0; e < entries; ++e) {
            const int64_t upload = st->reserve("bench/restore/" + std::to_string(e), "v1", "bench");
            Sha256 sha;
            for (int i = 0; i < parts; ++i) {
                job.checkCancel();
                fillPart(buf, e, i);
                sha.update(buf.data(), buf.size());
                st->writePart(upload, uint32_t(i), buf.data(), buf.size());
                uploaded += buf.size();
                sink.addBytes(buf.size());
                job.setStepProgress(uploaded, total);
            }
            const store::EntryRow row = st->commit(upload, uint32_t(parts));
            ids.push_back(row.id);
            expected.push_back(sha.finish());
            if (row.sha256 != Sha256::hex(expected.back()))
                throw Error("the store hashed entry " + std::to_string(e) + " as " + row.sha256 + ", expected " +
                            Sha256::hex(expected.back()));
        }

        // The reference: what a plain file server does for the same request,
        // the entry's parts concatenated in order and hashed (every entry at
        // once, as ours restores them), run before the first restore merges
        // the parts away. Its SHA-256 must be ours too.
        job.beginStep(1);
        sink.beginPhase(refLabel, PhaseRole::Reference, "cat | sha256sum");
        double refWall = 0, refUser = 0, refSys = 0;
        {
            std::vector<ChildResult> results(static_cast<size_t>(entries));
            const double t0 = sink.now();
            onThreads(entries, job, [&](int e) {
                const std::string folder = store::StoreLayout::open(dir.file("store")).partsPath(ids[size_t(e)]);
                std::vector<std::string> argv = {sh, "-c", "c=$1; s=$2; shift 2; \"$c\" -- \"$@\" | \"$s\"", "sh", cat, sha256sum};
                for (int i = 0; i < parts; ++i)
                    argv.push_back(folder + "/" + std::to_string(i));
                const std::string out = dir.file("reference-" + std::to_string(e) + ".sha256");
                results[size_t(e)] = runChild(argv, "", out, job, {}, 3600, [&](int) {});
                const std::string line = readWholeFile(out, 4096);
                if (results[size_t(e)].exitCode != 0 || line.substr(0, 64) != Sha256::hex(expected[size_t(e)]))
                    throw Error(out + ": cat | sha256sum of entry " + std::to_string(e) +
                                "'s parts did not give the entry's SHA-256");
                sink.addBytes(entryBytes);
            });
            refWall = sink.now() - t0;
            for (const auto& r : results) {
                refUser += r.userSeconds;
                refSys += r.sysSeconds;
            }
            sink.setPhaseCpu(refUser, refSys);
        }

        struct Pass { double wall; uint64_t bytes; uint64_t peak; int merged; };
        auto restoreAll = [&](int step, const std::string& label) {
            job.beginStep(step);
            sink.beginPhase(label, PhaseRole::Ours);
            std::atomic<uint64_t> done{0};
            std::atomic<int> mergedNow{0};
            const double t0 = sink.now();
            onThreads(entries, job, [&](int e) {
                Job inner;
                inner.setListener([&](const JobStatus&) {
                    if (job.isCancelled())
                        inner.cancel();
                });
                Sha256 sha;
                uint64_t bytes = 0;
                const store::RestoreResult r = st->restoreEntry(ids[size_t(e)], [&](const void* d, size_t n) {
                    sha.update(d, n);
                    bytes += n;
                    sink.addBytes(n);
                    const uint64_t now = done.fetch_add(n) + n;
                    if (e == 0)
                        job.setStepProgress(now, total);
                    if (job.isCancelled())
                        inner.cancel();
                }, inner);
                if (r.mergedNow)
                    mergedNow++;
                if (sha.finish() != expected[size_t(e)] || bytes != entryBytes)
                    throw Error(label + " of entry " + std::to_string(e) + " returned other bytes than were stored");
            });
            return Pass{sink.now() - t0, done.load(), sink.peakRss(), mergedNow.load()};
        };
        const Pass first = restoreAll(2, "first restore");
        const Pass warm = restoreAll(3, "warm restore");
        sink.beginPhase("check states", PhaseRole::Setup);
        int merged = 0;
        for (int64_t id : ids) {
            const auto row = st->entry(id);
            if (row && row->state == store::EntryState::Merged)
                ++merged;
        }

        ResultTable t;
        t.add("entries", entries, "");
        t.add("bytes stored", double(total) / 1e6, "MB");
        t.add("first restore wall", first.wall, "s");
        t.add("first restore MB/s", first.wall > 0 ? double(first.bytes) / 1e6 / first.wall : 0, "MB/s");
        t.add("first restore peak RSS", double(first.peak) / 1e6, "MB");
        t.add("first restore bytes", double(first.bytes) / 1e6, "MB");
        t.add("merged by first restore", first.merged, "");
        t.add("warm restore wall", warm.wall, "s");
        t.add("warm restore MB/s", warm.wall > 0 ? double(warm.bytes) / 1e6 / warm.wall : 0, "MB/s");
        t.add("warm restore peak RSS", double(warm.peak) / 1e6, "MB");
        t.add("warm restore bytes", double(warm.bytes) / 1e6, "MB");
        t.add("entries merged after", merged, "");
        t.addText("every restore SHA-256 checked", "yes");
        t.add(refLabel + " wall", refWall, "s");
        t.add(refLabel + " MB/s", refWall > 0 ? double(total) / 1e6 / refWall : 0, "MB/s");
        t.add(refLabel + " cores", refWall > 0 ? (refUser + refSys) / refWall : 0, "cores");
        t.compare("first restore MB/s", refLabel + " MB/s", "cat | sha256sum", "first restore");
        t.compare("warm restore MB/s", refLabel + " MB/s", "cat | sha256sum", "warm restore");
        t.compare("first restore wall", refLabel + " wall", "cat | sha256sum", "first restore");
        t.compare("warm restore wall", refLabel + " wall", "cat | sha256sum", "warm restore");
        return t;
    }
};

} // namespace

std::unique_ptr<Scenario> makeRestoreScenario() { return std::make_unique<RestoreScenario>(); }

} // namespace cs
