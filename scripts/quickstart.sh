#!/usr/bin/env bash
# One entry point for the README's two commands:
#   bash scripts/quickstart.sh run    set up, build, make the demo data, open the GUI
#   bash scripts/quickstart.sh test   set up, build, run the whole test suite (ctest)
# Idempotent: packages already installed are not touched and an up-to-date
# build does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-run}
build_dir=${CACHESCOPE_BUILD_DIR:-build/dev}
jobs=$(nproc 2>/dev/null || echo 2)

packages=(cmake ninja-build g++ pkg-config ccache
          qt6-base-dev qt6-svg-dev libqcustomplot-dev libgl-dev
          libzstd-dev zstd libsqlite3-dev sqlite3 libssl-dev xvfb xauth fonts-dejavu-core
          libcli11-dev nlohmann-json3-dev locales zsh groff-base
          libpq-dev libcurl4-openssl-dev postgresql-15 libarchive-dev
          libmariadb-dev mariadb-server
          clang libfuzzer-14-dev libclang-rt-14-dev
          help2man lintian appstream desktop-file-utils dpkg-dev file
          restic borgbackup)

install_packages() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    # Node.js and npm (for s3rver) come from Debian only when the machine has
    # none: a Node.js from elsewhere (NodeSource's nodejs bundles npm) conflicts
    # with Debian's npm package, and apt then refuses the whole install.
    command -v node >/dev/null 2>&1 || missing+=(nodejs)
    command -v npm >/dev/null 2>&1 || missing+=(npm)
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "quickstart: installing ${missing[*]}"
    local sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() {
    if [ ! -f "$build_dir/CMakeCache.txt" ]; then
        cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    fi
    cmake --build "$build_dir" -j "$jobs"
}

# The S3-compatible server the tests of the S3 backend start (from npm; it
# checks the access key id but not signatures, so signing stays libcurl's).
install_s3rver() {
    local dir=${HOME}/.cache/cachescope/npm
    [ -x "$dir/node_modules/.bin/s3rver" ] && return 0
    echo "quickstart: installing s3rver (npm) into $dir"
    mkdir -p "$dir"
    npm install --no-audit --no-fund --loglevel=error --prefix "$dir" s3rver@3.7.1 >/dev/null
}

install_packages
install_s3rver
build

case "$mode" in
run)
    data_dir=${XDG_DATA_HOME:-$HOME/.local/share}/cachescope/demo
    "$build_dir/app/cachescope-cli" demo "$data_dir"
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
        echo "quickstart: no display; to run under Xvfb: xvfb-run -a $build_dir/app/cachescope $data_dir/store $data_dir/*.zst"
        exit 0
    fi
    exec "$build_dir/app/cachescope" "$data_dir/store" "$data_dir"/*.zst
    ;;
test)
    export QT_QPA_PLATFORM=offscreen
    ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" --timeout 900
    ;;
*)
    echo "usage: bash scripts/quickstart.sh run|test" >&2
    exit 2
    ;;
esac
