#!/usr/bin/env bash
# Runs the test suite inside a private D-Bus session with an unlocked gnome-keyring (a real
# Secret Service), so keyring integration tests talk to the real thing. Arguments go to pytest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${PYTHON:-$root/.venv/bin/python}"
[[ -x "$python" ]] || python="$(command -v python3)"

if [[ "${DESKTOP_COPILOT_IN_DBUS:-}" != 1 ]] && command -v dbus-run-session >/dev/null; then
    DESKTOP_COPILOT_IN_DBUS=1 exec dbus-run-session -- bash "${BASH_SOURCE[0]}" "$@"
fi

keyring_home=""
cleanup() {
    [[ -n "${keyring_pid:-}" ]] && kill "$keyring_pid" 2>/dev/null || true
    [[ -n "$keyring_home" ]] && rm -rf "$keyring_home"
}
trap cleanup EXIT

if [[ "${DESKTOP_COPILOT_IN_DBUS:-}" == 1 ]] && command -v gnome-keyring-daemon >/dev/null; then
    # A fresh HOME so no earlier keyring asks for another password; the daemon is killed at exit.
    keyring_home="$(mktemp -d)"
    echo -n "desktop-copilot-tests" | HOME="$keyring_home" XDG_DATA_HOME="$keyring_home/.local/share" \
        gnome-keyring-daemon --foreground --unlock --components=secrets >"$keyring_home/daemon.log" 2>&1 &
    keyring_pid=$!
    # Wait until this daemon owns the Secret Service name; a first call before that would make D-Bus
    # activate a second daemon whose login keyring is locked.
    for _ in $(seq 50); do
        if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true"; then
            export DESKTOP_COPILOT_SECRET_SERVICE=1
            break
        fi
        kill -0 "$keyring_pid" 2>/dev/null || break
        sleep 0.1
    done
    [[ "${DESKTOP_COPILOT_SECRET_SERVICE:-}" == 1 ]] || echo "run.sh: gnome-keyring did not start; Secret Service tests are skipped" >&2
fi

cd "$root"
export QT_QPA_PLATFORM=offscreen
exec_status=0
"$python" -m pytest "$@" || exec_status=$?
if [[ "${DESKTOP_COPILOT_SECRET_SERVICE:-}" == 1 ]] && ! kill -0 "$keyring_pid" 2>/dev/null; then
    # Secret Service tests after this point failed for want of it: say why, from the daemon's own words
    echo "run.sh: the suite's gnome-keyring-daemon exited during the run; its last words:" >&2
    tail -n 5 "$keyring_home/daemon.log" >&2 || true
fi
exit "$exec_status"
