// The server's other deployments: catalog in PostgreSQL (DB_DRIVER=postgres)
// or MySQL/MariaDB (DB_DRIVER=mysql) and storage in an S3-compatible bucket
// (STORAGE_DRIVER=s3) or a Google Cloud Storage one (STORAGE_DRIVER=gcs,
// through GCS's XML API with an HMAC key), behind the
// same ActionsCatalog/ActionsStorage interfaces as the SQLite + filesystem
// data dir, and a chooser that opens whichever a location names.
//
// The remote backends are shared modules (RemoteModule.h): openCatalogAt and
// openStorageAt (RemoteBackends.cpp) load the one a location names on first
// use. openPostgresCatalog, openMysqlCatalog and openS3Storage are defined in
// the modules' code: the programs never call them (they do not link them),
// only the tests that link a backend's static library, cs_remote_<name>.
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

// The server's S3 adapter keeps every object below this key prefix.
constexpr const char* kServerKeyPrefix = "gh-actions-cache";

// conninfo: postgres://USER@HOST:PORT/DB (password from the URL, PGPASSWORD
// or ~/.pgpass) or libpq key=value pairs. Reads run in READ ONLY
// transactions; writes need writable. Throws naming the database (never the
// password) when it cannot connect or the tables are not the v9 shape.
// password (typed in) overrides the URL's, PGPASSWORD and ~/.pgpass when set.
std::unique_ptr<ActionsCatalog> openPostgresCatalog(const std::string& conninfo, bool writable,
                                                    const std::string& password = {});
// url: mysql://USER@HOST[:PORT]/DB or mysql://USER@localhost/DB?socket=PATH
// (core/remote/MysqlConnection.h), password from MYSQL_PWD unless typed in
// (password); a URL with a password is refused. Reads run on READ ONLY
// sessions in READ ONLY transactions; writes need writable. Throws naming
// the database (never the password) when it cannot connect or the tables
// are not the v9 shape.
std::unique_ptr<ActionsCatalog> openMysqlCatalog(const std::string& url, bool writable,
                                                 const std::string& password = {});
// S3 or GCS (config.scheme "gs"). config.prefix replaces the server's
// "gh-actions-cache" root when set. The
// bucket check it makes (one listing) can be cancelled through job.
std::unique_ptr<ActionsStorage> openS3Storage(const remote::S3Config& config, Job* job = nullptr);

bool isPostgresLocation(const std::string& db);   // postgres:// or postgresql:// or "host=... dbname=..."
bool isMysqlLocation(const std::string& db);      // mysql:// or mariadb://
bool isS3Location(const std::string& storage);    // s3://
bool isGcsLocation(const std::string& storage);   // gs://
bool isBucketLocation(const std::string& storage); // either: storage in a bucket, not a folder

struct RemoteOptions {
    std::string endpoint;   // S3 endpoint URL (else AWS_ENDPOINT_URL, else AWS's); GCS: else storage.googleapis.com
    std::string region;     // else AWS_REGION; GCS: else 'auto'
    RemoteCredentials credentials;   // typed-in secrets; empty ones from the environment
};

// Opens the catalog and storage a user named: PostgreSQL, MySQL or SQLite, S3, GCS or a
// folder, in any combination the server supports. Typed-in keys
// (RemoteOptions::credentials) serve S3 and GCS alike (GCS: the HMAC key).
std::unique_ptr<ActionsCatalog> openCatalogAt(const std::string& db, bool writable,
                                              const RemoteCredentials& credentials = {});
std::unique_ptr<ActionsStorage> openStorageAt(const std::string& storage, const RemoteOptions& options,
                                              Job* job = nullptr);

} // namespace cs::actions
