// The size index's view of a catalog (SizeIndex.h, indexedCatalog): the
// entry rows as the last refresh copied them, so the report's verify pass
// reads the rows once (in the refresh) instead of paging the server's
// catalog a second time. What the index does not hold (locations without
// an entry, uploads, who else has the catalog open) comes from the live
// catalog; writes are refused.
#include "core/actions-cache/SizeIndex.h"

#include "core/util/Error.h"

namespace cs::actions {

namespace {

EntryRow rowOf(const ActionsEntry& e)
{
    EntryRow r;
    r.id = e.id;
    r.key = e.key;
    r.version = e.version;
    r.scope = e.scope;
    r.repoId = e.repoId;
    r.updatedAtMs = e.updatedAtMs;
    r.locationId = e.locationId;
    if (e.hasLocation) {
        LocationRow l;
        l.id = e.locationId;
        l.folderName = e.folderName;
        l.partCount = e.partCount;
        l.mergeStartedAtMs = e.mergeStartedAtMs;
        l.mergedAtMs = e.mergedAtMs;
        l.partsDeletedAtMs = e.partsDeletedAtMs;
        l.lastDownloadedAtMs = e.lastDownloadedAtMs;
        r.location = std::move(l);
    }
    return r;
}

class IndexedCatalog final : public ActionsCatalog {
public:
    IndexedCatalog(SizeIndex& index, ActionsCatalog& live) : index_(index), live_(live) {}
    std::string describe() const override { return live_.describe(); }
    bool readOnly() const override { return true; }

    std::vector<EntryRow> entries() override
    {
        std::vector<EntryRow> out;
        index_.forEachEntry([&out](const ActionsEntry& e) { out.push_back(rowOf(e)); });
        return out;
    }
    std::vector<LocationRow> locations() override { return live_.locations(); }
    std::vector<UploadRow> uploads() override { return live_.uploads(); }
    std::vector<EntryRow> entriesPage(const EntryQuery& query, const std::optional<EntryCursor>& after,
                                      size_t limit) override
    {
        const ActionsEntryPage page = index_.page(query, after, limit);
        std::vector<EntryRow> out;
        out.reserve(page.entries.size());
        for (const auto& e : page.entries)
            out.push_back(rowOf(e));
        return out;
    }
    uint64_t entryCount(const std::string& keyContains) override
    {
        EntryQuery q;
        q.keyContains = keyContains;
        return index_.count(q);
    }
    std::vector<LocationRow> locationsWithoutEntry() override { return live_.locationsWithoutEntry(); }
    std::vector<std::string> otherUsers() override { return live_.otherUsers(); }
    std::string changeStamp() override { return live_.changeStamp(); }

    bool setMergeStarted(const LocationRow& seen, std::optional<int64_t>) override { return refuse(seen.id); }
    bool setMerged(const LocationRow& seen, int64_t) override { return refuse(seen.id); }
    bool setPartsDeleted(const LocationRow& seen, int64_t) override { return refuse(seen.id); }
    bool deleteLocation(const std::string& id, const std::optional<LocationRow>&) override { return refuse(id); }
    bool deleteUpload(const UploadRow& seen) override { return refuse(std::to_string(seen.id)); }

private:
    [[noreturn]] bool refuse(const std::string& what) const
    {
        fail(live_.describe(), "the size index's view of the catalog is read-only (" + what + ")");
    }
    SizeIndex& index_;
    ActionsCatalog& live_;
};

} // namespace

std::unique_ptr<ActionsCatalog> indexedCatalog(SizeIndex& index, ActionsCatalog& live)
{
    return std::make_unique<IndexedCatalog>(index, live);
}

} // namespace cs::actions
