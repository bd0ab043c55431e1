// Synthetic rows for tests and benchmarks of the browser, and the merge hook.
#include "core/store/StoreTesting.h"

#include "core/jobs/Job.h"
#include "core/pack/ObjectFormat.h"
#include "core/pack/Pack.h"
#include "core/store/Catalog.h"
#include "core/util/Sha256.h"

#include <cstdio>
#include <random>

namespace cs::store::testing {

std::shared_ptr<const StoreTestHooks> beforeMergeCommit(std::function<void(int64_t entryId)> hook)
{
    auto hooks = std::make_shared<StoreTestHooks>();
    hooks->beforeMergeCommit = std::move(hook);
    return hooks;
}

void generateSyntheticEntries(Store& store, uint64_t n, Job& job)
{
    pack::Pack& objects = store.pack();
    // A few real tiny entries' objects that every synthetic row points at.
    constexpr int kVariants = 16;
    struct Variant { uint64_t root; uint64_t size; std::string sha; };
    std::vector<Variant> variants;
    for (int v = 0; v < kVariants; ++v) {
        std::string data;
        while (data.size() < size_t(100 + 97 * v))
            data += "cachescope synthetic entry, variant " + std::to_string(v) + "\n";
        const Digest sha = Sha256::of(data.data(), data.size());
        const std::string frame = pack::compressChunkFrame(data.data(), data.size(), kCompressionLevel);
        const uint64_t chunk = objects.append(pack::encodeChunk(sha, uint32_t(data.size()), frame));
        const uint64_t root = objects.append(pack::encodeNode({{chunk, data.size()}}));
        variants.push_back({root, data.size(), Sha256::hex(sha)});
    }
    objects.sync();
    // A connection of its own: the rows are SQL the store's public calls do not write.
    Catalog catalog(store.catalogPath(), OpenMode::ReadWrite);
    Transaction tx(catalog, Transaction::Immediate);
    int64_t base = 0;
    {
        auto q = catalog.prepare("SELECT coalesce(max(id), 0) FROM entries");
        q.step();
        base = q.i64(0);
    }
    std::mt19937_64 rng(uint64_t(base) * 7919 + n);
    const double now = nowSeconds();
    static const char* tools[] = {"node-modules", "cargo-registry", "gradle", "pip", "ccache", "go-build", "maven", "yarn"};
    static const char* oses[] = {"Linux", "macOS", "Windows"};
    // OR FAIL: a statement that cannot abort needs no statement journal (the
    // change-counter trigger makes every insert a two-row write); a failure
    // still throws and the transaction rolls back.
    auto ins = catalog.prepare(
        "INSERT OR FAIL INTO entries(key, version, scope, size, sha256, state, root_offset, part_count, created, last_access, "
        "committed, synthetic) VALUES(?1, 'synthetic-v1', 'synthetic', ?2, ?3, 'merged', ?4, ?5, ?6, ?7, ?6, 1)");
    char hex[17];
    for (uint64_t i = 0; i < n; ++i) {
        if (i % 8192 == 0) {
            job.checkCancel();   // the transaction rolls back: nothing inserted
            job.setStepProgress(i, n);
        }
        const Variant& v = variants[rng() % kVariants];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(rng()));
        const std::string key = std::string("synthetic/") + std::to_string(base + int64_t(i) + 1) + "/"
                                + oses[rng() % 3] + "-" + tools[rng() % 8] + "-" + hex;
        const double created = now - double(n - i) * 60.0;
        ins.reset();
        ins.bindText(1, key).bind(2, v.size).bindText(3, v.sha).bind(4, v.root).bind(5, 1).bind(6, created);
        if (rng() % 4 == 0)
            ins.bindNull(7);
        else
            ins.bind(7, created + double(rng() % 86400));
        ins.run();
    }
    tx.commit();
    job.setStepProgress(1.0);
}

} // namespace cs::store::testing
