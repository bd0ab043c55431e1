// The trees the entry benchmarks archive (issue 26): FILES files of
// SIZE/FILES bytes in 40-file folders (pkgN/libM/fileK.js), source-like text
// with a random quarter, so tar+zstd lands near a 3x ratio. Version 2
// changes the first byte of every 16th file (a second version of the key).
// Shared by bench_entries (the CLI) and bench_entry_pane (the GUI).
#pragma once
#include "common/EntryArchives.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace benchtree {

inline void fill(std::vector<char>& buf, std::mt19937_64& rng)
{
    static const char* words[] = {"const", "return", "import", "module", "export", "function", "class", "node",
                                  "cache", "build", "target", "index", "value", "string", "object", "array"};
    // Source-like text with a random quarter: tar+zstd of it lands near a 3x ratio.
    size_t i = 0;
    while (i < buf.size()) {
        if (rng() % 4 == 0) {
            for (size_t j = 0; j < 4096 && i < buf.size(); ++j)
                buf[i++] = char(rng());
        } else {
            for (size_t j = 0; j < 4096 && i < buf.size();) {
                for (const char* w = words[rng() % 16]; *w && i < buf.size(); ++w, ++j)
                    buf[i++] = *w;
                if (i < buf.size())
                    buf[i++] = (rng() % 8) ? ' ' : '\n', ++j;
            }
        }
    }
}

inline void makeTree(const std::string& root, uint64_t size, int files, int version)
{
    std::mt19937_64 rng(42);
    std::vector<char> buf(size_t(size / uint64_t(files)));
    for (int i = 0; i < files; ++i) {
        const std::string dir = root + "/pkg" + std::to_string(i / 400) + "/lib" + std::to_string((i / 40) % 10);
        testsupport::mkdirs(dir);
        fill(buf, rng);
        if (version == 2 && i % 16 == 0)
            buf[0] ^= 1;
        testsupport::writeBytes(dir + "/file" + std::to_string(i) + ".js",
                                QByteArray::fromRawData(buf.data(), qsizetype(buf.size())));
    }
}

} // namespace benchtree
