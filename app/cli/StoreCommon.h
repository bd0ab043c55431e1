// What the store commands share: the entry object of --json outputs
// (docs/cli.md, schema "entry") and the
// --version/--scope options.
#pragma once
#include "CommandTree.h"
#include "HumanTime.h"

#include "core/store/Store.h"

#include <string>

namespace cli {

Json entryJson(const cs::store::EntryRow& e);
void addVersionScope(CLI::App* c, std::string& version, std::string& scope);

} // namespace cli
