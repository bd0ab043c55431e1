// cachescope-cli demo [DIR]: makes the demo dataset (snapshots of different
// frame layouts, written by the core) in DIR, by default the user's data
// folder. Idempotent: when DIR/.complete exists it only prints DIR.
#include "CommandTree.h"
#include "DemoDataset.h"

#include "core/jobs/Job.h"
#include "core/snapshot/Snapshot.h"
#include "core/util/File.h"
#include "core/util/OutputFile.h"
#include "core/util/Units.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <unistd.h>

namespace cli {
static std::vector<DemoItem>& demoRegistry()
{
    static std::vector<DemoItem> items;
    return items;
}

void registerDemoItem(DemoItem item)
{
    demoRegistry().push_back(std::move(item));
}

std::vector<DemoItem> demoItems()
{
    auto items = demoRegistry();
    std::stable_sort(items.begin(), items.end(), [](const DemoItem& a, const DemoItem& b) { return a.order < b.order; });
    return items;
}

namespace {

constexpr uint64_t kDemoSourceSize = uint64_t(24) << 20;

std::string sourcePath(const std::string& dir) { return dir + "/.demo-source"; }

// Mixed content: mostly log-like text, with a stretch of random bytes every
// few MiB, so that the ratio varies from frame to frame.
void writeDemoSource(const std::string& path)
{
    static const char* words[] = {"cache", "entry", "restore", "merge", "frame", "zstd", "offset", "chunk",
                                  "mapping", "prefix", "node", "object", "gc", "pack", "upload", "hit", "miss"};
    std::mt19937_64 rng(20261130);
    std::string block;
    cs::File f = cs::File::create(path);
    uint64_t written = 0;
    uint64_t line = 0;
    while (written < kDemoSourceSize) {
        block.clear();
        const bool random = (written / (1 << 20)) % 6 == 5;
        if (random) {
            block.resize(1 << 20);
            for (size_t i = 0; i + 8 <= block.size(); i += 8) {
                const uint64_t v = rng();
                std::memcpy(block.data() + i, &v, 8);
            }
        } else {
            while (block.size() < (1 << 20)) {
                block += "2026-11-30T04:" + std::to_string(10 + line % 50) + " job " + std::to_string(line % 977) + ":";
                const int n = 4 + int(rng() % 9);
                for (int i = 0; i < n; ++i) {
                    block += ' ';
                    block += words[rng() % (sizeof words / sizeof *words)];
                }
                block += '\n';
                ++line;
            }
            block.resize(1 << 20);
        }
        f.writeAll(block.data(), block.size());
        written += block.size();
    }
}

std::string describe(const std::string& path, const cs::SnapshotWriteResult& r)
{
    return path + ": " + cs::formatSize(r.inputBytes) + " -> " + cs::formatSize(r.outputBytes) + ", " +
           std::to_string(r.frames) + " frames" + (r.seekTable ? ", seek table" : "");
}

std::string makeSnapshot(const std::string& dir, const std::string& name, uint64_t chunk, bool seekTable, int threads)
{
    cs::SnapshotWriteOptions o;
    o.chunk = chunk;
    o.seekTable = seekTable;
    o.threads = threads;
    cs::Job job("demo " + name);
    const std::string out = dir + "/" + name;
    return describe(out, cs::writeSnapshot(sourcePath(dir), out, o, job));
}

DemoItemRegistration sized({"sized-frames.zst", 10, [](const std::string& dir) {
    return makeSnapshot(dir, "sized-frames.zst", 1 << 20, false, 2);
}});

DemoItemRegistration seekable({"seekable.zst", 20, [](const std::string& dir) {
    return makeSnapshot(dir, "seekable.zst", 2 << 20, true, 2);
}});

DemoItemRegistration unsized({"streamed-unsized.zst", 30, [](const std::string& dir) {
    cs::Job job("demo streamed-unsized.zst");
    const std::string out = dir + "/streamed-unsized.zst";
    const auto r = cs::compressStreamUnsized(sourcePath(dir), out, 3, job);
    return out + ": " + cs::formatSize(r.inputBytes) + " -> " + cs::formatSize(r.outputBytes) +
           ", one frame without a content size";
}});

DemoItemRegistration small({"small-frames.zst", 40, [](const std::string& dir) {
    return makeSnapshot(dir, "small-frames.zst", 64 << 10, false, 2);
}});

// A 64 MiB sparse file with 4 MiB of data: its holes become hole markers.
DemoItemRegistration sparse({"sparse.zst", 50, [](const std::string& dir) {
    const std::string src = dir + "/.demo-sparse";
    {
        cs::File in = cs::File::openRead(sourcePath(dir));
        cs::File f = cs::File::create(src);
        std::string buf(1 << 20, '\0');
        for (int i = 0; i < 4; ++i) {
            in.readAt(buf.data(), buf.size(), uint64_t(i) << 20);
            f.writeAt(buf.data(), buf.size(), uint64_t(i) * (16 << 20) + (3 << 20));
        }
        f.truncate(uint64_t(64) << 20);
    }
    cs::SnapshotWriteOptions o;
    cs::Job job("demo sparse.zst");
    const std::string out = dir + "/sparse.zst";
    std::string line;
    try {
        line = describe(out, cs::writeSnapshot(src, out, o, job));
    } catch (...) {
        ::unlink(src.c_str());
        throw;
    }
    ::unlink(src.c_str());
    return line;
}});

// $XDG_DATA_HOME/cachescope/demo (default ~/.local/share/cachescope/demo),
// where the GUI and scripts/quickstart.sh look for it.
std::string defaultDemoDir()
{
    const char* xdg = std::getenv("XDG_DATA_HOME");
    if (xdg && *xdg == '/')
        return std::string(xdg) + "/cachescope/demo";
    const char* home = std::getenv("HOME");
    return std::string(home && *home ? home : ".") + "/.local/share/cachescope/demo";
}

int runDemo(const std::string& given)
{
    namespace fs = std::filesystem;
    const std::string dir = fs::absolute(given.empty() ? defaultDemoDir() : given).lexically_normal().string();
    const std::string complete = dir + "/.complete";
    if (fs::exists(complete)) {
        printOut(dir + "\n");
        return Ok;
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        printError(dir + ": cannot create the folder: " + ec.message());
        return Failure;
    }
    try {
        writeDemoSource(sourcePath(dir));
        for (const DemoItem& item : demoItems())
            printOut("created " + item.create(dir) + "\n");
    } catch (const std::exception& e) {
        ::unlink(sourcePath(dir).c_str());
        printError(e.what());
        return Failure;
    }
    ::unlink(sourcePath(dir).c_str());
    cs::writeFileAtomic(complete, "cachescope demo dataset\n");
    printOut(dir + "\n");
    return Ok;
}

TreeRegistration reg("", "demo", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("demo", "Make a demo dataset (snapshots of different layouts and a store)");
    c->footer("Snapshots of different frame layouts and a store, written by the core, in DIR (default: "
              "$XDG_DATA_HOME/cachescope/demo). Does nothing but print DIR when DIR/.complete exists.");
    auto dir = std::make_shared<std::string>();
    c->add_option("DIR", *dir, "Folder to fill")->type_name("");
    onRun(c, [dir] { return runDemo(*dir); });
    return c;
});

} // namespace
} // namespace cli
