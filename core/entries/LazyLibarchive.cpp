// The libarchive functions of EntryContents.cpp, from libarchive.so.13
// opened on the first tar walked (core/util/LazyLibrary.h): libarchive and
// the ten libraries it pulls in (libxml2, ICU, nettle, ...) are no longer
// mapped by every start of the programs, only by the commands that read an
// entry's contents.
#include "core/util/LazyLibrary.h"

#include <archive.h>
#include <archive_entry.h>

namespace {
constexpr cs::LazyLibrary kLibarchive{"libarchive.so.13", "libarchive13"};
}

CS_LAZY_FUNCTION(kLibarchive, struct archive*, archive_read_new, (void), ())
CS_LAZY_FUNCTION(kLibarchive, int, archive_read_support_format_tar, (struct archive * a), (a))
CS_LAZY_FUNCTION(kLibarchive, int, archive_read_support_filter_gzip, (struct archive * a), (a))
CS_LAZY_FUNCTION(kLibarchive, int, archive_read_free, (struct archive * a), (a))
CS_LAZY_FUNCTION(kLibarchive, int, archive_read_open,
                 (struct archive * a, void* data, archive_open_callback* open, archive_read_callback* read,
                  archive_close_callback* close),
                 (a, data, open, read, close))
CS_LAZY_FUNCTION(kLibarchive, int, archive_read_next_header, (struct archive * a, struct archive_entry** e), (a, e))
CS_LAZY_FUNCTION(kLibarchive, int, archive_read_data_block,
                 (struct archive * a, const void** buff, size_t* size, la_int64_t* offset), (a, buff, size, offset))
CS_LAZY_FUNCTION(kLibarchive, int, archive_read_data_skip, (struct archive * a), (a))
CS_LAZY_FUNCTION(kLibarchive, la_int64_t, archive_filter_bytes, (struct archive * a, int n), (a, n))
CS_LAZY_FUNCTION(kLibarchive, const char*, archive_error_string, (struct archive * a), (a))
CS_LAZY_FUNCTION(kLibarchive, __LA_MODE_T, archive_entry_filetype, (struct archive_entry * e), (e))
CS_LAZY_FUNCTION(kLibarchive, __LA_MODE_T, archive_entry_perm, (struct archive_entry * e), (e))
CS_LAZY_FUNCTION(kLibarchive, const char*, archive_entry_hardlink, (struct archive_entry * e), (e))
CS_LAZY_FUNCTION(kLibarchive, const char*, archive_entry_symlink, (struct archive_entry * e), (e))
CS_LAZY_FUNCTION(kLibarchive, const char*, archive_entry_pathname, (struct archive_entry * e), (e))
CS_LAZY_FUNCTION(kLibarchive, time_t, archive_entry_mtime, (struct archive_entry * e), (e))
CS_LAZY_FUNCTION(kLibarchive, la_int64_t, archive_entry_size, (struct archive_entry * e), (e))
CS_LAZY_FUNCTION(kLibarchive, int, archive_entry_size_is_set, (struct archive_entry * e), (e))
