// ActionsStorage over the server's filesystem storage folder.
//
// Invariant: below the root nothing is reached through a symbolic link.
// Every folder and file is opened through cs::Folder (openat2 with
// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, else one O_NOFOLLOW component at a
// time), so a link planted anywhere in the folder (for the folder, parts/, a
// part or merged) is reported by name and never read, overwritten or deleted
// through. The root itself may be a link: the user named it. Special files
// (FIFOs, devices) are never opened for reading. merged is written through
// OutputFile: a temp file in the folder named for the process that writes it
// (so a second merge sees this one under way), fsync, rename, fsync of the
// folder.
#include "core/actions-cache/ActionsBackend.h"
#include "core/actions-cache/ActionsInternal.h"

#include "core/util/Error.h"
#include "core/util/File.h"
#include "core/util/Folder.h"
#include "core/util/OpenFiles.h"
#include "core/util/OutputFile.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

namespace cs::actions {

namespace {

// Part names are the decimal index the server writes (`${partIndex}`):
// digits, no leading zero, at most 18 of them.
std::optional<uint64_t> partIndexOf(const std::string& name)
{
    if (name.empty() || name.size() > 18 || (name.size() > 1 && name[0] == '0'))
        return std::nullopt;
    uint64_t v = 0;
    for (const char c : name) {
        if (c < '0' || c > '9')
            return std::nullopt;
        v = v * 10 + uint64_t(c - '0');
    }
    return v;
}

// The server writes two levels below a folder; deeper is not its data.
constexpr int kMaxRemoveDepth = 8;

bool nestedDeeperThan(const Folder& folder, int levels)
{
    if (levels <= 0)
        return true;
    for (const auto& c : folder.list())
        if (c.kind == Folder::Kind::Folder)
            if (const auto sub = folder.trySub(c.name); sub && nestedDeeperThan(*sub, levels - 1))
                return true;
    return false;
}

class FileReader final : public ObjectReader {
public:
    explicit FileReader(File file) : file_(std::move(file)), size_(file_.size()) {}
    uint64_t size() const override { return size_; }
    size_t read(void* buf, size_t n) override { return file_.readSome(buf, n); }
    void skip(uint64_t n) override
    {
        if (::lseek(file_.fd(), off_t(n), SEEK_CUR) < 0)
            failErrno(file_.path(), "cannot seek");
    }

private:
    File file_;
    uint64_t size_;
};

class FileMergedWriter final : public MergedWriter {
public:
    explicit FileMergedWriter(OutputFile out) : out_(std::move(out)) {}
    void write(const void* buf, size_t n) override { out_.writeAll(buf, n); }
    void finish() override { out_.file().sync(); }
    // Renames over the name "merged" itself (beginMerged refused a link there).
    void publish() override { out_.commit(); }

private:
    OutputFile out_;   // destroyed uncommitted: the temp file goes
};

class FilesystemStorage final : public ActionsStorage {
public:
    explicit FilesystemStorage(std::string root) : root_(std::move(root))
    {
        while (root_.size() > 1 && root_.back() == '/')
            root_.pop_back();
        struct stat st;
        if (::stat(root_.c_str(), &st) != 0)
            failErrno(root_, "cannot open the storage folder");
        if (!S_ISDIR(st.st_mode))
            fail(root_, "the storage path is not a folder");
    }

    std::string describe() const override { return root_; }
    std::string objectName(const std::string& folder, const std::string& relative) const override
    {
        return relative.empty() ? root_ + "/" + folder : root_ + "/" + folder + "/" + relative;
    }

    std::vector<std::string> folders() override
    {
        std::vector<std::string> names;
        for (auto& c : Folder::open(root_).list())
            names.push_back(std::move(c.name));
        return names;
    }

    FolderListing listFolder(const std::string& folder) override
    {
        FolderListing out;
        const std::optional<Folder> dir = locationIfAny(folder);
        if (!dir)
            return out;
        out.exists = true;
        for (const auto& c : dir->list()) {
            const Folder::Kind k = dir->kindOf(c.name);   // now, not as listed
            if (k == Folder::Kind::Missing)
                continue;   // gone since the listing
            if (k == Folder::Kind::Link)
                out.links.push_back(c.name);
            else if (c.name == "parts" && k == Folder::Kind::Folder)
                out.hasPartsFolder = true;
            else if (c.name == "merged" && k == Folder::Kind::File)
                out.mergedSize = dir->sizeOf(c.name);
            else
                out.strays.push_back(c.name);
        }
        if (!out.hasPartsFolder)
            return out;
        const std::optional<Folder> parts = dir->trySub("parts");
        if (!parts)
            return out;
        for (const auto& c : parts->list()) {
            const Folder::Kind k = parts->kindOf(c.name);
            if (k == Folder::Kind::Missing)
                continue;
            const auto index = partIndexOf(c.name);
            if (k == Folder::Kind::Link)
                out.links.push_back("parts/" + c.name);
            else if (index && k == Folder::Kind::File)
                out.parts.push_back({*index, parts->sizeOf(c.name)});
            else
                out.strays.push_back("parts/" + c.name);
        }
        std::sort(out.parts.begin(), out.parts.end(),
                  [](const PartObject& a, const PartObject& b) { return a.index < b.index; });
        return out;
    }

