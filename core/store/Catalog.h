// The store's catalog.db: a database of the one SQLite layer
// (core/util/Sqlite.h) opened in the native modes (Create, ReadWrite) or
// ReadOnly, and its schema (Schema.cpp): the ordered migrations and the
// check every command but `store init` makes before trusting the file.
#pragma once
#include "core/util/Sqlite.h"

namespace cs::store {

using Catalog = sqlite::Database;
using sqlite::OpenMode;
using sqlite::Statement;
using sqlite::Transaction;

// Applies the ordered migrations to reach the latest schema (Schema.cpp).
int migrateSchema(Catalog& catalog);
int schemaVersionOf(Catalog& catalog);
// The schema of an existing catalog, for every command but `store init`:
// throws cs::Error (one sentence naming the file and what fsck can and cannot
// do) when the catalog is empty, foreign (no meta.schema_version), damaged
// (a version that is not a number) or newer than latestSchemaVersion().
// Returns the version (1..latest); changes nothing.
int checkStoreSchema(Catalog& catalog);
int latestSchemaVersion();

double nowSeconds();

} // namespace cs::store
