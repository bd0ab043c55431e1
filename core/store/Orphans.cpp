// Orphaned parts: files under parts/ that no catalog row references, left by
// a crash between deleting rows and deleting their parts (evict, re-put,
// abort, merge). What counts as an orphan and why removal is safe beside
// uploads in other processes: Store.h, "Orphaned parts".
#include "core/store/StoreInternal.h"

#include "core/jobs/Job.h"
#include "core/util/Error.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <filesystem>
#include <set>
#include <thread>

namespace fs = std::filesystem;

namespace cs::store {

namespace {

bool parseId(const std::string& name, int64_t& id) { return StoreLayout::parseEntryId(name, id); }

struct Usage {
    uint64_t bytes = 0;
    uint64_t files = 0;
};

// Regular files in name (a file or a folder tree in parent), links not
// followed and not counted.
Usage usageOf(const Folder& parent, const std::string& name)
{
    Usage u;
    try {
        const Folder::Kind k = parent.kindOf(name);
        if (k == Folder::Kind::File) {
            u.bytes = parent.sizeOf(name);
            u.files = 1;
        } else if (k == Folder::Kind::Folder) {
            const Folder f = parent.sub(name);
            for (const auto& c : f.list()) {
                const Usage inner = usageOf(f, c.name);
                u.bytes += inner.bytes;
                u.files += inner.files;
            }
        }
    } catch (const Error&) {
        // removed meanwhile: counts as nothing
    }
    return u;
}

std::string usageText(const Usage& u)
{
    return std::to_string(u.files) + (u.files == 1 ? " file, " : " files, ") + std::to_string(u.bytes) + " bytes";
}

// The row of an entry as far as its parts are concerned.
struct RowView {
    bool exists = false;
    EntryState state = EntryState::Uploading;
    std::string key;
    std::set<std::string> partNames;   // unmerged: the committed part files
};

RowView rowView(const Catalog& catalog, int64_t id)
{
    auto lock = catalog.lock();
    RowView v;
    auto q = catalog.prepare("SELECT state, key FROM entries WHERE id=?1");
    q.bind(1, id);
    if (!q.step())
        return v;
    v.exists = true;
    v.state = parseEntryState(q.text(0)).value_or(EntryState::Uploading);
    v.key = q.text(1);
    if (v.state == EntryState::Unmerged) {
        auto p = catalog.prepare("SELECT idx FROM parts WHERE entry_id=?1");
        p.bind(1, id);
        while (p.step())
            v.partNames.insert(std::to_string(p.i64(0)));
    }
    return v;
}

// Nothing references a whole folder parts/<id> of this row.
// The folder is gone, or a merge holds its lock (EntryMergeLock, Merge.cpp):
// a merge that committed removes its parts while it holds it.
bool beingRemoved(const Folder& root, const std::string& name)
{
    if (root.kindOf(name) == Folder::Kind::Missing)
        return true;
    const int fd = ::openat(root.fd(), name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return errno == ENOENT;
    const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(fd);
    return held;
}

bool folderIsOrphan(const RowView& v) { return !v.exists || v.state == EntryState::Merged; }

// Nothing references the file parts/<id>/<name> of this row.
bool fileIsOrphan(const RowView& v, const std::string& name)
{
    return folderIsOrphan(v) || (v.state == EntryState::Unmerged && !v.partNames.count(name));
}

// removeTree, where another remover (a concurrent repair, a reserve setting
// the same folder aside) may delete parts of it first: only what is still
// there counts as a failure. Links are removed themselves (Folder).
void removeTree(const Folder& parent, const std::string& name, const char* what)
{
    try {
        parent.removeTree(name);
    } catch (const Error& ex) {
        if (parent.kindOf(name) != Folder::Kind::Missing)
            fail(parent.pathOf(name), std::string("cannot remove the ") + what + ": " + ex.what());
    }
}

} // namespace

std::vector<FsckProblem> Store::Impl::findOrphans(Job& job) const
{
    std::vector<FsckProblem> found;
    const Folder& root = layout->parts();
    // List first, read rows after: an upload that reserved before the listing
    // is seen in the catalog, one that reserves later has no folder yet.
    const auto names = root.list();   // sorted
    // A merge removes its entry's folder after its commit, an eviction or a
    // replacing commit after theirs: such a folder is orphaned for a moment
    // only. Those found are looked at again after a short wait, and only
    // those still there, still without a live row, are reported (fsck beside
    // a merge, a put or an evict reports nothing).
    std::vector<std::pair<std::string, int64_t>> settling;
    for (const auto& child : names) {
        job.checkCancel();
        const std::string& name = child.name;
        const fs::path p = root.pathOf(name);
        int64_t id = 0;
        if (!parseId(name, id)) {
            const Usage u = usageOf(root, name);
            found.push_back({0, {}, std::nullopt,
                             p.string() + ": orphaned, not the part folder of any entry (the rest of an interrupted removal?): "
                                 + usageText(u),
                             p.string(), u.bytes});
            continue;
        }
        const RowView v = rowView(*catalog, id);
        if (v.exists && v.state == EntryState::Uploading)
            continue;   // an upload in progress: its parts may arrive at any time
        if (folderIsOrphan(v)) {
            if (!beingRemoved(root, name))
                settling.push_back({name, id});
            continue;
        }
        // Unmerged: only its committed parts belong in the folder (a link
        // there is not a folder of parts: reported, and removed as a link).
        if (child.kind != Folder::Kind::Folder) {
            found.push_back({id, v.key, std::nullopt,
                             p.string() + ": is not a folder (a link or a file where the parts of entry "
                                 + std::to_string(id) + " belong); its parts are missing",
                             p.string(), 0});
            continue;
        }
        std::optional<Folder> folder;
        try {
            folder = root.trySub(name);
        } catch (const Error&) {
            continue;   // replaced by a link meanwhile: the next scan reports it
        }
        if (!folder)
            continue;
        for (const auto& c : folder->list()) {
            if (!fileIsOrphan(v, c.name))
                continue;
            const fs::path f = folder->pathOf(c.name);
            const Usage u = usageOf(*folder, c.name);
            found.push_back({id, v.key, std::nullopt,
                             f.string() + ": orphaned, not one of the " + std::to_string(v.partNames.size())
                                 + " committed parts of entry " + std::to_string(id) + ": " + usageText(u),
                             f.string(), u.bytes});
        }
    }
    if (!settling.empty())
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    for (const auto& [name, id] : settling) {
        job.checkCancel();
        const RowView v = rowView(*catalog, id);
        if (!folderIsOrphan(v) || beingRemoved(root, name))
            continue;
        const fs::path p = root.pathOf(name);
        const Usage u = usageOf(root, name);
        const std::string why = v.exists ? "orphaned part folder of merged entry " + std::to_string(id)
                                               + " (its bytes are in the pack)"
                                         : "orphaned part folder of entry " + std::to_string(id)
                                               + ", which is not in the catalog (evicted or replaced)";
        found.push_back({v.exists ? id : 0, v.key, std::nullopt, p.string() + ": " + why + ": " + usageText(u),
                         p.string(), u.bytes});
    }
    std::sort(found.begin(), found.end(), [](const FsckProblem& a, const FsckProblem& b) { return a.path < b.path; });
    return found;
}

OrphanRemoval Store::removeOrphans(Job& job)
{
    OrphanRemoval out;
    const Folder& root = d->layout->parts();
    const fs::path rootPath = root.path();
    const auto found = d->findOrphans(job);
    for (size_t i = 0; i < found.size(); ++i) {
        const FsckProblem& o = found[i];
        job.checkCancel();
        job.setStepProgress(i, found.size());
        const fs::path p(o.path);
        const bool topLevel = p.parent_path() == rootPath;
        const std::string name = p.filename().string();
        const std::string folderName = topLevel ? name : p.parent_path().filename().string();
        int64_t id = 0;
        if (topLevel && !parseId(name, id)) {
            // Nothing the store writes has such a name but the trash below.
            removeTree(root, name, "orphaned parts");
            out.removed.push_back(o);
            out.bytes += o.bytes.value_or(0);
            continue;
        }
        if (!topLevel && (p.parent_path().parent_path() != rootPath || !parseId(folderName, id)))
            continue;
        // Decide and act while holding the write lock: no reserve can take
        // this id, no commit or merge can change its row meanwhile.
        std::string trash;
        {
            Transaction tx(*d->catalog, Transaction::Immediate);
            const RowView v = rowView(*d->catalog, id);
            if (topLevel ? !folderIsOrphan(v) : !fileIsOrphan(v, name))
                continue;   // the row changed since the scan (the id was reused): not an orphan any more
            if (!topLevel) {
                std::optional<Folder> folder;
                try {
                    folder = root.trySub(folderName);
                } catch (const Error&) {
                    continue;   // no longer a real folder: the next scan says what it is
                }
                if (folder)
                    removeTree(*folder, name, "orphaned file");
                tx.commit();
                out.removed.push_back(o);
                out.bytes += o.bytes.value_or(0);
                continue;
            }
            if (root.kindOf(name) == Folder::Kind::Missing)
                continue;   // removed meanwhile (the entry's merge or eviction finished)
            trash = StoreLayout::orphanName(name);
            try {
                root.rename(name, trash);
            } catch (const Error&) {
                if (root.kindOf(name) == Folder::Kind::Missing)
                    continue;
                throw;
            }
            tx.commit();
        }
        // The renamed folder is an orphan by its name alone: a crash from here
        // on leaves it for the next run.
        killPoint(killpoints::store::kOrphanRenamed);
        removeTree(root, trash, "orphaned parts");
        out.removed.push_back(o);
        out.bytes += o.bytes.value_or(0);
    }
    d->repairBeyondParts(out, job);
    job.setStepProgress(1.0);
    return out;
}

} // namespace cs::store
