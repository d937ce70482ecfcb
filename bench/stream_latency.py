"""Event-loop lag and per-delta UI cost of the real main window while a long reply streams from a loopback server."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._proc import pct, self_mb  # noqa: E402

FRAME_S = 0.016
GRACE_S = 5.0
"""After the offered stream time plus this, a reply still arriving is stopped (as a user would press Stop)."""
CJK = "流式渲染必须保持界面流畅，每个增量的开销不应随回复长度增长。中文、日本語、한국어混排测试。"
PIECES = [
    "## Section {n}\n\n",
    "Streaming text with **bold**, *italics*, `inline_code({n})` and a [link](https://example.com/{n}). "
    "The paragraph keeps going so that it wraps over several lines in the transcript column. ",
    "More prose: lists, tables and fences arrive in pieces, split anywhere, even inside a word or a fence.\n\n",
    "```python\ndef step_{n}(values: list[int]) -> int:\n    total = sum(v * {n} for v in values)\n"
    "    return total  # a comment\n```\n\n",
    CJK + "第{n}段。" + CJK + "\n\n",
    "- item {n} with `code`\n- another item, a bit longer than the first one\n\n",
    "| col a | col b |\n|---|---|\n| {n} | value |\n\n",
]


def deltas(size: int):
    """Endless Markdown-ish deltas of about `size` UTF-8 bytes each (prose, fences, CJK, lists, tables)."""
    n, buffer = 0, ""
    while True:
        while len(buffer.encode()) < 4 * size:
            buffer += PIECES[n % len(PIECES)].format(n=n)
            n += 1
        cut, used = 0, 0
        while used < size:
            used += len(buffer[cut].encode())
            cut += 1
        yield buffer[:cut]
        buffer = buffer[cut:]


# --- the server, in its own process (so it does not compete for the GUI process's GIL) -------------


def serve(rate: float, seconds: float, delta_bytes: int) -> None:
    from _paced_server import serve_paced_reply

    serve_paced_reply(deltas, rate, delta_bytes, seconds=seconds)


# --- measurement helpers ---------------------------------------------------------------------------


class Sections:
    """Exclusive main-thread CPU time per instrumented section (nested sections are not counted twice)."""

    def __init__(self) -> None:
        self.total: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._stack: list[list[float]] = []
        self.longest: list[tuple[float, str, float, float]] = []
        """(wall ms, section, when, CPU ms) of the longest outermost calls."""

    def wrap(self, name: str, fn):
        def timed(*args, **kwargs):
            self._stack.append([time.thread_time(), 0.0])
            wall = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                start, children = self._stack.pop()
                spent = time.thread_time() - start
                if not self._stack:
                    self.longest.append(((time.perf_counter() - wall) * 1e3, name, wall, spent * 1e3))
                    if len(self.longest) > 400:
                        self.longest = sorted(self.longest, reverse=True)[:40]
                self.total[name] = self.total.get(name, 0.0) + spent - children
                self.calls[name] = self.calls.get(name, 0) + 1
                if self._stack:
                    self._stack[-1][1] += spent

        return timed

    def ui(self) -> float:
        return sum(self.total.values())

    def snapshot(self) -> dict[str, tuple[float, int]]:
        return {name: (spent, self.calls[name]) for name, spent in self.total.items()}

    @staticmethod
    def between(start: dict, end: dict) -> dict[str, tuple[float, int]]:
        return {name: (spent - start.get(name, (0.0, 0))[0], calls - start.get(name, (0.0, 0))[1])
                for name, (spent, calls) in end.items()}


def instrument(sections: Sections, sync_writes: bool = False) -> None:
    """Time the Qt layer's work at class level, before the window exists (Qt binds overrides per instance)."""
    from desktop_copilot.qt.bridge.controller import ChatController
    from desktop_copilot.qt.transcript.delegate import TranscriptDelegate
    from desktop_copilot.qt.transcript.model import TranscriptModel
    from desktop_copilot.qt.transcript.view import TranscriptView

    ChatController.flush = sections.wrap("flush (dataChanged)", ChatController.flush)
    TranscriptModel.message_changed = sections.wrap("model re-segmenting", TranscriptModel.message_changed)
    TranscriptDelegate.layout = sections.wrap("row layout (documents)", TranscriptDelegate.layout)
    TranscriptDelegate.paint = sections.wrap("delegate paint", TranscriptDelegate.paint)
    TranscriptView.paintEvent = sections.wrap("view paintEvent", TranscriptView.paintEvent)
    for name in ("_on_data_changed", "_on_rows_inserted", "_on_rows_removed", "doItemsLayout"):
        setattr(TranscriptView, name, sections.wrap("view row bookkeeping", getattr(TranscriptView, name)))
    from desktop_copilot.core.storage.store import Store

    save_message = Store.save_message
    if sync_writes:  # as before the writer thread: every row written by the caller
        Store.save_message = lambda self, *args, background=False: save_message(self, *args)
    Store.save_message = sections.wrap("store: save message", Store.save_message)


