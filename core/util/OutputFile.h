// The one way the core writes a file a user (or the store) will read back:
// an output that is either complete or not there, and that never replaces
// or writes through something it should not.
//
// What a path means:
//   "-", /dev/stdout, /dev/fd/1, /proc/self/fd/1
//                      standard output (descriptor 1), written in order, in place.
//   a device node, FIFO, socket or other non-regular file
//                      written IN PLACE: opened without O_CREAT/O_TRUNC, never
//                      replaced, renamed or unlinked (a block device is seekable,
//                      a character device or FIFO is not). A FIFO with no reader
//                      yet, or whose pipe is full, is waited for while
//                      cancelCheck runs every 100 ms (see open()).
//   a regular file, or nothing
//                      written to an unpredictable temp file in the same folder
//                      (O_TMPFILE where the file system has it, else a random
//                      name made with O_CREAT|O_EXCL|O_NOFOLLOW), mode 0600 until
//                      commit() sets the final mode (the replaced file's, or
//                      0666 & ~umask for a new one), fsynced, then renamed over
//                      the target and the folder fsynced. Without commit() (an
//                      error, a cancel) the temp is gone and the target untouched.
//   a symbolic link    to a device, FIFO or other non-regular file: that file,
//                      in place (as /dev/stdout would be). To a regular file or to
//                      nothing: refused with one sentence. Renaming over the link
//                      would silently replace the link the user made, writing
//                      through it would change a file the user did not name;
//                      neither is done behind the user's back.
// Inside a store (openIn), names are resolved with Folder (no links at all)
// and only regular files are replaced.
#pragma once
#include "core/util/File.h"
#include "core/util/Folder.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <sys/types.h>

namespace cs {

class OutputFile {
public:
    enum class Kind {
        Stdout,     // descriptor 1
        InPlace,    // an existing non-regular file, written where it is
        Replace,    // a temp file renamed over the target on commit()
    };

    OutputFile() = default;
    ~OutputFile();   // without commit(): the temp file is removed
    OutputFile(OutputFile&&) noexcept;
    OutputFile& operator=(OutputFile&&) noexcept;
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    // A path as the user gave it (see above). cancelCheck (Job::checkCancel,
    // say) is called every 100 ms while a FIFO waits for its first reader or
    // for room in its pipe, and throws to stop the wait. Without it such a
    // wait could not be cancelled: the open of a FIFO with no reader blocks,
    // and the kernel restarts it after a signal whose handler has SA_RESTART
    // (the CLI's Ctrl-C handler), so Ctrl-C did nothing. With it the FIFO is
    // opened with O_NONBLOCK (ENXIO until a reader comes, then retried) and
    // stays non-blocking, writeAll() polling for room.
    //
    // keepOutOf (a store's folder, for a command that has that store open):
    // a target inside it is refused before anything is created, whatever
    // the spelling (`..`, a link to the store or to a folder in it, a bind
    // mount): the target's folder, as the kernel resolves it, and every
    // folder above it (walked up through "..") are compared with keepOutOf
    // by device and inode.
    static OutputFile open(const std::string& path, std::function<void()> cancelCheck = {},
                           const Folder* keepOutOf = nullptr);
    // name in a folder opened without links: a store's control file, a part.
    // Temp::Named keeps the temp file visible under its name while it is
    // written (never O_TMPFILE), so another process can see the write under
    // way and who makes it (tempWriterOf): a merged file beside a server.
    enum class Temp { Anonymous, Named };
    static OutputFile openIn(const Folder& folder, const std::string& name, int finalMode = 0644,
                             Temp temp = Temp::Anonymous);

    Kind kind() const { return kind_; }
    // Positioned writes (pwrite at any offset, truncate) are possible: a temp
    // file or a block device. Standard output, FIFOs and character devices
    // take bytes in order only.
    bool seekable() const { return seekable_; }
    bool isBlockDevice() const { return blockDevice_; }
    File& file() { return file_; }
    int fd() const { return file_.fd(); }
    const std::string& path() const { return path_; }

    // In order, from the current position; on a FIFO, waits for room while
    // calling cancelCheck.
    void writeAll(const void* data, size_t size);
    // Makes the output final: fsync, mode, rename over the target, fsync of
    // the folder (Replace); fsync where the file supports it (InPlace).
    // Sync::ByCaller (Replace only): the same without either fsync, after
    // starting the file's writeback (sync_file_range): the caller makes the
    // file and the folder durable before anything durable names it (a
    // store's parts: fdatasync'd all together, and their folder once, before
    // the entry row commits; see Store::commit).
    enum class Sync { Now, ByCaller };
    void commit(Sync sync = Sync::Now);

    // Tests: act as if the file system had no O_TMPFILE.
    static void forceNamedTemp(bool on);
    // The pid of the process writing name, when name is a temp file name
    // open() or openIn() gives for a file named target; else nullopt. A
    // temp whose writer is gone is a leftover of a writer that was killed.
    static std::optional<pid_t> tempWriterOf(const std::string& name, const std::string& target);

private:
    void discard() noexcept;
    void waitForRoom();
    Kind kind_ = Kind::Replace;
    bool seekable_ = false;
    bool blockDevice_ = false;
    bool committed_ = false;
    bool nonBlockingPipe_ = false;          // a FIFO opened in place, O_NONBLOCK
    std::function<void()> cancelCheck_;
    File file_;
    std::string path_;                 // the target, for messages
    std::unique_ptr<Folder> folder_;   // Replace: the target's folder
    std::string name_;                 // Replace: the target's name in it
    std::string tempName_;             // Replace with a named temp: its name in folder_
    int finalMode_ = -1;
};

// Throws when path, spelled any way, lies inside folder (the check
// open(path, ..., &folder) makes), for an output another program writes
// (the chart the GUI binary draws for `bench --plot`).
void refuseOutputInside(const std::string& path, const Folder& folder);

// path ends up in standard output ("-", /dev/stdout, or the very file,
// pipe or terminal descriptor 1 is): a command's own summary must then go
// to standard error, not into the data stream.
bool writesToStandardOutput(const std::string& path);
// For a command that wrote its data to outPath: when that was standard
// output, descriptor 1 points at standard error from now on, so nothing the
// command prints afterwards (a summary line, JSON) lands in the data.
void keepSummaryOutOfData(const std::string& outPath);

// The whole file at once, through OutputFile (temp, fsync, rename, fsync of the folder).
void writeFileAtomic(const std::string& path, const std::string& contents);
void writeFileAtomic(const Folder& folder, const std::string& name, const std::string& contents);

} // namespace cs
