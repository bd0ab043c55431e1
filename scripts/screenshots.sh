#!/bin/bash
# Refreshes the user guide's screenshots (docs/screenshots/*.png) with one
# command: builds the GUI and the tour program, makes the demo data in a temp
# folder (cachescope-cli demo) and visits every view under Xvfb, at
# 1400x900 in the default style and a fixed font, with the user's own
# settings and history out of the way.
#   bash scripts/screenshots.sh [BUILD_DIR]     (default build/dev)
# With SCREENSHOT_DISPLAY=N the tour runs on an Xvfb started here on display
# :N (for a machine shared by several people); otherwise xvfb-run picks one.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build/dev}
command -v xvfb-run >/dev/null || { echo "screenshots.sh: xvfb-run is not installed (apt-get install xvfb)" >&2; exit 1; }
display=${SCREENSHOT_DISPLAY:-}
[ -f "$build/CMakeCache.txt" ] || cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" --target cachescope-cli cachescope cachescope_screenshot_tour

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cachescope-screenshots.XXXXXX")
# The demo lives at a fixed, neutral path: it is shown in the pictures.
demo=/tmp/cachescope-demo
if [ -e "$demo" ] && [ ! -f "$demo/.complete" ]; then
  echo "screenshots.sh: $demo exists and is not a cachescope demo folder; move it away" >&2
  exit 1
fi
xvfb_pid=
trap 'rm -rf "$tmp" "$demo"; [ -z "$xvfb_pid" ] || kill "$xvfb_pid"' EXIT
rm -rf "$demo"
"$build/app/cachescope-cli" demo "$demo" >/dev/null
mkdir -p "$tmp/shots" "$tmp/home"
# A home of its own: no settings, recent files or benchmark history of the user.
run_tour() {
  HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_DATA_HOME="$tmp/home/.local/share" \
    QT_QPA_PLATFORMTHEME= QT_STYLE_OVERRIDE=Fusion "$@" \
    "$build/tests/cachescope_screenshot_tour" "$demo" "$tmp/shots"
}
if [ -n "$display" ]; then
  [ ! -e "/tmp/.X11-unix/X$display" ] || { echo "screenshots.sh: display :$display is in use" >&2; exit 1; }
  Xvfb ":$display" -screen 0 1600x1000x24 -dpi 96 -nolisten tcp >/dev/null 2>&1 &
  xvfb_pid=$!
  for _ in $(seq 100); do [ -e "/tmp/.X11-unix/X$display" ] && break; sleep 0.1; done
  run_tour env DISPLAY=":$display" QT_QPA_PLATFORM=xcb
else
  run_tour xvfb-run -a -s '-screen 0 1600x1000x24 -dpi 96'
fi
mkdir -p "$repo/docs/screenshots"
cp "$tmp"/shots/*.png "$repo/docs/screenshots/"
ls -l "$repo"/docs/screenshots/*.png
