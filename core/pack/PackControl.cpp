#include "core/pack/PackControl.h"

#include "core/util/Error.h"
#include "core/util/File.h"
#include "core/util/OutputFile.h"
#include "core/util/Sha256.h"

#include <sstream>

namespace cs::pack {

static std::string body(const PackControl& c)
{
    std::ostringstream s;
    s << "cachescope-pack 1\n"
      << "generation " << c.generation << "\n"
      << "split " << c.split << "\n"
      << "prefix_bytes " << c.prefixBytes << "\n"
      << "mapping_records " << c.mappingRecords << "\n";
    return s.str();
}

std::string PackControl::serialize() const
{
    const std::string b = body(*this);
    return b + "sha256 " + Sha256::hex(Sha256::of(b.data(), b.size())) + "\n";
}

PackControl PackControl::parse(const std::string& text, const std::string& path)
{
    const auto shaPos = text.rfind("sha256 ");
    if (shaPos == std::string::npos)
        fail(path, "pack control file has no checksum line; it is damaged");
    const std::string b = text.substr(0, shaPos);
    std::string hex = text.substr(shaPos + 7);
    while (!hex.empty() && (hex.back() == '\n' || hex.back() == '\r'))
        hex.pop_back();
    if (hex != Sha256::hex(Sha256::of(b.data(), b.size())))
        fail(path, "pack control file checksum does not match; it is damaged");
    std::istringstream in(b);
    std::string magic;
    int version = 0;
    in >> magic >> version;
    if (magic != "cachescope-pack" || version != 1)
        fail(path, "not a cachescope pack control file (version 1)");
    PackControl c;
    std::string key;
    uint64_t value = 0;
    int seen = 0;
    while (in >> key >> value) {
        if (key == "generation") c.generation = value, seen |= 1;
        else if (key == "split") c.split = value, seen |= 2;
        else if (key == "prefix_bytes") c.prefixBytes = value, seen |= 4;
        else if (key == "mapping_records") c.mappingRecords = value, seen |= 8;
    }
    if (seen != 15)
        fail(path, "pack control file misses a field");
    return c;
}

PackControl PackControl::read(const std::string& path)
{
    try {
        return parse(readWholeFile(path, 4096), path);
    } catch (const Error& e) {
        // Doubt about which generation is current stops every command.
        throw Error(std::string(e.what()) + "; refusing to open the pack, nothing was changed (fsck --repair does "
                                            "not rebuild the control file: restore pack/control from a backup)");
    }
}

void PackControl::writeAtomic(const std::string& path) const
{
    writeFileAtomic(path, serialize());
}

PackControl PackControl::read(const Folder& packFolder)
{
    File f = packFolder.openRead(kControlFileName);
    const uint64_t size = f.size();
    if (size > 4096)
        fail(f.path(), "is " + std::to_string(size) + " bytes, more than the 4096 expected");
    std::string s(size_t(size), '\0');
    f.readAt(s.data(), s.size(), 0);
    return parse(s, f.path());
}

void PackControl::writeAtomic(const Folder& packFolder) const
{
    writeFileAtomic(packFolder, kControlFileName, serialize());
}

std::string suffixFileName(uint64_t g) { return std::to_string(g) + ".suffix"; }
std::string prefixFileName(uint64_t g) { return std::to_string(g) + ".prefix"; }
std::string mappingFileName(uint64_t g) { return std::to_string(g) + ".mapping"; }

} // namespace cs::pack
