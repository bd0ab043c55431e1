// Import into a native store: each entry's stored blob (the merged object,
// or parts 0..partCount-1 in numeric order) re-cut into parts as a build
// tool uploads them, committed and merged there. Only reads this data.
// Identity: the native entry keeps the server's key, version, scope and
// repo (schema 5's repo column; entries differing in any of them stay
// apart) and its updatedAt as the creation time, and records its origin,
// so importing the same save again is recognised and skipped. An entry that
// cannot be read is counted as failed, by name, and the rest go on.
#include "core/actions-cache/ActionsCache.h"

#include "core/actions-cache/ActionsInternal.h"
#include "core/jobs/Job.h"
#include "core/store/Store.h"
#include "core/util/Error.h"

#include <algorithm>
#include <functional>

namespace cs::actions {

namespace {

// Where an imported entry came from: the server's entry id (a uuid) and
// the updatedAt of the save it holds (a re-save gets a new one).
std::string originOf(const ActionsEntry& e)
{
    return "actions:" + e.id + "@" + std::to_string(e.updatedAtMs);
}

} // namespace

ActionsImportResult ActionsCache::importInto(store::Store& target, const std::vector<std::string>& entryIds,
                                             const std::string& scope, uint64_t partSize, bool noMerge, Job& job)
{
    if (partSize == 0 || partSize > store::kMaxPartBytes)
        throw Error("import: part size must be between 1 byte and 256 MiB");
    auto all = entries();
    for (const auto& id : entryIds)
        if (std::none_of(all.begin(), all.end(), [&](const ActionsEntry& e) { return e.id == id; }))
            fail(catalog_->describe(), "no cache entry with id '" + id + "'");
    std::vector<ActionsEntry> selected;
    uint64_t total = 0;
    for (auto& e : all)
        if (entryIds.empty() || std::find(entryIds.begin(), entryIds.end(), e.id) != entryIds.end()) {
            total += e.size;
            selected.push_back(std::move(e));
        }

    ActionsImportResult result;
    uint64_t done = 0;
    std::vector<char> buf(static_cast<size_t>(partSize));
    for (const auto& e : selected) {
        job.checkCancel();
        const std::string origin = originOf(e);
        if (target.findImported(origin)) {
            ++result.skipped;
            done += e.size;
            continue;
        }
        // Which objects make the blob, checked against one listing first;
        // a problem fails this entry (named in the result), not the import.
        std::vector<std::function<std::unique_ptr<ObjectReader>()>> sources;
        try {
            if (!e.hasLocation)
                fail(catalog_->describe(), "entry '" + e.key + "' (" + e.id + ") names storage location '"
                                               + e.locationId + "', which does not exist");
            if (!e.storageError.empty())
                throw Error(e.storageError);
            if (e.merged()) {
                if (!e.mergedPresent)
                    fail(storage_->objectName(e.folderName, "merged"),
                         "entry '" + e.key + "' is marked merged but its merged object is missing");
                sources.push_back([&] { return storage_->openMerged(e.folderName); });
            } else {
                if (e.partCount < 0)
                    fail(catalog_->describe(), "entry '" + e.key + "' claims " + std::to_string(e.partCount) + " parts");
                if (e.partsDeletedAtMs)
                    fail(storage_->objectName(e.folderName, ""),
                         "entry '" + e.key + "' cannot be imported: its parts were deleted without a merge");
                const auto parts = this->parts(e, 1);
                for (const auto& p : parts)
                    if (!p.present && p.index < uint64_t(std::max<int64_t>(e.partCount, 0)))
                        fail(storage_->objectName(e.folderName, "parts/" + std::to_string(p.index)),
                             "entry '" + e.key + "' cannot be imported: this part is missing");
                for (const auto& p : parts)
                    if (p.index < uint64_t(e.partCount))
                        sources.push_back([&, index = p.index] { return storage_->openPart(e.folderName, index); });
            }
        } catch (const Cancelled&) {
            throw;
        } catch (const Error& err) {
            result.failed.push_back({e.id, e.key, err.what()});
            continue;
        }
        // The server's identity carried over: key, version, scope (unless
        // the caller names one), repo, and updatedAt as the creation time.
        const int64_t upload = target.reserve(e.key, e.version, scope.empty() ? e.scope : scope);
        store::EntryRow committed;
        try {
            target.setImportedIdentity(upload, e.repoId, double(e.updatedAtMs) / 1000.0, origin);
            uint32_t index = 0;
            size_t filled = 0;
            uint64_t bytes = 0;
            for (const auto& open : sources) {
                auto in = open();
                for (;;) {
                    job.checkCancel();
                    const size_t n = in->read(buf.data() + filled, buf.size() - filled);
                    if (n == 0)
                        break;
                    filled += n;
                    done += n;
                    bytes += n;
                    if (filled == buf.size()) {
                        target.writePart(upload, index++, buf.data(), filled);
                        filled = 0;
                    }
                    job.setStepProgress(done, total);
                }
            }
            if (filled > 0 || index == 0)
                target.writePart(upload, index++, buf.data(), filled);
            committed = target.commit(upload, index);
            result.bytes += bytes;
        } catch (const Cancelled&) {
            target.abortUpload(upload);
            throw;
        } catch (const Error& err) {
            target.abortUpload(upload);
            result.failed.push_back({e.id, e.key, err.what()});
            continue;
        }
        if (!noMerge) {
            const store::MergeResult m = target.merge(committed.id, job);
            result.chunks += m.chunks;
            result.newChunks += m.newChunks;
            result.appendedBytes += m.appendedBytes;
        } else {
            result.unmerged.push_back(committed.id);
        }
        ++result.entries;
    }
    return result;
}

} // namespace cs::actions
