// The `gc` scenario: a bare pack of M objects (small chunks so the count is
// reached quickly; a share of each entry's chunks comes from a shared pool
// and is deduplicated), one root node per entry; a share of the entries is
// evicted (their roots dropped) and GC runs with the remaining roots. The
// result has the GC's per-step table (wall, user, sys, getrusage figures)
// and is checked against the scenario's own record of which object each
// entry uses: objects visited and live bytes equal that truth, live +
// reclaimed bytes add up to the split, and every kept entry reads back with
// its SHA-256 after the generation swap.
#include "core/bench/Scenarios.h"

#include "core/gc/Gc.h"
#include "core/pack/ObjectFormat.h"
#include "core/pack/Pack.h"
#include "core/store/StoreLayout.h"
#include "core/util/Error.h"
#include "core/util/Sha256.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <set>

namespace cs {

namespace {

class GcScenario : public Scenario {
public:
    std::string name() const override { return "gc"; }
    std::string description() const override
    {
        return "Build a pack of M objects with shared chunks, evict a share of the entries, run GC.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {
            {"objects", ParamKind::Int, "100000", "objects to aim for (chunks and root nodes; shared chunks are stored once, so fewer are built)"},
            {"entries", ParamKind::Int, "500", "entries (one root node each)"},
            {"chunk", ParamKind::Size, "2KiB", "bytes per chunk"},
            {"shared", ParamKind::Double, "0.3", "share of an entry's chunks taken from a pool shared by all entries"},
            {"evict", ParamKind::Double, "0.5", "share of the entries evicted before GC"},
            {"dir", ParamKind::Path, "", "scratch folder (default $TMPDIR or /tmp)"},
        };
    }

