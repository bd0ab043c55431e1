// A max-priority queue of pack offsets for a walk whose pops never increase:
// every value pushed is at most the last value popped (children sit below
// their parent). That monotonicity allows a radix heap: a value lives in the
// bucket of the highest bit in which it differs from the last popped value
// (bucket 0: equal to it). A pop takes bucket 0, or else empties the lowest
// non-empty bucket, makes its largest value the new reference and spreads
// the rest into lower buckets. Each value moves down at most 64 times, and
// in practice once or twice, against log2(frontier) cache-missing
// comparisons per pop for a binary heap. Holds the same 8 bytes per queued
// offset.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace cs::gc {

class MonotoneQueue {
public:
    bool empty() const { return size_ == 0; }
    uint64_t size() const { return size_; }

    // value <= the last popped value (anything before the first pop).
    void push(uint64_t value)
    {
        if (value > last_)
            throw std::logic_error("MonotoneQueue: pushed a value above the last one popped");
        put(value);
        ++size_;
    }

    uint64_t top()
    {
        refill();
        return last_;
    }

    void pop()
    {
        refill();
        buckets_[0].pop_back();
        if (buckets_[0].empty())
            used_ &= ~uint64_t(1);
        --size_;
    }

private:
    size_t bucketOf(uint64_t value) const { return value == last_ ? 0 : size_t(64 - std::countl_zero(last_ ^ value)); }

    void put(uint64_t value)
    {
        const size_t b = bucketOf(value);
        buckets_[b].push_back(value);
        if (b < 64)
            used_ |= uint64_t(1) << b;
    }

    void refill()
    {
        if (!buckets_[0].empty())
            return;
        // size_ > 0: some bucket holds a value; the lowest one holds the
        // largest values (bucket 64, not in the mask, when no other does).
        const size_t i = used_ ? size_t(std::countr_zero(used_)) : 64;
        auto& b = buckets_[i];
        last_ = *std::max_element(b.begin(), b.end());
        for (uint64_t v : b)
            put(v); // always into a lower bucket: v agrees with last_ above bit i - 1
        // Give a big emptied bucket's memory back: the frontier cascades
        // down through the buckets, and 64 buckets each keeping the largest
        // size it ever had would hold many times the frontier.
        if (b.capacity() > kKeptCapacity)
            std::vector<uint64_t>().swap(b);
        else
            b.clear();
        if (i < 64)
            used_ &= ~(uint64_t(1) << i);
    }

    static constexpr size_t kKeptCapacity = 512;
    std::array<std::vector<uint64_t>, 65> buckets_;
    uint64_t used_ = 0; // bit i: bucket i (< 64) is not empty
    uint64_t last_ = UINT64_MAX;
    uint64_t size_ = 0;
};

} // namespace cs::gc
