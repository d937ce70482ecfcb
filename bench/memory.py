"""Peak RSS of the real app, started through its entry point, while a 100 KB reply streams and with a 2,000-message
conversation open and scrolled end to end, side by side with a bare PySide6 window; fresh processes, interleaved.

    python bench/memory.py                 # ~2 min: 1 warm-up + 3 rounds of bare / stream / long, medians
    python bench/memory.py --quick         # ~40 s: 1 round, no warm-up
    python bench/memory.py --breakdown     # adds one traced launch of each scenario: where the peak goes
    python bench/memory.py --json rows.json

Each launch is a fresh process. `bare` shows a QMainWindow of 1100x820; `stream` and `long` run
`desktop_copilot.app.cli.main([])` with a temporary DESKTOP_COPILOT_HOME, a fake ANTHROPIC_API_KEY and
ANTHROPIC_BASE_URL pointed at a loopback Anthropic SSE server (a separate process). An application event filter
waits for the first painted QMainWindow, then the child sits idle `--settle` seconds (the app warms its provider
import in that time) and reads VmRSS, PSS and VmHWM. Then:

- stream: a message is sent through the composer; the server streams ~`--reply-kb` KB of Markdown-ish text (code
  fences, lists, tables, CJK) at `--rate` deltas/s; when the reply has finished and settled, VmHWM is read.
- long: the profile holds one conversation of `--messages` messages (bench/_seed_conversations.py), which the app
  reopens at start; the transcript is scrolled a page at a time from the bottom to the top and back, each step
  painted (rows not loaded yet are fetched as they come near), then VmHWM is read.
- bare: nothing more; its VmHWM is the reference for both.
- sdk: no Qt: a bare Python process in which the official `anthropic` SDK consumes the same reply from the same server
  (`messages.create(stream=True)`, the text joined at the end). The streaming target is the app's peak over the sum of
  the bare window's and this process's peaks: what the app costs beyond a window and the SDK it is built on.
- text: the bare window showing the same reply in a QTextBrowser (`setMarkdown`, scrolled end to end, each step
  painted): what showing that text costs any Qt window (fonts, the CJK one among them, glyph caches, layout). The
  stream's peak is also given over (this window + the bare SDK): the app's cost beyond showing the reply at all.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _proc import proc_kb

ROOT = Path(__file__).resolve().parents[1]
MARKER = "MEMORY-RESULT "
TARGETS_MB = {"stream": 150.0, "long": 180.0}
STREAM_OVER_TARGET_MB = 25.0
"""The stream's peak RSS over (bare window + bare SDK consuming the same stream) may be at most this."""
TRACED_SLOWDOWN = 4
"""A --breakdown launch runs with tracemalloc on: its deadlines are this many times longer."""
STREAM_TIMEOUT_S = 90.0
CHILD_DEADLINE_S = 400.0
LAUNCH_TIMEOUT_S = CHILD_DEADLINE_S + 60
SHUTDOWN_LIMIT_S = 20.0
SHUTDOWN_MARKER = "MEMORY-SHUTDOWN"
"""Printed to stderr once the result is out: a traceback dumped after it shows where the app's shutdown hung."""
SCROLL_STEP_LIMIT = 20_000


# --- /proc readers ---------------------------------------------------------------------------------


def memory_now() -> dict[str, float]:
    return {"modules": len(sys.modules), "rss_mb": proc_kb("/proc/self/status", "VmRSS"), "hwm_mb": proc_kb("/proc/self/status", "VmHWM"),
            "pss_mb": proc_kb("/proc/self/smaps_rollup", "Pss"), "anon_mb": proc_kb("/proc/self/status", "RssAnon"),
            "file_mb": proc_kb("/proc/self/status", "RssFile")}


def rss_after_malloc_trim() -> float:
    """VmRSS after glibc gives freed heap pages back (malloc_trim): what is left is in use, the rest was free but held."""
    import ctypes

    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        return float("nan")
    return proc_kb("/proc/self/status", "VmRSS")


