// writeFrameLayoutJson(): the keys and their order are those of docs/cli.md.
// One frame per line keeps a huge document readable with line tools.
#include "core/frames/FrameLayoutJson.h"

#include "core/util/Json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace cs {

namespace {

constexpr size_t kFlushAt = size_t(1) << 20;

class JsonOut {
public:
    explicit JsonOut(const TextSink& sink) : sink_(sink) { buf_.reserve(kFlushAt + 64 * 1024); }
    void raw(std::string_view s) { buf_ += s; }
    void key(std::string_view k)
    {
        buf_ += '"';
        buf_ += k;
        buf_ += "\": ";
    }
    void number(uint64_t v)
    {
        char tmp[24];
        const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
        buf_.append(tmp, r.ptr);
    }
    // Shortest round-trip form, independent of the C locale; not finite -> null.
    void number(double v)
    {
        if (!std::isfinite(v)) {
            buf_ += "null";
            return;
        }
        char tmp[64];
        const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
        buf_.append(tmp, r.ptr);
    }
    void boolean(bool b) { buf_ += b ? "true" : "false"; }
    void string(const std::string& s) { buf_ += dumpJson(Json(s)); }
    void optionalNumber(const std::optional<uint64_t>& v)
    {
        if (v)
            number(*v);
        else
            buf_ += "null";
    }
    void hex32(uint32_t v)
    {
        char tmp[16];
        std::snprintf(tmp, sizeof tmp, "\"0x%08x\"", v);
        buf_ += tmp;
    }
    void flushIfFull()
    {
        if (buf_.size() >= kFlushAt)
            flush();
    }
    void flush()
    {
        if (!buf_.empty())
            sink_(buf_);
        buf_.clear();
    }

private:
    const TextSink& sink_;
    std::string buf_;
};

void writeFrame(JsonOut& o, const FrameInfo& f, bool withBlocks, bool first)
{
    o.raw(first ? "\n    {" : ",\n    {");
    o.key("index"), o.number(f.index);
    o.raw(", "), o.key("offset"), o.number(f.offset);
    o.raw(", "), o.key("kind"), o.raw(f.kind == FrameKind::Zstd ? "\"zstd\"" : "\"skippable\"");
    o.raw(", "), o.key("magic"), o.hex32(f.magic);
    o.raw(", "), o.key("role");
    if (f.kind == FrameKind::Skippable)
        o.string(skippableRoleName(f.role));
    else
        o.raw("null");
    o.raw(", "), o.key("header_size"), o.number(uint64_t(f.headerSize));
    o.raw(", "), o.key("compressed_size"), o.number(f.compressedSize);
    o.raw(", "), o.key("content_size"), o.optionalNumber(f.contentSize);
    o.raw(", "), o.key("window_size"), o.number(f.windowSize);
    o.raw(", "), o.key("dictionary_id"), o.number(uint64_t(f.dictionaryId));
    o.raw(", "), o.key("checksum"), o.boolean(f.checksum);
    o.raw(", "), o.key("single_segment"), o.boolean(f.singleSegment);
    o.raw(", "), o.key("blocks"), o.raw("{\"raw\": "), o.number(f.blocks[0]);
    o.raw(", \"rle\": "), o.number(f.blocks[1]);
    o.raw(", \"compressed\": "), o.number(f.blocks[2]), o.raw("}");
    if (withBlocks && f.kind == FrameKind::Zstd) {
        o.raw(", "), o.key("block_list"), o.raw("[");
        bool firstBlock = true;
        for (const BlockInfo& b : f.blockList) {
            o.raw(firstBlock ? "{" : ", {");
            firstBlock = false;
            o.key("offset"), o.number(b.offset);
            o.raw(", "), o.key("type"), o.raw("\""), o.raw(blockTypeName(b.type)), o.raw("\"");
            o.raw(", "), o.key("size"), o.number(uint64_t(b.size));
            o.raw(", "), o.key("content_size");
            if (b.type == BlockType::Compressed)
                o.raw("null");
            else
                o.number(uint64_t(b.contentSize));
            o.raw(", "), o.key("last"), o.boolean(b.last), o.raw("}");
            o.flushIfFull();  // a frame can have millions of blocks
        }
        o.raw("]");
    }
    o.raw("}");
    o.flushIfFull();
}

void writeSeekTable(JsonOut& o, const std::optional<SeekTableInfo>& t)
{
    if (!t) {
        o.raw("null");
        return;
    }
    o.raw("{"), o.key("offset"), o.number(t->offset);
    o.raw(", "), o.key("frames"), o.number(uint64_t(t->frames));
    o.raw(", "), o.key("checksums"), o.boolean(t->checksums);
    o.raw(", "), o.key("consistent"), o.boolean(t->consistent);
    o.raw(", "), o.key("problem");
    if (t->consistent)
        o.raw("null");
    else
        o.string(t->problem);
    o.raw("}");
}

void writeSummary(JsonOut& o, const FrameSummary& s, bool anyFrame)
{
    o.raw("{\n    "), o.key("zstd_frames"), o.number(s.zstdFrames);
    o.raw(",\n    "), o.key("skippable_frames"), o.number(s.skippableFrames);
    o.raw(",\n    "), o.key("sized_frames"), o.number(s.sizedFrames);
    o.raw(",\n    "), o.key("unsized_frames"), o.number(s.unsizedFrames);
    o.raw(",\n    "), o.key("file_size"), o.number(s.fileSize);
    o.raw(",\n    "), o.key("compressed_size"), o.number(s.compressedSize);
    o.raw(",\n    "), o.key("content_size"), o.optionalNumber(s.contentSize);
    o.raw(",\n    "), o.key("ratio"), o.number(s.ratio);
    o.raw(",\n    "), o.key("largest_frame");
    if (anyFrame) {
        o.raw("{"), o.key("index"), o.number(s.largestFrameIndex);
        o.raw(", "), o.key("offset"), o.number(s.largestFrameOffset);
        o.raw(", "), o.key("compressed_size"), o.number(s.largestFrameSize), o.raw("}");
    } else {
        o.raw("null");
    }
    o.raw(",\n    "), o.key("all_checksummed"), o.boolean(s.allChecksummed);
    o.raw(",\n    "), o.key("parallel"), o.raw("{"), o.key("splittable"), o.boolean(s.parallel.splittable);
    o.raw(", "), o.key("pieces"), o.number(s.parallel.pieces);
    o.raw(", "), o.key("reason"), o.string(s.parallel.reason), o.raw("}");
    o.raw("\n  }");
}

} // namespace

