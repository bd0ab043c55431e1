// cachescope-s3.so: the S3-compatible storage (libcurl's SigV4), loaded by
// core/actions-cache/RemoteBackends.cpp.
#include "core/actions-cache/RemoteBackends.h"
#include "core/actions-cache/RemoteModule.h"

namespace {
std::unique_ptr<cs::actions::ActionsStorage> openStorage(const cs::remote::S3Config& config, cs::Job* job)
{
    return cs::actions::openS3Storage(config, job);
}
} // namespace

extern "C" const cs::actions::RemoteModule* cachescope_remote_module()
{
    static const cs::actions::RemoteModule m{cs::actions::kRemoteModuleAbi, CACHESCOPE_VERSION, nullptr,
                                             &openStorage};
    return &m;
}
