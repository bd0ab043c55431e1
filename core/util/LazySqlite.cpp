// The SQLite functions of the core (Sqlite.cpp, and the GUI's About box),
// from libsqlite3.so.0 opened on the first call (core/util/LazyLibrary.h):
// `--version`, `frames` and the other commands that open no catalog never
// map SQLite nor pay its relocations. The calls per row (step, column_*)
// cost one initialised-static check more than a PLT call.
#include "core/util/LazyLibrary.h"

#include <sqlite3.h>

namespace {
constexpr cs::LazyLibrary kSqlite{"libsqlite3.so.0", "libsqlite3-0"};
}

CS_LAZY_FUNCTION(kSqlite, const char*, sqlite3_libversion, (void), ())
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_open_v2, (const char* filename, sqlite3** db, int flags, const char* vfs),
                 (filename, db, flags, vfs))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_close, (sqlite3 * db), (db))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_busy_timeout, (sqlite3 * db, int ms), (db, ms))
CS_LAZY_FUNCTION(kSqlite, const char*, sqlite3_errmsg, (sqlite3 * db), (db))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_extended_errcode, (sqlite3 * db), (db))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_exec,
                 (sqlite3 * db, const char* sql, int (*callback)(void*, int, char**, char**), void* arg,
                  char** errmsg),
                 (db, sql, callback, arg, errmsg))
CS_LAZY_FUNCTION(kSqlite, void, sqlite3_free, (void* p), (p))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_changes, (sqlite3 * db), (db))
CS_LAZY_FUNCTION(kSqlite, sqlite3_int64, sqlite3_last_insert_rowid, (sqlite3 * db), (db))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_file_control, (sqlite3 * db, const char* name, int op, void* arg),
                 (db, name, op, arg))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_wal_checkpoint_v2,
                 (sqlite3 * db, const char* name, int mode, int* log, int* checkpointed),
                 (db, name, mode, log, checkpointed))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_prepare_v2,
                 (sqlite3 * db, const char* sql, int bytes, sqlite3_stmt** stmt, const char** tail),
                 (db, sql, bytes, stmt, tail))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_finalize, (sqlite3_stmt * stmt), (stmt))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_reset, (sqlite3_stmt * stmt), (stmt))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_clear_bindings, (sqlite3_stmt * stmt), (stmt))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_step, (sqlite3_stmt * stmt), (stmt))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_bind_null, (sqlite3_stmt * stmt, int i), (stmt, i))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_bind_int64, (sqlite3_stmt * stmt, int i, sqlite3_int64 v), (stmt, i, v))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_bind_double, (sqlite3_stmt * stmt, int i, double v), (stmt, i, v))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_bind_text64,
                 (sqlite3_stmt * stmt, int i, const char* text, sqlite3_uint64 bytes, void (*destructor)(void*),
                  unsigned char encoding),
                 (stmt, i, text, bytes, destructor, encoding))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_bind_blob64,
                 (sqlite3_stmt * stmt, int i, const void* data, sqlite3_uint64 bytes, void (*destructor)(void*)),
                 (stmt, i, data, bytes, destructor))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_column_type, (sqlite3_stmt * stmt, int i), (stmt, i))
CS_LAZY_FUNCTION(kSqlite, int, sqlite3_column_bytes, (sqlite3_stmt * stmt, int i), (stmt, i))
CS_LAZY_FUNCTION(kSqlite, sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt * stmt, int i), (stmt, i))
CS_LAZY_FUNCTION(kSqlite, double, sqlite3_column_double, (sqlite3_stmt * stmt, int i), (stmt, i))
CS_LAZY_FUNCTION(kSqlite, const unsigned char*, sqlite3_column_text, (sqlite3_stmt * stmt, int i), (stmt, i))
CS_LAZY_FUNCTION(kSqlite, const void*, sqlite3_column_blob, (sqlite3_stmt * stmt, int i), (stmt, i))
