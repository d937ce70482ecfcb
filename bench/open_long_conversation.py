"""Opening a 10,000-message conversation vs a 10-message one: time from the open request to the first paint
of the window showing it, and RSS, each open in a fresh process, lazily and eagerly, side by side.

    python bench/open_long_conversation.py                 # ~1 min: seeds two stores, 3 opens of each kind
    python bench/open_long_conversation.py --root OTHER    # also time the eager open of another checkout

Each child builds the real window (`create_main_window`) on an empty conversation, lets it settle, then
opens the stored conversation: `lazy` through `ChatController.open_stored` (the transcript reads the message
index and the last messages, the rest as they scroll into view), `eager` through
`store.load_conversation` + `controller.set_conversation` (what the sidebar did). It reports the time to
the next paint of the transcript, the CPU, whether rows on screen were still placeholders, and RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _seed_conversations import seed

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._proc import self_mb  # noqa: E402


def child(mode: str, database: str, conversation_id: str) -> None:
    """Show the window, then open the conversation and report when the transcript has painted it."""
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication([sys.argv[0]])
    from desktop_copilot.app.window_setup import create_main_window
    from desktop_copilot.core.config.app_config import AppConfig
    from desktop_copilot.core.conversation.models import Conversation
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.runtime import Runtime
    from desktop_copilot.core.storage.store import Store

    store = Store(database)
    window = create_main_window(Runtime(AppPaths.resolve().ensure(), AppConfig.from_environment()), store, Conversation())
    window.resize(1100, 820)
    window.show()
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        app.processEvents()
    result: dict = {"mode": mode, "rss_before_mb": self_mb("VmRSS")}
    view = window.view

    class FirstPaint(QObject):
        def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt name
            if event.type() == QEvent.Type.Paint and "painted" not in result:
                result["painted"] = True
                QTimer.singleShot(0, report)
            return False

    def report() -> None:
        result.update(open_to_paint_ms=(time.perf_counter() - started) * 1e3, cpu_ms=(time.thread_time() - cpu) * 1e3)
        model, row, placeholders = view.model(), max(0, view.indexAt(view.viewport().rect().topLeft()).row()), 0
        while row < model.rowCount() and view.visualRect(model.index(row, 0)).top() < view.viewport().height():
            placeholders += hasattr(model, "segment_at") and model.segment_at(row).kind == "pending"
            row += 1
        result["placeholders_on_screen"] = placeholders
        result["rows"] = model.rowCount()
        result["rss_after_mb"] = self_mb("VmRSS")
        result["peak_rss_mb"] = self_mb("VmHWM")
        print(json.dumps(result), flush=True)
        app.quit()

    view.viewport().installEventFilter(FirstPaint(view))
    started, cpu = time.perf_counter(), time.thread_time()
    if mode == "lazy":

        window.controller.open_stored(conversation_id)
    else:
        window.controller.set_conversation(store.load_conversation(conversation_id))
    view.follow()
    result["open_call_ms"] = (time.perf_counter() - started) * 1e3
    view.viewport().update()
    app.exec()


def run_child(root: Path, mode: str, database: Path, conversation_id: str, home: str) -> dict:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", DESKTOP_COPILOT_HOME=home, ANTHROPIC_API_KEY="sk-ant-bench-fake",
               PYTHONPATH=str(root))
    out = subprocess.run([sys.executable, __file__, "--child", mode, str(database), conversation_id], env=env, cwd=root,
                         capture_output=True, text=True, timeout=600)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"the {mode} child failed:\n{out.stderr[-3000:]}")
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--root", type=Path, help="another checkout whose eager open is timed too (e.g. before a change)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(*args.child)
    with tempfile.TemporaryDirectory(prefix="bench-open-") as tmp:
        stores = {}
        for count in (args.small, args.messages):
            started = time.perf_counter()
            path = Path(tmp) / f"{count}.sqlite"
            stores[count] = (path, seed(path, count))
            print(f"seeded {count:,} messages ({path.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.1f} s")
        cases = [(ROOT, "lazy"), (ROOT, "eager")] + ([(args.root.resolve(), "eager")] if args.root else [])
        results: dict[tuple, list[dict]] = {}
        for _ in range(args.repeat):
            for root, mode in cases:
                for count, (path, conversation_id) in stores.items():
                    results.setdefault((root, mode, count), []).append(run_child(root, mode, path, conversation_id, tmp))
        report(results, args, os.getloadavg()[0])


def report(results: dict, args, load: float) -> None:
    def med(key, field):
        return statistics.median(r[field] for r in results[key])

    print(f"\n{os.cpu_count()} CPUs, offscreen, load average {load:.2f}; medians of {args.repeat} fresh processes each")
    print(f"{'checkout':<10} {'mode':<6} {'messages':>8} {'rows':>7} {'open→paint':>11} {'CPU':>8} {'RSS +':>8} {'peak RSS':>9}  placeholders")
    for (root, mode, count), runs in results.items():
        key = (root, mode, count)
        name = "this" if root == ROOT else root.name
        print(f"{name:<10} {mode:<6} {count:>8,} {runs[-1]['rows']:>7,} {med(key, 'open_to_paint_ms'):>8.0f} ms {med(key, 'cpu_ms'):>5.0f} ms"
              f" {med(key, 'rss_after_mb') - med(key, 'rss_before_mb'):>5.0f} MB {med(key, 'peak_rss_mb'):>6.0f} MB  {runs[-1]['placeholders_on_screen']}")
    for root, mode in dict.fromkeys((r, m) for r, m, _ in results):
        small, big = (root, mode, args.small), (root, mode, args.messages)
        print(f"ratio {args.messages:,}/{args.small} ({'this' if root == ROOT else root.name}, {mode}): open→paint"
              f" {med(big, 'open_to_paint_ms') / med(small, 'open_to_paint_ms'):.1f}x, RSS added"
              f" {(med(big, 'rss_after_mb') - med(big, 'rss_before_mb')) / max(1.0, med(small, 'rss_after_mb') - med(small, 'rss_before_mb')):.1f}x"
              f", peak RSS {med(big, 'peak_rss_mb') / med(small, 'peak_rss_mb'):.2f}x")


if __name__ == "__main__":
    main()