namespace {

using Scan = std::function<FrameScanTotals(const std::function<void(const FrameInfo&)>&)>;

FrameSummary writeLayout(const std::string& name, const FrameScanOptions& options, const TextSink& sink,
                         const Scan& scan)
{
    JsonOut o(sink);
    o.raw("{\n  "), o.key("file"), o.string(name);
    o.raw(",\n  "), o.key("frames"), o.raw("[");
    bool first = true;
    const FrameScanTotals totals = scan([&](const FrameInfo& f) {
        writeFrame(o, f, options.blocks, first);
        first = false;
    });
    o.raw(first ? "]" : "\n  ]");
    o.raw(",\n  "), o.key("seek_table"), writeSeekTable(o, totals.seekTable);
    o.raw(",\n  "), o.key("summary"), writeSummary(o, totals.summary, !first);
    o.raw("\n}\n");
    o.flush();
    return totals.summary;
}

} // namespace

FrameSummary writeFrameLayoutJson(const std::string& path, const FrameScanOptions& options, Job& job,
                                  const TextSink& sink)
{
    return writeLayout(path, options, sink,
                       [&](const auto& onFrame) { return scanFramesStreaming(path, options, job, onFrame); });
}

FrameSummary writeFrameLayoutJson(FrameSource& source, const std::string& name, const FrameScanOptions& options,
                                  Job& job, const TextSink& sink)
{
    return writeLayout(name, options, sink,
                       [&](const auto& onFrame) { return scanFramesStreaming(source, name, options, job, onFrame); });
}

} // namespace cs
