// The size index's folder listings (SizeIndex.h: listing, folderNames) and
// the read-only storage view that serves them (indexedStorage), so verify
// lists no folder the last refresh already listed.
#include "core/actions-cache/SizeIndex.h"

#include "core/actions-cache/SizeIndexCodec.h"
#include "core/util/Error.h"
#include "core/util/Sqlite.h"

namespace cs::actions {

using sqlite::Statement;
using sizeindex::decodeParts;
using sizeindex::splitNames;

std::optional<FolderListing> SizeIndex::listing(const std::string& folder, std::string* error)
{
    auto lk = db_->lock();
    if (!listing_)
        listing_ = std::make_unique<Statement>(db_->prepare(
            "SELECT present, has_parts, merged_size, parts, strays, links, error FROM folders WHERE name = ?1"));
    Statement& s = *listing_;
    s.reset();
    s.bindText(1, folder);
    struct Done {
        Statement& s;
        ~Done() { s.reset(); }   // no read left open between calls
    } done{s};
    if (!s.step())
        return std::nullopt;
    FolderListing l;
    l.exists = s.i64(0) != 0;
    l.hasPartsFolder = s.i64(1) != 0;
    if (!s.isNull(2))
        l.mergedSize = uint64_t(s.i64(2));
    l.parts = decodeParts(s.text(3));
    l.strays = splitNames(s.blob(4));
    l.links = splitNames(s.blob(5));
    if (error)
        *error = s.text(6);
    return l;
}

std::vector<std::string> SizeIndex::folderNames()
{
    auto lk = db_->lock();
    auto s = db_->prepare("SELECT name FROM folders ORDER BY name");
    std::vector<std::string> out;
    while (s.step())
        out.push_back(s.text(0));
    return out;
}

namespace {

class IndexedStorage final : public ActionsStorage {
public:
    IndexedStorage(SizeIndex& index, ActionsStorage& live) : index_(index), live_(live) {}
    std::string describe() const override { return live_.describe(); }
    std::string objectName(const std::string& f, const std::string& r) const override { return live_.objectName(f, r); }
    std::vector<std::string> folders() override { return index_.folderNames(); }
    FolderListing listFolder(const std::string& folder) override
    {
        std::string error;
        auto l = index_.listing(folder, &error);
        if (!error.empty())
            throw Error(error);
        return l.value_or(FolderListing{});
    }
    std::unique_ptr<ObjectReader> openPart(const std::string& f, uint64_t i) override { return live_.openPart(f, i); }
    std::unique_ptr<ObjectReader> openMerged(const std::string& f) override { return live_.openMerged(f); }
    std::unique_ptr<MergedWriter> beginMerged(const std::string& f) override
    {
        fail(live_.describe(), "the size index's view of the storage is read-only (" + f + ")");
    }
    void deletePart(const std::string& f, uint64_t) override { beginMerged(f); }
    void deletePartsFolder(const std::string& f) override { beginMerged(f); }
    void deleteFolder(const std::string& f) override { beginMerged(f); }

private:
    SizeIndex& index_;
    ActionsStorage& live_;
};

} // namespace

std::unique_ptr<ActionsStorage> indexedStorage(SizeIndex& index, ActionsStorage& live)
{
    return std::make_unique<IndexedStorage>(index, live);
}

} // namespace cs::actions

