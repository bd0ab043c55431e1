// cachescope-cli frames FILE [--json] [--blocks]: the frame layout of a zstd
// file (schema in docs/cli.md, section "frames").
#include "CommandTree.h"
#include "TextTable.h"

#include "core/frames/FrameLayout.h"
#include "core/frames/FrameLayoutJson.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/Units.h"

#include <cstdio>

namespace cli {

namespace {

std::string hex32(uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

std::string size(uint64_t bytes) { return cs::formatSize(bytes); }
std::string num(uint64_t v) { return std::to_string(v); }

std::string frameKindText(const cs::FrameInfo& f)
{
    if (f.kind == cs::FrameKind::Zstd)
        return "zstd";
    const std::string role = cs::skippableRoleName(f.role);
    return "skip:" + (role.empty() ? hex32(f.magic) : role);
}

std::string layoutText(const cs::FrameLayout& layout, bool withBlocks)
{
    TextTable table({"#", "offset", "kind", "compressed", "content", "window", "dict", "check", "single",
                     "blocks raw/rle/cmp"},
                    {true, true, false, true, true, true, true, false, false, false});
    for (const auto& f : layout.frames) {
        const bool z = f.kind == cs::FrameKind::Zstd;
        table.add({num(f.index), num(f.offset), frameKindText(f), size(f.compressedSize),
                   z ? (f.contentSize ? size(*f.contentSize) : "unknown") : "-", z ? size(f.windowSize) : "-",
                   z ? (f.dictionaryId ? num(f.dictionaryId) : "-") : "-", z ? (f.checksum ? "XXH64" : "none") : "-",
                   z ? (f.singleSegment ? "yes" : "no") : "-",
                   z ? num(f.blocks[0]) + "/" + num(f.blocks[1]) + "/" + num(f.blocks[2]) : "-"});
        if (withBlocks && z)
            for (const auto& b : f.blockList)
                table.add({"", num(b.offset),
                           std::string("  block ") + cs::blockTypeName(b.type) + (b.last ? " (last)" : ""),
                           size(b.size), b.type == cs::BlockType::Compressed ? "" : size(b.contentSize), "", "", "",
                           "", ""});
    }
    std::string out = layout.frames.empty() ? "no frames\n" : table.text();

    const auto& s = layout.summary;
    out += "\n";
    out += "file:         " + layout.path + " (" + size(s.fileSize) + ")\n";
    out += "frames:       " + num(s.zstdFrames) + " zstd (" + num(s.sizedFrames) + " sized, " + num(s.unsizedFrames) +
           " unsized), " + num(s.skippableFrames) + " skippable\n";
    out += "compressed:   " + size(s.compressedSize) + "\n";
    out += "content:      " + (s.contentSize ? size(*s.contentSize) : "unknown (a frame does not declare its size)") + "\n";
    if (s.contentSize && s.compressedSize)
        out += "ratio:        " + fixed(s.ratio, 3) + "\n";
    if (!layout.frames.empty())
        out += "largest:      frame " + num(s.largestFrameIndex) + " at offset " +
               num(s.largestFrameOffset) + ", " + size(s.largestFrameSize) + "\n";
    out += std::string("checksums:    ") + (s.allChecksummed ? "every zstd frame" : "not on every zstd frame") + "\n";
    if (layout.seekTable) {
        const auto& t = *layout.seekTable;
        out += "seek table:   at offset " + num(t.offset) + ", " + num(t.frames) + " entries" +
               (t.checksums ? " with checksums" : "") + (t.consistent ? "" : " (does not match: " + t.problem + ")") +
               "\n";
    } else {
        out += "seek table:   none\n";
    }
    out += std::string("parallel:     ") + (s.parallel.splittable ? "splittable" : "not splittable") + ", " +
           num(s.parallel.pieces) + " piece" + (s.parallel.pieces == 1 ? "" : "s") + ". " + s.parallel.reason + "\n";
    return out;
}

struct FramesArgs {
    std::string file;
    bool json = false;
    bool blocks = false;
};

int runFrames(const FramesArgs& a)
{
    cs::FrameScanOptions options;
    options.blocks = a.blocks;
    cs::Job job("frames");
    if (a.json) {
        // Streamed by the core (not through the Json stack): memory does not
        // grow with the frame count.
        cs::writeFrameLayoutJson(a.file, options, job, [](std::string_view text) {
            if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
                cs::failErrno("stdout", "cannot write the layout");
        });
        if (std::fflush(stdout) != 0)
            cs::failErrno("stdout", "cannot write the layout");
    } else {
        printOut(layoutText(cs::scanFrames(a.file, options, job), options.blocks));
    }
    return Ok;
}

TreeRegistration reg("", "frames", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("frames", "Frame layout of a zstd file (headers only)");
    c->footer("Lists the frames of a file of concatenated zstd and skippable frames, reading headers only: memory "
              "grows with the number of frames, never with the file size. Exit 1 when the file cannot be read or is "
              "not a valid stream (one sentence naming the file and the byte offset).");
    auto a = std::make_shared<FramesArgs>();
    addPath(c, "FILE", a->file, "The zstd file to inspect");
    c->add_flag("--json", a->json, "Print the layout as JSON (schema in docs/cli.md)");
    c->add_flag("--blocks", a->blocks, "List every block of every zstd frame");
    onRun(c, [a] { return runFrames(*a); });
    return c;
});

} // namespace

} // namespace cli
