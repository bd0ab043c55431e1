// A toy store on a bare Pack for the GC tests: entries are a root node over
// content chunks, chunks are deduplicated by SHA-256 like the real store
// does, and the test keeps its own record of which entry uses which object
// (the independent truth the GC is checked against).
#pragma once
#include "core/gc/Gc.h"
#include "core/pack/Pack.h"
#include "core/util/Sha256.h"

#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace gctest {

struct Entry {
    uint64_t root = 0;
    std::string data;
    std::vector<uint64_t> objects; // chunks and the root
};

class ToyStore {
public:
    explicit ToyStore(const std::string& dir) : pack_(cs::pack::Pack::open(dir, true)) {}

    cs::pack::Pack& pack() { return *pack_; }

    // Appends an entry made of the given chunk contents, reusing chunks
    // already in the pack (and still live) with the same bytes.
    int add(const std::vector<std::string>& chunks)
    {
        Entry e;
        std::vector<cs::pack::ChildRef> children;
        for (const auto& c : chunks) {
            const auto sha = cs::Sha256::of(c.data(), c.size());
            const std::string key(reinterpret_cast<const char*>(sha.data()), sha.size());
            uint64_t off;
            if (auto it = dedup_.find(key); it != dedup_.end()) {
                off = it->second;
            } else {
                const std::string obj = cs::pack::encodeChunk(sha, uint32_t(c.size()),
                                                              cs::pack::compressChunkFrame(c.data(), c.size(), 1));
                off = pack_->append(obj);
                dedup_[key] = off;
                objectBytes_[off] = obj.size();
            }
            children.push_back({off, c.size()});
            e.objects.push_back(off);
            e.data += c;
        }
        const std::string node = cs::pack::encodeNode(children);
        e.root = pack_->append(node);
        objectBytes_[e.root] = node.size();
        e.objects.push_back(e.root);
        entries_[next_] = e;
        return next_++;
    }

    void evict(int id) { entries_.erase(id); }
    const std::map<int, Entry>& entries() const { return entries_; }

    std::vector<uint64_t> roots() const
    {
        std::vector<uint64_t> r;
        for (const auto& [id, e] : entries_)
            r.push_back(e.root);
        return r;
    }

    std::set<uint64_t> liveObjects() const
    {
        std::set<uint64_t> s;
        for (const auto& [id, e] : entries_)
            s.insert(e.objects.begin(), e.objects.end());
        return s;
    }

    // Bytes of objects present in the pack that no live entry uses.
    uint64_t unreachableBytes() const
    {
        const auto live = liveObjects();
        uint64_t n = 0;
        for (const auto& [off, size] : objectBytes_)
            if (!live.count(off))
                n += size;
        return n;
    }

    // After a GC: forget objects it collected (the store deletes their chunk rows).
    void forgetCollected()
    {
        const auto live = liveObjects();
        collected_.clear();
        for (auto it = objectBytes_.begin(); it != objectBytes_.end();) {
            if (!live.count(it->first)) {
                collected_.push_back(it->first);
                it = objectBytes_.erase(it);
            } else {
                ++it;
            }
        }
        for (auto it = dedup_.begin(); it != dedup_.end();) {
            if (!live.count(it->second))
                it = dedup_.erase(it);
            else
                ++it;
        }
    }
    const std::vector<uint64_t>& collected() const { return collected_; }

    std::string restore(const Entry& e) const
    {
        const auto h = pack_->readHeader(e.root);
        std::string out;
        for (const auto& c : h.children)
            out += pack_->readChunk(c.offset, nullptr, true);
        return out;
    }

    cs::gc::GcResult gc(cs::gc::GcOptions o = {})
    {
        if (!o.roots)
            o.roots = roots();
        cs::Job job("gc");
        cs::gc::GcResult r;
        std::exception_ptr error;
        job.run([&](cs::Job& j) {
            try {
                r = cs::gc::collectGarbage(*pack_, o, j);
            } catch (...) {
                error = std::current_exception();
                throw;
            }
        });
        if (error)
            std::rethrow_exception(error);
        return r;
    }

    void reopen(const std::string& dir) { pack_.reset(); pack_ = cs::pack::Pack::open(dir, false); }

private:
    std::unique_ptr<cs::pack::Pack> pack_;
    std::map<std::string, uint64_t> dedup_;
    std::map<uint64_t, uint64_t> objectBytes_;
    std::map<int, Entry> entries_;
    std::vector<uint64_t> collected_;
    int next_ = 0;
};

// Chunk contents: a pool of shared chunks plus unique ones.
inline std::vector<std::string> makeChunks(std::mt19937_64& rng, const std::vector<std::string>& shared, int unique,
                                           size_t maxSize = 3000)
{
    std::vector<std::string> out;
    for (int i = 0; i < unique; ++i) {
        std::string s(1 + rng() % maxSize, '\0');
        for (auto& ch : s)
            ch = char('a' + rng() % 16);
        out.push_back(s);
    }
    for (const auto& s : shared)
        if (rng() % 2)
            out.insert(out.begin() + long(rng() % (out.size() + 1)), s);
    return out;
}

} // namespace gctest
