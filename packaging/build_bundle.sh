#!/usr/bin/env bash
# Builds the one-folder app dist/desktop-copilot/ (and on macOS "dist/Desktop Copilot.app") with
# PyInstaller from packaging/desktop-copilot.spec, then prints its size and the build time.
#
#   PYTHON=.venv/bin/python bash packaging/build_bundle.sh
#
# PYTHON must have the app installed (pip install -e . or the wheel) and PyInstaller
# (pip install pyinstaller). Default: .venv/bin/python when it exists, else python3.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${PYTHON:-}"
if [[ -z "$python" ]]; then
    if [[ -x "$root/.venv/bin/python" ]]; then python="$root/.venv/bin/python"; else python="$(command -v python3)"; fi
fi
if ! "$python" -c "import PyInstaller" 2>/dev/null; then
    echo "build_bundle: PyInstaller is missing in $python: run '$python -m pip install pyinstaller'" >&2
    exit 2
fi

if [[ "$(uname -s)" == Linux ]] && ! command -v strip >/dev/null; then
    echo "build_bundle: 'strip' is missing (PyInstaller strips the Linux bundle): apt-get install binutils" >&2
    exit 2
fi

start=$(date +%s.%N)
"$python" -m PyInstaller --noconfirm --clean --log-level "${PYINSTALLER_LOG_LEVEL:-WARN}" \
    --distpath "$root/dist" --workpath "$root/build/pyinstaller" "$root/packaging/desktop-copilot.spec"
end=$(date +%s.%N)

bundle="$root/dist/desktop-copilot"
[[ -d "$bundle" ]] || { echo "build_bundle: $bundle was not produced" >&2; exit 1; }
size_mb=$(du -sm "$bundle" | cut -f1)
files=$(find "$bundle" -type f | wc -l)
printf 'build_bundle: %s: %s MB in %s files, built in %.1f s\n' "$bundle" "$size_mb" "$files" "$(awk -v a="$start" -v b="$end" 'BEGIN{print b-a}')"
