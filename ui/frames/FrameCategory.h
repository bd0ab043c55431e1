// How the frame-layout view classes and colours a frame: the band, the
// legend, the histogram and the table all use these five categories.
#pragma once
#include "core/frames/FrameLayout.h"

#include <QColor>
#include <QString>

namespace ui {

enum class FrameCategory { ZstdSized, ZstdUnsized, Skippable, SeekTable, PzstdSize };
constexpr int kFrameCategoryCount = 5;

FrameCategory frameCategory(const cs::FrameInfo& frame);
QColor frameCategoryColor(FrameCategory category);
QString frameCategoryName(FrameCategory category);   // "zstd, sized", "seek table", …

// Human-readable sizes for the view ("8.0 MiB", "12 B").
QString sizeText(uint64_t bytes);
// "0x184D2A50"
QString magicText(uint32_t magic);
// Multi-line description of one frame for tooltips.
QString frameDetails(const cs::FrameInfo& frame);

} // namespace ui