def smaps_by_mapping(top: int = 14) -> dict[str, float]:
    """Resident MB per mapping (a library's or font's file name, [heap], [anon]) from /proc/self/smaps, largest first,
    plus the totals of a few groups (Qt and PySide6 libraries, Python and extension modules, native heap, fonts)."""
    rss: dict[str, float] = {}
    name = "[anon]"
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split(None, 5)
            if len(head) >= 5 and "-" in head[0] and ":" not in head[0]:
                name = Path(head[5].strip()).name if len(head) == 6 and head[5].strip().startswith("/") else (
                    head[5].strip() if len(head) == 6 else "[anon]")
            elif line.startswith("Rss:"):
                rss[name] = rss.get(name, 0.0) + int(line.split()[1]) / 1024
    groups = {"group: Qt + PySide6 + shiboken libraries": ("libQt6", "Qt", "libpyside6", "libshiboken6", "libicu"),
              "group: native heap ([heap] + [anon])": ("[heap]", "[anon]"),
              "group: Python extension modules (.so)": (".cpython-", ".abi3.so"),
              "group: fonts": (".ttf", ".otf", ".ttc", ".pcf")}
    out = dict(sorted(rss.items(), key=lambda kv: -kv[1])[:top])
    for label, needles in groups.items():
        out[label] = sum(mb for mapped, mb in rss.items() if any(n in mapped for n in needles))
    return {key: round(mb, 1) for key, mb in out.items()}


def traced_by_package(top: int = 14) -> dict[str, float]:
    """MB of live Python allocations per package/module (desktop_copilot to two levels) from tracemalloc."""
    import tracemalloc

    sums: dict[str, float] = {}
    for stat in tracemalloc.take_snapshot().statistics("filename"):
        filename = stat.traceback[0].filename
        parts = Path(filename).with_suffix("").parts
        if "desktop_copilot" in parts:
            at = parts.index("desktop_copilot")
            key = ".".join(parts[at : at + 3])
        elif "site-packages" in parts:
            key = parts[parts.index("site-packages") + 1]
        else:
            key = "stdlib/other: " + Path(filename).name
        sums[key] = sums.get(key, 0.0) + stat.size / 2**20
    current, peak = tracemalloc.get_traced_memory()
    out = {k: round(v, 1) for k, v in sorted(sums.items(), key=lambda kv: -kv[1])[:top]}
    out["total traced now"], out["traced peak"] = round(current / 2**20, 1), round(peak / 2**20, 1)
    return out


# --- the loopback server, in its own process --------------------------------------------------------


def serve(reply_bytes: int, rate: float, delta_bytes: int) -> None:
    sys.path.insert(0, str(ROOT))
    from _paced_server import serve_paced_reply
    from stream_latency import deltas  # the same Markdown-ish text (prose, fences, CJK, lists, tables)

    serve_paced_reply(deltas, rate, delta_bytes, max_bytes=reply_bytes)


def sdk_child() -> None:
    """The bare SDK consuming the same stream, as a short script would: its peak RSS at the end."""
    import anthropic

    result: dict = {"kind": "sdk", "idle": memory_now()}
    client = anthropic.Anthropic()
    pieces: list[str] = []
    stream = client.messages.create(model="claude-bench", max_tokens=64_000, stream=True,
                                    messages=[{"role": "user", "content": "Write a very long answer with code, tables and lists, please."}])
    for event in stream:
        if event.type == "content_block_delta" and event.delta.type == "text_delta":
            pieces.append(event.delta.text)
            if "first_delta" not in result:
                result["first_delta"] = memory_now()
    text = "".join(pieces)
    result.update(reply_kb=len(text.encode()) / 1024, end=memory_now(), cpu_s=time.process_time())
    print(MARKER + json.dumps(result), flush=True)


