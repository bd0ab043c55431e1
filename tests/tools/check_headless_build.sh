#!/usr/bin/env bash
# The headless server build: CACHESCOPE_BUILD_GUI=OFF configures without Qt
# Widgets, Gui, Svg, PrintSupport and QCustomPlot, defines no GUI target,
# and builds cachescope-cli and a core test that run without any of them.
# Usage: check_headless_build.sh SOURCE_DIR BUILD_DIR   (ctest: headless_build)
set -euo pipefail
src=$1
build=$2
fail() { echo "headless build: $*" >&2; exit 1; }

# Build type "HeadlessCheck" has no flags of its own (-O0, no -g): this
# checks that the headless configuration builds and runs, not its speed, and
# objects without optimisation or debug info compile faster (a clean CI
# machine compiles the core twice: here and in the main build).
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=HeadlessCheck -DCACHESCOPE_BUILD_GUI=OFF >"$build.configure.log" 2>&1 \
    || { cat "$build.configure.log" >&2; fail "configure failed (log above)"; }

# No GUI package was looked for.
for pkg in Qt6Widgets Qt6Gui Qt6Svg Qt6PrintSupport QCustomPlotQt6; do
    if grep -q "^${pkg}_DIR:PATH=.*[^-]NOTFOUND\|^${pkg}_DIR:PATH=/" "$build/CMakeCache.txt"; then
        fail "configure looked for $pkg ($(grep "^${pkg}_DIR" "$build/CMakeCache.txt"))"
    fi
done

targets=$(ninja -C "$build" -t targets all | sed 's/:.*//')
for want in cachescope-cli tst_store_roundtrip tst_store_readonly tst_util_output fuzz_frames_replay; do
    grep -qx "$want" <<<"$targets" || fail "target $want is missing"
done
for unwanted in cachescope cachescope_ui tst_bench tst_store_document tst_shell cachescope_screenshot_tour cachescope_render_icon; do
    if grep -qx "$unwanted" <<<"$targets"; then
        fail "target $unwanted is defined (it needs the GUI)"
    fi
done
if grep -qE 'libQt6(Widgets|Gui|Svg|PrintSupport)|qcustomplot' "$build/build.ninja"; then
    fail "build.ninja links a GUI library: $(grep -oE 'libQt6(Widgets|Gui|Svg|PrintSupport)[^ ]*|[^ ]*qcustomplot[^ ]*' "$build/build.ninja" | sort -u | head -3 | tr '\n' ' ')"
fi

cmake --build "$build" --target cachescope-cli tst_util_output >"$build.build.log" 2>&1 \
    || { tail -40 "$build.build.log" >&2; fail "build failed (log above)"; }
"$build/app/cachescope-cli" --version >/dev/null || fail "cachescope-cli --version failed"
if ldd "$build/app/cachescope-cli" "$build/tests/tst_util_output" | grep -qE 'libQt6(Widgets|Gui)'; then
    fail "a headless binary loads Qt Widgets or Gui"
fi
QT_QPA_PLATFORM=offscreen "$build/tests/tst_util_output" >"$build.test.log" 2>&1 \
    || { cat "$build.test.log" >&2; fail "tst_util_output failed in the headless build"; }
echo "headless build: configured without the GUI packages; cachescope-cli and tst_util_output built and ran"
