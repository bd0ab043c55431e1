// The GC's steps in order (see Gc.h for the protocol).
#include "core/gc/Gc.h"

#include "core/gc/GcCatalog.h"
#include "core/gc/GenerationReader.h"
#include "core/gc/MappingBuilder.h"
#include "core/gc/PrefixWriter.h"
#include "core/gc/ReachabilityWalk.h"
#include "core/gc/StepMeter.h"
#include "core/pack/Pack.h"
#include "core/pack/PackCheck.h"
#include "core/store/Catalog.h"
#include "core/store/StoreLayout.h"
#include "core/util/CopyRange.h"
#include "core/util/Error.h"
#include "core/util/Escape.h"
#include "core/util/KillPoint.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <limits>

namespace cs::gc {

const std::vector<std::string>& gcStepNames()
{
    static const std::vector<std::string> names = {"open", "traverse", "write mapping", "copy prefix", "swap", "cleanup"};
    return names;
}

std::string gcStepWork(const std::string& step)
{
    if (step == "open")
        return "takes the GC lock, reads the split point and the roots";
    if (step == "traverse")
        return "walks the live objects and copies each into the new prefix as it is visited: the copies happen here";
    if (step == "write mapping")
        return "puts the mapping records in increasing order";
    if (step == "copy prefix")
        return "fsync of the new prefix only: its bytes were copied during traverse";
    if (step == "swap")
        return "copies the suffix tail, updates the catalog, replaces control";
    if (step == "cleanup")
        return "deletes the old generation's files and stores the run";
    return {};
}

namespace {

const std::vector<std::string>& dryRunStepNames()
{
    static const std::vector<std::string> names = {"open", "traverse"};
    return names;
}

// CACHESCOPE_GC_KILL_AT=point[:n]: SIGKILL at the n-th time `point` is passed.
void envKillPoint(const char* point)
{
    static std::atomic<int> seen{0};
    killPointFromEnv("CACHESCOPE_GC_KILL_AT", point, seen);
}

// present minus live, both sorted and non-overlapping, live within present.
std::vector<PackRange> subtract(const std::vector<PackRange>& present, const std::vector<PackRange>& live)
{
    std::vector<PackRange> out;
    size_t j = 0;
    for (const auto& p : present) {
        uint64_t at = p.offset;
        while (j < live.size() && live[j].offset < p.end()) {
            if (live[j].offset > at)
                out.push_back({at, live[j].offset - at});
            at = std::max(at, live[j].end());
            ++j;
        }
        if (at < p.end())
            out.push_back({at, p.end() - at});
    }
    return out;
}

uint64_t totalBytes(const std::vector<PackRange>& ranges)
{
    uint64_t t = 0;
    for (const auto& r : ranges)
        t += r.length;
    return t;
}

// Through the pack's folder: a link there goes itself, never its target.
void removeQuietly(const Folder& folder, const std::string& name)
{
    try {
        folder.unlink(name);
    } catch (const Error&) {
    }
}

bool recoverLocked(GcCatalog& catalog, pack::Pack& pack)
{
    if (!catalog.running())
        return false;
    pack.reload();
    const auto g = pack.generation();
    const auto dead = catalog.deadChunkRows(g->control.split, [&](uint64_t o) { return g->mapping.find(o).has_value(); });
    catalog.finish(dead, nullptr, 0, true);
    return true;
}

class GcRunner {
public:
    GcRunner(pack::Pack& pack, const GcOptions& options, Job& job) : pack_(pack), opt_(options), job_(job) {}

