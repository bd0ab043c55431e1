#!/bin/bash
# Refreshes the user guide's screenshots (docs/screenshots/*.png) with one
# command: builds the GUI and the tour program, makes the demo data in a temp
# folder (cachescope-cli demo) and visits every view under Xvfb, at
# 1400x900 in the default style and a fixed font, with the user's own
# settings and history out of the way.
#   bash scripts/screenshots.sh [BUILD_DIR]     (default build/dev)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build/dev}
command -v xvfb-run >/dev/null || { echo "screenshots.sh: xvfb-run is not installed (apt-get install xvfb)" >&2; exit 1; }
[ -f "$build/CMakeCache.txt" ] || cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" --target cachescope-cli cachescope cachescope_screenshot_tour

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cachescope-screenshots.XXXXXX")
# The demo lives at a fixed, neutral path: it is shown in the pictures.
demo=/tmp/cachescope-demo
if [ -e "$demo" ] && [ ! -f "$demo/.complete" ]; then
  echo "screenshots.sh: $demo exists and is not a cachescope demo folder; move it away" >&2
  exit 1
fi
trap 'rm -rf "$tmp" "$demo"' EXIT
rm -rf "$demo"
"$build/app/cachescope-cli" demo "$demo" >/dev/null
mkdir -p "$tmp/shots" "$tmp/home"
# A home of its own: no settings, recent files or benchmark history of the user.
HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_DATA_HOME="$tmp/home/.local/share" \
  QT_QPA_PLATFORMTHEME= QT_STYLE_OVERRIDE=Fusion \
  xvfb-run -a -s '-screen 0 1600x1000x24 -dpi 96' \
  "$build/tests/cachescope_screenshot_tour" "$demo" "$tmp/shots"
mkdir -p "$repo/docs/screenshots"
cp "$tmp"/shots/*.png "$repo/docs/screenshots/"
ls -l "$repo"/docs/screenshots/*.png