def text_child(reply_bytes: int) -> None:
    """A bare window showing the same reply in a QTextBrowser, scrolled through: its peak RSS at the end."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow, QTextBrowser

    sys.path.insert(0, str(Path(__file__).parent))
    from stream_latency import deltas

    app = QApplication([sys.argv[0]])
    window, browser = QMainWindow(), QTextBrowser()
    window.resize(1100, 820)
    window.setCentralWidget(browser)
    window.show()
    source, pieces, size = deltas(200), [], 0
    while size < reply_bytes:
        pieces.append(next(source))
        size += len(pieces[-1].encode())
    steps = 40

    def scroll(step: int = 0) -> None:
        bar = browser.verticalScrollBar()
        bar.setValue(bar.maximum() * step // steps)
        browser.viewport().repaint()
        if step < steps:
            QTimer.singleShot(0, lambda: scroll(step + 1))
            return
        print(MARKER + json.dumps({"kind": "text", "end": memory_now(), "reply_kb": size / 1024}), flush=True)
        app.quit()

    QTimer.singleShot(200, lambda: (browser.setMarkdown("".join(pieces)), scroll()))
    app.exec()


def child(kind: str, settle_s: float, breakdown: bool) -> None:
    import faulthandler

    if kind == "sdk":
        return sdk_child()
    if kind == "text":
        return text_child(int(float(os.environ.get("BENCH_REPLY_KB", "100")) * 1024))
    deadline_s = CHILD_DEADLINE_S * (TRACED_SLOWDOWN if breakdown else 1)
    faulthandler.dump_traceback_later(deadline_s, exit=True)  # a hang (even with Qt's loop blocked) dumps every thread and exits
    if breakdown:
        import tracemalloc

        tracemalloc.start()
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication([sys.argv[0]])  # the app's gui.main() reuses QApplication.instance()
    result: dict = {"kind": kind}

    seen_modules: set[str] = set()

    def packages_since(phase: str) -> None:
        """The top-level packages imported since the previous phase, with how many modules each (breakdown runs)."""
        if not breakdown:
            return
        new = [name for name in list(sys.modules) if name not in seen_modules]
        seen_modules.update(new)
        counts: dict[str, int] = {}
        for name in new:
            counts[name.split(".")[0]] = counts.get(name.split(".")[0], 0) + 1
        result.setdefault("imported", {})[phase] = dict(sorted(counts.items(), key=lambda kv: -kv[1])[:12])

    def finish(window, error: str | None = None) -> None:
        if result.get("finished"):
            return
        result["finished"] = True
        result.update(end=memory_now(), cpu_s=time.process_time())
        packages_since("end")
        if breakdown:
            result["smaps"] = smaps_by_mapping()
            result["traced"] = traced_by_package()
            if getattr(Driver, "at_first_delta", None) is not None:
                import tracemalloc

                grown = tracemalloc.take_snapshot().compare_to(Driver.at_first_delta, "lineno")[:12]
                result["grown"] = {f"{Path(d.traceback[0].filename).name}:{d.traceback[0].lineno}": round(d.size_diff / 2**20, 2) for d in grown}
        result["trimmed_rss_mb"] = rss_after_malloc_trim()
        if error:
            result["error"] = error
        print(MARKER + json.dumps(result), flush=True)
        print(SHUTDOWN_MARKER, file=sys.stderr, flush=True)
        faulthandler.dump_traceback_later(SHUTDOWN_LIMIT_S, exit=True)  # the result is out; a shutdown that hangs is dumped
        if window is None:
            os._exit(4)
        window.close()
        if kind == "bare":
            app.quit()

    class Driver(QObject):
        window = None

        def eventFilter(self, watched, event) -> bool:  # Qt's name
            if self.window is None and event.type() == QEvent.Type.Paint and isinstance(watched, QMainWindow):
                Driver.window = watched
                QTimer.singleShot(0, self.shown)
            return False

        def shown(self) -> None:
            result["first_frame"] = memory_now()
            packages_since("first_frame")
            QTimer.singleShot(int(settle_s * 1000), self.idle)

        def idle(self) -> None:
            result["idle"] = memory_now()
            packages_since("idle")
            if kind != "bare":  # the window as the app left it: found among the top-level widgets, built in full
                found = [w for w in QApplication.topLevelWidgets() if w.isVisible() and hasattr(w, "composer") and hasattr(w, "view")]
                if not found:
                    finish(self.window, "no visible window with a composer and a transcript")
                    return
                Driver.window = found[0]
            result["anthropic_at_idle"] = "anthropic" in sys.modules
            if kind == "bare":
                finish(self.window)
            elif kind == "stream":
                self.send()
            else:
                self.start_scroll()

        # stream: send through the composer, wait for the reply to finish, let it settle
        def send(self) -> None:
            window = self.window
            window.composer.set_text("Write a very long answer with code, tables and lists, please.")
            if not window.composer.submit():
                finish(window, "the composer did not submit")
                return
            self.deadline, self.seen_busy = time.monotonic() + STREAM_TIMEOUT_S * (TRACED_SLOWDOWN if breakdown else 1), False
            QTimer.singleShot(50, self.wait_reply)

        def wait_reply(self) -> None:
            controller = self.window.controller
            self.seen_busy |= controller.busy
            messages = controller.session.conversation.messages
            if "first_delta" not in result and messages and messages[-1].role.value == "assistant" and messages[-1].text:
                result["first_delta"] = memory_now()  # the request is made, the provider SDK loaded; the reply starts
                packages_since("first_delta")
                if breakdown:
                    import tracemalloc

                    Driver.at_first_delta = tracemalloc.take_snapshot()
            if "first_delta" in result:  # RSS as the reply grows, every ~10 KB: [KB, MB]
                kb = len(messages[-1].text.encode()) / 1024
                curve = result.setdefault("curve", [])
                if not curve or kb >= curve[-1][0] + 10:
                    curve.append([round(kb, 1), round(proc_kb("/proc/self/status", "VmRSS"), 1)])
            if controller.busy or not self.seen_busy:
                if time.monotonic() > self.deadline:
                    finish(self.window, f"no finished reply after {STREAM_TIMEOUT_S:.0f} s")
                    return
                QTimer.singleShot(50, self.wait_reply)
                return
            messages = controller.session.conversation.messages
            reply = messages[-1] if messages else None
            result["reply_kb"] = len(reply.text.encode()) / 1024 if reply is not None else 0.0
            result["reply_status"] = str(getattr(reply, "status", None))
            QTimer.singleShot(1000, lambda: finish(self.window))  # the finished reply is laid out and painted

        # long: a page at a time to the top, then back to the bottom, each step painted
        def start_scroll(self) -> None:
            view = self.window.view
            model = view.model()
            result["rows"] = model.rowCount()
            result["pending_at_open"] = sum(model.segment_at(r).kind == "pending" for r in range(model.rowCount()))
            self.direction, self.steps, self.at_end, self.started = -1, 0, 0, time.perf_counter()
            QTimer.singleShot(0, self.scroll_step)

        def scroll_step(self) -> None:
            view = self.window.view
            bar = view.verticalScrollBar()
            before = bar.value()
            bar.setValue(before + self.direction * bar.pageStep())
            view.viewport().repaint()  # fetches the stored messages near the viewport and measures the rows shown
            self.steps += 1
            if self.direction < 0:  # RSS as more of the conversation has been on screen, every ~10 %: [%, MB]
                rows = max(1, view.model().rowCount())
                seen = 100 * (1 - max(0, view.indexAt(view.viewport().rect().topLeft()).row()) / rows)
                curve = result.setdefault("curve", [])
                if not curve or seen >= curve[-1][0] + 10:
                    curve.append([round(seen), round(proc_kb("/proc/self/status", "VmRSS"), 1)])
            end = 0 if self.direction < 0 else bar.maximum()
            self.at_end = self.at_end + 1 if bar.value() == end and before == end else 0
            if self.steps > SCROLL_STEP_LIMIT:
                finish(self.window, f"still scrolling after {SCROLL_STEP_LIMIT} steps")
                return
            if self.at_end >= 2:  # two steps at the end without moving: nothing more was fetched there
                if self.direction < 0:
                    result["at_top"] = memory_now()
                    result["steps_up"] = self.steps
                    self.direction, self.at_end = 1, 0
                else:
                    model = view.model()
                    result["steps"] = self.steps
                    result["scroll_s"] = time.perf_counter() - self.started
                    result["pending_after"] = sum(model.segment_at(r).kind == "pending" for r in range(model.rowCount()))
                    result["rows_after"] = model.rowCount()
                    finish(self.window)
                    return
            QTimer.singleShot(0, self.scroll_step)

    def guarded(method):
        def run(*args):
            try:
                method(*args)
            except Exception as exc:  # noqa: BLE001 - the app's error reporting would swallow it and keep running
                import traceback

                traceback.print_exc()
                finish(Driver.window, f"{type(exc).__name__}: {exc}")

        return run

    for name in ("shown", "idle", "send", "wait_reply", "start_scroll", "scroll_step"):
        setattr(Driver, name, guarded(getattr(Driver, name)))
    driver = Driver()
    app.installEventFilter(driver)
    QTimer.singleShot(int((deadline_s - 10) * 1000), lambda: finish(Driver.window, f"not done after {deadline_s - 10:.0f} s"))
    if kind == "bare":
        window = QMainWindow()
        window.resize(1100, 820)
        window.show()
        app.exec()
    else:  # the real entry point, as `python -m desktop_copilot` runs it
        from desktop_copilot.app.cli import main as cli_main

        cli_main([])


# --- the parent -------------------------------------------------------------------------------------


def launch(kind: str, env: dict[str, str], args) -> dict:
    """One child's result; {"kind", "failed": reason} if it gave none. A child that gave its result and then hung
    in the app's shutdown (dumped by faulthandler) keeps its result, with the dump under "shutdown_hang"."""
    command = [sys.executable, __file__, "--child", kind, "--settle", str(args.settle)] + (["--breakdown-run"] if args.breakdown_run else [])
    try:
        timeout = LAUNCH_TIMEOUT_S * (TRACED_SLOWDOWN if args.breakdown_run else 1)
        done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"kind": kind, "failed": f"no exit after {timeout} s"}
    lines = [line[len(MARKER):] for line in done.stdout.splitlines() if line.startswith(MARKER)]
    if not lines:
        return {"kind": kind, "failed": f"no result (exit {done.returncode})", "stderr": done.stderr[-4000:]}
    result = json.loads(lines[-1])
    if result.get("error"):
        return {"kind": kind, "failed": result["error"], "stderr": done.stderr[-4000:]}
    after = done.stderr.split(SHUTDOWN_MARKER, 1)[-1]
    if done.returncode and "Thread 0x" in after:
        result["shutdown_hang"] = after.strip()[-6000:]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="launches of each kind, interleaved (default 3)")
    parser.add_argument("--quick", action="store_true", help="1 round and no warm-up launch")
    parser.add_argument("--settle", type=float, default=3.0, help="idle seconds after the first frame before measuring (default 3)")
    parser.add_argument("--reply-kb", type=float, default=100.0, help="size of the streamed reply in KB (default 100)")
    parser.add_argument("--rate", type=float, default=500.0, help="text deltas per second (default 500)")
    parser.add_argument("--delta-bytes", type=int, default=200, help="UTF-8 bytes per delta (default 200)")
    parser.add_argument("--messages", type=int, default=2000, help="messages in the long conversation (default 2000)")
    parser.add_argument("--breakdown", action="store_true", help="one more launch of each scenario with tracemalloc and /proc/self/smaps")
    parser.add_argument("--json", type=Path, help="write the result rows there as a JSON list")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--breakdown-run", dest="breakdown_run", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(int(args.reply_kb * 1024), args.rate, args.delta_bytes)
    if args.child:
        return child(args.child, args.settle, args.breakdown_run)
    if args.quick:
        args.rounds = 1
    print(f"{os.cpu_count()} CPUs, load average {'/'.join(f'{x:.2f}' for x in os.getloadavg())} at start; Qt platform offscreen; "
          f"{args.rounds} round(s){'' if args.quick else ' after one warm-up'}; settle {args.settle:g} s", flush=True)
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--reply-kb", str(args.reply_kb), "--rate", str(args.rate), "--delta-bytes", str(args.delta_bytes)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
    )
    try:
        url = server.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            raise SystemExit("the loopback server did not start")
        with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
            results = measure(args, url, Path(tmp))
    finally:
        server.stdin.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    report(args, results)


