// The fuzz targets in the normal build: a plain program that feeds every file
// of the given folders (the seed corpus and every input a fuzzer once crashed
// on) to LLVMFuzzerTestOneInput, so ctest replays them on every run in
// seconds, with gcc and without libFuzzer.
#include "FuzzSupport.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv)
{
    namespace fs = std::filesystem;
    size_t inputs = 0;
    for (int i = 1; i < argc; ++i) {
        std::vector<fs::path> files;
        if (fs::is_directory(argv[i])) {
            for (const auto& e : fs::directory_iterator(argv[i]))
                if (e.is_regular_file())
                    files.push_back(e.path());
        } else {
            files.emplace_back(argv[i]);
        }
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            std::ifstream in(f, std::ios::binary);
            if (!in) {
                std::fprintf(stderr, "%s: cannot read\n", f.c_str());
                return 1;
            }
            const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
            LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
            ++inputs;
        }
    }
    std::error_code ec;
    fs::remove_all(fuzz::scratch(), ec);
    if (inputs == 0) {
        std::fprintf(stderr, "no inputs: give corpus folders or files\n");
        return 1;
    }
    std::printf("%zu inputs replayed\n", inputs);
    return 0;
}
