// cachescope-mysql.so: the MySQL/MariaDB catalog (MariaDB Connector/C),
// loaded by core/actions-cache/RemoteBackends.cpp.
#include "core/actions-cache/RemoteBackends.h"
#include "core/actions-cache/RemoteModule.h"

extern "C" const cs::actions::RemoteModule* cachescope_remote_module()
{
    static const cs::actions::RemoteModule m{cs::actions::kRemoteModuleAbi, CACHESCOPE_VERSION,
                                             &cs::actions::openMysqlCatalog, nullptr};
    return &m;
}