    GcResult run()
    {
        auto& st = result_.stats;
        st.dryRun = opt_.dryRun;
        if (opt_.dryRun)
            job_.setSteps(dryRunStepNames(), {0.1, 1.0});
        else
            job_.setSteps(gcStepNames(), {0.1, 7.0, 0.3, 0.5, 0.5, 0.3}); // the walk also copies
        open();
        try {
            traverse();
            if (opt_.dryRun) {
                finishDryRun();
            } else {
                writeMapping();
                copyPrefix();
                swap();
            }
        } catch (const std::exception& e) {
            if (swapped_)
                throw; // the new generation is current: keep it
            for (const auto& f : newFiles_)
                removeQuietly(pack_.folder(), f);
            const bool cancelled = dynamic_cast<const Cancelled*>(&e) != nullptr;
            st.status = cancelled ? "cancelled" : "failed";
            if (!cancelled)
                st.error = e.what();
            st.generation = st.generationBefore;
            st.after = st.before;
            if (catalog_) {
                try {
                    result_.runId = catalog_->finish({}, recorded(), started_, !opt_.dryRun && !catalogFinished_);
                } catch (const std::exception&) {
                    // the original error matters more; gc_state is repaired by the next GC
                }
            }
            throw;
        }
        if (!opt_.dryRun)
            cleanup();
        return std::move(result_);
    }

private:
    // The stats to insert into gc_runs, or nothing for an unrecorded dry run.
    const GcStats* recorded() const { return opt_.dryRun && !opt_.recordDryRun ? nullptr : &result_.stats; }

    void hook(const char* point)
    {
        if (opt_.hook)
            opt_.hook(point);
        envKillPoint(point);
    }

    void open()
    {
        auto& st = result_.stats;
        job_.beginStep(0, opt_.dryRun ? "reading the roots" : "taking the GC lock and reading the roots");
        StepMeter meter("open");
        // The catalog first: one it refuses (empty, foreign, newer) stops
        // the GC before it creates or takes anything in the pack.
        // A dry run of a store whose catalog is hard-linked reads it (and
        // records nothing); a GC refuses it (Catalog::hardLinkRefusal).
        if (!opt_.catalogPath.empty())
            catalog_ = std::make_unique<GcCatalog>(
                opt_.catalogPath, opt_.dryRun && !store::Catalog::hardLinkRefusal(opt_.catalogPath).empty());
        else if (!opt_.roots)
            fail(pack_.dir(), "GC of a bare pack needs a list of roots");
        // A dry run writes no pack file and reads one generation it holds
        // open (its files stay readable if a GC swaps meanwhile), so it
        // goes on beside a running GC instead of failing on its lock.
        if (!opt_.dryRun) {
            gcLock_.emplace(pack_.tryLockGc());
            if (!gcLock_->held())
                fail(pack_.dir(), "another GC is running on this pack");
        }
        pack_.reload();
        const auto current = pack_.generation()->control.generation;
        if (!opt_.dryRun && current == std::numeric_limits<uint64_t>::max())
            fail(pack_.filePath(pack::kControlFileName),
                 "names generation " + std::to_string(current)
                     + ", the last one: the next GC's generation does not fit in 64 bits; refusing to collect "
                       "garbage, nothing was changed");
        // Nothing is deleted (no catalog row, no leftover file) before the
        // current generation's mapping checks out.
        refuseUnlessExplained(pack_.end(), {}, {});
        if (catalog_) {
            if (!opt_.dryRun)
                recoverLocked(*catalog_, pack_);
            auto start = catalog_->begin(pack_, opt_.dryRun);
            split_ = start.split;
            started_ = start.started;
            if (opt_.roots) {
                roots_ = *opt_.roots;
            } else {
                roots_ = std::move(start.roots);
                rootEntries_ = std::move(start.rootEntries);
            }
        } else {
            started_ = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
            auto appends = pack_.lockAppends();
            pack_.reload();
            split_ = pack_.end();
            roots_ = *opt_.roots;
        }
        old_ = pack_.generation();
        st.generationBefore = old_->control.generation;
        st.generation = opt_.dryRun ? st.generationBefore : st.generationBefore + 1;
        st.split = split_;
        st.roots = roots_.size();
        st.before = {old_->suffix.size(), old_->control.prefixBytes, old_->control.mappingRecords * pack::kMappingRecordSize};
        try {
            refuseUnlessExplained(split_, roots_, rootEntries_);
        } catch (const Error&) {
            if (catalog_ && !opt_.dryRun)
                catalog_->finish({}, nullptr, started_, true); // running=1 set by begin
            throw;
        }
        if (!opt_.dryRun)
            pack_.removeLeftovers();
        reader_ = std::make_unique<GenerationReader>(old_, bufferBytes(kReadWindowBytes));
        st.steps.push_back(meter.finish());
        hook("open");
    }

