// What a remote backend module hands the core. PostgreSQL (libpq), MySQL/
// MariaDB (Connector/C) and S3 (libcurl) are each built as a shared module
// (cachescope-postgres.so, cachescope-mysql.so, cachescope-s3.so) that
// RemoteBackends.cpp loads with dlopen on the first location naming it, so
// a local command, --version and the GUI at start map none of those
// libraries. A module exports one extern "C" function, kRemoteModuleEntry,
// returning this table; the rest of its symbols are local (its version
// script), and the core symbols it calls (cs::fail, Job::checkCancel, the
// ActionsCatalog defaults) are the executable's, exported to it by
// core/remote/modules/executable.dynlist.
#pragma once
#include "core/actions-cache/ActionsBackend.h"

#include <memory>
#include <string>

namespace cs {
class Job;
}
namespace cs::remote {
struct S3Config;
}

namespace cs::actions {

// Raised whenever this table or a type crossing it changes layout; a module
// of another build (another CACHESCOPE_VERSION or ABI) is refused.
constexpr int kRemoteModuleAbi = 1;
constexpr const char* kRemoteModuleEntry = "cachescope_remote_module";

struct RemoteModule {
    int abi;               // kRemoteModuleAbi of the module's build
    const char* version;   // CACHESCOPE_VERSION of the module's build
    // Either is null when the module has no such backend.
    std::unique_ptr<ActionsCatalog> (*openCatalog)(const std::string& location, bool writable,
                                                   const std::string& password);
    std::unique_ptr<ActionsStorage> (*openStorage)(const remote::S3Config& config, Job* job);
};

} // namespace cs::actions

extern "C" {
using CachescopeRemoteModuleEntry = const cs::actions::RemoteModule* (*)();
}
