// The store browser's queries on a large catalog: how long the entries model
// waits for a count and for one page of 256 rows at the start, middle and end,
// per sort column, by LIMIT/OFFSET and by a keyset seek from page anchors
// (with the time to build the anchors). Usage: bench_store_browse [DIR] [N]
// (default a temp store of 1,000,000 synthetic entries). Prints medians of 5.
#include "core/jobs/Job.h"
#include "core/store/Store.h"
#include "core/store/StoreTesting.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

using namespace cs::store;

static double medianMs(const std::function<void()>& fn)
{
    std::vector<double> t;
    for (int i = 0; i < 5; ++i) {
        const auto a = std::chrono::steady_clock::now();
        fn();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
    }
    std::sort(t.begin(), t.end());
    return t[2];
}

int main(int argc, char** argv)
{
    const std::string dir = argc > 1 ? argv[1] : (std::filesystem::temp_directory_path() / "bench-store-browse").string();
    const uint64_t n = argc > 2 ? std::stoull(argv[2]) : 1000000;
    if (!Store::isStore(dir)) {
        auto s = Store::init(dir);
        cs::Job job;
        const auto a = std::chrono::steady_clock::now();
        cs::store::testing::generateSyntheticEntries(*s, n, job);
        std::printf("generated %llu synthetic entries in %.1f s\n", static_cast<unsigned long long>(n),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
    }
    auto store = Store::open(dir);
    const uint64_t rows = store->countEntries({});
    std::printf("store %s: %llu entries\n", dir.c_str(), static_cast<unsigned long long>(rows));
    std::printf("%-34s %10.1f ms\n", "count (no filter)", medianMs([&] { store->countEntries({}); }));
    EntryFilter sub;
    sub.keyContains = "macOS-gradle";
    std::printf("%-34s %10.1f ms\n", "count (key contains)", medianMs([&] { store->countEntries(sub); }));
    const uint64_t subRows = store->countEntries(sub);
    // Each page two ways in the same run: LIMIT/OFFSET (walks the skipped
    // rows) and a keyset seek from the page anchors (one scan per listing,
    // timed as "anchors"; what the GUI model does off the GUI thread).
    std::printf("%-34s %13s %13s\n", "", "OFFSET", "keyset");
    struct Sort { const char* name; SortColumn c; bool desc; };
    for (const Sort& s : {Sort{"id", SortColumn::Id, false}, Sort{"size desc", SortColumn::Size, true},
                          Sort{"state", SortColumn::State, false}, Sort{"last_access", SortColumn::LastAccess, false},
                          Sort{"key", SortColumn::Key, false}}) {
        cs::Job job;
        PageAnchors anchors, subAnchors;
        char label[64];
        std::snprintf(label, sizeof label, "anchors by %s", s.name);
        std::printf("%-34s %13s %10.1f ms\n", label, "", medianMs([&] { anchors = store->buildPageAnchors({}, s.c, s.desc, job); }));
        std::snprintf(label, sizeof label, "filtered anchors by %s", s.name);
        std::printf("%-34s %13s %10.1f ms\n", label, "", medianMs([&] { subAnchors = store->buildPageAnchors(sub, s.c, s.desc, job); }));
        auto same = [](const std::vector<EntryRow>& a, const std::vector<EntryRow>& b) {
            return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const EntryRow& x, const EntryRow& y) { return x.id == y.id; });
        };
        auto both = [&](const char* what, const EntryFilter& f, const PageAnchors& a, uint64_t off) {
            const double offsetMs = medianMs([&] { store->listEntries(f, s.c, s.desc, off, 256); });
            const double keysetMs = medianMs([&] { store->listEntries(a, off, 256); });
            const bool ok = same(store->listEntries(f, s.c, s.desc, off, 256), store->listEntries(a, off, 256));
            std::printf("%-34s %10.1f ms %10.1f ms%s\n", what, offsetMs, keysetMs, ok ? "" : "  ROWS DIFFER");
        };
        for (const double at : {0.0, 0.5, 1.0}) {
            const uint64_t off = at == 1.0 ? rows - std::min<uint64_t>(rows, 256) : uint64_t(double(rows) * at);
            std::snprintf(label, sizeof label, "page @%3.0f%% by %s", at * 100, s.name);
            both(label, {}, anchors, off);
        }
        std::snprintf(label, sizeof label, "filtered mid page by %s", s.name);
        both(label, sub, subAnchors, subRows / 2);
        std::snprintf(label, sizeof label, "filtered last page by %s", s.name);
        both(label, sub, subAnchors, subRows > 256 ? subRows - 256 : 0);
    }
    return 0;
}