    // The rule before anything is deleted (PackCheck.h): every root resolves
    // to an object wholly inside the pack and every mapping record is sane;
    // otherwise GC refuses, naming the first entry and the file and offset.
    void refuseUnlessExplained(uint64_t end, const std::vector<uint64_t>& roots, const std::vector<int64_t>& entries)
    {
        const auto findings = pack::checkPackExplains(pack_, end, roots, 1);
        if (findings.empty())
            return;
        const auto& f = findings.front();
        std::string who;
        if (f.root != pack::PackFinding::kNoRoot) {
            if (f.root < entries.size()) {
                const int64_t id = entries[f.root];
                who = "entry " + std::to_string(id) + " (key \"" + escapeControl(catalog_->entryKey(id)) + "\"): ";
            } else {
                who = "root " + std::to_string(f.root) + ": ";
            }
        }
        throw Error(who + f.message + "; the pack does not explain every live entry, so GC refuses to collect "
                    "anything and nothing was deleted: run store fsck");
    }

    // The new generation's files are created in the pack's folder without
    // following links (Folder adds O_NOFOLLOW): a link planted at N+1.suffix
    // is an error, never a way to truncate or write the file it points at.
    std::string newName(std::string (*name)(uint64_t)) const { return name(result_.stats.generation); }
    File createNew(const std::string& name, int flags)
    {
        newFiles_.push_back(name);
        return pack_.folder().openFile(name, flags | O_CREAT | O_TRUNC);
    }

    void traverse()
    {
        auto& st = result_.stats;
        job_.beginStep(1, "walking from " + std::to_string(roots_.size()) + " roots");
        StepMeter meter("traverse");
        if (!opt_.dryRun)
            startPrefix();
        const bool keepRanges = opt_.dryRun; // a real run reads them back from the mapping
        const uint8_t* bytes = nullptr;
        const auto walk = ReachabilityWalk::run(
            roots_, split_,
            [&](uint64_t offset, std::vector<uint64_t>& children) {
                const uint64_t size = reader_->readObject(offset, children, prefix_ ? &bytes : nullptr);
                if (prefix_)
                    prefix_->add(offset, size, bytes);
                return size;
            },
            [&](const PackRange& r) {
                if (keepRanges)
                    result_.liveRanges.push_back(r);
            },
            [&](double f) {
                job_.checkCancel();
                if (prefix_)
                    job_.setStepProgress(f, "walked " + std::to_string(int(f * 100)) + "% of the pack, copied "
                                                + mib(prefix_->bytesWritten()) + " of live objects");
                else
                    job_.setStepProgress(f);
            });
        std::reverse(result_.liveRanges.begin(), result_.liveRanges.end());
        st.objectsVisited = walk.objectsVisited;
        st.liveBytes = walk.liveBytes;
        st.ranges = walk.ranges;
        st.largestFrontier = walk.largestFrontier;
        if (prefix_) {
            const uint64_t written = prefix_->finish();
            if (written != walk.liveBytes || prefix_->ranges() != walk.ranges)
                fail(prefixOut_->path(), "copied " + std::to_string(written) + " bytes in "
                                             + std::to_string(prefix_->ranges()) + " ranges, the walk found "
                                             + std::to_string(walk.liveBytes) + " in " + std::to_string(walk.ranges));
            prefix_.reset();
        }
        presentBytes_ = totalBytes(reader_->presentRanges(split_));
        st.reclaimedBytes = presentBytes_ - st.liveBytes;
        st.steps.push_back(meter.finish());
        job_.checkCancel();
        hook("traverse");
    }

    // The new prefix is written during the walk (see PrefixWriter.h); the
    // mapping records come out of it in walk order.
    void startPrefix()
    {
        mappingName_ = newName(pack::mappingFileName);
        builder_ = std::make_unique<MappingBuilder>(createNew(mappingName_, O_RDWR));
        prefixOut_.emplace(createNew(newName(pack::prefixFileName), O_WRONLY));
        prefix_ = std::make_unique<PrefixWriter>(
            *prefixOut_, *builder_, size_t(bufferBytes(opt_.copyBufferBytes)),
            [this](uint64_t offset, uint64_t n, File& out, uint64_t at) { reader_->copySpan(offset, n, out, at); },
            [this](uint64_t) {
                job_.checkCancel();
                hook("copy");
            });
    }

