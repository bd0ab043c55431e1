// Internals of the store browser's queries (Browse.cpp, Paging.cpp): the
// WHERE clause of a filter and the column a sort orders by. Not a public header.
#pragma once
#include "core/store/Catalog.h"
#include "core/store/Store.h"

#include <string>
#include <vector>

namespace cs::store {

struct Where {
    std::string sql;                  // "" or " WHERE ..." with parameters ?1..?n
    std::vector<std::string> texts;   // bound in order as ?1, ?2, ...
};

Where whereOf(const EntryFilter& filter);
const char* columnOf(SortColumn sort);

// The page by ORDER BY .. LIMIT .. OFFSET (walks the skipped rows). The
// caller holds the catalog's lock.
std::vector<EntryRow> listWithOffset(const Catalog& catalog, const EntryFilter& filter, SortColumn sort,
                                     bool descending, uint64_t offset, uint64_t limit);

} // namespace cs::store
