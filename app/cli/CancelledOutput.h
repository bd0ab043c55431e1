// What a command cancelled by Ctrl-C or SIGTERM left at its output OUT, as
// observed, for the sentence main.cpp prints (SignalCancel.h). OutputFile
// replaces a regular file atomically, so OUT is either as it was (the temp
// file is gone) or complete; a FIFO, device or standard output is written in
// place and got what was sent before the cancel (nothing, when a FIFO had no
// reader yet).
#pragma once
#include "SignalCancel.h"

#include "core/util/Error.h"

#include <string>
#include <sys/stat.h>

namespace cli {

class CancelledOutput {
public:
    explicit CancelledOutput(std::string out);
    // The part of the sentence after "interrupted by SIGINT (Ctrl-C) and cancelled; ".
    std::string outcome() const;

    // Runs fn, which writes OUT under sc; a cancel by a signal says what OUT holds.
    template <typename Fn> void run(SignalCancel& sc, Fn&& fn) const
    {
        try {
            fn();
        } catch (const cs::Cancelled&) {
            sc.setOutcome(outcome());
            throw;
        }
    }

private:
    std::string out_;
    bool inPlace_ = false;   // standard output, or an existing non-regular file
    bool existed_ = false;
    struct stat before_ {};
};

} // namespace cli
