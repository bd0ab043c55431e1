#include "core/bench/Bench.h"
#include "core/bench/Scenarios.h"

namespace cs {

namespace {
struct Entry {
    const char* name;
    std::unique_ptr<Scenario> (*make)();
};
const Entry kScenarios[] = {
    {"snapshot", &makeSnapshotScenario},
    {"restore", &makeRestoreScenario},
    {"gc", &makeGcScenario},
    {"boot", &makeBootScenario},
};
} // namespace

std::vector<std::string> scenarioNames()
{
    std::vector<std::string> names;
    for (const auto& e : kScenarios)
        names.emplace_back(e.name);
    return names;
}

std::unique_ptr<Scenario> makeScenario(const std::string& name)
{
    for (const auto& e : kScenarios)
        if (name == e.name)
            return e.make();
    return nullptr;
}

} // namespace cs