    // The read window and the copy block scale with the data below the split
    // (a 64th of it, at least 256 KiB) up to their full size: a 14 MiB pack
    // needs no MiB buffers, and the traversal's memory stays proportional to
    // what it walks.
    static constexpr uint64_t kReadWindowBytes = 1u << 20;
    uint64_t bufferBytes(uint64_t full) const { return std::min<uint64_t>(full, std::max<uint64_t>(split_ / 64, 256u << 10)); }

    static std::string mib(uint64_t bytes)
    {
        char s[32];
        std::snprintf(s, sizeof s, "%.1f MiB", double(bytes) / 1048576.0);
        return s;
    }

    void finishDryRun()
    {
        auto& st = result_.stats;
        result_.deadRanges = subtract(reader_->presentRanges(split_), result_.liveRanges);
        std::vector<uint64_t> ignored;
        for (const auto& d : result_.deadRanges) {
            for (uint64_t o = d.offset; o < d.end();) {
                ignored.clear();
                o += reader_->readObject(o, ignored);
                ++st.deadObjects;
            }
            job_.checkCancel();
        }
        if (!opt_.collectRanges) {
            result_.liveRanges.clear();
            result_.deadRanges.clear();
        }
        st.status = "done";
        st.after = st.before;
        if (catalog_ && recorded()) {
            // A dry run changes nothing: failing to note it in the history
            // (a full disk) must not fail it, since it tells what a GC frees.
            try {
                result_.runId = catalog_->finish({}, recorded(), started_, false);
            } catch (const Error&) {
                result_.runId = -1;
            }
        }
    }

    void writeMapping()
    {
        job_.beginStep(2, "ordering " + std::to_string(result_.stats.ranges) + " mapping records");
        StepMeter meter("write mapping");
        records_ = builder_->finish();
        builder_.reset();
        mapping_ = pack::MappingFile::open(pack_.folder().openRead(mappingName_), records_);
        result_.stats.steps.push_back(meter.finish());
        job_.checkCancel();
        hook("write mapping");
    }

    // The live objects were copied during the walk; what is left is making
    // them durable (most of the writeback started block by block).
    void copyPrefix()
    {
        auto& st = result_.stats;
        job_.beginStep(3, "syncing " + mib(st.liveBytes) + " of live ranges to disk");
        StepMeter meter("copy prefix");
        prefixOut_->sync();
        prefixOut_->close();
        prefixOut_.reset();
        st.bytesCopied += st.liveBytes;
        st.steps.push_back(meter.finish());
        job_.setStepProgress(1.0);
        job_.checkCancel();
        hook("copy prefix");
    }

    // Copies old suffix bytes [from, to) into out (at from - base), inside the kernel where it can.
    void copySuffixTail(File& out, uint64_t base, uint64_t from, uint64_t to)
    {
        copyRange(old_->suffix, from, out, from - base, to - from);
        result_.stats.bytesCopied += to - from;
    }

    void swap()
    {
        auto& st = result_.stats;
        job_.beginStep(4, "switching to generation " + std::to_string(st.generation));
        StepMeter meter("swap");
        File out = createNew(newName(pack::suffixFileName), O_RDWR);
        // Objects appended after the split stay: most of them are copied while
        // appends go on, only what arrives meanwhile is copied with appends blocked.
        const uint64_t base = split_ - old_->control.split;
        // Only bytes below a size read under the append lock are whole
        // objects (an append writes while it holds the lock).
        uint64_t from;
        {
            auto appends = pack_.lockAppends();
            from = old_->suffix.size();
        }
        copySuffixTail(out, base, base, from);
        hook("suffix");
        job_.checkCancel(); // the last point where cancelling is possible
        if (catalog_) {
            // Before the swap, not after it: once the mapping is final, the
            // rows of collected chunks are dead in both generations and every
            // other row below the split is live in both, so deleting them and
            // clearing `running` is right whichever generation a crash leaves
            // (a crash after the swap must not leave rows pointing at
            // collected offsets for fsck and dedup to trip on).
            const auto dead = catalog_->deadChunkRows(split_, [&](uint64_t o) { return mapping_.find(o).has_value(); });
            st.chunkRowsDeleted = dead.size();
            catalog_->finish(dead, nullptr, 0, true);
            catalogFinished_ = true;
            hook("catalog");
        }
        {
            auto appends = pack_.lockAppends();
            const uint64_t end = old_->suffix.size();
            copySuffixTail(out, base, from, end);
            from = end;
            out.sync();
            out.close();
            hook("before control");
            pack::PackControl c;
            c.generation = st.generation;
            c.split = split_;
            c.prefixBytes = st.liveBytes;
            c.mappingRecords = records_;
            c.writeAtomic(pack_.folder());
            swapped_ = true;
            pack_.reload();
        }
        st.appendedDuringGc = from - base;
        st.steps.push_back(meter.finish());
        job_.setStepProgress(1.0);
        hook("after control");
    }

