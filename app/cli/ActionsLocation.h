// The options every actions-cache command takes to find the server's data:
// --db, --storage, --endpoint, --region (cmd_actions_cache.cpp and
// cmd_actions_contents.cpp declare them through this one function, so the
// help texts cannot drift apart).
#pragma once
#include <CLI/CLI.hpp>

#include <string>

namespace cli {

struct LocationOptions {
    CLI::Option* db = nullptr;
    CLI::Option* storage = nullptr;
};

LocationOptions addLocationOptions(CLI::App* c, std::string& db, std::string& storage, std::string& endpoint,
                                   std::string& region);

} // namespace cli
