"""Child of startup.py: shows a bare QMainWindow or the real app, measures the first painted frame and the complete
window, sits idle and measures memory; then (the app) types one character into the composer, waits until the provider's
SDK is imported and the MCP servers are ready, and measures again. Prints one JSON line and exits.

Run: _startup_child.py bare|copilot STARTED_EPOCH [IDLE_S] [EXPECTED_MCP_SERVERS]
"""

import os
import sys
import time

from _proc import proc_kb

READY_TIMEOUT_S = 60.0
POLL_MS = 50
IDLE_TAIL_S = 2.0


def proc_status(pid: int | str, field: str) -> float:
    """A `kB` field of /proc/PID/status (VmRSS, VmHWM) in MB; NaN if the process is gone."""
    return proc_kb(f"/proc/{pid}/status", field)


def pss_mb(pid: int | str) -> float:
    """Proportional set size (shared pages divided among the processes sharing them), in MB."""
    return proc_kb(f"/proc/{pid}/smaps_rollup", "Pss")


def descendants(root: int) -> list[int]:
    """Every process below `root` (children, grandchildren, ...), from the ppid field of /proc/*/stat."""
    parent_of: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent_of[int(entry)] = int(fields[1])
    found, frontier = [], {root}
    while frontier:
        frontier = {pid for pid, ppid in parent_of.items() if ppid in frontier}
        found.extend(sorted(frontier))
    return found


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as raw:
            return raw.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def mcp_statuses(runtime) -> list[dict] | None:
    """The MCP servers' states as the app sees them (None: this checkout has no MCP support, or it has not started)."""
    manager = getattr(runtime, "mcp", None)
    if manager is None:
        return None
    return [{"name": s.name, "state": str(s.state), "tools": len(s.tools), "last_error": s.last_error} for s in manager.statuses()]


def children_of(prefix: str) -> dict:
    """This process's descendants (the MCP servers) with their RSS and PSS, under keys starting with `prefix`."""
    children = [{"pid": pid, "cmd": cmdline(pid)[-120:], "rss_mb": proc_status(pid, "VmRSS"), "pss_mb": pss_mb(pid)}
                for pid in descendants(os.getpid())]
    return {f"{prefix}children": children, f"{prefix}children_rss_mb": sum(c["rss_mb"] for c in children),
            f"{prefix}children_pss_mb": sum(c["pss_mb"] for c in children)}


