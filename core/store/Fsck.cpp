// fsck: reads everything, changes nothing. Every merged entry decodes and
// matches its size and SHA-256 (every object header on the way is parsed and
// sanity-checked by the pack); every part of every unmerged entry is there
// with its size; every dedup row names a chunk with that SHA-256; no part
// folder or file is orphaned (referenced by no catalog row).
#include "core/store/StoreInternal.h"

#include "core/jobs/Job.h"
#include "core/pack/PackCheck.h"
#include "core/util/Error.h"
#include "core/util/File.h"

#include <filesystem>
#include <cstring>
#include <set>

namespace fs = std::filesystem;

namespace cs::store {

std::vector<FsckProblem> Store::fsck(Job& job)
{
    std::vector<FsckProblem> problems;
    auto add = [&](int64_t id, const std::string& key, std::optional<uint64_t> offset, std::string message) {
        FsckProblem p;
        p.entryId = id;
        p.key = key;
        p.offset = offset;
        p.message = std::move(message);
        problems.push_back(std::move(p));
    };
    // Entries are read once, then checked one by one while merges, puts,
    // evictions and GCs go on: a finding counts only when the entry's row is
    // still as it was read (a merge commits before it removes the parts, an
    // eviction deletes the row before the parts), so fsck beside them
    // reports nothing that was not wrong.
    auto stillAsRead = [&](const EntryRow& e) {
        const auto now = d->entry(e.id);
        return now && now->state == e.state && now->sha256 == e.sha256 && now->rootOffset == e.rootOffset
               && now->created == e.created;
    };
    std::vector<EntryRow> entries;
    {
        auto lock = d->catalog->lock();
        auto q = d->catalog->prepare(std::string("SELECT ") + kEntryColumns + " FROM entries ORDER BY id");
        while (q.step())
            entries.push_back(rowFrom(q));
    }
    d->pack->reload();
    // The check GC runs before it deletes anything (PackCheck.h): the
    // mapping records, and every merged entry's root inside the pack.
    std::vector<uint64_t> roots;
    std::vector<const EntryRow*> rootOf;
    for (const auto& e : entries)
        if (e.state == EntryState::Merged) {
            roots.push_back(e.rootOffset);
            rootOf.push_back(&e);
        }
    std::set<int64_t> unexplained;
    for (const auto& f : pack::checkPackExplains(*d->pack, d->pack->end(), roots)) {
        if (f.root == pack::PackFinding::kNoRoot) {
            add(0, {}, std::nullopt, f.message);
        } else {
            const EntryRow& e = *rootOf[f.root];
            unexplained.insert(e.id);
            if (stillAsRead(e))
                add(e.id, e.key, e.rootOffset, f.message);
        }
    }
    uint64_t totalBytes = 0;
    for (const auto& e : entries)
        totalBytes += e.state == EntryState::Uploading ? 0 : e.size;
    uint64_t doneBytes = 0;
    // Entries sharing one root (synthetic ones) are decoded once.
    std::set<std::pair<uint64_t, std::string>> goodRoots;
    std::vector<char> buf;
    for (const auto& e : entries) {
        job.checkCancel();
        job.setStepProgress(doneBytes, std::max<uint64_t>(totalBytes, 1));
        if (e.state == EntryState::Merged) {
            if (goodRoots.count({e.rootOffset, e.sha256}) || unexplained.count(e.id))
                continue;
            try {
                std::vector<pack::ChildRef> chunks = d->chunkList(e.rootOffset);
                Sha256 sha;
                uint64_t size = 0;
                for (const auto& c : chunks) {
                    job.checkCancel();
                    try {
                        buf.resize(c.logicalSize);
                        pack::ObjectHeader h;
                        d->pack->readChunkInto(c.offset, buf.data(), buf.size(), &h);
                        if (Sha256::of(buf.data(), buf.size()) != h.sha256)
                            failAt(d->pack->dir(), c.offset, "chunk does not match the SHA-256 in its header");
                        sha.update(buf.data(), buf.size());
                        size += c.logicalSize;
                    } catch (const Cancelled&) {
                        throw;
                    } catch (const std::exception& ex) {
                        throw Error(std::string("chunk at pack offset ") + std::to_string(c.offset) + ": " + ex.what());
                    }
                    job.setStepProgress(doneBytes + size, std::max<uint64_t>(totalBytes, 1));
                }
                if (size != e.size)
                    add(e.id, e.key, e.rootOffset,
                        "entry decodes to " + std::to_string(size) + " bytes, the catalog says " + std::to_string(e.size));
                else if (hexOf(sha.finish()) != e.sha256)
                    add(e.id, e.key, e.rootOffset, "entry does not match its SHA-256 " + e.sha256);
                else
                    goodRoots.insert({e.rootOffset, e.sha256});
            } catch (const Cancelled&) {
                throw;
            } catch (const std::exception& ex) {
                if (stillAsRead(e))
                    add(e.id, e.key, e.rootOffset, ex.what());
            }
        } else if (e.state == EntryState::Unmerged) {
            const size_t before = problems.size();
            const auto parts = d->partRows(e.id);
            if (parts.size() != e.partCount)
                add(e.id, e.key, std::nullopt,
                    "the catalog lists " + std::to_string(parts.size()) + " parts, the entry says "
                        + std::to_string(e.partCount));
            for (const auto& p : parts) {
                job.checkCancel();
                if (auto problem = d->partProblem(e.id, e.key, p))
                    add(e.id, e.key, p.index, *problem);
            }
            if (problems.size() > before && !stillAsRead(e))
                problems.resize(before);   // merged or evicted meanwhile: its parts went after its row changed
        }
        if (e.state != EntryState::Uploading)
            doneBytes += e.size;
    }
    // The dedup index: a wrong row would make later merges reference the
    // wrong bytes (merges refuse such rows; fsck --repair deletes them).
    for (const auto& r : d->badDedupRows(job))
        add(0, {}, r.offset, r.why + "; store fsck --repair deletes the row");
    // Uploads nobody finished.
    const double now = nowSeconds();
    for (const auto& e : d->staleUploads(now))
        problems.push_back(staleUploadProblem(e, now));
    // Files an interrupted GC left in pack/.
    for (auto& p : d->findPackLeftovers())
        problems.push_back(std::move(p));
    // Parts no row references (Store.h, "Orphaned parts"): leaked disk space.
    for (auto& o : d->findOrphans(job))
        problems.push_back(std::move(o));
    job.setStepProgress(1.0);
    return problems;
}

} // namespace cs::store
