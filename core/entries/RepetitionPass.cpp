#include "core/entries/RepetitionPass.h"

#include "core/entries/EntryBlob.h"
#include "core/entries/ZstdStream.h"
#include "core/jobs/Job.h"
#include "core/store/Chunker.h"
#include "core/util/Error.h"
#include "core/util/Xxh64.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <unordered_map>
#include <vector>

namespace cs::entries {

namespace {

constexpr size_t kBuffer = size_t(1) << 20;
constexpr uint64_t kAll = UINT64_MAX;                 // threshold: every chunk sampled
constexpr uint64_t kSampleEntryBytes = 48;            // an unordered_map node of (u64, u32), with its bucket

bool isTarHeader(const char* p, size_t n)
{
    return n >= 262 && std::memcmp(p + 257, "ustar", 5) == 0;
}

} // namespace

struct RepetitionPass::Sampler {
    store::ChunkerParams params;
    store::Chunker chunker;
    Xxh64 hash;   // of the current chunk: 32 bytes a step (FNV-1a, a byte a step, cost 0.7x zstd's decode)
    uint64_t threshold = kAll;
    uint64_t maxEntries;
    std::unordered_map<uint64_t, uint32_t> seen;
    uint64_t total = 0;

    Sampler(uint64_t budget, const store::ChunkerParams& p)
        : params(p), chunker(p), maxEntries(std::max<uint64_t>(1024, budget / kSampleEntryBytes))
    {
    }

    void feed(const char* data, size_t n)
    {
        const auto* p = reinterpret_cast<const uint8_t*>(data);
        while (n > 0) {
            bool cut = false;
            const size_t before = chunker.currentSize();
            const size_t take = chunker.feed(p, n, cut);
            hash.update(p, take);
            p += take;
            n -= take;
            if (cut)
                endChunk(before + take);
        }
    }

    // An entry's last chunk ends with it, as the store cuts it.
    void finish()
    {
        if (chunker.currentSize() > 0)
            endChunk(chunker.currentSize());
        chunker = store::Chunker(params);
        hash.reset();
    }

    void endChunk(size_t size)
    {
        total += size;
        const uint64_t h = hash.digest();   // XXH64's avalanche spreads it over the whole range
        hash.reset();
        if (threshold != kAll && h >= threshold)
            return;
        seen.emplace(h, uint32_t(size));
        while (seen.size() > maxEntries) {
            threshold = threshold == kAll ? kAll / 2 : threshold / 2;
            for (auto it = seen.begin(); it != seen.end();)
                it = it->first >= threshold ? seen.erase(it) : std::next(it);
        }
    }

    double rate() const { return threshold == kAll ? 1.0 : double(threshold) / 18446744073709551616.0; }
};

RepetitionPass::RepetitionPass(uint64_t memoryBudget, const store::ChunkerParams& chunker)
    : sampler_(std::make_unique<Sampler>(memoryBudget / 4, chunker)), budget_(memoryBudget)
{
}

RepetitionPass::~RepetitionPass() = default;

void RepetitionPass::add(actions::ActionsStorage& storage, const actions::ActionsEntry& entry, Job* job)
{
    EntryBlob blob(storage, entry);
    auto reader = blob.open();
    std::vector<char> buf(kBuffer);
    // Feeds the chunker from s (after `before` bytes already fed of it);
    // true when the stream's bytes start with a tar header.
    auto pump = [&](ByteStream& s, const char* before, size_t beforeSize) {
        const size_t first = readFully(s, buf.data(), buf.size());
        std::string head = beforeSize ? std::string(before, beforeSize) : std::string();
        head.append(buf.data(), std::min<size_t>(first, 512));
        sampler_->feed(buf.data(), first);
        for (size_t got; (got = s.read(buf.data(), buf.size())) != 0;) {
            if (job)
                job->checkCancel();
            sampler_->feed(buf.data(), got);
        }
        return isTarHeader(head.data(), head.size());
    };
    char magic[4] = {};
    const size_t sniffed = readFully(*reader, magic, sizeof magic);
    const auto* u = reinterpret_cast<const unsigned char*>(magic);
    std::string format = "other";
    if (sniffed == 4 && u[0] == 0x28 && u[1] == 0xb5 && u[2] == 0x2f && u[3] == 0xfd) {
        // From the start again, decoded. The decoder gets three quarters of
        // the budget, the sample the rest.
        reader = blob.open();
        const uint64_t window = budget_ / 4 * 3;
        ZstdStream z(*reader, blob.name(), window);
        bool tar = false;
        try {
            tar = pump(z, nullptr, 0);
        } catch (const Error&) {
            sampler_->finish();
            if (z.largestWindow() <= window)
                throw;
            // A window above the budget: counted, not decoded.
            ++undecoded;
            undecodedBytes += blob.size();
            formats["zstd"] += blob.size();
            return;
        }
        format = tar ? "tar+zstd" : "zstd";
        if (z.dataFrames() == 1 || z.unsizedFrames() > 0)
            serialBytes += blob.size();
    } else {
        sampler_->feed(magic, sniffed);
        const bool tar = pump(*reader, magic, sniffed);
        if (sniffed >= 2 && u[0] == 0x1f && u[1] == 0x8b)
            format = "gzip";   // not inflated here: chunked as stored
        else if (tar)
            format = "tar";
    }
    sampler_->finish();
    formats[format] += blob.size();
}

uint64_t RepetitionPass::totalBytes() const
{
    return sampler_->total;
}

uint64_t RepetitionPass::estimatedUniqueBytes() const
{
    uint64_t sampled = 0;
    for (const auto& [fp, size] : sampler_->seen)
        sampled += size;
    return uint64_t(std::llround(double(sampled) / sampler_->rate()));
}

uint64_t RepetitionPass::errorBytes() const
{
    // Each distinct chunk is in the sample with probability p: the
    // estimator's variance is (1-p)/p * sum(size^2) over the distinct
    // chunks, estimated from the sample as (1-p)/p^2 * sum(size^2); the
    // error is two standard deviations.
    const double p = sampler_->rate();
    double sq = 0;
    for (const auto& [fp, size] : sampler_->seen)
        sq += double(size) * double(size);
    return uint64_t(std::llround(2.0 * std::sqrt((1.0 - p) / (p * p) * sq)));
}

double RepetitionPass::samplingRate() const
{
    return sampler_->rate();
}

} // namespace cs::entries
