// The one way the core opens a file a user names as INPUT, so that no input
// can hang a command beyond the reach of Ctrl-C.
//
// The trap: open(2) of a FIFO for reading waits for a writer, and the kernel
// restarts that wait after a signal whose handler has SA_RESTART (the CLI's
// Ctrl-C handler), so Ctrl-C did nothing; a read of a pipe or terminal with
// no data waits the same way. Here every input is opened with O_NONBLOCK
// (a FIFO opens at once, writer or not; the flag is cleared again), and
// InputFile::readSome waits for a stream's data 100 ms at a time, calling
// cancelCheck (Job::checkCancel, say) in between, which throws to stop.
//
// What a path means:
//   "-", /dev/stdin, /dev/fd/0, /proc/self/fd/0
//                      standard input (descriptor 0, duplicated; its flags are
//                      left alone: they belong to the shell's terminal too).
//   a regular file     read at any offset (File::readAt) or in order.
//   a FIFO, character or block device, terminal
//                      a stream, read in order through readSome().
//   a folder           refused: "<path>: is a folder, not a file".
// Commands that read at offsets (frames, snapshot restore, a foreign SQLite
// database) use openSeekableInput, which refuses anything but a regular file
// with one sentence naming it, before any wait.
#pragma once
#include "core/util/File.h"

#include <functional>
#include <string>

namespace cs {

class InputFile {
public:
    InputFile() = default;
    InputFile(InputFile&&) noexcept = default;
    InputFile& operator=(InputFile&&) noexcept = default;
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    static InputFile open(const std::string& path, std::function<void()> cancelCheck = {});

    // A regular file (its size is known and offsets can be read), or a stream.
    bool regular() const { return regular_; }
    uint64_t size() const { return size_; }   // a regular file's size at open; 0 for a stream
    File& file() { return file_; }
    const File& file() const { return file_; }
    const std::string& path() const { return file_.path(); }   // "standard input" for "-"

    // In order from the current position; 0 at the end. On a stream, waits
    // for data 100 ms at a time, calling cancelCheck between the waits (a
    // FIFO whose writer has not come yet waits here, not in open).
    size_t readSome(void* buf, size_t size);

private:
    File file_;
    bool regular_ = false;
    uint64_t size_ = 0;
    std::function<void()> cancelCheck_;
};

bool isStandardInputName(const std::string& path);

// path as an input read at offsets: a regular file, else one sentence
// "<path>: is a pipe (FIFO), not a regular file: <reason> and needs a
// seekable file (save the stream to a file first)" (a folder: "is a folder,
// not a file"). Never waits: a FIFO is refused, not waited for.
File openSeekableInput(const std::string& path, const std::string& reason);

} // namespace cs
