"""The context meter's cost per keystroke with a 2,000-message conversation open, against a bare QPlainTextEdit's
keystroke, side by side in one run (offscreen).

    python bench/context_meter.py                # ~60 s: 5 interleaved rounds of 120 paced keystrokes per case
    python bench/context_meter.py --quick        # ~25 s: 2 rounds of 60
    python bench/context_meter.py --json rows.json

A store is seeded as bench/_seed_conversations.py does (2,000 mixed messages: Markdown, code, tables, CJK, thinking, tool
calls; every 500th reply ~60 KB) and opened whole in the real window (`create_main_window`, then
`ChatController.set_conversation`); the last reply is given a usage report near the estimate of its request, as a
provider's would be. Keys are typed at a fast typist's pace (`--interval`, 40 ms): each keystroke's time is the key press
and release sent to the box plus the event processing that follows (layout, paint, and any timer due, so the meter's
measure lands in the keystroke during which it runs). Cases, interleaved round by round, the two composer cases
swapping places every round, each after one unmeasured round:

- **bare**: a QPlainTextEdit alone in its own window, the same size as the composer's box;
- **with the meter**: the window's composer (grows, Send button, the meter's 150 ms throttle and its measure);
- **without the meter**: the same composer with the meter disconnected from the box, which shows the meter's share.

The window is let settle after it is activated (its header and usage line, the meter's re-read of the model and
settings are not typing). It also times the meter's measure alone (`ContextMeter.update_now`: the draft estimated, the
history from its cache), after a new message (the history passed again, each message's weight kept), after the
conversation changed (every message weighed again: a conversation opened, a compaction), and its first measure of a
session (the tool modules load then, not at start). It prints medians and p99 and their ratios to the bare keystroke.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _seed_conversations import seed

ROOT = Path(__file__).resolve().parents[1]
MESSAGES = 2_000
FRAME_MS = 16.7


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def row(measure: str, value: float, reference: str | None, reference_value: float | None, target: str, met: bool,
        unit: str = "ms") -> dict:
    ratio = value / reference_value if reference_value else None
    return {"measure": measure, "value": round(value, 4), "unit": unit, "reference": reference,
            "reference_value": None if reference_value is None else round(reference_value, 4),
            "ratio": None if ratio is None else round(ratio, 2), "target": target, "met": bool(met)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keys", type=int, default=120, help="keystrokes per case and round")
    parser.add_argument("--interval", type=float, default=40.0, help="ms between keystrokes")
    parser.add_argument("--quick", action="store_true", help="2 rounds of 60 keystrokes")
    parser.add_argument("--json", type=Path, help="write the result rows there as a JSON list")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.keys = 2, 60
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = tempfile.mkdtemp(prefix="bench-meter-")
    os.environ["DESKTOP_COPILOT_HOME"] = home
    sys.path.insert(0, str(ROOT))

    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication, QPlainTextEdit

    from desktop_copilot.app.window_setup import create_main_window
    from desktop_copilot.core.config.app_config import AppConfig
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.context import budget
    from desktop_copilot.core.conversation.models import Conversation, Message, Role
    from desktop_copilot.core.runtime import Runtime
    from desktop_copilot.core.storage.store import Store

    app = QApplication([sys.argv[0]])
    database = Path(home) / "bench.sqlite3"
    started = time.perf_counter()
    conversation_id = seed(database, MESSAGES)
    print(f"seeded {MESSAGES:,} messages ({database.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.1f} s")
    store = Store(database)
    window = create_main_window(Runtime(AppPaths.resolve().ensure(), AppConfig.from_environment()), store, Conversation())
    window.resize(1100, 820)
    window.show()
    conversation = store.load_conversation(conversation_id)
    meter = window.context_meter
    window.controller.set_conversation(conversation)
    meter.update_now()
    last_reply = next(m for m in reversed(conversation.messages) if m.role is Role.ASSISTANT)
    last_reply.usage.input_tokens = round(meter.breakdown.history * 1.05)  # what a provider would report, near the estimate
    last_reply.revision += 1
    meter.refresh()
    settle(app, 0.5)
    composer = window.composer
    bare = QPlainTextEdit()
    bare.resize(composer.edit.size())
    bare.setFont(composer.edit.font())
    bare.show()
    settle(app, 0.3)

    def type_keys(edit) -> list[float]:
        """Paced keystrokes into `edit`: the ms each took, its event processing included."""
        edit.activateWindow()
        edit.setFocus()
        settle(app, 0.3)  # the window's own work on activation (its header and usage line, the meter's re-read) is not typing
        times, start = [], time.perf_counter()
        for index in range(args.keys):
            due = start + index * args.interval / 1000
            while (wait := due - time.perf_counter()) > 0:
                time.sleep(min(wait, 0.005))
            char = "abcdefghij klmnopq rstuvwxyz "[index % 29]
            key = Qt.Key.Key_Space if char == " " else Qt.Key(Qt.Key.Key_A.value + ord(char) - ord("a"))
            began = time.perf_counter()
            QApplication.sendEvent(edit, QKeyEvent(QEvent.Type.KeyPress, key, Qt.KeyboardModifier.NoModifier, char))
            QApplication.sendEvent(edit, QKeyEvent(QEvent.Type.KeyRelease, key, Qt.KeyboardModifier.NoModifier, char))
            app.processEvents()
            times.append((time.perf_counter() - began) * 1000)
        settle(app, 0.2)  # the last measure runs, not timed
        edit.clear()
        settle(app, 0.2)
        return times

    connected = [True]

    def meter_connected(wanted: bool) -> None:
        if wanted and not connected[0]:
            composer.edit.textChanged.connect(meter._typed)
        elif connected[0] and not wanted:
            composer.edit.textChanged.disconnect(meter._typed)
        connected[0] = wanted

    began = time.perf_counter()
    meter._typed()  # the first keystroke after start: the tool modules load (once a session), the history is reused
    meter.update_now()
    first = (time.perf_counter() - began) * 1000
    for edit in (bare, composer.edit):  # one unmeasured round each
        type_keys(edit)
    samples: dict[str, list[float]] = {"bare": [], "meter": [], "no meter": []}
    measures_before = count_measures(meter)
    for round_ in range(args.rounds):  # the two composer cases swap places every round
        samples["bare"] += type_keys(bare)
        for case in (("meter", "no meter") if round_ % 2 == 0 else ("no meter", "meter")):
            meter_connected(case == "meter")
            samples[case] += type_keys(composer.edit)
        meter_connected(True)
    measured_while_typing = count_measures(meter) - measures_before

    warm = []
    for index in range(200):
        composer.edit.setPlainText("How would the compaction keep every word? " * (index % 12))
        began = time.perf_counter()
        meter.update_now()
        warm.append((time.perf_counter() - began) * 1000)
    appended = []
    for index in range(5):  # a new message: the history passed again, each message's weight kept
        conversation.messages.append(Message.user(f"One more question, number {index}?"))
        began = time.perf_counter()
        meter.update_now()
        appended.append((time.perf_counter() - began) * 1000)
    cold = []
    for _ in range(5):
        budget.forget()
        began = time.perf_counter()
        meter.update_now()
        cold.append((time.perf_counter() - began) * 1000)
    composer.edit.clear()

    rows = report(args, samples, warm, appended, cold, first, measured_while_typing, meter)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    window.close()
    bare.close()
    store.close()
    return 0


def count_measures(meter) -> int:
    """How many measures the meter made so far (its breakdown object changes with each)."""
    meter._bench_count = getattr(meter, "_bench_count", 0)
    if not getattr(meter, "_bench_wrapped", False):
        show = meter._show

        def counted(*a, **kw):
            meter._bench_count += 1
            return show(*a, **kw)

        meter._show = counted
        meter._bench_wrapped = True
    return meter._bench_count


def settle(app, seconds: float) -> None:
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        app.processEvents()
        time.sleep(0.005)


def report(args, samples: dict[str, list[float]], warm: list[float], appended: list[float], cold: list[float], first: float,
           measured: int, meter) -> list[dict]:
    stats = {name: (statistics.median(v), percentile(v, 0.99)) for name, v in samples.items()}
    warm_median, warm_p99 = statistics.median(warm), percentile(warm, 0.99)
    cold_median, appended_median = statistics.median(cold), statistics.median(appended)
    keys = args.rounds * args.keys
    bare_median, bare_p99 = stats["bare"]
    print(f"\n{os.cpu_count()} CPUs, offscreen, load {os.getloadavg()[0]:.2f}; {args.rounds} rounds × {args.keys} keystrokes"
          f" every {args.interval:g} ms per case, interleaved; {MESSAGES:,} messages open"
          f" ({meter.breakdown.total:,} tokens, {meter.breakdown.exact_tokens:,} of them reported)")
    print(f"{'keystroke':<40} {'median':>9} {'p99':>9} {'× bare median':>14} {'× bare p99':>11}")
    for name, title in (("bare", "bare QPlainTextEdit"), ("meter", "composer with the meter"), ("no meter", "composer without the meter")):
        median, p99 = stats[name]
        print(f"{title:<40} {median:>6.3f} ms {p99:>6.3f} ms {median / bare_median:>13.2f}x {p99 / bare_p99:>10.2f}x")
    print(f"the meter measured {measured} times during {keys * 1} keystrokes with it ({measured / keys:.2f} a keystroke)")
    print(f"{'meter measure alone (history cached)':<40} {warm_median:>6.3f} ms {warm_p99:>6.3f} ms"
          f" {warm_median / bare_median:>13.2f}x {warm_p99 / bare_p99:>10.2f}x")
    print(f"{'meter measure after a new message':<40} {appended_median:>6.1f} ms (median of {len(appended)})")
    print(f"{'meter measure after a change (weighed again)':<40} {cold_median:>6.1f} ms (median of {len(cold)})")
    print(f"{'first measure of a session (tools load)':<40} {first:>6.1f} ms (once)")
    reference = "bare QPlainTextEdit keystroke"
    with_median, with_p99 = stats["meter"]
    without_median, without_p99 = stats["no meter"]
    return [
        row("keystroke: bare QPlainTextEdit, median", bare_median, None, None, "report only", True),
        row("keystroke: bare QPlainTextEdit, p99", bare_p99, None, None, "report only", True),
        row(f"keystroke in the composer with the meter ({MESSAGES:,} messages), median", with_median, reference, bare_median,
            "report only", True),
        row(f"keystroke in the composer with the meter ({MESSAGES:,} messages), p99", with_p99, reference, bare_p99,
            "<= the composer without the meter + 1 frame", with_p99 <= without_p99 + FRAME_MS),
        row("keystroke in the composer without the meter, median", without_median, reference, bare_median, "report only", True),
        row("keystroke in the composer without the meter, p99", without_p99, reference, bare_p99, "report only", True),
        row("meter measure, history cached, median", warm_median, reference, bare_median, "<= 1 ms", warm_median <= 1.0),
        row("meter measure, history cached, p99", warm_p99, reference, bare_p99, "report only", True),
        row("meter measure after a new message (the history passed again, weights kept), median", appended_median, reference,
            bare_median, "<= 1 frame", appended_median <= FRAME_MS),
        row(f"meter measure after a change ({MESSAGES:,} messages weighed again), median", cold_median, reference, bare_median,
            "<= 100 ms", cold_median <= 100),
        row("meter: first measure of a session (the tool modules load)", first, reference, bare_median, "report only", True),
        row("measures per keystroke while typing", measured / keys, None, None, "<= 1", measured <= keys, unit="measures"),
    ]


if __name__ == "__main__":
    sys.exit(main())
