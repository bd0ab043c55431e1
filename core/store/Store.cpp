// Opening a store, entry rows, lookup (Actions cache semantics) and the
// object tree of an entry.
#include "core/store/StoreInternal.h"

#include "core/jobs/Job.h"
#include "core/util/Crc32c.h"
#include "core/util/Error.h"
#include "core/util/File.h"
#include "core/util/KillPoint.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <thread>


namespace cs::store {

const char* entryStateName(EntryState s)
{
    switch (s) {
    case EntryState::Uploading: return "uploading";
    case EntryState::Unmerged: return "unmerged";
    case EntryState::Merged: return "merged";
    }
    return "?";
}

std::optional<EntryState> parseEntryState(const std::string& name)
{
    if (name == "uploading") return EntryState::Uploading;
    if (name == "unmerged") return EntryState::Unmerged;
    if (name == "merged") return EntryState::Merged;
    return std::nullopt;
}

void checkKey(const std::string& key, const char* what)
{
    if (key.size() > kMaxKeyBytes)
        throw Error(std::string("the ") + what + " is " + std::to_string(key.size()) + " bytes long, more than the "
                    + std::to_string(kMaxKeyBytes) + "-byte limit");
}

std::string hexOf(const Digest& d) { return Sha256::hex(d); }

EntryRow rowFrom(const Statement& s, int c)
{
    EntryRow r;
    r.id = s.i64(c + 0);
    r.key = s.text(c + 1);
    r.version = s.text(c + 2);
    r.scope = s.text(c + 3);
    r.size = uint64_t(s.i64(c + 4));
    r.sha256 = s.text(c + 5);
    r.state = parseEntryState(s.text(c + 6)).value_or(EntryState::Uploading);
    r.rootOffset = s.isNull(c + 7) ? 0 : uint64_t(s.i64(c + 7));
    r.partCount = uint32_t(s.i64(c + 8));
    r.created = s.real(c + 9);
    r.lastAccess = s.isNull(c + 10) ? 0 : s.real(c + 10);
    r.synthetic = s.i64(c + 11) != 0;
    r.repo = s.text(c + 12);
    r.origin = s.isNull(c + 13) ? std::string() : s.text(c + 13);
    r.mergeError = s.isNull(c + 14) ? std::string() : s.text(c + 14);
    return r;
}

int Store::Impl::threads() const
{
    if (options.threads > 0)
        return options.threads;
    const unsigned n = std::thread::hardware_concurrency();
    return n ? int(n) : 2;
}

void killPoint(const char* point)
{
    static std::atomic<int> seen{0};
    killPointFromEnv(killpoints::store::kVariable, point, seen);
}

void Store::Impl::removeParts(int64_t id) const
{
    // Never through a link (StoreLayout). A failure leaves an orphan that
    // fsck reports and `fsck --repair` removes: the row is already gone.
    try {
        layout->removeParts(id, [] { killPoint(killpoints::store::kPartRemoved); });
    } catch (const Error&) {
    }
}

std::optional<EntryRow> Store::Impl::entry(int64_t id) const
{
    auto lock = catalog->lock();
    auto q = catalog->prepare(std::string("SELECT ") + kEntryColumns + " FROM entries WHERE id=?1");
    q.bind(1, id);
    if (!q.step())
        return std::nullopt;
    return rowFrom(q);
}

std::vector<PartInfo> Store::Impl::partRows(int64_t id) const
{
    auto lock = catalog->lock();
    auto q = catalog->prepare("SELECT idx, size, crc32c FROM parts WHERE entry_id=?1 ORDER BY idx");
    q.bind(1, id);
    std::vector<PartInfo> parts;
    while (q.step()) {
        PartInfo p{uint32_t(q.i64(0)), uint64_t(q.i64(1)), false, std::nullopt};
        if (!q.isNull(2))
            p.crc32c = uint32_t(q.i64(2));
        parts.push_back(p);
    }
    return parts;
}

std::optional<std::string> Store::Impl::partProblem(int64_t id, const std::string& key, const PartInfo& p) const
{
    const std::string path = partPath(id, p.index);
    (void)key;
    const std::string what = path + ": part " + std::to_string(p.index);
    try {
        // Through the layout: a link at parts/<id> or at the part is a problem, never followed.
        std::optional<File> part;
        if (const auto folder = layout->partsOf(id))
            part = folder->tryOpenFile(StoreLayout::partName(p.index), O_RDONLY);
        if (!part)
            return what + " is missing";
        File& f = *part;
        const uint64_t size = f.size();
        if (size != p.size)
            return what + " has " + std::to_string(size) + " bytes, the catalog says " + std::to_string(p.size);
        if (!p.crc32c)
            return std::nullopt;
        std::vector<char> buf(1 << 20);
        uint32_t crc = 0;
        for (uint64_t pos = 0; pos < size;) {
            const size_t got = f.readSomeAt(buf.data(), buf.size(), pos);
            if (got == 0)
                return what + " ends at byte " + std::to_string(pos) + ", before its " + std::to_string(size) + " bytes";
            crc = crc32c(crc, buf.data(), got);
            pos += got;
        }
        if (crc != *p.crc32c)
            return what + " does not match the CRC-32C recorded at commit: its bytes changed on disk "
                          "(no repair can restore them: evict the entry and upload it again)";
        return std::nullopt;
    } catch (const Error& e) {
        return what + ": " + e.what();
    }
}

std::vector<pack::ChildRef> Store::Impl::chunkList(uint64_t root, std::vector<ObjectInfo>* objects) const
{
    std::vector<pack::ChildRef> chunks;
    uint64_t position = 0;
    // Depth-first in entry order; every child offset is below its parent's,
    // so a corrupt tree cannot loop.
    struct Frame { uint64_t offset; int depth; };
    std::vector<Frame> stack{{root, 0}};
    while (!stack.empty()) {
        const Frame f = stack.back();
        stack.pop_back();
        const pack::ObjectHeader h = pack->readHeader(f.offset);
        const bool chunk = h.kind == pack::ObjectKind::Chunk;
        if (objects) {
            ObjectInfo o;
            o.kind = chunk ? ObjectInfo::Chunk : ObjectInfo::Node;
            o.offset = f.offset;
            o.storedBytes = h.totalBytes;
            o.logicalSize = chunk ? h.rawSize : h.logicalSize;
            o.position = position;
            o.depth = f.depth;
            if (chunk)
                o.sha256 = hexOf(h.sha256);
            else
                o.children = uint32_t(h.children.size());
            objects->push_back(std::move(o));
        }
        if (chunk) {
            chunks.push_back({f.offset, h.rawSize});
            position += h.rawSize;
            continue;
        }
        for (auto it = h.children.rbegin(); it != h.children.rend(); ++it)
            stack.push_back({it->offset, f.depth + 1});
    }
    return chunks;
}

uint64_t writeTree(pack::Pack& pack, const std::vector<pack::ChildRef>& chunks, uint64_t& appended,
                   std::vector<std::pair<uint64_t, uint64_t>>* ranges)
{
    // Every entry has a node root, even with 0 or 1 chunks.
    if (chunks.empty()) {
        const std::string node = pack::encodeNode({});
        appended += node.size();
        const uint64_t at = pack.append(node);
        if (ranges)
            ranges->emplace_back(at, node.size());
        return at;
    }
    std::vector<pack::ChildRef> level = chunks;
    for (;;) {
        std::vector<std::string> nodes;
        std::vector<uint64_t> sizes;
        for (size_t i = 0; i < level.size(); i += pack::kMaxNodeChildren) {
            const size_t end = std::min(level.size(), i + pack::kMaxNodeChildren);
            std::vector<pack::ChildRef> children(level.begin() + long(i), level.begin() + long(end));
            uint64_t logical = 0;
            for (const auto& c : children)
                logical += c.logicalSize;
            nodes.push_back(pack::encodeNode(children));
            sizes.push_back(logical);
        }
        // The children were appended before: every edge points backwards.
        const auto offsets = pack.appendAll(nodes);
        std::vector<pack::ChildRef> next;
        for (size_t i = 0; i < nodes.size(); ++i) {
            appended += nodes[i].size();
            if (ranges)
                ranges->emplace_back(offsets[i], nodes[i].size());
            next.push_back({offsets[i], sizes[i]});
        }
        if (next.size() == 1)
            return next.front().offset;
        level = std::move(next);
    }
}

Store::Store(std::unique_ptr<Impl> impl) : d(std::move(impl)) {}
Store::~Store() = default;

bool Store::isStore(const std::string& dir)
{
    try {
        const StoreLayout layout = StoreLayout::open(dir);
        return layout.hasCatalog() && layout.hasPackFolder();
    } catch (const Error&) {
        return false;
    }
}

namespace {

// Whether this process may write the store: a read-only mount or folder
// (or files) opens read-only, so it can still be listed and restored from.
bool storeWritable(const StoreLayout& layout)
{
    return ::access(layout.catalogPath().c_str(), W_OK) == 0 && ::access(layout.dir().c_str(), W_OK) == 0;
}

// The folder holds something a store wrote (pack objects or parts): then an
// empty catalog.db is a lost catalog, not a store being created. A link or
// a stray file where pack/ or parts/ belongs counts as data (doubt).
bool holdsStoreData(const StoreLayout& layout)
{
    const Folder& root = layout.root();
    const Folder::Kind pk = root.kindOf(StoreLayout::kPack);
    if (pk == Folder::Kind::Folder) {
        const Folder pack = layout.packFolder(false);
        for (const auto& c : pack.list())
            if (c.name != pack::kControlFileName && c.kind == Folder::Kind::File && pack.sizeOf(c.name) > 0)
                return true;
    } else if (pk != Folder::Kind::Missing) {
        return true;
    }
    const Folder::Kind sk = root.kindOf(StoreLayout::kParts);
    if (sk == Folder::Kind::Folder)
        return !root.sub(StoreLayout::kParts).list().empty();
    return sk != Folder::Kind::Missing;
}

} // namespace

std::unique_ptr<Store> Store::init(const std::string& dir, StoreOptions options)
{
    auto layout = std::make_unique<StoreLayout>(StoreLayout::create(dir));
    const std::string catalogPath = layout->catalogPath();   // refuses a link there
    const Folder::Kind catalogKind = layout->root().kindOf(StoreLayout::kCatalog);
    if (catalogKind == Folder::Kind::Missing && holdsStoreData(*layout))
        fail(catalogPath, "is missing but the folder holds pack objects or parts; refusing to start an empty "
                          "catalog beside them (store gc would then drop every object): restore catalog.db from a backup");
    if (catalogKind != Folder::Kind::Missing) {
        // An existing catalog is only migrated; an empty or foreign one is
        // doubt, unless the folder holds nothing yet (an init that crashed).
        const bool empty = layout->root().sizeOf(StoreLayout::kCatalog) == 0;
        if (!(empty && !holdsStoreData(*layout))) {
            Catalog probe(catalogPath, OpenMode::ReadOnly);
            checkStoreSchema(probe);
        }
    }
    layout->makeParts();
    layout->parts();   // init makes parts/ or says why it cannot
    auto impl = std::make_unique<Impl>();
    impl->dir = dir;
    impl->layout = std::move(layout);
    impl->options = std::move(options);
    impl->catalog = std::make_unique<Catalog>(catalogPath, OpenMode::Create);
    migrateSchema(*impl->catalog);
    impl->pack = impl->layout->openPack(true);
    return std::unique_ptr<Store>(new Store(std::move(impl)));
}

std::unique_ptr<Store> Store::open(const std::string& dir, StoreOptions options)
{
    auto impl = std::make_unique<Impl>();
    impl->dir = dir;
    impl->layout = std::make_unique<StoreLayout>(StoreLayout::open(dir));
    const std::string catalogPath = impl->layout->storeCatalogPath();
    // Checked on a connection that changes nothing: a read-write open would
    // switch an empty or foreign database to WAL before we could refuse it.
    int version = 0;
    {
        Catalog probe(catalogPath, OpenMode::ReadOnly);
        version = checkStoreSchema(probe);
    }
    impl->options = std::move(options);
    // A hard-linked catalog is read, never written (Catalog::hardLinkRefusal).
    const bool writable = storeWritable(*impl->layout) && Catalog::hardLinkRefusal(catalogPath).empty();
    impl->catalog = std::make_unique<Catalog>(catalogPath, writable ? OpenMode::ReadWrite : OpenMode::ReadOnly);
    if (writable) {
        migrateSchema(*impl->catalog);
        impl->layout->makeParts();
    } else if (version < latestSchemaVersion()) {
        fail(catalogPath, "has schema version " + std::to_string(version) + " and this store is read-only, so it "
                          "cannot be migrated to " + std::to_string(latestSchemaVersion())
                          + "; open it once with write access");
    }
    impl->pack = impl->layout->openPack(false);
    return std::unique_ptr<Store>(new Store(std::move(impl)));
}

const std::string& Store::dir() const { return d->dir; }
std::string Store::catalogPath() const { return d->layout->catalogPath(); }
pack::Pack& Store::pack() { return *d->pack; }
bool Store::readOnly() const { return d->catalog->readOnly(); }
int Store::schemaVersion() const { return schemaVersionOf(*d->catalog); }
int Store::latestSchemaVersion() { return cs::store::latestSchemaVersion(); }

std::optional<EntryRow> Store::entry(int64_t id) const { return d->entry(id); }

std::optional<EntryRow> Store::findEntry(const std::string& key, const std::string& version,
                                         const std::string& scope) const
{
    auto lock = d->catalog->lock();
    auto q = d->catalog->prepare(std::string("SELECT ") + kEntryColumns
                                 + " FROM entries WHERE version=?1 AND scope=?2 AND key=?3 AND state<>'uploading'"
                                   " ORDER BY created DESC LIMIT 1");
    q.bindText(1, version).bindText(2, scope).bindText(3, key);
    if (!q.step())
        return std::nullopt;
    return rowFrom(q);
}

std::optional<std::string> prefixSuccessor(std::string prefix)
{
    while (!prefix.empty() && uint8_t(prefix.back()) == 0xFF)
        prefix.pop_back();
    if (prefix.empty())
        return std::nullopt;
    prefix.back() = char(uint8_t(prefix.back()) + 1);
    return prefix;
}

std::optional<std::pair<EntryRow, std::string>> Store::lookup(const RestoreRequest& r) const
{
    checkKey(r.key);
    auto lock = d->catalog->lock();
    auto exact = [&](const std::string& key) { return findEntry(key, r.version, r.scope); };
    auto prefix = [&](const std::string& p) -> std::optional<EntryRow> {
        // Range scan on the (version, scope, key) index; binary collation compares bytes.
        const auto upper = prefixSuccessor(p);
        std::string sql = std::string("SELECT ") + kEntryColumns
                          + " FROM entries WHERE version=?1 AND scope=?2 AND key>=?3"
                          + (upper ? " AND key<?4" : "") + " AND state<>'uploading' ORDER BY created DESC, id DESC LIMIT 1";
        auto q = d->catalog->prepare(sql);
        q.bindText(1, r.version).bindText(2, r.scope).bindText(3, p);
        if (upper)
            q.bindText(4, *upper);
        if (!q.step())
            return std::nullopt;
        return rowFrom(q);
    };
    if (auto e = exact(r.key))
        return std::make_pair(*e, std::string("key"));
    if (auto e = prefix(r.key))
        return std::make_pair(*e, std::string("key-prefix"));
    for (const auto& k : r.restoreKeys) {
        checkKey(k, "restore key");
        if (auto e = exact(k))
            return std::make_pair(*e, std::string("restore-key"));
        if (auto e = prefix(k))
            return std::make_pair(*e, std::string("restore-key-prefix"));
    }
    return std::nullopt;
}

} // namespace cs::store