def main() -> None:
    mode, started = sys.argv[1], float(sys.argv[2])
    idle_s = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    expected_servers = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication([sys.argv[0]])  # the app's gui.main() reuses QApplication.instance()
    result: dict = {"mode": mode}

    def finish(window, exit_code: int = 0) -> None:
        import json  # here, not at the top: the bare window's time stays what it was

        print(json.dumps(result), flush=True)
        if exit_code:
            os._exit(exit_code)  # the servers' states are printed; do not hang in shutdown
        window.close()
        if mode == "bare":
            app.quit()

    class FirstFrame(QObject):
        """On the first paint of the main window, wait for the rest of that paint pass, record, then wait and idle.
        The first paint is seen through a `paintEvent` override on the window's class (the same in both modes): an
        event filter on the application or the window would make PySide6 build Python types and enums for every
        object and event it sees, a cost the probe would add to the app (more objects) and not to the bare window."""

        seen = False
        complete = False

        def painted(self, window) -> None:
            if not self.seen:
                self.seen = True
                QTimer.singleShot(0, lambda: self.first_frame(window))
                app.installEventFilter(self)  # now: the complete window (the composer painted)

        def eventFilter(self, watched, event) -> bool:  # Qt's name
            if (self.seen and not self.complete and event.type() == QEvent.Type.Paint and mode != "bare"
                  and "prompt" in (watched.objectName(), watched.parent() and watched.parent().objectName())):
                # the composer's text field painted: the working window is on screen and takes typing
                self.complete = True
                QTimer.singleShot(0, self.window_complete)
            return False

        def window_complete(self) -> None:
            result.update(complete_s=time.time() - started, cpu_complete_s=time.process_time(),
                          peak_rss_complete_mb=proc_status("self", "VmHWM"))
            if self.waiting_for_complete:
                self.waiting_for_complete = False
                self.after_complete()

        waiting_for_complete = False

        def first_frame(self, window) -> None:
            result.update(
                shown_s=time.time() - started, cpu_s=time.process_time(), peak_rss_mb=proc_status("self", "VmHWM"),
                anthropic_imported="anthropic" in sys.modules,
                threads_at_frame=len(os.listdir("/proc/self/task")), mcp_sdk_at_frame="mcp" in sys.modules,
            )
            self.window = window
            if mode != "bare":
                import desktop_copilot

                result["package"] = desktop_copilot.__file__  # the parent checks which checkout ran
                if not self.complete:
                    self.waiting_for_complete = True  # the rest is built after this frame: wait for it
                    return
            self.after_complete()

        def after_complete(self) -> None:
            if idle_s <= 0:
                finish(self.window)
                return
            self.idle_cpu_from = time.process_time()
            tail_s = min(IDLE_TAIL_S, idle_s / 2)
            QTimer.singleShot(int((idle_s - tail_s) * 1000), self.mark_tail)
            QTimer.singleShot(int(idle_s * 1000), self.measure_idle)

        def mark_tail(self) -> None:
            self.tail_from = (time.monotonic(), time.process_time())

        def measure_idle(self) -> None:
            result["idle_cpu_ms"] = (time.process_time() - self.idle_cpu_from) * 1e3
            wall, cpu = self.tail_from
            result["tail_cpu_pct"] = (time.process_time() - cpu) / (time.monotonic() - wall) * 100  # the app truly idle?
            result["imported_at_idle"] = [name for name in ("anthropic", "mcp") if name in sys.modules]
            result.update(idle_rss_mb=proc_status("self", "VmRSS"), idle_pss_mb=pss_mb("self"), peak_rss_end_mb=proc_status("self", "VmHWM"),
                          threads=len(os.listdir("/proc/self/task")))
            result.update(children_of("idle_"))
            if mode == "bare":
                finish(self.window)
                return
            # In use: one character typed into the composer (the app then warms the provider's SDK and starts the MCP servers)
            self.window.composer.edit.insertPlainText("H")
            self.deadline = time.monotonic() + READY_TIMEOUT_S
            self.use_from = time.time()
            self.wait_in_use()

        def wait_in_use(self) -> None:
            import threading

            window = self.window
            statuses = mcp_statuses(window.controller.session.runtime)
            result["mcp"] = statuses
            states = [s["state"] for s in statuses or ()]
            servers_ready = states.count("ready") == expected_servers
            sdk_ready = "anthropic" in sys.modules and not any(t.name == "warm-imports" for t in threading.enumerate())
            if servers_ready and sdk_ready:
                result["ready_s"] = time.time() - self.use_from
                QTimer.singleShot(int(IDLE_TAIL_S * 1000), self.measure_in_use)
            elif "failed" in states or len(states) > expected_servers or time.monotonic() > self.deadline:
                result["error"] = f"expected {expected_servers} MCP servers ready and the SDK imported, got {statuses}, sdk {sdk_ready}"
                finish(window, exit_code=3)
            else:
                QTimer.singleShot(POLL_MS, self.wait_in_use)

        def measure_in_use(self) -> None:
            window = self.window
            result.update(use_rss_mb=proc_status("self", "VmRSS"), use_pss_mb=pss_mb("self"), use_threads=len(os.listdir("/proc/self/task")))
            result.update(children_of(""))
            result["mcp"] = mcp_statuses(window.controller.session.runtime)  # still ready?
            states = [s["state"] for s in result["mcp"] or ()]
            if states.count("ready") != expected_servers:
                result["error"] = f"MCP servers no longer all ready: {result['mcp']}"
                finish(window, exit_code=3)
                return
            finish(window)

    first_frame = FirstFrame()

    def probed_paint(window, event) -> None:
        QMainWindow.paintEvent(window, event)
        first_frame.painted(window)

    if mode == "bare":
        class ProbedWindow(QMainWindow):
            paintEvent = probed_paint  # noqa: N815 - Qt name

        window = ProbedWindow()
        window.resize(1100, 820)
        window.show()
        app.exec()
    else:  # the real entry point, as `python -m desktop_copilot` runs it
        from desktop_copilot.app import gui  # what cli.main imports first for the window

        gui.MainWindow.paintEvent = probed_paint
        from desktop_copilot.app.cli import main as cli_main

        cli_main([])


if __name__ == "__main__":
    main()
