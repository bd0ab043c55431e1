// cachescope-cli frames FILE [--json] [--blocks]: the frame layout of a zstd
// file (schema in docs/cli.md, section "frames").
#include "CommandTree.h"
#include "FramesText.h"
#include "TextTable.h"

#include "core/frames/FrameLayout.h"
#include "core/frames/FrameLayoutJson.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/Units.h"

#include <cstdio>
#include <filesystem>

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

// Rows are printed in pages of this many: a file of millions of tiny frames
// holds one page of the table, never the whole of it.
constexpr size_t kPageRows = 4096;

std::vector<bool> rightAligned() { return {true, true, false, true, true, true, true, false, false, false}; }

void addFrameRows(TextTable& table, const cs::FrameInfo& f, bool withBlocks)
{
    const bool z = f.kind == cs::FrameKind::Zstd;
    table.add({num(f.index), num(f.offset), frameKindText(f), size(f.compressedSize),
               z ? (f.contentSize ? size(*f.contentSize) : "unknown") : "-", z ? size(f.windowSize) : "-",
               z ? (f.dictionaryId ? num(f.dictionaryId) : "-") : "-", z ? (f.checksum ? "XXH64" : "none") : "-",
               z ? (f.singleSegment ? "yes" : "no") : "-",
               z ? num(f.blocks[0]) + "/" + num(f.blocks[1]) + "/" + num(f.blocks[2]) : "-"});
    if (withBlocks && z)
        for (const auto& b : f.blockList)
            table.add({"", num(b.offset), std::string("  block ") + cs::blockTypeName(b.type) + (b.last ? " (last)" : ""),
                       size(b.size), b.type == cs::BlockType::Compressed ? "" : size(b.contentSize), "", "", "", "",
                       ""});
}

// A table longer than a page is printed before its widest cells are seen:
// its columns start as wide as any cell of this file can be (an index or
// offset has at most the digits of the file size; formatSize at most 10
// characters), so later pages stay aligned with the first.
void widenForFile(TextTable& table, uint64_t fileSize)
{
    const size_t digits = num(fileSize).size();
    for (size_t column : {0, 1})
        table.widen(column, digits);
    for (size_t column : {3, 4, 5})
        table.widen(column, 10);
    table.widen(6, 10);  // a dictionary id: a u32
}

std::string summaryText(const std::string& path, const cs::FrameScanTotals& totals, bool anyFrame)
{
    const auto& s = totals.summary;
    std::string out = "\n";
    out += "file:         " + path + " (" + size(s.fileSize) + ")\n";
    out += "frames:       " + num(s.zstdFrames) + " zstd (" + num(s.sizedFrames) + " sized, " + num(s.unsizedFrames) +
           " unsized), " + num(s.skippableFrames) + " skippable\n";
    out += "compressed:   " + size(s.compressedSize) + "\n";
    out += "content:      " + (s.contentSize ? size(*s.contentSize) : "unknown (a frame does not declare its size)") + "\n";
    if (s.contentSize && s.compressedSize)
        out += "ratio:        " + fixed(s.ratio, 3) + "\n";
    if (anyFrame)
        out += "largest:      frame " + num(s.largestFrameIndex) + " at offset " +
               num(s.largestFrameOffset) + ", " + size(s.largestFrameSize) + "\n";
    out += std::string("checksums:    ") + (s.allChecksummed ? "every zstd frame" : "not on every zstd frame") + "\n";
    if (totals.seekTable) {
        const auto& t = *totals.seekTable;
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

} // namespace

void printFrameLayoutText(const std::string& name, uint64_t fileSize, bool withBlocks, const FrameScan& scan)
{
    TextTable table({"#", "offset", "kind", "compressed", "content", "window", "dict", "check", "single",
                     "blocks raw/rle/cmp"},
                    rightAligned());
    bool anyFrame = false;
    bool headerPrinted = false;
    const auto printPage = [&] {
        if (!headerPrinted)
            widenForFile(table, fileSize);
        printOut(table.takePage(!headerPrinted));
        headerPrinted = true;
    };
    const cs::FrameScanTotals totals = scan([&](const cs::FrameInfo& f) {
        anyFrame = true;
        addFrameRows(table, f, withBlocks);
        if (table.rows() >= kPageRows)
            printPage();
    });
    std::string out;
    if (!anyFrame)
        out = "no frames\n";
    else if (table.rows() > 0 || !headerPrinted)
        out = table.takePage(!headerPrinted);
    printOut(out + summaryText(name, totals, anyFrame));
}

namespace {

// The human table, streamed from the scan page by page (as frames --json
// is): memory does not grow with the frame count.
void printLayoutText(const std::string& path, const cs::FrameScanOptions& options, cs::Job& job)
{
    // Only for the widths: the scan refuses anything but a regular file.
    std::error_code ec;
    const auto fileSize = std::filesystem::file_size(path, ec);
    printFrameLayoutText(path, ec ? 0 : uint64_t(fileSize), options.blocks, [&](const auto& onFrame) {
        return cs::scanFramesStreaming(path, options, job, onFrame);
    });
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
        printLayoutText(a.file, options, job);
    }
    return Ok;
}

TreeRegistration reg("", "frames", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("frames", "Frame layout of a zstd file (headers only)");
    c->footer("Lists the frames of a file of concatenated zstd and skippable frames, reading headers only: memory "
              "stays bounded whatever the number of frames or the file size. Exit 1 when the file cannot be read or is "
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
