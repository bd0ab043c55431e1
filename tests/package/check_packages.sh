#!/bin/bash
# Builds the packages from this build (cpack) and checks them as a user's
# system would see them:
#   - two Debian-named .debs (cachescope-cli_V-R_ARCH.deb, cachescope_V-R_ARCH.deb)
#     and a .tar.gz;
#   - the CLI package pulls in no Qt Widgets/GUI library; the GUI package
#     depends on the CLI package and recommends zstd;
#   - each .deb extracted with dpkg -x: every binary's libraries resolve
#     (ldd), both programs run --version from there, the icon files the
#     desktop file names exist;
#   - lintian reports no error; desktop-file-validate and
#     appstreamcli validate-tree pass on the extracted tree.
# Usage: check_packages.sh BUILD_DIR VERSION
set -u
build=$1
version=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in cpack dpkg-deb lintian desktop-file-validate appstreamcli ldd; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/quickstart.sh installs it)"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/cachescope-packages.XXXXXX") || fail "cannot make a temp folder"
trap 'rm -rf "$work"' EXIT
cd "$build" || fail "no build folder $build"
cpack --config "$build/CPackConfig.cmake" -G "DEB;TGZ" -B "$work/out" >"$work/cpack.log" 2>&1 \
  || { cat "$work/cpack.log" >&2; fail "cpack failed"; }

