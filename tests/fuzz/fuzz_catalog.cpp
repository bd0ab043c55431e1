// libFuzzer target: opening a store whose catalog.db is the input (a damaged,
// foreign, empty or hostile SQLite file), then what `store ls` and the store
// browser do with it. The pack beside it is valid and empty.
#include "FuzzSupport.h"

#include "core/store/Store.h"

#include <unistd.h>

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const std::string dir = [] {
        const std::string d = fuzz::scratch() + "/store";
        cs::store::Store::init(d);
        return d;
    }();
    const std::string catalog = dir + "/catalog.db";
    ::unlink((catalog + "-wal").c_str());
    ::unlink((catalog + "-shm").c_str());
    ::unlink((catalog + "-journal").c_str());
    fuzz::writeBytes(catalog, data, size);
    fuzz::expectErrorOrSuccess([&] {
        cs::store::StoreOptions options;
        options.threads = 1;
        const auto store = cs::store::Store::open(dir, options);
        const cs::store::EntryFilter all;
        const uint64_t n = store->countEntries(all);
        const auto rows = store->listEntries(all, cs::store::SortColumn::Key, false, 0, 50);
        if (rows.size() > n && rows.size() > 0 && n < 50)
            std::abort();  // the listing and the count disagree
        for (size_t i = 0; i < rows.size() && i < 5; ++i)
            store->entryDetails(rows[i].id);
    });
    return 0;
}