# --- phase 1: controlled per-update cost at a given reply size -------------------------------------

PAINTS = "view paintEvent"


def settle(app, sections: Sections, timeout: float = 0.5) -> None:
    """Process events until Qt has painted the transcript (it schedules paints on a ~5 ms timer)."""
    before, deadline = sections.calls.get(PAINTS, 0), time.perf_counter() + timeout
    app.processEvents()
    while sections.calls.get(PAINTS, 0) == before and time.perf_counter() < deadline:
        time.sleep(0.0005)
        app.processEvents()


def per_update_cost(app, window, size: int, steps: int, delta_bytes: int, sections: Sections) -> dict[str, list[float]]:
    """Grow a fresh live reply to `size` bytes through the controller, a frame's worth of deltas per flush (as a
    500 deltas/s stream arrives), then time `steps` updates of one delta each, paced one per frame: main-thread
    CPU for apply + flush + events until Qt painted, and for a forced full-viewport repaint; finally finish it."""
    from PySide6.QtCore import QPoint

    from desktop_copilot.core.conversation import events as ev
    from desktop_copilot.core.conversation.accumulate import accumulate
    from desktop_copilot.core.conversation.models import Conversation, Message

    controller, viewport = window.controller, window.view.viewport()
    controller.set_conversation(Conversation())
    message = Message.assistant("claude-bench")
    controller.on_event(ev.MessageCreated(message=message, message_id=message.id))

    def apply(event) -> None:
        event.message_id = message.id
        accumulate(message, event)
        controller.on_event(event)

    apply(ev.Start(model="claude-bench"))
    apply(ev.TextStart(index=0))
    source, length = deltas(delta_bytes), 0
    viewport.setUpdatesEnabled(False)  # lay the reply out frame by frame as it would stream, without painting each frame
    while length < size:
        for _ in range(max(1, int(500 * FRAME_S))):
            if length >= size:
                break
            text = next(source)
            length += len(text.encode())
            apply(ev.TextDelta(index=0, text=text))
        controller.flush()
        app.processEvents()
    viewport.setUpdatesEnabled(True)
    settle(app, sections)
    out: dict[str, list[float]] = {"update": [], "update_wall": [], "repaint": []}
    next_at = time.perf_counter()
    for _ in range(steps):
        next_at += FRAME_S
        time.sleep(max(0.0, next_at - time.perf_counter()))
        cpu, wall = time.thread_time(), time.perf_counter()
        apply(ev.TextDelta(index=0, text=next(source)))
        controller.flush()
        settle(app, sections)
        out["update"].append((time.thread_time() - cpu) * 1e3)
        out["update_wall"].append((time.perf_counter() - wall) * 1e3)
        cpu = time.thread_time()
        viewport.repaint()
        out["repaint"].append((time.thread_time() - cpu) * 1e3)
    cpu = time.thread_time()
    apply(ev.Done(reason="end_turn"))
    controller.flush()
    settle(app, sections, timeout=5.0)
    out["finish"] = [(time.thread_time() - cpu) * 1e3]
    view, model = window.view, controller.model
    out["tallest_px"] = [max(view.rows.heights[row] for row in model.rows_of(message.id))]
    out["rows"] = [len(model.rows_of(message.id))]
    view.scrollToBottom()
    view.viewport().repaint()
    bottom = view.indexAt(QPoint(view.viewport().width() // 2, view.viewport().height() - 30)).row()
    out["end_shown"] = [float(bottom == model.rowCount() - 1)]
    return out


# --- phase 2: the live stream ----------------------------------------------------------------------


class LagProbe:
    """A precise 10 ms single-shot timer re-armed on every timeout; records how late each one fired."""

    def __init__(self, interval_ms: int = 10) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.interval = interval_ms / 1e3
        self.samples: list[tuple[float, float]] = []
        self._timer = QTimer(singleShot=True, interval=interval_ms, timerType=Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._fired)

    def start(self) -> None:
        self._due = time.perf_counter() + self.interval
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _fired(self) -> None:
        now = time.perf_counter()
        self.samples.append((now, max(0.0, now - self._due) * 1e3))
        self.start()

    def between(self, start: float, end: float) -> list[float]:
        return [lag for at, lag in self.samples if start <= at <= end]

    def longest_block(self, start: float, end: float) -> float:
        """The longest time (ms) the loop did not serve the timer, beyond its interval, for firings in
        [start, end]: about the longest single block of the GUI thread there."""
        times = [at for at, _lag in self.samples]
        gaps = [(b - a - self.interval) * 1e3 for a, b in zip(times, times[1:]) if start <= b <= end]
        return max([0.0, *gaps])


class GcPauses:
    """Durations of the garbage collector's passes, by generation (gc.callbacks): on any thread, since a pass holds
    the GIL, so one on the Markdown worker stalls the main thread as well."""

    def __init__(self) -> None:
        import gc

        self.passes: list[tuple[float, int, float]] = []  # (when, generation, ms)
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.passes.append((self._started, info["generation"], (time.perf_counter() - self._started) * 1e3))

    def summary(self, start: float, end: float) -> str:
        parts = []
        for generation in (0, 1, 2):
            found = [ms for at, gen, ms in self.passes if gen == generation and start <= at <= end]
            if found:
                parts.append(f"gen{generation}: {len(found)} passes, max {max(found):.1f} ms, total {sum(found):.0f} ms")
        return "; ".join(parts) or "none"


class KeystrokeProbe:
    """Posts a key press and release to the composer's text box every ~70 ms (jittered), alternately a letter
    and Backspace so the box keeps its size, and records the time from posting to the end of the box's next
    paint (PromptEdit.paintEvent, wrapped at class level before the window exists)."""

    def __init__(self, edit) -> None:
        import random

        from PySide6.QtCore import Qt, QTimer

        self.edit = edit
        self.samples: list[tuple[float, float]] = []  # (posted at, latency ms)
        self.missed = 0
        self._posted: float | None = None
        self._letter = True
        self._random = random.Random(13)
        self._timer = QTimer(singleShot=True, timerType=Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._post)

    @staticmethod
    def install() -> list:
        """Wrap PromptEdit.paintEvent; returns the list its end times are appended to."""
        from desktop_copilot.qt.window.composer import PromptEdit

        ends: list = []
        original = PromptEdit.paintEvent

        def paint_event(self, event):
            original(self, event)
            for probe in ends:
                probe.painted()

        PromptEdit.paintEvent = paint_event
        return ends

    def start(self) -> None:
        self._timer.start(self._random.randint(50, 90))

    def stop(self) -> None:
        self._timer.stop()

    def _post(self) -> None:
        from PySide6.QtCore import QCoreApplication, QEvent, Qt
        from PySide6.QtGui import QKeyEvent

        if self._posted is not None:  # the previous key was never painted
            self.missed += 1
        key, text = (Qt.Key.Key_A, "a") if self._letter else (Qt.Key.Key_Backspace, "")
        self._letter = not self._letter
        self._posted = time.perf_counter()
        for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            QCoreApplication.postEvent(self.edit, QKeyEvent(kind, key, Qt.KeyboardModifier.NoModifier, text))
        self.start()

    def painted(self) -> None:
        if self._posted is not None:
            now = time.perf_counter()
            self.samples.append((self._posted, (now - self._posted) * 1e3))
            self._posted = None

    def between(self, start: float, end: float) -> list[float]:
        return [latency for at, latency in self.samples if start <= at <= end]


def live_stream(app, loop, window, args, sections: Sections, keys: KeystrokeProbe, store) -> dict:
    import asyncio

    from desktop_copilot.core.conversation import events as ev

    controller = window.controller
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    finish_profiler = None
    if args.profile_finish:
        import cProfile

        finish_profiler = cProfile.Profile()
    state = {"deltas": 0, "bytes": 0, "first": None, "done": None, "cpu0": 0.0, "cpu1": 0.0, "ui0": 0.0}
    frames: list[tuple[int, int, float]] = []  # (reply bytes, deltas so far, Qt-layer CPU so far) per row update
    original_on_event = controller.on_event

    def on_event(event):
        if isinstance(event, ev.TextDelta):
            if state["first"] is None:
                state.update(first=time.perf_counter(), cpu0=time.thread_time(), ui0=sections.ui(), at_first=sections.snapshot())
                if profiler is not None:
                    profiler.enable()
            state["deltas"] += 1
            state["bytes"] += len(event.text.encode())
            state["last_delta"], state["last_delta_cpu"] = time.perf_counter(), time.thread_time()
        elif isinstance(event, ev.TextEnd) and finish_profiler is not None:
            finish_profiler.enable()
        elif isinstance(event, ev.RunFinished) and state["done"] is None:
            state.update(done=time.perf_counter(), cpu1=time.thread_time(), ui1=sections.ui(), at_done=sections.snapshot())
            if profiler is not None:
                profiler.disable()
        original_on_event(event)

    controller.on_event = on_event  # the session looks it up at send time
    controller.model.dataChanged.connect(lambda *_: frames.append((state["bytes"], state["deltas"], sections.ui())))
    probe = LagProbe()

    async def run() -> None:
        probe.start()
        keys.start()
        await asyncio.sleep(2.0)
        idle_end = time.perf_counter()
        window.composer.set_text("Write a very long answer, please.")
        window.composer.submit()
        deadline = time.monotonic() + args.seconds + GRACE_S
        while controller.busy and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        state["stopped"] = controller.stop()  # still behind after the grace period: the user presses Stop
        await controller.wait()
        await asyncio.sleep(1.0)  # the finished reply is laid out and painted once more
        indexer = getattr(store, "indexer", None)  # search indexing done in the background, where there is such a thing
        waited = time.monotonic()
        while indexer is not None and not indexer.idle() and time.monotonic() - waited < 10:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        state["after"], state["after_cpu"] = time.perf_counter(), time.thread_time()
        probe.stop()
        keys.stop()
        state["idle"] = probe.between(0.0, idle_end)
        state["idle_end"] = idle_end

    loop.run_until_complete(run())
    if finish_profiler is not None:
        import pstats

        finish_profiler.disable()
        print("\n--- cProfile of the main thread from the end of the text to idle, top 30 by cumulative time ---")
        pstats.Stats(finish_profiler).sort_stats("cumtime").print_stats(30)
    if profiler is not None:
        import pstats

        print("\n--- cProfile of the main thread from the first delta to the end of the run, top 25 by own time ---")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    if state["first"] is None or state["done"] is None:
        raise SystemExit(f"the stream did not complete: {state}")
    state["lag"] = probe.between(state["first"], state["done"])
    state["finish_lag"] = probe.between(state["done"], state["after"])
    state["finish_block"] = probe.longest_block(state["last_delta"], state["after"])
    state["keys_idle"] = keys.between(0.0, state["idle_end"])
    state["keys"] = keys.between(state["first"], state["done"])
    state["keys_missed"] = keys.missed
    state["frames"] = frames
    return state


def target_row(measure: str, value: float, unit: str, reference: str | None, reference_value: float | None,
               target: str, limit: float) -> dict:
    """One row of --json: `value` meets `target` when it is at most `limit`."""
    return {"measure": measure, "value": round(value, 2), "unit": unit, "reference": reference,
            "reference_value": None if reference_value is None else round(reference_value, 2),
            "ratio": round(value / reference_value, 2) if reference_value else None, "target": target, "met": value <= limit}


BUCKETS_KB = (0, 10, 50, 150, 300, 600, 1200, 4096)


def bucket_costs(frames: list[tuple[int, int, float]]) -> list[tuple[str, int, float, float]]:
    """(reply size range, flushes, Qt-layer CPU ms per flush, per delta) for the flushes in each size range."""
    out = []
    for low, high in zip(BUCKETS_KB, BUCKETS_KB[1:]):
        cpu = n_deltas = flushes = 0
        for previous, frame in zip(frames, frames[1:]):
            if low * 1024 <= frame[0] < high * 1024:
                flushes += 1
                cpu += frame[2] - previous[2]
                n_deltas += frame[1] - previous[1]
        if flushes:
            out.append((f"{low}-{high} KB", flushes, cpu / flushes * 1e3, cpu / max(1, n_deltas) * 1e3))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the live stream (default 20)")
    parser.add_argument("--rate", type=float, default=500.0, help="text deltas per second (default 500)")
    parser.add_argument("--delta-bytes", type=int, default=200, help="UTF-8 bytes per delta (default 200)")
    parser.add_argument("--sizes", type=lambda v: [float(x) for x in v.split(",")], default=[1, 50, 100],
                        help="reply sizes in KB for the per-update phase, smallest first (default 1,50,100)")
    parser.add_argument("--rounds", type=int, default=4, help="fresh replies per size in the per-update phase (0: skip it)")
    parser.add_argument("--steps", type=int, default=5, help="timed updates per reply in the per-update phase")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the main thread during the stream")
    parser.add_argument("--quick", action="store_true",
                        help="skip the per-update phase (as --rounds 0): the live stream and its rows only")
    parser.add_argument("--sync-writes", action="store_true",
                        help="write every message row on the GUI thread (Store.save_message(background=False)), for an A/B")
    parser.add_argument("--profile-finish", action="store_true",
                        help="print a cProfile of the main thread from the end of the streamed text until idle")
    parser.add_argument("--json", metavar="PATH", help="also write the figures against the issue's targets there (a JSON list of rows)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.rounds = 0
    if args.serve:
        return serve(args.rate, args.seconds, args.delta_bytes)

    serve_args = ["--rate", str(args.rate), "--seconds", str(args.seconds), "--delta-bytes", str(args.delta_bytes)]
    from _paced_server import app_beside_server

    with app_beside_server(__file__, serve_args, "bench-home-"):
        run(args)


def run(args) -> None:
    import asyncio

    from PySide6.QtWidgets import QApplication

    app = QApplication([sys.argv[0]])
    import qasync

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    sections = Sections()
    instrument(sections, args.sync_writes)
    key_listeners = KeystrokeProbe.install()
    from desktop_copilot.app.window_setup import create_main_window
    from desktop_copilot.core.config.app_config import AppConfig
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.runtime import Runtime
    from desktop_copilot.core.storage.store import Store

    import anthropic  # noqa: F401 - the window warms this import in the background before a user can type

    paths = AppPaths.resolve().ensure()
    store = Store(paths.database)
    window = create_main_window(Runtime(paths, AppConfig.from_environment()), store)
    window.show()
    app.processEvents()
    rss_window = self_mb("VmRSS")

    print(f"{os.cpu_count()} CPUs, load average at the start {os.getloadavg()}")
    print(f"window {window.width()}x{window.height()}, transcript viewport {window.view.viewport().width()}x"
          f"{window.view.viewport().height()}, Qt platform {app.platformName()}")
    print(f"\n[1] per-update cost on the main thread (CPU ms), one ~{args.delta_bytes} B delta per frame, "
          f"{args.rounds} fresh replies x {args.steps} updates per size, sizes interleaved")
    pooled: dict[int, dict[str, list[float]]] = {int(kb * 1024): {} for kb in args.sizes} if args.rounds > 0 else {}
    for _ in range(args.rounds):
        for size, values in pooled.items():
            for key, samples in per_update_cost(app, window, size, args.steps, args.delta_bytes, sections).items():
                values.setdefault(key, []).extend(samples)
    med = {size: {key: statistics.median(v) for key, v in values.items()} for size, values in pooled.items()}
    for size, m in med.items():
        print(f"  reply ~{size / 1024:>3.0f} KB: update (delta+flush+Qt's repaint) {m['update']:6.2f} ms (wall {m['update_wall']:6.2f} ms);"
              f" forced full-viewport repaint {m['repaint']:6.2f} ms; finishing the reply {m['finish']:6.1f} ms")
        print(f"    the reply is {m['rows']:.0f} rows, the tallest {m['tallest_px']:.0f} px;"
              f" {'its end is' if m['end_shown'] == 1 else '!! its end is NOT'} on screen after scrolling to the bottom")
    base_size, base = next(iter(med.items()), (1, {}))
    for size, m in list(med.items())[1:]:
        print(f"  ratio {size / 1024:.0f} KB / {base_size / 1024:.0f} KB: update {m['update'] / base['update']:.1f}x,"
              f" repaint {m['repaint'] / base['repaint']:.1f}x, finish {m['finish'] / base['finish']:.1f}x"
              "   (1.0x = cost independent of reply length)")

    print(f"\n[2] live stream offered at {args.rate:.0f} deltas/s x ~{args.delta_bytes} B for {args.seconds:.0f} s "
          f"({args.rate * args.delta_bytes * args.seconds / 1024:.0f} KB) by the loopback server")
    sections.total.clear()
    sections.calls.clear()
    sections.longest.clear()
    gc_pauses = GcPauses()
    keys = KeystrokeProbe(window.composer.edit)
    key_listeners.append(keys)
    state = live_stream(app, loop, window, args, sections, keys, store)
    wall = state["done"] - state["first"]
    cpu = state["cpu1"] - state["cpu0"]
    ui = state["ui1"] - state["ui0"]
    idle, lag, finish = state["idle"], state["lag"], state["finish_lag"]
    print(f"  delivered {state['deltas']} deltas, {state['bytes'] / 1024:.0f} KB in {wall:.1f} s "
          f"({state['deltas'] / wall:.0f} deltas/s){'; Stop pressed after the grace period' if state['stopped'] else ''};"
          f" {len(state['frames'])} flushes ({len(state['frames']) / wall:.1f}/s)")
    for label, values in (("idle (2 s before send)", idle), ("while streaming", lag), ("after the reply ended", finish)):
        print(f"  event-loop lag {label:<23} p50 {pct(values, 50):7.1f} ms  p99 {pct(values, 99):7.1f} ms"
              f"  max {max(values, default=float('nan')):7.1f} ms  ({len(values)} samples)")
    print(f"  main-thread CPU while streaming {cpu:.2f} s of {wall:.2f} s wall ({100 * cpu / wall:.0f} %);"
          f" of it in the instrumented Qt layer {ui:.2f} s ({100 * ui / max(cpu, 1e-9):.0f} %)")
    for name, (spent, calls) in sorted(Sections.between(state["at_first"], state["at_done"]).items(), key=lambda kv: -kv[1][0]):
        print(f"    {name:<24} {spent:6.2f} s CPU  {calls:>6} calls  {spent / max(1, calls) * 1e3:8.2f} ms/call")
    after = Sections.between(state["at_done"], sections.snapshot())
    print(f"  after the reply ended: {sum(v[0] for v in after.values()):.2f} s CPU in the Qt layer"
          f" (row layout {after.get('row layout (documents)', (0, 0))[0]:.2f} s: the exact render of the last chunk)")
    print("  Qt-layer CPU per flush and per delta, by reply size when flushed:")
    for label, flushes, per_flush, per_delta in bucket_costs(state["frames"]):
        print(f"    {label:>13}: {per_flush:8.2f} ms per flush, {per_delta:6.3f} ms per delta ({flushes} flushes)")
    print(f"  garbage collection while streaming: {gc_pauses.summary(state['first'], state['done'])}")
    print(f"  garbage collection from the last delta to idle: {gc_pauses.summary(state['last_delta'], state['after'])}")
    print("  longest single calls of the instrumented sections (wall ms / main-thread CPU ms, at s after the first delta):",
          ", ".join(f"{name} {ms:.0f}/{cpu:.0f} @{at - state['first']:.1f}" for ms, name, at, cpu in sorted(sections.longest, reverse=True)[:12]))
    keys_idle, keys_live = state["keys_idle"], state["keys"]
    for label, values in (("idle (before send)", keys_idle), ("while streaming", keys_live)):
        print(f"  keystroke -> composer painted {label:<19} p50 {pct(values, 50):7.1f} ms  p99 {pct(values, 99):7.1f} ms"
              f"  max {max(values, default=float('nan')):7.1f} ms  ({len(values)} keys)")
    print(f"    keys never painted before the next was posted: {state['keys_missed']}")
    finish_cpu = (state["after_cpu"] - state["last_delta_cpu"]) * 1e3
    print(f"  longest GUI-thread block from the last delta until idle (the reply finishing): {state['finish_block']:.1f} ms;"
          f" main-thread CPU in all that time {finish_cpu:.0f} ms (load-independent: what the GUI thread had to do)")
    print(f"\nRSS after the window was shown {rss_window:.0f} MB, at the end {self_mb('VmRSS'):.0f} MB, peak (VmHWM) {self_mb('VmHWM'):.0f} MB;"
          f" load average now {os.getloadavg()[0]:.2f}")
    rows = [
        target_row("event-loop lag p99 while streaming 500 deltas/s", pct(lag, 99), "ms", "idle lag p99", pct(idle, 99), "<= 16 ms", 16),
        target_row("keystroke to composer painted p99 while streaming", pct(keys_live, 99), "ms", "idle keystroke p99",
                   pct(keys_idle, 99), "<= 33 ms", 33),
        target_row("GUI-thread stall when the reply finishes (longest block, last delta to idle)", state["finish_block"], "ms",
                   None, None, "<= 50 ms", 50),
    ]
    print("\n" + "\n".join(f"  {'MET ' if r['met'] else 'NOT '} {r['measure']:<78} {r['value']:8.1f} {r['unit']}  target {r['target']}"
                            for r in rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    print(f"{os.cpu_count()} CPUs, load average at the end {os.getloadavg()}")
    print(json.dumps({
        "lag_ms": {"p50": pct(lag, 50), "p99": pct(lag, 99), "max": max(lag)},
        "finish_lag_max_ms": max(finish, default=None),
        "update_cpu_ms": {f"{size / 1024:.0f}KB": m["update"] for size, m in med.items()},
        "repaint_cpu_ms": {f"{size / 1024:.0f}KB": m["repaint"] for size, m in med.items()},
        "keystroke_ms": {"p50": pct(keys_live, 50), "p99": pct(keys_live, 99)}, "finish_block_ms": state["finish_block"],
        "finish_cpu_ms": round(finish_cpu, 1), "main_cpu_s": round(cpu, 3), "wall_s": round(wall, 3), "delivered_kb": state["bytes"] // 1024,
        "peak_rss_mb": self_mb("VmHWM"),
    }))
    window.close()
    loop.run_until_complete(window.controller.aclose())
    store.close()
    loop.close()  # also stops qasync's executor threads (Qt aborts if a running QThread is destroyed)
    asyncio.set_event_loop(None)


if __name__ == "__main__":
    main()
