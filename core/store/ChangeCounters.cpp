#include "core/store/ChangeCounters.h"

#include "core/store/Catalog.h"
#include "core/store/StoreLayout.h"
#include "core/util/Error.h"

namespace cs::store {

// ReadWrite, the store's own mode, not ReadOnly: a read-only open of a
// closed WAL catalog is immutable and would never see another process's
// commits. Nothing here writes.
EntryChangeCounterReader::EntryChangeCounterReader(const std::string& storeDir)
    : catalog_(std::make_unique<Catalog>(StoreLayout::open(storeDir).storeCatalogPath(), OpenMode::ReadWrite))
{
}

EntryChangeCounterReader::~EntryChangeCounterReader() = default;

EntryChangeCounters EntryChangeCounterReader::read() const
{
    auto q = catalog_->prepare("SELECT rows, access FROM entries_generation WHERE id = 1");
    if (!q.step())
        fail(catalog_->path(), "table entries_generation has no row; the catalog schema is damaged");
    return {q.i64(0), q.i64(1)};
}

} // namespace cs::store
