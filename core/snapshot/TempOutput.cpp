#include "core/snapshot/SnapshotInternal.h"

#include "core/util/Error.h"

#include <cerrno>
#include <fcntl.h>
#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

namespace cs::snapshot {

TempOutput::TempOutput(const std::string& finalPath) : finalPath_(finalPath)
{
    std::string pattern = finalPath + ".tmp-XXXXXX";
    const int fd = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (fd < 0)
        failErrno(finalPath, "cannot create a temporary file next to it");
    tempPath_ = pattern;
    ::close(fd);
    // Reopen through File so that errors name the temp file; mkostemp made it 0600.
    file_ = File::openReadWrite(tempPath_);
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(file_.fd(), 0666 & ~mask) != 0)
        failErrno(tempPath_, "cannot set permissions");
}

TempOutput::~TempOutput()
{
    if (!committed_ && !tempPath_.empty())
        ::unlink(tempPath_.c_str());
}

void TempOutput::commit()
{
    file_.close();
    if (::rename(tempPath_.c_str(), finalPath_.c_str()) != 0)
        failErrno(finalPath_, "cannot rename " + tempPath_ + " to it");
    committed_ = true;
}

} // namespace cs::snapshot
