// What tests and benchmarks do to a store that a real one never does, kept
// out of Store.h: a call between a merge's append and its commit, and rows
// made up in bulk for the browser.
#pragma once
#include "core/store/Store.h"

#include <cstdint>
#include <functional>
#include <memory>

namespace cs::store {

// StoreOptions::testHooks.
struct StoreTestHooks {
    // Called by a merge after its objects are appended and synced, just
    // before its commit transaction (tests bump gc_state.epoch here, or
    // throw); with 0 by putMerged, whose entry has no id before that
    // transaction.
    std::function<void(int64_t entryId)> beforeMergeCommit;
};

namespace testing {

// Hooks with only beforeMergeCommit set: options.testHooks = beforeMergeCommit(...).
std::shared_ptr<const StoreTestHooks> beforeMergeCommit(std::function<void(int64_t entryId)> hook);

// Inserts n catalog rows (scope "synthetic", keys "synthetic/<n>/...", state
// merged, synthetic = 1) pointing at a few real tiny shared roots appended to
// the pack, so they restore correctly. One transaction: a cancel inserts none.
void generateSyntheticEntries(Store& store, uint64_t n, Job& job);

} // namespace testing
} // namespace cs::store
