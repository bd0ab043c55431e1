// The catalog's entry change counters (schema 3 triggers, table
// entries_generation, see Paging.cpp): rows grows with every insert, delete
// or change of an entry by any process or connection, access with every
// last_access update. Reading them is one row, so a viewer polls them to
// notice what other processes do to a store it shows.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

namespace cs::sqlite { class Database; }

namespace cs::store {

struct EntryChangeCounters {
    int64_t rows = 0;
    int64_t access = 0;
    bool operator==(const EntryChangeCounters&) const = default;
};

// A connection of its own to the catalog of the store in dir (not a
// Store's: a poll never waits behind that store's other work). Reads only.
class EntryChangeCounterReader {
public:
    // Throws cs::Error naming the catalog when it cannot be opened.
    explicit EntryChangeCounterReader(const std::string& storeDir);
    ~EntryChangeCounterReader();
    EntryChangeCounterReader(const EntryChangeCounterReader&) = delete;
    EntryChangeCounterReader& operator=(const EntryChangeCounterReader&) = delete;

    // Throws cs::Error when the catalog has no counters (damaged schema).
    EntryChangeCounters read() const;

private:
    std::unique_ptr<sqlite::Database> catalog_;
};

} // namespace cs::store
