// Which backend a location names, and the remote ones loaded when first
// named: PostgreSQL, MySQL/MariaDB and S3 are shared modules
// (core/actions-cache/RemoteModule.h) so that what does not use them never
// maps libpq, libmariadb or libcurl and their ~35 dependencies.
//
// A module is looked for in $CACHESCOPE_MODULE_DIR when set, else in
// CACHESCOPE_MODULE_RELDIR next to the running executable: bin/ ->
// lib/.../cachescope/ when installed, and app/ or tests/ -> the same path
// below the build folder (core/CMakeLists.txt puts the modules there).
#include "core/actions-cache/RemoteBackends.h"
#include "core/actions-cache/RemoteModule.h"

#include "core/remote/Conninfo.h"
#include "core/remote/S3Config.h"
#include "core/util/Error.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>

#ifndef CACHESCOPE_MODULE_RELDIR
#error "core/CMakeLists.txt defines CACHESCOPE_MODULE_RELDIR"
#endif
#ifndef CACHESCOPE_MODULE_PACKAGE_PREFIX
#error "core/CMakeLists.txt defines CACHESCOPE_MODULE_PACKAGE_PREFIX"
#endif

namespace cs::actions {

namespace {

enum class Backend { Postgres, Mysql, S3 };

struct ModuleName {
    const char* file;    // "cachescope-postgres.so"
    const char* what;    // "PostgreSQL support"
    const char* package; // "postgres": the Debian package is CACHESCOPE_MODULE_PACKAGE_PREFIX + this
};

ModuleName nameOf(Backend b)
{
    switch (b) {
    case Backend::Postgres: return {"cachescope-postgres.so", "PostgreSQL support", "postgres"};
    case Backend::Mysql: return {"cachescope-mysql.so", "MySQL/MariaDB support", "mysql"};
    case Backend::S3: return {"cachescope-s3.so", "S3 and Google Cloud Storage support", "s3"};   // gs:// too
    }
    return {"", "", ""};
}

std::string moduleDir()
{
    if (const char* dir = std::getenv("CACHESCOPE_MODULE_DIR"); dir && *dir)
        return dir;
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return CACHESCOPE_MODULE_RELDIR;
    std::string dir(exe, size_t(n));
    dir.erase(dir.rfind('/') == std::string::npos ? 0 : dir.rfind('/'));
    return dir + "/" + CACHESCOPE_MODULE_RELDIR;
}

// Loads a module once (never unloaded: its objects and code outlive any
// caller) or throws one sentence naming what to install.
const RemoteModule& module(Backend b, const std::string& location)
{
    static std::mutex mutex;
    static const RemoteModule* loaded[3] = {};
    const std::lock_guard lock(mutex);
    const RemoteModule*& m = loaded[int(b)];
    if (m)
        return *m;
    const ModuleName name = nameOf(b);
    const std::string path = moduleDir() + "/" + name.file;
    const std::string install =
        std::string("install the Debian package ") + CACHESCOPE_MODULE_PACKAGE_PREFIX + name.package;
    if (access(path.c_str(), F_OK) != 0)
        fail(location, std::string(name.what) + " is not installed: there is no " + path + " (" + install + ")");
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        fail(location, std::string(name.what) + " cannot be loaded from " + path + ": " + (why ? why : "dlopen failed") +
                           " (" + install + ")");
    }
    const auto entry = reinterpret_cast<CachescopeRemoteModuleEntry>(dlsym(handle, kRemoteModuleEntry));
    const RemoteModule* found = entry ? entry() : nullptr;
    if (!found || found->abi != kRemoteModuleAbi || std::strcmp(found->version, CACHESCOPE_VERSION) != 0)
        fail(location, path + " is not a module of cachescope " CACHESCOPE_VERSION " (" + install + " " +
                           CACHESCOPE_VERSION ")");
    m = found;
    return *m;
}

} // namespace

bool isPostgresLocation(const std::string& db)
{
    return db.rfind("postgres://", 0) == 0 || db.rfind("postgresql://", 0) == 0 ||
           (db.find("dbname=") != std::string::npos && db.find('=') < db.find('/'));
}

bool isMysqlLocation(const std::string& db) { return db.rfind("mysql://", 0) == 0 || db.rfind("mariadb://", 0) == 0; }

bool isS3Location(const std::string& storage) { return remote::isS3Url(storage); }
bool isGcsLocation(const std::string& storage) { return remote::isGcsUrl(storage); }
bool isBucketLocation(const std::string& storage) { return isS3Location(storage) || isGcsLocation(storage); }

std::unique_ptr<ActionsCatalog> openCatalogAt(const std::string& db, bool writable,
                                              const RemoteCredentials& credentials)
{
    if (isPostgresLocation(db))
        return module(Backend::Postgres, remote::redactConninfo(db)).openCatalog(db, writable, credentials.dbPassword);
    if (isMysqlLocation(db))
        return module(Backend::Mysql, remote::redactConninfo(db)).openCatalog(db, writable, credentials.dbPassword);
    return openSqliteCatalog(db, writable);
}

std::unique_ptr<ActionsStorage> openStorageAt(const std::string& storage, const RemoteOptions& options, Job* job)
{
    // gs:// is GCS's XML API, which speaks S3: the same module.
    if (isBucketLocation(storage)) {
        remote::S3Config config = remote::S3Config::fromLocation(storage, options.endpoint, options.region);
        // Typed-in keys replace the environment's as a set: a typed key id
        // never pairs with a secret of another account from the environment.
        const RemoteCredentials& c = options.credentials;
        if (!c.accessKeyId.empty() || !c.secretAccessKey.empty()) {
            config.accessKeyId = c.accessKeyId;
            config.secretAccessKey = c.secretAccessKey;
            config.sessionToken = c.sessionToken;
        }
        return module(Backend::S3, config.describe()).openStorage(config, job);
    }
    return openFilesystemStorage(storage);
}

} // namespace cs::actions
