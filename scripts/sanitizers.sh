#!/usr/bin/env bash
# The whole ctest suite under a sanitizer preset, in one command:
#   bash scripts/sanitizers.sh asan|tsan [ctest arguments...]
# configures the preset (CMakePresets.json), builds every target and runs
# ctest with the sanitizer options and suppressions of tests/sanitizers/.
# Extra arguments go to ctest (say -R '^tst_shell$' for one test).
#
# A sanitizer report makes the process exit 23, so a test sees a child (the
# CLI or GUI it starts) that was stopped by one as an unexpected exit status.
# ASan, LeakSanitizer and ThreadSanitizer reports also go to files under
# build/<mode>/sanitizer-logs (log_path), where a child's report is not lost
# in stderr the test captured; GCC 12's UBSan inside an ASan build ignores
# log_path and prints to stderr. The run fails when ctest fails or when that
# folder holds any report, and prints the reports.
#
# Environment: CACHESCOPE_JOBS (default 2) build and ctest jobs,
# CACHESCOPE_NICE (default 10) niceness of the build and the run.
# Not part of the default suite: an instrumented build of everything takes
# far longer than the CI budget on 2 cores (docs/reliability.md, Sanitizers).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
[ $# -gt 0 ] && shift
jobs=${CACHESCOPE_JOBS:-2}
niceness=${CACHESCOPE_NICE:-10}
supp=$PWD/tests/sanitizers
build_dir=build/$mode
logs=$PWD/$build_dir/sanitizer-logs

case "$mode" in
asan)
    # LeakSanitizer on; halt on the first UBSan report is the preset's
    # -fno-sanitize-recover=undefined. lsan.supp names only frames of
    # uninstrumented system libraries.
    export ASAN_OPTIONS="detect_leaks=1:exitcode=23:log_path=$logs/asan"
    export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="print_stacktrace=1:exitcode=23"
    ;;
tsan)
    # Every race of a process is reported (halt_on_error=0) and the process
    # still exits 23 at the end; die_after_fork stays on: the tests start
    # their children by fork under TSan (tests/sanitizers/TsanCloneAsFork.cpp).
    # tsan.supp names only frames of the distribution's Qt, which is not
    # built with TSan, each with its reason.
    export TSAN_OPTIONS="exitcode=23:halt_on_error=0:second_deadlock_stack=1:log_path=$logs/tsan:suppressions=$supp/tsan.supp"
    ;;
*)
    echo "usage: bash scripts/sanitizers.sh asan|tsan [ctest arguments...]" >&2
    exit 2
    ;;
esac
export QT_QPA_PLATFORM=offscreen
# Qt Test stops a test function after 5 minutes; instrumented test functions
# run up to 15 times longer (ctest's own limit is the build's, 1800 s).
export QTEST_FUNCTION_TIMEOUT=1800000

nice -n "$niceness" cmake --preset "$mode" >/dev/null
nice -n "$niceness" cmake --build "$build_dir" -j "$jobs"

rm -rf "$logs"
mkdir -p "$logs"
status=0
nice -n "$niceness" ctest --test-dir "$build_dir" -j "$jobs" --timeout 1800 --output-on-failure "$@" || status=$?

# A file that holds nothing but LeakSanitizer's "Unable to get registers from
# thread N." lines is not a report: the process was SIGKILLed (tst_crash_harness
# kills CLI children at random moments) while its exit-time leak check was
# suspending its threads, so the check stopped and found nothing. List such
# files as notes; any other line in a file makes it a report.
tracer_note='^==[0-9]+==Unable to get registers from thread [0-9]+\.$'
reports=
while read -r f; do
    [ -n "$f" ] || continue
    if ! grep -Evq "$tracer_note" "$f"; then
        echo "sanitizers.sh: note: $f holds only LeakSanitizer tracer lines (process killed during its leak check):" >&2
        cat "$f" >&2
        continue
    fi
    reports+="$f"$'\n'
done < <(find "$logs" -type f -size +0 | sort)
reports=${reports%$'\n'}
if [ -n "$reports" ]; then
    echo "sanitizers.sh: $(wc -l <<<"$reports") sanitizer report(s) in $logs:" >&2
    while read -r f; do
        echo "==== $f" >&2
        cat "$f" >&2
    done <<<"$reports"
    [ "$status" -eq 0 ] && status=1
fi
[ "$status" -eq 0 ] && echo "sanitizers.sh: $mode: ctest passed, no sanitizer report"
exit "$status"
