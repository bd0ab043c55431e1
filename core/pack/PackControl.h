// pack/control: which generation is current. Replaced atomically (temp
// file, fsync, rename, fsync of the folder), so a crash leaves the old or
// the new one, never a mix. Text, so an operator can read it:
//
//   cachescope-pack 1
//   generation 3
//   split 104857600        logical offset where 3.suffix starts
//   prefix_bytes 52428800  size of 3.prefix (0 and no file in generation 0)
//   mapping_records 1234   records in 3.mapping
//   sha256 <hex of the lines above>
#pragma once
#include <cstdint>
#include <string>

namespace cs { class Folder; }

namespace cs::pack {

struct PackControl {
    uint64_t generation = 0;
    uint64_t split = 0;
    uint64_t prefixBytes = 0;
    uint64_t mappingRecords = 0;

    std::string serialize() const;
    static PackControl parse(const std::string& text, const std::string& path); // throws cs::Error
    static PackControl read(const std::string& path);
    void writeAtomic(const std::string& path) const;
    // kControlFileName in a pack folder opened without links.
    static PackControl read(const Folder& packFolder);
    void writeAtomic(const Folder& packFolder) const;
    bool operator==(const PackControl&) const = default;
};

constexpr const char* kControlFileName = "control";
std::string suffixFileName(uint64_t generation);   // "3.suffix"
std::string prefixFileName(uint64_t generation);   // "3.prefix"
std::string mappingFileName(uint64_t generation);  // "3.mapping"

} // namespace cs::pack
