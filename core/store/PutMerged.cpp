// Put and merge of a regular file in one pass (Store::putMerged): the file is
// read once into the chunker, no parts are written. Before, `store put` wrote
// the file as parts (four threads), committed them (a serial SHA-256 and
// CRC-32C pass over the parts) and merged them (reading the parts again, a
// CRC-32C each, then deleting them): three passes over the bytes and one
// core idle during the commit's.
//
// Crash safety: nothing is in the catalog until one transaction inserts the
// entry, merged, with its dedup rows and the replacement of an older entry;
// the pack is synced before it. A crash before leaves only unreferenced
// objects in the pack (GC reclaims them; fsck does not count them as a
// problem), a crash after leaves the entry committed (and, at worst, the
// parts of an entry it replaced as orphans fsck --repair removes).
#include "core/store/MergeAttempt.h"

#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/File.h"

namespace cs::store {

PutResult Store::Impl::mergeFile(const File& in, uint64_t size, const std::string& key, const std::string& version,
                                 const std::string& scope, Job& job)
{
    clearStaleGcFlag();
    const MergeTurn turn(job);
    PutResult result;
    std::vector<int64_t> replaced;
    std::string setAside;
    for (int attempt = 0;; ++attempt) {
        if (attempt > 8)
            fail(in.path(), "was read 8 times because a GC kept starting while it was put; nothing was stored, try again later");
        const int64_t epoch0 = gcEpoch(*catalog);
        MergeAttempt m(*this, options.compressionLevel);
        try {
            // The entry's SHA-256 over the same bytes the chunks are cut from:
            // a file changed while it is read still gives a consistent entry
            // (what was read), never chunks of one version and a hash of another.
            Sha256 whole;
            uint64_t pos = 0;
            m.chunk(options.chunker, [&](char* block, size_t max) -> size_t {
                job.checkCancel();
                const size_t want = size_t(std::min<uint64_t>(max, size - pos));
                if (want == 0)
                    return 0;
                in.readAt(block, want, pos);   // a file that shrank: an error naming it and the offset
                whole.update(block, want);
                pos += want;
                job.setStepProgress(pos, std::max<uint64_t>(size, 1));
                return want;
            });
            uint64_t appended = 0, chunkCount = 0;
            const uint64_t root = m.writeObjects(appended, chunkCount);
            const std::string sha = hexOf(whole.finish());
            job.checkCancel();
            killPoint(killpoints::store::kPutAppended);
            if (options.testHooks && options.testHooks->beforeMergeCommit)
                options.testHooks->beforeMergeCommit(0);

            int64_t id = 0;
            {
                Transaction tx(*catalog, Transaction::Immediate);
                if (gcEpoch(*catalog) != epoch0)
                    throw RedoMerge{};   // the transaction rolls back
                // The row first, as an upload, while the entries it replaces
                // still hold their ids: SQLite gives a deleted last row's id
                // to the next insert, and a replaced entry's parts folder
                // must never be taken for a stale one of the new id (set
                // aside before the commit, it would be lost with a rollback).
                const double now = nowSeconds();
                id = insertUpload(key, version, scope, now);
                setAside = setAsideStaleParts(id);
                replaced = deleteReplaced(key, version, scope, id);
                catalog
                    ->prepare("UPDATE entries SET state='merged', size=?2, sha256=?3, root_offset=?4, part_count=0, "
                              "committed=?5 WHERE id=?1")
                    .bind(1, id)
                    .bind(2, size)
                    .bindText(3, sha)
                    .bind(4, root)
                    .bind(5, now)
                    .run();
                m.insertChunkRows();
                tx.commit();
            }
            // Committed: from here on nothing may drop what was appended.
            result.merge.chunks = chunkCount;
            result.merge.newChunks = m.appended.size();
            result.merge.appendedBytes = appended;
            result.merge.rootOffset = root;
            result.merge.entryId = id;
            break;
        } catch (const RedoMerge&) {
            m.group.waitAll();
            dropAppended(m.ranges);
            result.merge.redone++;
            continue;
        } catch (...) {
            // Nothing references what this attempt appended: give the space back.
            m.group.waitAll();
            dropAppended(m.ranges);
            throw;
        }
    }
    dropSetAside(setAside);
    removeReplaced(replaced);
    result.merge.key = key;
    result.merge.merged = true;
    result.merge.bytes = size;
    const auto row = entry(result.merge.entryId);
    if (!row)   // evicted in the instant since the commit
        throw Error(dir + ": entry '" + key + "' was stored, then removed by another process before it could be listed");
    result.entry = *row;
    return result;
}

} // namespace cs::store