def measure(args, url: str, tmp: Path) -> dict[str, list[dict]]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TAVILY_", "DESKTOP_COPILOT_", "PYTHON", "OPENAI_", "GEMINI_"))}
    base.update(QT_QPA_PLATFORM="offscreen", ANTHROPIC_API_KEY="sk-ant-bench-fake", ANTHROPIC_BASE_URL=url, PYTHONPATH=str(ROOT))
    long_home = tmp / "long"
    started = time.perf_counter()
    sys.path.insert(0, str(Path(__file__).parent))
    from _seed_conversations import seed

    os.environ["DESKTOP_COPILOT_HOME"] = str(long_home)  # AppPaths reads it: the database where the app looks
    from desktop_copilot.core.config.paths import AppPaths

    database = AppPaths.resolve().ensure().database
    del os.environ["DESKTOP_COPILOT_HOME"]
    seed(database, args.messages)
    print(f"seeded {args.messages:,} messages ({database.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.1f} s", flush=True)
    launches = 0

    def env_for(kind: str) -> dict[str, str]:
        nonlocal launches
        launches += 1
        home = long_home if kind == "long" else tmp / f"{kind}-{launches}"  # a fresh profile: the app reopens no earlier reply
        return dict(base, DESKTOP_COPILOT_HOME=str(home))

    kinds = ("bare", "text", "sdk", "stream", "long")
    base["BENCH_REPLY_KB"] = str(args.reply_kb)
    results: dict[str, list[dict]] = {kind: [] for kind in kinds}
    if not args.quick:  # warm-up: .pyc files, the OS file cache, the long profile's first open
        results["warm-up"] = [launch(kind, env_for(kind), args) for kind in kinds]

    def said(run: dict) -> str:
        return f"{run['kind']} FAILED ({run['failed'][:80]})" if "failed" in run else (
            f"{run['kind']} peak {run['end']['hwm_mb']:.0f} MB" + (" (hung in shutdown)" if run.get("shutdown_hang") else ""))

    for round_ in range(args.rounds):
        for kind in kinds:
            results[kind].append(launch(kind, env_for(kind), args))
        print(f"  round {round_ + 1}: " + ", ".join(said(results[k][-1]) for k in kinds), flush=True)
    if args.breakdown:
        args.breakdown_run = True
        results["breakdown"] = [launch(kind, env_for(kind), args) for kind in kinds if kind not in ("sdk", "text")]
        args.breakdown_run = False
    return results