    // mtime and ctime (ns) of the folder and of its parts/: a name added,
    // removed or renamed in either changes them. A file growing in place
    // (the server writing merged) does not, which the size index handles
    // by relisting folders whose row says a merge is running.
    bool hasFolderStamps() const override { return true; }
    std::optional<std::string> folderStamp(const std::string& folder) override
    {
        if (!isPlainFolderName(folder))
            return std::nullopt;
        const Folder root = Folder::open(root_);
        struct stat st;
        if (::fstatat(root.fd(), folder.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
            return std::nullopt;
        auto times = [](const struct stat& s) {
            return std::to_string(s.st_mtim.tv_sec) + "." + std::to_string(s.st_mtim.tv_nsec) + "/"
                   + std::to_string(s.st_ctim.tv_sec) + "." + std::to_string(s.st_ctim.tv_nsec);
        };
        std::string stamp = times(st);
        const std::string parts = folder + "/parts";
        if (::fstatat(root.fd(), parts.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
            stamp += " " + times(st) + (S_ISDIR(st.st_mode) ? "" : " !dir");
        return stamp;
    }

    std::unique_ptr<ObjectReader> openPart(const std::string& folder, uint64_t index) override
    {
        return std::make_unique<FileReader>(location(folder).openRead("parts/" + std::to_string(index)));
    }

    std::unique_ptr<ObjectReader> openMerged(const std::string& folder) override
    {
        return std::make_unique<FileReader>(location(folder).openRead("merged"));
    }

    std::unique_ptr<MergedWriter> beginMerged(const std::string& folder) override
    {
        const Folder dir = location(folder);
        const Folder::Kind merged = dir.kindOf("merged");
        if (merged != Folder::Kind::File && merged != Folder::Kind::Missing)
            fail(objectName(folder, "merged"),
                 merged == Folder::Kind::Link ? kLinkRefused : "is not a regular file; refusing to replace it");
        // The merged file is no more readable than the least readable part,
        // and owned like the parts, so the server can still read and delete it.
        mode_t mode = 0666;
        std::optional<uid_t> uid;
        std::optional<gid_t> gid;
        bool sameOwner = true;
        if (const auto parts = dir.trySub("parts")) {
            for (const auto& c : parts->list()) {
                struct stat st;
                if (::fstatat(parts->fd(), c.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
                    continue;
                mode &= st.st_mode & 0777;
                if (uid && (*uid != st.st_uid || *gid != st.st_gid))
                    sameOwner = false;
                uid = st.st_uid;
                gid = st.st_gid;
            }
        }
        // Leftover temp files of merges that were killed go before a new one
        // starts. Doubt keeps one: a temp of a process that still runs is
        // its merge under way, and so is one of this process (another
        // thread's merge; a leftover of an earlier process with our pid is
        // removed by the next process that merges here).
        for (const auto& c : dir.list()) {
            const auto writer = mergeTempWriter(c.name);
            if (writer && *writer != ::getpid() && !isLiveMergeTemp(c.name) && dir.kindOf(c.name) == Folder::Kind::File)
                dir.unlink(c.name);
        }
        OutputFile out = OutputFile::openIn(dir, "merged", uid ? int(mode) : 0600, OutputFile::Temp::Named);
        if (uid && sameOwner && ::geteuid() == 0)
            (void)::fchown(out.fd(), *uid, *gid);
        return std::make_unique<FileMergedWriter>(std::move(out));
    }

    void deletePart(const std::string& folder, uint64_t index) override
    {
        const std::optional<Folder> dir = locationIfAny(folder);
        const std::optional<Folder> parts = dir ? dir->trySub("parts") : std::nullopt;
        if (!parts)
            return;
        const std::string name = std::to_string(index);
        if (parts->kindOf(name) == Folder::Kind::Link)
            fail(objectName(folder, "parts/" + name), kLinkRefused);
        parts->unlink(name);
    }

    void deletePartsFolder(const std::string& folder) override
    {
        const std::optional<Folder> dir = locationIfAny(folder);
        if (!dir)
            return;
        removeTree(*dir, "parts");
        dir->sync();
    }

    void deleteFolder(const std::string& folder) override
    {
        checkFolderName(folder);
        const Folder root = Folder::open(root_);
        removeTree(root, folder);
        root.sync();
    }

    std::vector<std::string> otherUsers(const std::string& folder) override
    {
        if (!folder.empty() && !isPlainName(folder))
            return {};
        return describeHolders(processesHolding({}, {folder.empty() ? root_ : root_ + "/" + folder}));
    }

private:
    static bool isPlainName(const std::string& n)
    {
        return !n.empty() && n != "." && n != ".." && n.find('/') == std::string::npos;
    }

    static constexpr const char* kLinkRefused =
        "is a symbolic link; cachescope never follows links inside the storage folder";

    void checkFolderName(const std::string& folder) const
    {
        if (folder.empty() || folder == "." || folder == ".." || folder.find('/') != std::string::npos
            || folder.find('\0') != std::string::npos)
            fail(root_, "folder name '" + folder + "' from the catalog is not a plain folder name");
    }

    // The folder of one location, never through a link; nullopt when missing.
    std::optional<Folder> locationIfAny(const std::string& folder) const
    {
        checkFolderName(folder);
        return Folder::open(root_).trySub(folder);
    }
    Folder location(const std::string& folder) const
    {
        checkFolderName(folder);
        return Folder::open(root_).sub(folder);
    }

    // name under dir: a link or file is unlinked (a link itself, never its
    // target), a folder emptied the same way first, unless it is nested
    // deeper than the server writes.
    static void removeTree(const Folder& dir, const std::string& name)
    {
        if (dir.kindOf(name) == Folder::Kind::Folder)
            if (const auto sub = dir.trySub(name); sub && nestedDeeperThan(*sub, kMaxRemoveDepth))
                fail(dir.pathOf(name), "is nested deeper than the server writes; refusing to delete it");
        dir.removeTree(name);
    }

    std::string root_;
};

} // namespace

std::unique_ptr<ActionsStorage> openFilesystemStorage(const std::string& root)
{
    return std::make_unique<FilesystemStorage>(root);
}

} // namespace cs::actions
