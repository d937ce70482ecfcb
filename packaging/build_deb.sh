#!/usr/bin/env bash
# Turns the PyInstaller bundle dist/desktop-copilot/ (packaging/build_bundle.sh) into
# dist/desktop-copilot_<version>_<arch>.deb with dpkg-deb (xz):
#
#   /opt/desktop-copilot/                      the bundle
#   /usr/bin/desktop-copilot                   launcher on the PATH
#   /usr/share/applications/desktop-copilot.desktop
#   /usr/share/icons/hicolor/<N>x<N>/apps/desktop-copilot.png, scalable/apps/desktop-copilot.svg
#   /usr/share/metainfo/<app id>.metainfo.xml  AppStream (software centres)
#   /usr/share/doc/desktop-copilot/copyright
#
# The menu and the icon cache are refreshed by the desktop-file-utils and hicolor/GTK dpkg
# triggers, so the package has no maintainer scripts.
#
#   bash packaging/build_deb.sh [BUNDLE_DIR] [OUT_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bundle="$(cd "${1:-$root/dist/desktop-copilot}" && pwd)"
out="${2:-$root/dist}"
[[ -x "$bundle/desktop-copilot" ]] || { echo "build_deb: no bundle at $bundle: run packaging/build_bundle.sh first" >&2; exit 2; }
command -v dpkg-deb >/dev/null || { echo "build_deb: dpkg-deb is missing (apt-get install dpkg)" >&2; exit 2; }

package=desktop-copilot
version="$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$root/desktop_copilot/__init__.py")"
[[ -n "$version" ]] || { echo "build_deb: no __version__ in desktop_copilot/__init__.py" >&2; exit 1; }
arch="$(dpkg --print-architecture)"
app_id="io.github.desktop_copilot.DesktopCopilot"

# What the bundle takes from the system (checked with ldd on the bundle's binaries and plugins):
# - not bundled by PyInstaller, they must match the machine's graphics stack: libc6, libgl1 and
#   libegl1 (glvnd), libxcb1, libwayland-*;
# - bundled, but their data and services come from the system: fontconfig's configuration and a
#   font (libfontconfig1 -> fontconfig-config -> fonts-dejavu-core), the XKB keymaps
#   (libxkbcommon0 -> xkb-data), the D-Bus library for the session bus;
# - what Qt's xcb platform plugin needs (Qt's own list), so a system-wide Qt plugin or a
#   rebuilt bundle without them still starts.
# (No t64-renamed libraries such as libglib2.0-0: their names differ between Debian 12 and
# Ubuntu 24.04; the bundle carries its own copy.)
# The glibc floor is the newest GLIBC_ symbol version any bundled binary uses.
glibc_floor=""
if command -v objdump >/dev/null; then
    glibc_floor="$(find "$bundle" -type f \( -name '*.so*' -o -perm -u+x \) -exec objdump -T {} + 2>/dev/null \
        | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n1 || true)"
fi
depends=(
    "libc6${glibc_floor:+ (>= $glibc_floor)}"
    libgl1 libegl1 libxcb1 libwayland-client0 libwayland-cursor0 libwayland-egl1
    libfontconfig1 libfreetype6 libxkbcommon0 libxkbcommon-x11-0 libdbus-1-3
    libx11-6 libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
    libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0
    libxcb-xkb1 libxcb-render0
)
recommends=(
    # a Secret Service keeps the API keys (without one they last for the session only)
    gnome-keyring
    fonts-noto-color-emoji
)

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
pkg="$stage/pkg"
install -d "$pkg/DEBIAN" "$pkg/opt" "$pkg/usr/bin" "$pkg/usr/share/applications" \
    "$pkg/usr/share/metainfo" "$pkg/usr/share/doc/$package" "$pkg/usr/share/icons/hicolor/scalable/apps"
cp -a "$bundle" "$pkg/opt/$package"

cat >"$pkg/usr/bin/$package" <<'EOF'
#!/bin/sh
# Desktop Copilot launcher: the app lives in /opt/desktop-copilot (a PyInstaller bundle).
exec /opt/desktop-copilot/desktop-copilot "$@"
EOF
chmod 0755 "$pkg/usr/bin/$package"

install -m 0644 "$root/resources/linux/desktop-copilot.desktop" "$pkg/usr/share/applications/$package.desktop"
install -m 0644 "$root/resources/linux/desktop-copilot.metainfo.xml" "$pkg/usr/share/metainfo/$app_id.metainfo.xml"
install -m 0644 "$root/resources/icons/desktop-copilot.svg" "$pkg/usr/share/icons/hicolor/scalable/apps/$package.svg"
for png in "$root"/resources/icons/desktop-copilot-*.png; do
    size="${png##*-}"; size="${size%.png}"
    install -D -m 0644 "$png" "$pkg/usr/share/icons/hicolor/${size}x${size}/apps/$package.png"
done
cat >"$pkg/usr/share/doc/$package/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: Desktop Copilot
Source: the desktop-copilot project

Files: *
License: MIT
Comment: /opt/$package bundles Python, Qt for Python (PySide6, LGPL-3.0) and the
 Python packages listed in /opt/$package/_internal/*.dist-info under their own licenses.
EOF

# Normal permissions whatever the umask or the bundle had; executables stay executable.
find "$pkg" -type d -exec chmod 0755 {} +
find "$pkg" -type f -perm -u+x -exec chmod 0755 {} +
find "$pkg" -type f ! -perm -u+x -exec chmod 0644 {} +

installed_kb="$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)"
join() { local IFS=","; echo "$*" | sed 's/,/, /g'; }
cat >"$pkg/DEBIAN/control" <<EOF
Package: $package
Version: $version
Architecture: $arch
Maintainer: Desktop Copilot maintainers <desktop-copilot@users.noreply.github.com>
Installed-Size: $installed_kb
Depends: $(join "${depends[@]}")
Recommends: $(join "${recommends[@]}")
Section: net
Priority: optional
Description: native desktop chat client for Claude
 Desktop Copilot streams Claude's replies live: collapsible extended thinking,
 a card for every tool call with its live status, and Markdown text with
 highlighted code. Conversations are stored locally as they stream; API keys
 are kept in the system keyring (Secret Service) or read from the environment.
 .
 This package ships a self-contained build (Python and Qt included) in
 /opt/desktop-copilot.
EOF

mkdir -p "$out"
deb="$out/${package}_${version}_${arch}.deb"
start=$(date +%s.%N)
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null
end=$(date +%s.%N)
printf 'build_deb: %s: %s MB (installed %s MB), built in %.1f s\n' "$deb" \
    "$(awk -v b="$(stat -c %s "$deb")" 'BEGIN{printf "%.1f", b/1048576}')" \
    "$(awk -v k="$installed_kb" 'BEGIN{printf "%.0f", k/1024}')" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN{print b-a}')"