def median(runs: list[dict], *path: str) -> float:
    values = []
    for run in runs:
        value = run
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, (int, float)):
            values.append(float(value))
    return statistics.median(values) if values else float("nan")


def row(measure: str, value: float | None, reference: str | None, reference_value: float | None, target: str, met: bool,
        unit: str = "MB") -> dict:
    def clean(x: float | None) -> float | None:
        return None if x is None or math.isnan(x) else round(x, 1)

    value, reference_value = clean(value), clean(reference_value)
    ratio = value / reference_value if value is not None and reference_value else None
    return {"measure": measure, "value": value, "unit": unit, "reference": reference, "reference_value": reference_value,
            "ratio": None if ratio is None else round(ratio, 2), "target": target, "met": bool(met) and value is not None}


def succeeded(runs: list[dict]) -> list[dict]:
    return [run for run in runs if "failed" not in run]


def build_rows(args, results: dict[str, list[dict]]) -> list[dict]:
    bare = succeeded(results["bare"])
    peak_ref, rss_ref, pss_ref = median(bare, "end", "hwm_mb"), median(bare, "idle", "rss_mb"), median(bare, "idle", "pss_mb")
    reference = "bare PySide6 window (1100x820)"
    sdk_peak = median(succeeded(results["sdk"]), "end", "hwm_mb")
    text_peak = median(succeeded(results["text"]), "end", "hwm_mb")
    stream_peak = median(succeeded(results["stream"]), "end", "hwm_mb")
    titles = {"stream": f"peak RSS while a {args.reply_kb:g} KB reply streams",
              "long": f"peak RSS with a {args.messages:,}-message conversation open (scrolled top and back)"}
    rows = []
    for kind in ("stream", "long"):
        runs, target = succeeded(results[kind]), TARGETS_MB[kind]
        if not runs:
            reason = results[kind][-1]["failed"] if results[kind] else "not run"
            rows.append(row(f"failed: {titles[kind]}: {reason}", None, reference, peak_ref, f"<= {target:g} MB", False))
            continue
        peak = median(runs, "end", "hwm_mb")
        rows.append(row(titles[kind], peak, reference, peak_ref, f"<= {target:g} MB", peak <= target))
        if kind == "stream":
            over = stream_peak - peak_ref - sdk_peak
            rows.append(row(f"peak RSS while a {args.reply_kb:g} KB reply streams, over (bare window + bare SDK consuming the same stream)",
                            over, f"bare window {peak_ref:.1f} + bare anthropic SDK {sdk_peak:.1f} MB", peak_ref + sdk_peak,
                            f"<= {STREAM_OVER_TARGET_MB:g} MB", over <= STREAM_OVER_TARGET_MB))
            shown = stream_peak - text_peak - sdk_peak
            rows.append(row(f"peak RSS while a {args.reply_kb:g} KB reply streams, over (bare window showing the same reply + bare SDK)",
                            shown, f"bare window with the reply in a QTextBrowser {text_peak:.1f} + bare anthropic SDK {sdk_peak:.1f} MB",
                            text_peak + sdk_peak, f"<= {STREAM_OVER_TARGET_MB:g} MB", shown <= STREAM_OVER_TARGET_MB))
        rows.append(row(f"{kind}: idle RSS before (VmRSS)", median(runs, "idle", "rss_mb"), reference, rss_ref, "report only", True))
        rows.append(row(f"{kind}: idle PSS before", median(runs, "idle", "pss_mb"), reference, pss_ref, "report only", True))
    return rows


