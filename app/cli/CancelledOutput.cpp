#include "CancelledOutput.h"

#include "core/util/OutputFile.h"

namespace cli {

CancelledOutput::CancelledOutput(std::string out) : out_(std::move(out))
{
    existed_ = ::stat(out_.c_str(), &before_) == 0;
    inPlace_ = cs::writesToStandardOutput(out_) || (existed_ && !S_ISREG(before_.st_mode));
}

std::string CancelledOutput::outcome() const
{
    if (inPlace_)
        return out_ + " (written in place) got only what was sent before the cancel";
    struct stat now {};
    const bool exists = ::stat(out_.c_str(), &now) == 0;
    const bool same = exists == existed_
                      && (!exists || (now.st_dev == before_.st_dev && now.st_ino == before_.st_ino));
    if (same)
        return out_ + (existed_ ? " was left as it was" : " was not written");
    return out_ + " was written completely before the cancel";
}

} // namespace cli
