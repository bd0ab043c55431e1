// The human table and summary of a frame layout, printed page by page as
// the scan passes: shared by `frames FILE` and `actions-cache frames ENTRY_ID`.
#pragma once
#include "core/frames/FrameLayout.h"

#include <cstdint>
#include <functional>
#include <string>

namespace cli {

using FrameScan = std::function<cs::FrameScanTotals(const std::function<void(const cs::FrameInfo&)>&)>;

// name is shown as the file; fileSize sets the column widths.
void printFrameLayoutText(const std::string& name, uint64_t fileSize, bool withBlocks, const FrameScan& scan);

} // namespace cli