def mb(value: float | None, unit: str = "MB") -> str:
    return "–" if value is None else f"{value:.1f} {unit}"


def report(args, results: dict[str, list[dict]]) -> None:
    rows = build_rows(args, results)
    print()
    print("| measure | value | reference | reference value | ratio | target | met |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] is not None else "–"
        print(f"| {r['measure']} | {mb(r['value'], r['unit'])} | {r['reference'] or '–'} | {mb(r['reference_value'], r['unit'])} | {ratio} | "
              f"{r['target']} | {'yes' if r['met'] else 'NO'} |")
    print()
    for kind, all_runs in results.items():
        runs = succeeded(all_runs)
        if kind in ("breakdown", "warm-up") or not runs:
            continue
        if kind == "text":
            print(f"  text   peak {median(runs, 'end', 'hwm_mb'):.1f} MB: the bare window showing the same {median(runs, 'reply_kb'):.0f} KB reply "
                  f"in a QTextBrowser, scrolled through")
            continue
        if kind == "sdk":
            print(f"  sdk    peak {median(runs, 'end', 'hwm_mb'):.1f} MB; idle (imported, before the request) RSS {median(runs, 'idle', 'rss_mb'):.1f}; "
                  f"at the first delta {median(runs, 'first_delta', 'rss_mb'):.1f}; reply {median(runs, 'reply_kb'):.0f} KB; CPU {median(runs, 'cpu_s'):.2f} s")
            continue
        peaks = [r["end"]["hwm_mb"] for r in runs]
        line = (f"  {kind:<6} peak {statistics.median(peaks):.1f} MB ({min(peaks):.1f}–{max(peaks):.1f}, {len(runs)} runs); at first frame RSS "
                f"{median(runs, 'first_frame', 'rss_mb'):.1f}; idle RSS {median(runs, 'idle', 'rss_mb'):.1f} (anon "
                f"{median(runs, 'idle', 'anon_mb'):.1f}, file {median(runs, 'idle', 'file_mb'):.1f}), PSS {median(runs, 'idle', 'pss_mb'):.1f}, "
                f"peak before {median(runs, 'idle', 'hwm_mb'):.1f}; at the end RSS {median(runs, 'end', 'rss_mb'):.1f} (anon "
                f"{median(runs, 'end', 'anon_mb'):.1f}), after malloc_trim {median(runs, 'trimmed_rss_mb'):.1f}")
        if kind == "stream":
            line += (f"; reply {median(runs, 'reply_kb'):.0f} KB ({runs[-1].get('reply_status')}), RSS when its first text arrived "
                     f"{median(runs, 'first_delta', 'rss_mb'):.1f} (anon {median(runs, 'first_delta', 'anon_mb'):.1f})")
        if kind == "long":
            line += (f"; {runs[-1]['rows']} rows ({runs[-1]['pending_at_open']} not loaded at open, {runs[-1]['pending_after']} after),"
                     f" {median(runs, 'steps'):.0f} scroll steps in {median(runs, 'scroll_s'):.1f} s, RSS at the top "
                     f"{median(runs, 'at_top', 'rss_mb'):.1f}")
        print(line + f"; anthropic imported at idle in {sum(r.get('anthropic_at_idle', False) for r in runs)}/{len(runs)}")
        if runs[-1].get("curve"):
            unit = "KB of reply" if kind == "stream" else "% of rows seen (scrolling up)"
            print(f"         RSS by {unit} (last run): " + ", ".join(f"{at:g}: {rss:.0f}" for at, rss in runs[-1]["curve"]))
    everything = [run for runs in results.values() for run in runs]
    for run in everything:
        if "failed" in run:
            print(f"  !! a {run['kind']} launch failed: {run['failed']}\n" + "\n".join("     " + line for line in run.get("stderr", "").splitlines()[-25:]))
    hangs = [run for run in everything if run.get("shutdown_hang")]
    if hangs:
        print(f"  !! {len(hangs)} of {len(everything)} launches of the app hung in shutdown after giving their result "
              f"(stopped by faulthandler after {SHUTDOWN_LIMIT_S:g} s; their figures are kept). The first one's threads:")
        print("\n".join("     " + line for line in hangs[0]["shutdown_hang"].splitlines()[:60]))
    for run in succeeded(results.get("breakdown", [])):
        print(f"\n  breakdown, {run['kind']} (one launch with tracemalloc on, so a little higher): peak {run['end']['hwm_mb']:.1f} MB, "
              f"now {run['end']['rss_mb']:.1f} MB")
        print("    resident by mapping at the end (MB): " + ", ".join(f"{k} {v}" for k, v in run["smaps"].items()))
        print("    live Python allocations at the end (MB): " + ", ".join(f"{k} {v}" for k, v in run["traced"].items()))
        if run.get("grown"):
            print("    Python allocations grown since the reply's first text (MB, by line): " + ", ".join(f"{k} {v}" for k, v in run["grown"].items()))
        for phase, packages in run.get("imported", {}).items():
            print(f"    imported by {phase} (top-level package: modules): " + ", ".join(f"{k} {v}" for k, v in packages.items()))
        print("    modules loaded: " + ", ".join(f"{phase} {run[phase]['modules']}" for phase in ("first_frame", "idle", "first_delta", "at_top", "end")
                                          if phase in run))
    print(f"\n{os.cpu_count()} CPUs, load average {'/'.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