arch=$(dpkg --print-architecture)
cli_deb="$work/out/cachescope-cli_${version}-1_${arch}.deb"
gui_deb="$work/out/cachescope_${version}-1_${arch}.deb"
[ -f "$cli_deb" ] || { ls "$work/out" >&2; fail "no $(basename "$cli_deb")"; }
[ -f "$gui_deb" ] || { ls "$work/out" >&2; fail "no $(basename "$gui_deb")"; }
ls "$work/out"/*.tar.gz >/dev/null 2>&1 || fail "no .tar.gz"
tar -tzf "$work"/out/*.tar.gz | grep -q 'bin/cachescope-cli$' || fail "the .tar.gz has no bin/cachescope-cli"
tar -tzf "$work"/out/*.tar.gz | grep -q 'bin/cachescope$' || fail "the .tar.gz has no bin/cachescope"

field() { dpkg-deb -f "$1" "$2"; }
[ "$(field "$cli_deb" Package)" = cachescope-cli ] || fail "cli package name"
[ "$(field "$gui_deb" Package)" = cachescope ] || fail "gui package name"
field "$gui_deb" Depends | grep -q "cachescope-cli (= ${version}-1)" \
  || fail "cachescope does not depend on cachescope-cli (= ${version}-1): $(field "$gui_deb" Depends)"
for deb in "$cli_deb" "$gui_deb"; do
  field "$deb" Recommends | grep -qw zstd || fail "$(basename "$deb") does not recommend zstd"
  field "$deb" Maintainer | grep -q '<.*@.*>' || fail "$(basename "$deb"): Maintainer has no address"
done
if field "$cli_deb" Depends | grep -Eqi 'libqt6|qcustomplot'; then
  fail "cachescope-cli depends on Qt: $(field "$cli_deb" Depends)"
fi
# The remote backends are packages of their own, each one module that
# depends on its library and on this build's cachescope-cli; the CLI package
# depends on none of those libraries.
if field "$cli_deb" Depends | grep -Eqi 'libpq|libmariadb|libcurl'; then
  fail "cachescope-cli depends on a remote backend's library: $(field "$cli_deb" Depends)"
fi
# The libraries opened on first use (core/util/LazyLibrary.h) are in no ELF
# dependency, so shlibdeps cannot find them: the package names each.
for lazy in libarchive13 libssl3 libsqlite3-0; do
  field "$cli_deb" Depends | grep -qw "$lazy" \
    || fail "cachescope-cli does not depend on $lazy (opened on first use): $(field "$cli_deb" Depends)"
done
module_debs=()
for backend in postgres:libpq mysql:libmariadb s3:libcurl; do
  name=${backend%%:*}
  deb="$work/out/cachescope-${name}_${version}-1_${arch}.deb"
  [ -f "$deb" ] || { ls "$work/out" >&2; fail "no $(basename "$deb")"; }
  field "$deb" Depends | grep -q "cachescope-cli (= ${version}-1)" \
    || fail "$(basename "$deb") does not depend on cachescope-cli (= ${version}-1)"
  field "$deb" Depends | grep -q "${backend#*:}" || fail "$(basename "$deb") does not depend on ${backend#*:}"
  dpkg-deb -c "$deb" | grep -q "/cachescope/cachescope-${name}.so$" || fail "$(basename "$deb") has no cachescope-${name}.so"
  field "$cli_deb" Recommends | grep -qw "cachescope-${name}" || fail "cachescope-cli does not recommend cachescope-${name}"
  module_debs+=("$deb")
done

for deb in "$cli_deb" "$gui_deb"; do
  root="$work/root-$(field "$deb" Package)"
  dpkg -x "$deb" "$root" || fail "dpkg -x $(basename "$deb")"
  for bin in "$root"/usr/bin/*; do
    out=$(ldd "$bin" 2>&1) || fail "ldd $bin: $out"
    if grep -q 'not found' <<<"$out"; then fail "$(basename "$bin"): $(grep 'not found' <<<"$out")"; fi
    file -b "$bin" | grep -q 'not stripped' && fail "$(basename "$bin") is not stripped"
  done
done
cli_root="$work/root-cachescope-cli"
gui_root="$work/root-cachescope"
if ldd "$cli_root/usr/bin/cachescope-cli" | grep -i 'libqt'; then fail "cachescope-cli loads Qt"; fi
v=$("$cli_root/usr/bin/cachescope-cli" --version 2>&1) || fail "cachescope-cli --version: $v"
grep -q "$version" <<<"$v" || fail "cachescope-cli --version says '$v', not $version"
# Without the module package a MySQL location says what to install; with it
# extracted beside the tool, the module loads (and the refused connection is
# the error).
v=$("$cli_root/usr/bin/cachescope-cli" actions-cache ls --db mysql://u@127.0.0.1:1/x --storage "$work" 2>&1)
grep -q "install the Debian package cachescope-mysql" <<<"$v" || fail "a missing module says '$v'"
for deb in "${module_debs[@]}"; do dpkg -x "$deb" "$cli_root" || fail "dpkg -x $(basename "$deb")"; done
for so in $(find "$cli_root/usr/lib" -name "cachescope-*.so"); do
  out=$(ldd "$so" 2>&1) || fail "ldd $so: $out"
  if grep -q 'not found' <<<"$out"; then fail "$(basename "$so"): $(grep 'not found' <<<"$out")"; fi
done
v=$("$cli_root/usr/bin/cachescope-cli" actions-cache ls --db mysql://u@127.0.0.1:1/x --storage "$work" 2>&1)
grep -q "not installed\|cannot be loaded" <<<"$v" && fail "the extracted cachescope-mysql module does not load: $v"
v=$(QT_QPA_PLATFORM=offscreen "$gui_root/usr/bin/cachescope" --version 2>&1) || fail "cachescope --version: $v"
grep -q "$version" <<<"$v" || fail "cachescope --version says '$v', not $version"

desktop="$gui_root/usr/share/applications/org.cachescope.cachescope.desktop"
[ -f "$desktop" ] || fail "no desktop file org.cachescope.cachescope.desktop"
desktop-file-validate "$desktop" || fail "desktop-file-validate"
icon=$(sed -n 's/^Icon=//p' "$desktop")
[ -f "$gui_root/usr/share/icons/hicolor/scalable/apps/$icon.svg" ] || fail "no scalable icon $icon.svg"
for size in 16 24 32 48 64 128 256; do
  png="$gui_root/usr/share/icons/hicolor/${size}x${size}/apps/$icon.png"
  [ -f "$png" ] || fail "no ${size}x${size} icon"
  file -b "$png" | grep -q "PNG image data, $size x $size" || fail "$png: $(file -b "$png")"
done
[ -f "$gui_root/usr/share/man/man1/cachescope.1.gz" ] || fail "no cachescope(1) man page"
[ -f "$cli_root/usr/share/man/man1/cachescope-cli.1.gz" ] || fail "no cachescope-cli(1) man page"
[ -f "$cli_root/usr/share/bash-completion/completions/cachescope-cli" ] || fail "no bash completion"
appstreamcli validate-tree --no-net "$gui_root" || fail "appstreamcli validate-tree"

for deb in "$cli_deb" "$gui_deb"; do
  # --fail-on error: warnings and notes are listed but do not fail.
  lintian --fail-on error --tag-display-limit 0 "$deb" || fail "lintian reports errors for $(basename "$deb")"
done
echo "packages OK: $(cd "$work/out" && ls *.deb *.tar.gz | tr '\n' ' ')"
