// The server report's decode pass over entries' blobs (compression and
// repetition), on core/entries' blob stream (EntryBlob) and bounded-window
// zstd decoder (ZstdStream).
//
// Per blob (the merged object, else the parts in numeric order):
// - format: "tar+zstd" or "zstd" (zstd magic; tar when the first decoded
//   512 bytes carry "ustar" at 257), "gzip" (gzip magic: not inflated, its
//   bytes chunked as stored), "tar" (uncompressed), "other";
// - serial: a zstd blob restores only serially when it is one frame, or
//   has a frame without a declared content size (ZstdStream reads each
//   frame's header before it decodes it);
// - repetition: the decoded bytes (zstd; other formats as stored) cut by
//   the native store's content-defined chunker (core/store/Chunker.h), each
//   chunk fingerprinted with XXH64 (core/util/Xxh64.h); a chunk is sampled when its
//   fingerprint falls below the threshold: every chunk to start (exact while
//   the budget holds them: 64 MiB of the default 256 keep 1.4 million, a
//   terabyte of 1 MiB chunks), then half, a quarter, ... of the range.
//   The estimate of the bytes a deduplicating store keeps is the distinct
//   sampled chunks' bytes divided by the sampling rate; its error is twice
//   the standard deviation of that estimator. The sample is held in memory
//   bounded by the budget: when it would exceed it, the rate halves and the
//   fingerprints above the new threshold go (adaptive sampling).
// A zstd frame whose window is above the decoder's share of the budget
// (three quarters) is not decoded: the blob is counted in undecoded and
// left out of the repetition figures.
#pragma once
#include "core/actions-cache/ActionsCache.h"
#include "core/store/Chunker.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

namespace cs {
class Job;
}

namespace cs::entries {

class RepetitionPass {
public:
    // chunker: the chunks of the native store the estimate is for (a store's
    // StoreOptions::chunker; keep the default, as real stores do).
    explicit RepetitionPass(uint64_t memoryBudget, const store::ChunkerParams& chunker = {});
    ~RepetitionPass();

    // Reads one entry's blob through storage. Throws cs::Error naming the
    // entry on a read or decode error (a window above the budget included:
    // then undecoded counts it first).
    void add(actions::ActionsStorage& storage, const actions::ActionsEntry& entry, Job* job);

    std::map<std::string, uint64_t> formats;   // stored bytes per format
    uint64_t serialBytes = 0;
    uint64_t undecoded = 0, undecodedBytes = 0;   // blobs whose window was above the budget
    uint64_t unreadable = 0;                   // blobs that could not be read (named in the log of errors)
    std::string firstError;

    uint64_t totalBytes() const;   // bytes chunked (decoded where decoded)
    uint64_t estimatedUniqueBytes() const;
    uint64_t errorBytes() const;
    double samplingRate() const;

private:
    struct Sampler;
    std::unique_ptr<Sampler> sampler_;
    uint64_t budget_;
};

} // namespace cs::entries
