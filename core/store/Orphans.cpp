// Orphaned parts: files under parts/ that no catalog row references, left by
// a crash between deleting rows and deleting their parts (evict, re-put,
// abort, merge). What counts as an orphan and why removal is safe beside
// uploads in other processes: Store.h, "Orphaned parts".
#include "core/store/StoreInternal.h"

#include "core/jobs/Job.h"
#include "core/util/Error.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <set>

namespace fs = std::filesystem;

namespace cs::store {

namespace {

std::atomic<uint64_t> orphanCounter{0};

// The decimal form the store writes for an entry id (no sign, no leading 0).
bool parseId(const std::string& name, int64_t& id)
{
    if (name.empty() || name.size() > 18 || (name.size() > 1 && name[0] == '0'))
        return false;
    for (char c : name)
        if (c < '0' || c > '9')
            return false;
    id = std::stoll(name);
    return true;
}

struct Usage {
    uint64_t bytes = 0;
    uint64_t files = 0;
};

Usage usageOf(const fs::path& p)
{
    Usage u;
    std::error_code ec;
    const auto st = fs::symlink_status(p, ec);
    if (ec)
        return u;
    if (fs::is_regular_file(st)) {
        u.bytes = fs::file_size(p, ec);
        u.files = ec ? 0 : 1;
        if (ec)
            u.bytes = 0;
        return u;
    }
    if (!fs::is_directory(st))
        return u;
    for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        std::error_code fe;
        if (it->is_regular_file(fe) && !it->is_symlink(fe)) {
            const uint64_t n = it->file_size(fe);
            if (!fe) {
                u.bytes += n;
                u.files++;
            }
        }
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
bool folderIsOrphan(const RowView& v) { return !v.exists || v.state == EntryState::Merged; }

// Nothing references the file parts/<id>/<name> of this row.
bool fileIsOrphan(const RowView& v, const std::string& name)
{
    return folderIsOrphan(v) || (v.state == EntryState::Unmerged && !v.partNames.count(name));
}

// remove_all, where another remover (a concurrent repair, a reserve setting
// the same folder aside) may delete parts of it first: only what is still
// there counts as a failure.
void removeTree(const std::string& path, const char* what)
{
    std::error_code ec;
    fs::remove_all(path, ec);
    std::error_code again;
    if (ec && fs::exists(fs::symlink_status(path, again)))
        fail(path, std::string("cannot remove the ") + what + ": " + ec.message());
}

} // namespace

std::vector<FsckProblem> Store::Impl::findOrphans(Job& job) const
{
    std::vector<FsckProblem> found;
    const fs::path root = dir + "/parts";
    // List first, read rows after: an upload that reserved before the listing
    // is seen in the catalog, one that reserves later has no folder yet.
    std::vector<fs::path> names;
    std::error_code ec;
    for (const auto& f : fs::directory_iterator(root, ec))
        names.push_back(f.path());
    std::sort(names.begin(), names.end());
    for (const auto& p : names) {
        job.checkCancel();
        const std::string name = p.filename().string();
        int64_t id = 0;
        if (!parseId(name, id)) {
            const Usage u = usageOf(p);
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
            if (!fs::exists(fs::symlink_status(p, ec)))
                continue;   // a merge or an eviction removed it meanwhile
            const Usage u = usageOf(p);
            const std::string why = v.exists ? "orphaned part folder of merged entry " + std::to_string(id)
                                                   + " (its bytes are in the pack)"
                                             : "orphaned part folder of entry " + std::to_string(id)
                                                   + ", which is not in the catalog (evicted or replaced)";
            found.push_back({v.exists ? id : 0, v.key, std::nullopt, p.string() + ": " + why + ": " + usageText(u),
                             p.string(), u.bytes});
            continue;
        }
        // Unmerged: only its committed parts belong in the folder.
        std::vector<fs::path> files;
        for (const auto& f : fs::directory_iterator(p, ec))
            files.push_back(f.path());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            if (!fileIsOrphan(v, f.filename().string()))
                continue;
            const Usage u = usageOf(f);
            found.push_back({id, v.key, std::nullopt,
                             f.string() + ": orphaned, not one of the " + std::to_string(v.partNames.size())
                                 + " committed parts of entry " + std::to_string(id) + ": " + usageText(u),
                             f.string(), u.bytes});
        }
    }
    return found;
}

OrphanRemoval Store::removeOrphans(Job& job)
{
    OrphanRemoval out;
    const fs::path root = d->dir + "/parts";
    const auto found = d->findOrphans(job);
    for (size_t i = 0; i < found.size(); ++i) {
        const FsckProblem& o = found[i];
        job.checkCancel();
        job.setStepProgress(i, found.size());
        const fs::path p(o.path);
        const bool topLevel = p.parent_path() == root;
        int64_t id = 0;
        if (topLevel && !parseId(p.filename().string(), id)) {
            // Nothing the store writes has such a name but the trash below.
            removeTree(o.path, "orphaned parts");
            out.removed.push_back(o);
            out.bytes += o.bytes.value_or(0);
            continue;
        }
        if (!topLevel && !parseId(p.parent_path().filename().string(), id))
            continue;
        // Decide and act while holding the write lock: no reserve can take
        // this id, no commit or merge can change its row meanwhile.
        std::string trash;
        {
            Transaction tx(*d->catalog, Transaction::Immediate);
            const RowView v = rowView(*d->catalog, id);
            if (topLevel ? !folderIsOrphan(v) : !fileIsOrphan(v, p.filename().string()))
                continue;   // the row changed since the scan (the id was reused): not an orphan any more
            if (!topLevel) {
                removeTree(o.path, "orphaned file");
                tx.commit();
                out.removed.push_back(o);
                out.bytes += o.bytes.value_or(0);
                continue;
            }
            trash = p.string() + ".orphan." + std::to_string(::getpid()) + "." + std::to_string(orphanCounter++);
            if (::rename(p.c_str(), trash.c_str()) != 0) {
                if (errno == ENOENT)
                    continue;   // removed meanwhile (the entry's merge or eviction finished)
                failErrno(o.path, "cannot move the orphaned part folder aside");
            }
            tx.commit();
        }
        // The renamed folder is an orphan by its name alone: a crash from here
        // on leaves it for the next run.
        killPoint("orphan renamed");
        removeTree(trash, "orphaned parts");
        out.removed.push_back(o);
        out.bytes += o.bytes.value_or(0);
    }
    d->repairBeyondParts(out, job);
    job.setStepProgress(1.0);
    return out;
}

} // namespace cs::store
