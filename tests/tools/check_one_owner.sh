#!/usr/bin/env bash
# One owner per concern (docs: DESIGN.md, CONVENTIONS.md; issue 23), checked
# in the code of core/, ui/ and app/ (tests open files and databases on their
# own on purpose: they check the owners against an independent reader):
#  - a store's file names (catalog.db, pack/, parts/) are spelled only by
#    core/store/StoreLayout, which opens them without following links;
#  - sqlite3_open is called only by the SQLite layer, core/util/Sqlite.cpp
#    (core/util/LazySqlite.cpp defines it, forwarding to libsqlite3);
#  - the GUI's jobs hand back typed results and outcomes (ui/jobs): no
#    std::any or any_cast in ui/, no comparison with the string "cancelled".
# A line that is a comment does not count. Prose naming a file ("restore
# catalog.db from a backup") is a string with spaces and does not count.
# Usage: check_one_owner.sh SOURCE_DIR   (ctest: one_owner_per_concern)
set -euo pipefail
cd "$1"
failed=0

# check NAME OWNER-SENTENCE PATTERN FOLDERS... [-- EXCLUDED-PATH-REGEX]
check() {
    local name=$1 owner=$2 pattern=$3
    shift 3
    local folders=() exclude='^$'
    while [ $# -gt 0 ]; do
        if [ "$1" = -- ]; then exclude=$2; break; fi
        folders+=("$1")
        shift
    done
    local found
    found=$(grep -rnE --include='*.cpp' --include='*.h' "$pattern" "${folders[@]}" \
        | grep -vE '^[^:]+:[0-9]+:\s*//' | grep -vE "$exclude" || true)
    if [ -n "$found" ]; then
        echo "one_owner_per_concern: $name outside its owner ($owner):" >&2
        echo "$found" >&2
        failed=1
    else
        echo "one_owner_per_concern: no $name outside $owner"
    fi
}

# "catalog.db", "/catalog.db", "x/catalog.db-wal"; "/pack", "pack/...",
# dir.file("pack"), path / "pack"; the same for parts (but in
# core/actions-cache and core/entries: a cache server's
# <folderName>/parts/<i> is its own layout, ActionsStorage's, not a store's).
store_names='"[^" ]*catalog\.db[^" ]*"|"/(pack|parts)(/[^" ]*)?"|"(pack|parts)/[^" ]*"'
store_names+='|\b(file|filePath|pathOf|sub|trySub|subOrCreate|kindOf|open)\("(pack|parts)"|/ *"(pack|parts)"'
check "store file name" "core/store/StoreLayout" "$store_names" core ui app \
    -- '^core/store/StoreLayout\.(h|cpp):|^core/(actions-cache|entries)/[^:]+:[0-9]+:.*"/?parts'
check "sqlite3_open" "core/util/Sqlite.cpp" 'sqlite3_open' core ui app -- '^core/util/(Sqlite|LazySqlite)\.cpp:'

check "std::any or any_cast" "typed job results (ui/jobs)" 'std::any\b|any_cast' ui
# A job's outcome is JobOutcome (ui/jobs), never its message compared with "cancelled".
check 'comparison with "cancelled"' "the typed job outcome (ui/jobs)" \
    '[!=]=\s*(QLatin1String|QStringLiteral|QString|std::string)?\(?\s*"cancelled"|"cancelled"\s*\)?\s*[!=]=' ui app

exit $failed
