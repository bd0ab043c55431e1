// The server's MySQL schema for tests and benchmarks (no Qt Test needed).
#pragma once
#include "core/remote/MysqlConnection.h"

#include <string>

namespace testsupport {

// The server's MySQL tables as kysely's MySQL dialect writes them for
// migrations $0..$3 (lib/migrations.ts, driver 'mysql': varchar(36) ids,
// varchar(512) keys, varchar(255) versions, scopes and repo ids; the inline
// REFERENCES, which MariaDB 10.5+ makes a foreign key), with kysely's
// Migrator tables beside them.
inline const char* const kMysqlSchema = R"(
create table if not exists `kysely_migration` (`name` varchar(255) not null primary key, `timestamp` varchar(255) not null);
create table if not exists `kysely_migration_lock` (`id` varchar(255) not null primary key, `is_locked` integer default 0 not null);
insert into `kysely_migration_lock` (`id`, `is_locked`) values ('migration_lock', 0);
create table `storage_locations` (`id` varchar(36) primary key, `folderName` text not null, `partCount` integer not null, `mergeStartedAt` bigint, `mergedAt` bigint, `partsDeletedAt` bigint, `lastDownloadedAt` bigint);
create table `cache_entries` (`id` varchar(36) primary key, `key` varchar(512) not null, `version` varchar(255) not null, `updatedAt` bigint not null, `locationId` varchar(36) not null references `storage_locations` (`id`) on delete cascade);
create table `uploads` (`id` bigint primary key, `key` varchar(512) not null, `version` varchar(255) not null, `createdAt` bigint not null, `lastPartUploadedAt` bigint, `folderName` text not null);
create index `idx_cache_entries_key_version` on `cache_entries` (`key`, `version`);
create index `idx_uploads_key_version` on `uploads` (`key`, `version`);
alter table `uploads` add column `finishedPartUploadCount` integer default 0 not null;
alter table `uploads` add column `startedPartUploadCount` integer default 0 not null;
alter table `cache_entries` add column `scope` varchar(255) not null;
create index `idx_cache_entries_scope` on `cache_entries` (`scope`);
alter table `uploads` add column `scope` varchar(255) not null;
create index `idx_uploads_scope` on `uploads` (`scope`);
alter table `cache_entries` add column `repoId` varchar(255) not null;
create index `idx_cache_entries_repoId` on `cache_entries` (`repoId`);
alter table `uploads` add column `repoId` varchar(255) not null;
create index `idx_uploads_repoId` on `uploads` (`repoId`);
insert into `kysely_migration` (`name`, `timestamp`) values ('$0_init', '2025-01-01T00:00:00.000Z'), ('$1_upload_part_counts', '2025-01-01T00:00:00.000Z'), ('$2_scopes', '2025-01-01T00:00:00.000Z'), ('$3_repoId', '2025-01-01T00:00:00.000Z');
)";

inline void createMysqlSchema(cs::remote::MysqlConnection& my)
{
    const std::string all = kMysqlSchema;
    for (size_t start = 0; start < all.size();) {
        size_t end = all.find(";\n", start);
        if (end == std::string::npos)
            end = all.size();
        const std::string statement = all.substr(start, end - start);
        start = end + 2;
        if (statement.find_first_not_of(" \n") != std::string::npos)
            my.exec(statement);
    }
}

} // namespace testsupport
