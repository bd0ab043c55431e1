#include "ui/frames/FrameCategory.h"

#include "core/util/Units.h"

#include <QObject>

namespace ui {

FrameCategory frameCategory(const cs::FrameInfo& frame)
{
    if (frame.kind == cs::FrameKind::Zstd)
        return frame.contentSize ? FrameCategory::ZstdSized : FrameCategory::ZstdUnsized;
    switch (frame.role) {
    case cs::SkippableRole::SeekTable: return FrameCategory::SeekTable;
    case cs::SkippableRole::PzstdSize: return FrameCategory::PzstdSize;
    default: return FrameCategory::Skippable;
    }
}

QColor frameCategoryColor(FrameCategory category)
{
    switch (category) {
    case FrameCategory::ZstdSized: return QColor(0x4e79a7);    // blue: splittable
    case FrameCategory::ZstdUnsized: return QColor(0xe15759);  // red: must decode serially
    case FrameCategory::Skippable: return QColor(0x9d9d9d);
    case FrameCategory::SeekTable: return QColor(0x59a14f);
    case FrameCategory::PzstdSize: return QColor(0xb07aa1);
    }
    return Qt::black;
}

QString frameCategoryName(FrameCategory category)
{
    switch (category) {
    case FrameCategory::ZstdSized: return QObject::tr("zstd, sized");
    case FrameCategory::ZstdUnsized: return QObject::tr("zstd, unsized");
    case FrameCategory::Skippable: return QObject::tr("skippable");
    case FrameCategory::SeekTable: return QObject::tr("seek table");
    case FrameCategory::PzstdSize: return QObject::tr("pzstd size frame");
    }
    return {};
}

QString sizeText(uint64_t bytes)
{
    return QString::fromStdString(cs::formatSize(bytes));
}

QString magicText(uint32_t magic)
{
    return QStringLiteral("0x") + QString::number(magic, 16).toUpper().rightJustified(8, QLatin1Char('0'));
}

QString frameDetails(const cs::FrameInfo& f)
{
    QString text = QObject::tr("Frame %1 · %2\nOffset %3 · %4 (%5 bytes)")
                       .arg(f.index)
                       .arg(frameCategoryName(frameCategory(f)))
                       .arg(f.offset)
                       .arg(sizeText(f.compressedSize))
                       .arg(f.compressedSize);
    if (f.kind == cs::FrameKind::Zstd) {
        text += QObject::tr("\nContent: %1").arg(f.contentSize ? sizeText(*f.contentSize) : QObject::tr("not declared"));
        if (f.contentSize && f.compressedSize)
            text += QObject::tr(" · ratio %1").arg(double(*f.contentSize) / double(f.compressedSize), 0, 'f', 2);
        text += QObject::tr("\nWindow %1 · header %2 B").arg(sizeText(f.windowSize)).arg(f.headerSize);
        if (f.dictionaryId)
            text += QObject::tr(" · dictionary %1").arg(f.dictionaryId);
        text += f.checksum ? QObject::tr(" · checksum") : QObject::tr(" · no checksum");
        if (f.singleSegment)
            text += QObject::tr(" · single segment");
        if (f.blocks[0] + f.blocks[1] + f.blocks[2])
            text += QObject::tr("\nBlocks: %1 compressed, %2 raw, %3 RLE").arg(f.blocks[2]).arg(f.blocks[0]).arg(f.blocks[1]);
    } else {
        text += QObject::tr("\nMagic %1").arg(magicText(f.magic));
    }
    return text;
}

} // namespace ui