    ResultTable run(const Params& p, SampleSink& sink, Job& job) override
    {
        const int64_t objects = p.integer("objects");
        const int64_t entries = p.integer("entries");
        const uint64_t chunk = p.size("chunk");
        const double shared = p.number("shared"), evict = p.number("evict");
        if (entries < 1 || objects < entries * 2)
            throw Error("parameters need entries >= 1 and objects >= 2 x entries");
        if (chunk < 16 || chunk > (4u << 20))
            throw Error("parameter chunk must be between 16 bytes and 4 MiB");
        if (shared < 0 || shared > 1 || evict < 0 || evict > 1)
            throw Error("parameters shared and evict must be between 0 and 1");
        const std::string cp = findProgram("cp"), sync = findProgram("sync");
        if (cp.empty() || sync.empty())
            throw Error("the reference needs cp and sync on $PATH");
        const std::string refLabel = "cp + sync of the live bytes";
        job.setSteps({"build pack", "garbage collection", refLabel, "verify"}, {3, 2, 1, 1});
        ScratchDir dir(p.text("dir").empty() ? tempRoot() : p.text("dir"), "cachescope-bench-gc");

        // ---- build: the truth is kept here (offset -> size, entry -> objects)
        job.beginStep(0);
        sink.beginPhase("build pack", PhaseRole::Setup);
        auto pack = store::StoreLayout::create(dir.path()).openPack(true);
        const int64_t chunksPerEntry = std::max<int64_t>(1, objects / entries - 1);
        std::mt19937_64 rng(7);
        const size_t poolSize = std::max<size_t>(1, size_t(double(chunksPerEntry) * 2));
        std::map<std::string, uint64_t> dedup;     // raw SHA-256 -> offset
        std::map<uint64_t, uint64_t> objectBytes;  // offset -> stored bytes
        struct Entry { uint64_t root; std::vector<uint64_t> objects; std::vector<Digest> chunkSha; };
        std::vector<Entry> all;
        std::string data(chunk, '\0');
        int64_t built = 0;
        for (int64_t e = 0; e < entries && built < objects; ++e) {
            job.checkCancel();
            Entry entry;
            std::vector<pack::ChildRef> children;
            for (int64_t c = 0; c < chunksPerEntry; ++c) {
                const bool fromPool = double(rng() % 1000) < shared * 1000;
                // Pool chunks are seeded by their pool index, so entries share them.
                std::mt19937_64 gen(fromPool ? (rng() % poolSize) : (uint64_t(e) << 32 | uint64_t(c)) + 0x9e3779b97f4a7c15ULL);
                const uint64_t salt = fromPool ? 1 : 2;
                for (size_t i = 0; i + 8 <= data.size(); i += 8) {
                    const uint64_t v = (i % 64 < 32) ? gen() : salt * 0x0101010101010101ULL;
                    std::memcpy(&data[i], &v, 8);
                }
                const Digest sha = Sha256::of(data.data(), data.size());
                const std::string key(reinterpret_cast<const char*>(sha.data()), sha.size());
                uint64_t off;
                if (auto it = dedup.find(key); it != dedup.end()) {
                    off = it->second;
                } else {
                    const std::string obj =
                        pack::encodeChunk(sha, uint32_t(data.size()), pack::compressChunkFrame(data.data(), data.size(), 1));
                    off = pack->append(obj);
                    dedup[key] = off;
                    objectBytes[off] = obj.size();
                    sink.addBytes(obj.size());
                    ++built;
                }
                children.push_back({off, data.size()});
                entry.objects.push_back(off);
                entry.chunkSha.push_back(sha);
            }
            const std::string node = pack::encodeNode(children);
            entry.root = pack->append(node);
            objectBytes[entry.root] = node.size();
            entry.objects.push_back(entry.root);
            ++built;
            all.push_back(std::move(entry));
            job.setStepProgress(uint64_t(built), uint64_t(objects));
            if (e % 16 == 0)
                sink.add("objects built count", double(built));
        }
        const uint64_t packBefore = pack->end();

        // ---- evict: drop the roots of a random share of the entries (spread
        // over the pack, so the live ranges are fragmented as in a real store)
        const size_t evicted = std::min(all.size(), size_t(double(all.size()) * evict + 0.5));
        std::vector<size_t> order(all.size());
        for (size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::shuffle(order.begin(), order.end(), std::mt19937_64(11));
        std::vector<size_t> kept(order.begin() + std::ptrdiff_t(evicted), order.end());
        std::sort(kept.begin(), kept.end());
        std::vector<uint64_t> roots;
        std::set<uint64_t> live;
        for (size_t i : kept) {
            roots.push_back(all[i].root);
            live.insert(all[i].objects.begin(), all[i].objects.end());
        }
        uint64_t expectedLiveBytes = 0, allBytes = 0;
        for (const auto& [off, bytes] : objectBytes) {
            allBytes += bytes;
            if (live.count(off))
                expectedLiveBytes += bytes;
        }

        // ---- GC
        job.beginStep(1);
        sink.beginPhase("garbage collection", PhaseRole::Ours);
        gc::GcOptions options;
        options.roots = roots;
        gc::GcResult result;
        {
            SubJob sub(job, sink, allBytes);
            result = gc::collectGarbage(*pack, options, sub.job());
        }
        const gc::GcStats& st = result.stats;
        const uint64_t gcPeak = sink.peakRss();
        if (st.status != "done" && !st.status.empty())
            throw Error("GC ended with status " + st.status + (st.error.empty() ? "" : ": " + st.error));

        // ---- the reference: copying the bytes GC kept into a new file and
        // syncing it, the least a compaction that rewrites them must do
        job.beginStep(2);
        sink.beginPhase(refLabel, PhaseRole::Reference, "cp + sync");
        const std::string prefix = store::StoreLayout::open(dir.path()).packFolder(false).pathOf(pack::prefixFileName(st.generation));
        ChildResult ref = runChild({cp, "--", prefix, dir.file("reference-copy")}, "", "", job);
        if (ref.exitCode != 0)
            throw Error("cp of " + prefix + " failed with exit code " + std::to_string(ref.exitCode));
        const ChildResult synced = runChild({sync, "--", dir.file("reference-copy")}, "", "", job);
        if (synced.exitCode != 0)
            throw Error("sync of the copy of " + prefix + " failed with exit code " + std::to_string(synced.exitCode));
        ref.wallSeconds += synced.wallSeconds;
        ref.userSeconds += synced.userSeconds;
        ref.sysSeconds += synced.sysSeconds;
        ref.maxRssBytes = std::max(ref.maxRssBytes, synced.maxRssBytes);
        sink.setPhaseCpu(ref.userSeconds, ref.sysSeconds);
        sink.addBytes(st.liveBytes);

        // ---- verify against the truth
        job.beginStep(3);
        sink.beginPhase("verify", PhaseRole::Setup);
        if (st.objectsVisited != live.size())
            throw Error("GC visited " + std::to_string(st.objectsVisited) + " objects, but " + std::to_string(live.size()) +
                        " are reachable");
        if (st.liveBytes != expectedLiveBytes)
            throw Error("GC kept " + std::to_string(st.liveBytes) + " live bytes, but reachable objects hold " +
                        std::to_string(expectedLiveBytes));
        uint64_t verified = 0;
        for (size_t k = 0; k < kept.size(); ++k) {
            job.checkCancel();
            const auto& entry = all[kept[k]];
            for (size_t c = 0; c < entry.chunkSha.size(); ++c) {
                pack::ObjectHeader h;
                pack->readChunk(entry.objects[c], &h, true);
                if (h.sha256 != entry.chunkSha[c])
                    throw Error("after GC, the chunk at offset " + std::to_string(entry.objects[c]) + " has another SHA-256");
                ++verified;
            }
            job.setStepProgress(uint64_t(k + 1), uint64_t(kept.size()));
        }

        ResultTable t;
        t.add("objects", double(objectBytes.size()), "");
        t.add("entries", double(all.size()), "");
        t.add("evicted entries", double(evicted), "");
        t.add("roots", double(st.roots), "");
        t.add("objects visited", double(st.objectsVisited), "");
        t.add("live bytes", double(st.liveBytes) / 1e6, "MB");
        t.add("reclaimed bytes", double(st.reclaimedBytes) / 1e6, "MB");
        t.add("split", double(st.split) / 1e6, "MB");
        t.add("pack objects bytes", double(allBytes) / 1e6, "MB");
        t.add("mapping records", double(st.ranges), "");
        t.add("largest frontier", double(st.largestFrontier), "");
        t.add("bytes copied", double(st.bytesCopied) / 1e6, "MB");
        t.add("pack before", double(st.packBytesBefore()) / 1e6, "MB");
        t.add("pack after", double(st.packBytesAfter()) / 1e6, "MB");
        t.add("pack logical end before", double(packBefore) / 1e6, "MB");
        double wall = 0;
        for (const auto& s : st.steps)
            wall += s.wallSeconds;
        t.add("GC wall", wall, "s");
        t.add(refLabel + " wall", ref.wallSeconds, "s");
        t.add("GC peak RSS", double(gcPeak) / 1e6, "MB");
        t.add(refLabel + " peak RSS", double(ref.maxRssBytes) / 1e6, "MB");
        t.add("chunks verified after GC", double(verified), "");
        t.addText("live + reclaimed = objects bytes", st.liveBytes + st.reclaimedBytes == allBytes ? "yes" : "no");
        ResultSubTable steps;
        steps.title = "steps";
        steps.columns = {"wall s", "user s", "sys s", "maxrss MB", "minflt", "majflt", "inblock", "oublock", "nvcsw", "nivcsw"};
        for (const auto& s : st.steps) {
            steps.rowNames.push_back(s.name);
            steps.values.push_back({s.wallSeconds, s.userSeconds, s.sysSeconds, double(s.maxrssKiB) * 1024 / 1e6,
                                    double(s.minflt), double(s.majflt), double(s.inblock), double(s.oublock),
                                    double(s.nvcsw), double(s.nivcsw)});
        }
        t.tables.push_back(std::move(steps));
        t.compare("GC wall", refLabel + " wall", "cp + sync");
        t.compare("GC peak RSS", refLabel + " peak RSS", "cp + sync");
        return t;
    }
};

} // namespace

std::unique_ptr<Scenario> makeGcScenario() { return std::make_unique<GcScenario>(); }

} // namespace cs
