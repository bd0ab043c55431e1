#include "core/util/InputFile.h"

#include "core/util/Error.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace cs {

namespace {

constexpr int kWaitSliceMs = 100;

struct Opened {
    File file;
    struct stat st {};
};

// Never waits: O_NONBLOCK makes the open of a FIFO return at once, with or
// without a writer. The flag is cleared again on what we opened ourselves
// (reads then block only after poll said there is something to read).
Opened openNoWait(const std::string& path)
{
    Opened o;
    if (isStandardInputName(path)) {
        const int fd = ::fcntl(0, F_DUPFD_CLOEXEC, 0);
        if (fd < 0)
            failErrno("standard input", "is not open");
        o.file = File::adopt(fd, "standard input");
    } else {
        if (path.empty())
            throw Error("the input path is empty");
        const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
            failErrno(path, "cannot open for reading");
        o.file = File::adopt(fd, path);
        o.file.setBlocking();
    }
    if (::fstat(o.file.fd(), &o.st) != 0)
        failErrno(o.file.path(), "cannot stat");
    if (S_ISDIR(o.st.st_mode))
        fail(o.file.path(), "is a folder, not a file");
    return o;
}

std::string streamKind(const Opened& o)
{
    const mode_t m = o.st.st_mode;
    if (S_ISFIFO(m))
        return "a pipe (FIFO)";
    if (S_ISCHR(m))
        return ::isatty(o.file.fd()) ? "a terminal" : "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "an unknown kind of file";
}

} // namespace

bool isStandardInputName(const std::string& path)
{
    return path == "-" || path == "/dev/stdin" || path == "/dev/fd/0" || path == "/proc/self/fd/0";
}

InputFile InputFile::open(const std::string& path, std::function<void()> cancelCheck)
{
    Opened o = openNoWait(path);
    InputFile in;
    in.regular_ = S_ISREG(o.st.st_mode);
    in.size_ = in.regular_ ? uint64_t(o.st.st_size) : 0;
    in.file_ = std::move(o.file);
    in.cancelCheck_ = std::move(cancelCheck);
    return in;
}

size_t InputFile::readSome(void* buf, size_t size)
{
    if (regular_)
        return file_.readSome(buf, size);
    for (;;) {
        if (cancelCheck_)
            cancelCheck_();
        // Linux reports neither POLLIN nor POLLHUP on a FIFO until a writer
        // has come, so an early read cannot mistake "no writer yet" for the end.
        pollfd p{file_.fd(), POLLIN, 0};
        const int r = ::poll(&p, 1, kWaitSliceMs);
        if (r < 0 && errno != EINTR)
            failErrno(path(), "cannot wait for input");
        if (r <= 0)
            continue;
        const ssize_t n = ::read(file_.fd(), buf, size);
        if (n >= 0)
            return size_t(n);   // data, or 0 at the end (POLLHUP)
        // EAGAIN: standard input the caller left non-blocking, or another
        // reader of the same FIFO was faster.
        if (errno != EAGAIN && errno != EINTR)
            failErrno(path(), "read failed");
    }
}

File openSeekableInput(const std::string& path, const std::string& reason)
{
    Opened o = openNoWait(path);
    if (!S_ISREG(o.st.st_mode)) {
        fail(o.file.path(), "is " + streamKind(o) + ", not a regular file: " + reason
                                + " and needs a seekable file (save the stream to a file first)");
    }
    return std::move(o.file);
}

} // namespace cs