    void cleanup()
    {
        auto& st = result_.stats;
        job_.beginStep(5, "removing generation " + std::to_string(st.generationBefore));
        StepMeter meter("cleanup");
        const uint64_t g = st.generationBefore;
        // Readers holding generation g keep their open files readable.
        removeQuietly(pack_.folder(), pack::suffixFileName(g));
        removeQuietly(pack_.folder(), pack::prefixFileName(g));
        removeQuietly(pack_.folder(), pack::mappingFileName(g));
        pack_.folder().sync();
        hook("cleanup");
        const auto sizes = pack_.sizes();
        st.after = {sizes.suffixBytes, sizes.prefixBytes, sizes.mappingBytes};
        if (opt_.collectRanges) {
            result_.liveRanges.clear();
            for (uint64_t i = 0; i < records_; ++i) {
                const auto r = mapping_.at(i);
                result_.liveRanges.push_back({r.offset, r.length});
            }
            result_.deadRanges = subtract(reader_->presentRanges(split_), result_.liveRanges);
        }
        st.status = "done";
        st.steps.push_back(meter.finish());
        if (catalog_)
            result_.runId = catalog_->finish({}, &st, started_, false);
        old_.reset();
        reader_.reset();
    }

    pack::Pack& pack_;
    const GcOptions& opt_;
    Job& job_;
    GcResult result_;
    std::optional<FileLock> gcLock_;
    std::unique_ptr<GcCatalog> catalog_;
    double started_ = 0;
    uint64_t split_ = 0;
    std::vector<uint64_t> roots_;
    std::vector<int64_t> rootEntries_;  // the entry of each root (from the catalog)
    std::shared_ptr<const pack::Generation> old_;
    std::unique_ptr<GenerationReader> reader_;
    std::unique_ptr<MappingBuilder> builder_;
    std::string mappingName_;
    pack::MappingFile mapping_;
    uint64_t records_ = 0;
    uint64_t presentBytes_ = 0;
    std::vector<std::string> newFiles_;
    bool swapped_ = false;
    std::optional<File> prefixOut_;
    std::unique_ptr<PrefixWriter> prefix_;
    bool catalogFinished_ = false;
};

} // namespace

GcResult collectGarbage(pack::Pack& pack, const GcOptions& options, Job& job)
{
    return GcRunner(pack, options, job).run();
}

GcResult collectStoreGarbage(const std::string& storeDir, const GcOptions& options, Job& job)
{
    // Every path of the store through its layout: a linked pack/ or
    // catalog.db (or -wal, -shm, -journal) is refused, never followed.
    const store::StoreLayout layout = store::StoreLayout::open(storeDir);
    auto pack = pack::Pack::open(layout.packFolder(false), false);
    GcOptions o = options;
    if (o.catalogPath.empty() && layout.root().kindOf(store::StoreLayout::kCatalog) != Folder::Kind::Missing)
        o.catalogPath = layout.catalogPath();
    return collectGarbage(*pack, o, job);
}

bool recoverInterruptedGc(const std::string& catalogPath, pack::Pack& pack)
{
    FileLock lock = pack.tryLockGc();
    if (!lock.held())
        return false; // a GC is running: the flag is right
    GcCatalog catalog(catalogPath);
    return recoverLocked(catalog, pack);
}

std::vector<GcRun> gcHistory(const std::string& catalogPath)
{
    return GcCatalog(catalogPath).runs();
}

GcRun gcRun(const std::string& catalogPath, int64_t id)
{
    auto runs = GcCatalog(catalogPath).runs(id);
    if (runs.empty())
        fail(catalogPath, "there is no GC run " + std::to_string(id));
    return std::move(runs.front());
}

} // namespace cs::gc
