// cachescope-cli frames FILE [--json] [--blocks]: the frame layout of a zstd
// file (schema in docs/cli.md, section "frames").
#include "Command.h"

#include "core/frames/FrameLayout.h"
#include "core/frames/FrameLayoutJson.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/Units.h"

#include <cstdio>

namespace cli {

namespace {

QString hex32(uint32_t v) { return QStringLiteral("0x%1").arg(v, 8, 16, QLatin1Char('0')); }

QString size(uint64_t bytes) { return QString::fromStdString(cs::formatSize(bytes)); }

QString frameKindText(const cs::FrameInfo& f)
{
    if (f.kind == cs::FrameKind::Zstd)
        return QStringLiteral("zstd");
    QString role = QString::fromLatin1(cs::skippableRoleName(f.role));
    return QStringLiteral("skip:%1").arg(role.isEmpty() ? hex32(f.magic) : role);
}

// Columns padded to the widest cell; numbers right-aligned.
QString table(const QList<QStringList>& rows, const QList<bool>& rightAligned)
{
    QList<int> widths(rightAligned.size(), 0);
    for (const auto& r : rows)
        for (int c = 0; c < r.size(); ++c)
            widths[c] = std::max(widths[c], int(r[c].size()));
    QString out;
    for (const auto& r : rows) {
        QString line;
        for (int c = 0; c < r.size(); ++c) {
            if (c)
                line += QStringLiteral("  ");
            line += rightAligned[c] ? r[c].rightJustified(widths[c]) : r[c].leftJustified(widths[c]);
        }
        while (line.endsWith(QLatin1Char(' ')))
            line.chop(1);
        out += line + QLatin1Char('\n');
    }
    return out;
}

QString layoutText(const cs::FrameLayout& layout, bool withBlocks)
{
    QList<QStringList> rows{{QStringLiteral("#"), QStringLiteral("offset"), QStringLiteral("kind"),
                             QStringLiteral("compressed"), QStringLiteral("content"), QStringLiteral("window"),
                             QStringLiteral("dict"), QStringLiteral("check"), QStringLiteral("single"),
                             QStringLiteral("blocks raw/rle/cmp")}};
    for (const auto& f : layout.frames) {
        const bool z = f.kind == cs::FrameKind::Zstd;
        rows.append({QString::number(f.index), QString::number(f.offset), frameKindText(f), size(f.compressedSize),
                     z ? (f.contentSize ? size(*f.contentSize) : QStringLiteral("unknown")) : QStringLiteral("-"),
                     z ? size(f.windowSize) : QStringLiteral("-"),
                     z ? (f.dictionaryId ? QString::number(f.dictionaryId) : QStringLiteral("-")) : QStringLiteral("-"),
                     z ? (f.checksum ? QStringLiteral("XXH64") : QStringLiteral("none")) : QStringLiteral("-"),
                     z ? (f.singleSegment ? QStringLiteral("yes") : QStringLiteral("no")) : QStringLiteral("-"),
                     z ? QStringLiteral("%1/%2/%3").arg(f.blocks[0]).arg(f.blocks[1]).arg(f.blocks[2])
                       : QStringLiteral("-")});
        if (withBlocks && z)
            for (const auto& b : f.blockList)
                rows.append({QString(), QString::number(b.offset),
                             QStringLiteral("  block %1%2").arg(QString::fromLatin1(cs::blockTypeName(b.type)),
                                                                 b.last ? QStringLiteral(" (last)") : QString()),
                             size(b.size),
                             b.type == cs::BlockType::Compressed ? QString() : size(b.contentSize), QString(),
                             QString(), QString(), QString(), QString()});
    }
    QString out = layout.frames.empty() ? QStringLiteral("no frames\n")
                                        : table(rows, {true, true, false, true, true, true, true, false, false, false});

    const auto& s = layout.summary;
    out += QLatin1Char('\n');
    out += QStringLiteral("file:         %1 (%2)\n").arg(QString::fromStdString(layout.path), size(s.fileSize));
    out += QStringLiteral("frames:       %1 zstd (%2 sized, %3 unsized), %4 skippable\n")
               .arg(s.zstdFrames).arg(s.sizedFrames).arg(s.unsizedFrames).arg(s.skippableFrames);
    out += QStringLiteral("compressed:   %1\n").arg(size(s.compressedSize));
    out += QStringLiteral("content:      %1\n").arg(s.contentSize ? size(*s.contentSize) : QStringLiteral("unknown (a frame does not declare its size)"));
    if (s.contentSize && s.compressedSize)
        out += QStringLiteral("ratio:        %1\n").arg(s.ratio, 0, 'f', 3);
    if (!layout.frames.empty())
        out += QStringLiteral("largest:      frame %1 at offset %2, %3\n")
                   .arg(s.largestFrameIndex).arg(s.largestFrameOffset).arg(size(s.largestFrameSize));
    out += QStringLiteral("checksums:    %1\n").arg(s.allChecksummed ? QStringLiteral("every zstd frame") : QStringLiteral("not on every zstd frame"));
    if (layout.seekTable) {
        const auto& t = *layout.seekTable;
        out += QStringLiteral("seek table:   at offset %1, %2 entries%3%4\n")
                   .arg(t.offset).arg(t.frames)
                   .arg(t.checksums ? QStringLiteral(" with checksums") : QString())
                   .arg(t.consistent ? QString() : QStringLiteral(" (does not match: %1)").arg(QString::fromStdString(t.problem)));
    } else {
        out += QStringLiteral("seek table:   none\n");
    }
    out += QStringLiteral("parallel:     %1, %2 piece%3. %4\n")
               .arg(s.parallel.splittable ? QStringLiteral("splittable") : QStringLiteral("not splittable"))
               .arg(s.parallel.pieces).arg(s.parallel.pieces == 1 ? QString() : QStringLiteral("s"))
               .arg(QString::fromStdString(s.parallel.reason));
    return out;
}

int runFrames(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Lists the frames of a file of concatenated zstd and skippable frames, reading headers only."));
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("The zstd file to inspect."));
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the layout as JSON (schema in docs/cli.md).")});
    parser.addOption({QStringLiteral("blocks"), QStringLiteral("List every block of every zstd frame.")});
    int exitCode = Ok;
    if (!parseOrExit(parser, args, exitCode))
        return exitCode;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1) {
        printError(QStringLiteral("frames takes exactly one FILE (see --help)"));
        return Usage;
    }
    cs::FrameScanOptions options;
    options.blocks = parser.isSet(QStringLiteral("blocks"));
    cs::Job job("frames");
    const std::string path = positional[0].toStdString();
    try {
        if (parser.isSet(QStringLiteral("json"))) {
            // Streamed: memory does not grow with the frame count.
            cs::writeFrameLayoutJson(path, options, job, [](std::string_view text) {
                if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
                    cs::failErrno("stdout", "cannot write the layout");
            });
            if (std::fflush(stdout) != 0)
                cs::failErrno("stdout", "cannot write the layout");
        } else {
            printOut(layoutText(cs::scanFrames(path, options, job), options.blocks));
        }
    } catch (const cs::Error& e) {
        printError(QString::fromStdString(e.what()));
        return Failure;
    }
    return Ok;
}

CommandRegistration reg({QStringLiteral("frames"), QStringLiteral("frame layout of a zstd file (headers only)"), runFrames});

} // namespace

} // namespace cli
