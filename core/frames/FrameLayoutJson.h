// The JSON document of `cachescope-cli frames --json` (schema in docs/cli.md,
// section "frames"), written while the file is scanned: each frame goes out
// as it is read and only the running totals are held, so memory does not grow
// with the number of frames (a file of millions of tiny frames costs what a
// file of one does) and time is linear in the number of frames and blocks.
#pragma once
#include "core/frames/FrameLayout.h"

#include <functional>
#include <string>
#include <string_view>

namespace cs {

// Receives the document in pieces of about 1 MiB (the last one smaller).
using TextSink = std::function<void(std::string_view)>;

// Scans path and writes its layout to sink; returns the summary. Nothing of
// the document reaches sink before 1 MiB of it is ready, and the closing
// brackets only at the end: a scan that throws (cs::Error naming the file and
// offset, as scanFrames does) leaves sink with nothing, or with a prefix that
// is not a complete JSON document.
FrameSummary writeFrameLayoutJson(const std::string& path, const FrameScanOptions& options, Job& job,
                                  const TextSink& sink);
// The same over any source (an entry's blob); name goes in the "file" key.
FrameSummary writeFrameLayoutJson(FrameSource& source, const std::string& name, const FrameScanOptions& options,
                                  Job& job, const TextSink& sink);

} // namespace cs
