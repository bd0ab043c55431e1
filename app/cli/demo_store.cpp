// The demo dataset's store (`cachescope-cli demo DIR` makes DIR/store): a few
// CI-cache-like entries, some merged and some left unmerged, that share most
// of their bytes (the same dependencies under new keys), so the browser shows
// dedup, shared chunks and unmerged parts. Two merged entries with bytes of
// their own are then evicted, so the pack holds dead ranges: the Reachability
// view shows what a GC would reclaim on a first visit.
#include "DemoDataset.h"

#include "core/jobs/Job.h"
#include "core/store/Store.h"

#include "CommandTree.h"

#include <filesystem>

#include <random>
#include <string>

namespace cli {

namespace {

// Dependency-tree-like bytes: text with random stretches.
std::string depsBytes(size_t size, uint64_t seed)
{
    static const char* words[] = {"node_modules", "package.json", "index.js", "lodash", "react", "webpack", "babel",
                                  "typescript", "dist", "lib", "src", "module.exports", "require", "export", "default"};
    std::mt19937_64 rng(seed);
    std::string s;
    s.reserve(size + 64);
    while (s.size() < size) {
        if (rng() % 50 == 0) {
            for (int i = 0; i < 2048 && s.size() < size; i += 8) {
                const uint64_t v = rng();
                s.append(reinterpret_cast<const char*>(&v), 8);
            }
        } else {
            s += words[rng() % 15];
            s += (rng() % 8 == 0) ? '\n' : '/';
        }
    }
    s.resize(size);
    return s;
}

void upload(cs::store::Store& store, const std::string& key, const std::string& scope, const std::string& data)
{
    const int64_t id = store.reserve(key, "demo-v1", scope);
    const size_t part = 1 << 20;
    const uint32_t parts = uint32_t((data.size() + part - 1) / part);
    for (uint32_t i = parts; i-- > 0;)   // out of order, as concurrent uploads finish
        store.writePart(id, i, data.data() + size_t(i) * part, std::min(part, data.size() - size_t(i) * part));
    store.commit(id, parts);
}

std::string makeStore(const std::string& dir)
{
    const std::string path = dir + "/store";
    std::filesystem::remove_all(path); // a symlink named store goes, never what it points to
    auto store = cs::store::Store::init(path);
    const std::string base = depsBytes(24u << 20, 1);
    struct Spec { const char* key; const char* scope; size_t tail; bool merge; };
    const Spec specs[] = {
        {"Linux-node-modules-3f2a91", "refs/heads/main", 1, true},
        {"Linux-node-modules-8c04d7", "refs/heads/main", 2, true},
        {"Linux-node-modules-b71e55", "refs/heads/feature/login", 3, false},
        {"macOS-node-modules-3f2a91", "refs/heads/main", 4, true},
        {"Linux-cargo-registry-77aa10", "refs/heads/main", 0, false},
    };
    // Evicted below: bytes no other entry shares (seeds of their own).
    const Spec evicted[] = {
        {"Linux-gradle-caches-0b19e2", "refs/heads/release/1.2", 5, true},
        {"Windows-nuget-packages-5d3c88", "refs/heads/main", 6, true},
    };
    auto uploadEvicted = [&](const Spec& s) {
        upload(*store, s.key, s.scope, depsBytes(s.tail << 20, 200 + s.tail));
        cs::Job job;
        job.start();
        store->merge(store->findEntry(s.key, "demo-v1", s.scope)->id, job);
    };
    uploadEvicted(evicted[0]);   // dead bytes at the start of the pack and after the live ones
    for (const Spec& s : specs) {
        std::string data = s.tail ? base : depsBytes(12u << 20, 99);
        if (s.tail)
            data += depsBytes(s.tail << 20, 100 + s.tail);   // own new bytes after the shared dependencies
        upload(*store, s.key, s.scope, data);
        if (s.merge) {
            cs::Job job;
            job.start();
            store->merge(store->findEntry(s.key, "demo-v1", s.scope)->id, job);
        }
    }
    uploadEvicted(evicted[1]);
    cs::Job job;
    job.start();
    cs::store::EvictPolicy policy;
    for (const Spec& s : evicted)
        policy.keys.push_back(s.key);
    const cs::store::EvictResult gone = store->evict(policy, job);
    const cs::store::StoreStats st = store->stats(job);
    return "store: " + std::to_string(st.entries) + " entries (" + std::to_string(st.mergedEntries) + " merged, " +
           std::to_string(st.unmergedEntries) + " unmerged), dedup ratio " + fixed(st.dedupRatio, 2) + "; " +
           std::to_string(gone.evicted.size()) + " evicted (their chunks are dead in the pack until a GC)";
}

DemoItemRegistration storeDemo({"store", 100, makeStore});

} // namespace

} // namespace cli
