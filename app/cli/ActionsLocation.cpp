#include "ActionsLocation.h"

namespace cli {

LocationOptions addLocationOptions(CLI::App* c, std::string& db, std::string& storage, std::string& endpoint,
                                   std::string& region)
{
    LocationOptions o;
    o.db = c->add_option("--db", db,
                         "The server's SQLite file (default DATA_DIR/sqlite.db), or its PostgreSQL database "
                         "(postgres://USER@HOST:PORT/DB; the password from PGPASSWORD or ~/.pgpass), or its "
                         "MySQL/MariaDB database (mysql://USER@HOST:PORT/DB or "
                         "mysql://USER@localhost/DB?socket=PATH; the password from MYSQL_PWD)")
               ->type_name("PATH|URL");
    o.storage = c->add_option("--storage", storage,
                              "The storage folder (default DATA_DIR/storage/filesystem, else DATA_DIR/storage), "
                              "or its S3 bucket (s3://BUCKET[/ROOT]; credentials from AWS_ACCESS_KEY_ID and "
                              "AWS_SECRET_ACCESS_KEY), or its Google Cloud Storage bucket (gs://BUCKET[/ROOT], "
                              "through GCS's XML API; an HMAC key from GOOGLE_HMAC_ACCESS_ID and GOOGLE_HMAC_SECRET)")
                    ->type_name("PATH|URL");
    c->add_option("--endpoint", endpoint, "S3 endpoint URL for MinIO, Ceph, R2 (default AWS_ENDPOINT_URL, else AWS; "
                                    "gs://: https://storage.googleapis.com)")
        ->type_name("URL");
    c->add_option("--region", region, "S3 region (default AWS_REGION, else us-east-1; gs://: auto)")->type_name("REGION");
    return o;
}

} // namespace cli
