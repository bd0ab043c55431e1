// Subcommands of `cachescope-cli store`: each file registers its own with a
// static StoreSubcommandRegistration (like Command.h), so `store gc` and its
// friends live in their own file:
//   static cli::StoreSubcommandRegistration reg({"gc", "DIR [--dry-run]  collect ...", runGc});
// run gets args[0] = "cachescope-cli store <name>", then the subcommand's own words.
#pragma once
#include <QString>
#include <QStringList>

#include <functional>
#include <vector>

namespace cli {

struct StoreSubcommand {
    QString name;
    QString synopsis;
    std::function<int(const QStringList& args)> run;
};

void registerStoreSubcommand(StoreSubcommand sub);
std::vector<StoreSubcommand> storeSubcommands();   // sorted by name

struct StoreSubcommandRegistration {
    explicit StoreSubcommandRegistration(StoreSubcommand sub) { registerStoreSubcommand(std::move(sub)); }
};

} // namespace cli
