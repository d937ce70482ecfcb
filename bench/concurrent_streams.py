"""Event-loop lag and process CPU of the real main window while 1, 2 and 4 conversations stream replies at once.

One process builds the real window the way the app does (`window_setup.create_main_window` on the app's event loop,
`window_setup.create_event_loop`; a real SQLite `Store` in a temporary `DESKTOP_COPILOT_HOME`; the real Anthropic
adapter). A loopback server in a process of its own (`tests/support/loopback.py`, one thread per request; the same
Markdown-ish deltas as `stream_latency.py`: prose, code fences, lists, tables, CJK) answers every request with an
Anthropic SSE reply of exactly `--deltas` text deltas of ~`--delta-bytes` B, the first naming the question, paced at
`--rate` deltas/s per stream: N conversations streaming at once receive N x `--rate` deltas/s together. It never cuts
a reply short; a window that falls behind shows as streams that take longer and fewer deltas/s than offered.

For each case N (`--streams`, default 1, 2 and 4), interleaved over `--repeat` rounds after one unmeasured warm-up:

- a new chat is opened with the window's own action (`window.history.new_conversation()`, what the sidebar's New chat
  does), a question typed into the composer and sent (`composer.set_text` + `submit`); once its question is in the
  conversation, the next new chat is opened and sent, N times: N-1 replies stream in the background, the last one on
  screen;
- a precise single-shot `QTimer` re-armed every `--interval` ms (default 5) records how late each firing is: the
  event-loop lag, from the first text delta of any stream to the end of the last run (and, apart, only while all N
  were streaming);
- process CPU time (`time.process_time`: every thread, the store's writer and indexer too) and the main thread's
  (`time.thread_time`) over the same time; the text deltas the app received (counted at
  `ChatController._on_run_event`, for every conversation, shown or not); how long the store's writer took to have
  everything written after the last run ended; the longest block of the GUI thread (the longest gap between the
  timer's firings) and when it came (during the sends, as a run ended, mid-stream); the garbage collector's passes.

A round also measures the lag of the idle window for 1 s (the reference). At the end the window is closed as the app
closes it (runs, HTTP clients, store), the database is opened afresh and every conversation is checked: its own
question and one reply, completed, stop reason end_turn, the text exactly what the server sent to that question (a
reply written into another conversation, or a delta lost, shows). A failure is printed, and the exit code is 1.

Printed: one row per N: lag p50 / p99 / max (ms, pooled over the rounds), p99 while all N streamed, process CPU s
(median per round), CPU us per delta, main-thread CPU s, deltas/s delivered (and its ratio to the offered rate); the
CPU per delta of the streams in the background (above the one on screen); the per-round figures; and the target line
"4 streams: lag p99 X ms (target < 50 ms): met/NOT met". `--json PATH` writes the suite's rows, `--quick` is one round.

    python bench/concurrent_streams.py                       # ~1 min: 3 rounds of 1, 2, 4 streams, 2,000 deltas each
    python bench/concurrent_streams.py --quick               # ~25 s: 1 round
    python bench/concurrent_streams.py --streams 1,4,8 --deltas 1000 --rate 250
    python bench/concurrent_streams.py --profile             # + a cProfile of the main thread in the last round's largest case
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(Path(__file__).resolve().parent))

from stream_latency import GcPauses, LagProbe, deltas, pct  # after the path is set

TARGET_STREAMS = 4
TARGET_P99_MS = 50.0
GRACE_S = 30.0
"""A case whose runs have not all ended this long after the offered stream time is stopped (as a user would)."""


# --- the server, in its own process (so it does not compete for the GUI process's GIL) -------------


def question_of(request: dict) -> str:
    """The text of the last user message of an Anthropic request."""
    for message in reversed(request.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return "".join(part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text")
    return ""


def header_delta(question: str) -> str:
    """The first delta of each reply names its question, so the check at the end sees a reply stored in the wrong
    conversation."""
    return f"Reply to: {question}\n\n"


def expected_text(question: str, n_deltas: int, delta_bytes: int) -> str:
    """The reply the server sends to `question` (its source is deterministic): the header and n_deltas - 1 deltas."""
    return header_delta(question) + "".join(itertools.islice(deltas(delta_bytes), max(0, n_deltas - 1)))


def serve(rate: float, n_deltas: int, delta_bytes: int) -> None:
    """Every request to /v1/messages gets its own reply (the server answers each on a thread of its own): an Anthropic
    SSE stream of exactly `n_deltas` text deltas paced at `rate` per second. It never cuts a reply short: a window that
    falls behind shows as a stream that takes longer. Prints its URL, serves until its stdin closes."""
    from tests.support.loopback import LoopbackServer, ScriptedResponse, anthropic_sse

    def sse(event: dict) -> bytes:
        return anthropic_sse([event])[0]

    def body(question: str):
        yield sse({"type": "message_start", "message": {
            "id": "msg_bench", "type": "message", "role": "assistant", "model": "claude-bench", "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}})
        yield sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
        source = itertools.chain([header_delta(question)], deltas(delta_bytes))
        start = time.perf_counter()
        for i in range(n_deltas):
            wait = start + i / rate - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            yield sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": next(source)}})
        yield sse({"type": "content_block_stop", "index": 0})
        yield sse({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                   "usage": {"output_tokens": n_deltas}})
        yield sse({"type": "message_stop"})

    def respond(request):
        return ScriptedResponse(headers={"content-type": "text/event-stream"}, chunks=body(question_of(request.json())))

    server = LoopbackServer().start()
    server.set_handler("/v1/messages", respond)
    print(server.url, flush=True)
    sys.stdin.read()  # until the parent closes our stdin
    server.stop()


# --- recording the runs -------------------------------------------------------------------------------


class Runs:
    """Every run event of the controller, shown conversation or not (wraps `ChatController._on_run_event`, which each
    run's emit looks up at call time): text deltas per conversation, the first delta and each run's end, with the
    process's and the main thread's CPU time then."""

    def __init__(self, controller) -> None:
        from desktop_copilot.core.conversation import events as ev

        self._ev = ev
        self.reset()
        original = controller._on_run_event

        def on_run_event(run, event) -> None:
            self.seen(run.conversation_id, event)
            original(run, event)

        controller._on_run_event = on_run_event

    def reset(self) -> None:
        self.deltas: dict[str, int] = {}
        self.first_delta: dict[str, tuple[float, float, float]] = {}
        self.finished: dict[str, tuple[float, float, float]] = {}
        self.outcomes: dict[str, str] = {}

    def seen(self, conversation_id: str, event) -> None:
        if isinstance(event, self._ev.TextDelta):
            self.deltas[conversation_id] = self.deltas.get(conversation_id, 0) + 1
            if conversation_id not in self.first_delta:
                self.first_delta[conversation_id] = (time.perf_counter(), time.process_time(), time.thread_time())
        elif isinstance(event, self._ev.RunFinished):
            self.finished[conversation_id] = (time.perf_counter(), time.process_time(), time.thread_time())
            self.outcomes[conversation_id] = event.outcome


async def until(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout:g} s for {what}")
        await asyncio.sleep(0.002)


async def idle_lag(probe: LagProbe, seconds: float) -> list[float]:
    start = time.perf_counter()
    await asyncio.sleep(seconds)
    return probe.between(start, time.perf_counter())


async def streams_case(window, store, runs: Runs, probe: LagProbe, gc_pauses: GcPauses, questions: dict[str, str], n: int,
                       args, profiler=None) -> dict:
    """N conversations sent one after another (each from a new chat), N-1 streaming in the background and the last on
    screen, until every run has ended; the figures of that time."""
    controller, composer = window.controller, window.composer
    window.history.new_conversation()  # an empty chat on screen (nothing happens when the one shown is empty)
    await asyncio.sleep(0.3)
    runs.reset()
    conversations = []
    sent_at = time.perf_counter()
    if profiler is not None:
        profiler.enable()
    for i in range(n):
        if i:
            window.history.new_conversation()  # the reply before goes on in the background
        conversation = controller.session.conversation
        question = f"Stream {i + 1} of {n} ({conversation.id}): write a very long answer, please."
        questions[conversation.id] = question
        composer.set_text(question)
        if not composer.submit():
            raise SystemExit(f"the composer did not send stream {i + 1} of {n} (busy: {controller.busy})")
        await until(lambda shown=conversation: bool(shown.messages), 10, f"the question of stream {i + 1} of {n} to be in its conversation")
        conversations.append(conversation)
    sends_done = time.perf_counter()
    ids = [c.id for c in conversations]
    stopped = False
    try:
        await asyncio.wait_for(controller.wait_all(), args.deltas / args.rate + GRACE_S)
    except TimeoutError:
        stopped = True
        controller.stop_all()
        await controller.wait_all()
    if profiler is not None:
        profiler.disable()
    ended_at = time.perf_counter()
    await until(store.writer.idle, 30, "the store's writer to write every row")
    writer_lag = time.perf_counter() - ended_at
    missing = [i for i in ids if i not in runs.first_delta or i not in runs.finished]
    if missing:
        raise SystemExit(f"{n} streams: {len(missing)} run(s) without a text delta or without an end: {runs.outcomes}")
    first = min(runs.first_delta[i] for i in ids)
    last = max(runs.finished[i] for i in ids)
    all_live = (max(runs.first_delta[i][0] for i in ids), min(runs.finished[i][0] for i in ids))
    wall = last[0] - first[0]
    total = sum(runs.deltas.get(i, 0) for i in ids)
    await asyncio.sleep(0.5)  # the last reply's final render and the sidebar's updates, outside the measured time
    block, block_at = longest_gap(probe, first[0], last[0])
    ends = [runs.finished[i][0] for i in ids]
    where = ("during the sends" if block_at < sends_done else
             "as a run ended" if any(block_at - 0.005 <= end <= block_at + block / 1e3 + probe.interval + 0.005 for end in ends)
             else "mid-stream")
    return {
        "n": n, "ids": ids, "lag": probe.between(first[0], last[0]),
        "lag_all_live": probe.between(*all_live) if all_live[1] > all_live[0] else [],
        "wall": wall, "cpu": last[1] - first[1], "main_cpu": last[2] - first[2], "deltas": total,
        "per_stream": [runs.deltas.get(i, 0) for i in ids], "outcomes": [runs.outcomes.get(i) for i in ids],
        "stream_seconds": [runs.finished[i][0] - runs.first_delta[i][0] for i in ids],
        "first_delta_after_send": first[0] - sent_at, "writer_lag": writer_lag, "stopped": stopped,
        "longest_block": block, "longest_block_at": f"{block_at - first[0]:+.2f} s from the first delta, {where}",
        "gc": gc_pauses.summary(first[0], last[0]), "sends": sends_done - sent_at,
    }


def longest_gap(probe: LagProbe, start: float, end: float) -> tuple[float, float]:
    """The longest time (ms) the loop did not serve the lag timer beyond its interval, for firings in [start, end], and
    when that gap began (perf_counter)."""
    times = [at for at, _lag in probe.samples]
    gaps = [((b - a - probe.interval) * 1e3, a) for a, b in itertools.pairwise(times) if start <= b <= end]
    return max(gaps, default=(0.0, start))


def check_store(database: Path, ids: list[str], questions: dict[str, str], args) -> list[str]:
    """Every reply in a freshly opened database: its own question and one reply, completed, end_turn, the exact text the
    server sent to that question. The problems found."""
    from desktop_copilot.core.conversation.models import Role
    from desktop_copilot.core.conversation.statuses import MessageStatus
    from desktop_copilot.core.storage.store import Store

    problems = []
    store = Store(database)
    try:
        for conversation_id in ids:
            conversation = store.load_conversation(conversation_id)
            if conversation is None:
                problems.append(f"{conversation_id}: not in the database")
                continue
            replies = [m for m in conversation.messages if m.role is Role.ASSISTANT]
            asked = [m for m in conversation.messages if m.role is Role.USER]
            if len(replies) != 1 or len(asked) != 1:
                problems.append(f"{conversation_id}: {len(asked)} question(s) and {len(replies)} reply(ies) stored")
                continue
            question = questions[conversation_id]
            if asked[0].text != question:
                problems.append(f"{conversation_id}: the stored question is not the one sent: {asked[0].text[:80]!r}")
            full = expected_text(question, args.deltas, args.delta_bytes)
            reply = replies[0]
            if reply.status is not MessageStatus.COMPLETED or reply.stop_reason != "end_turn":
                problems.append(f"{conversation_id}: reply {reply.status.value}, stop reason {reply.stop_reason!r}"
                                f"{f', error {reply.error!r}' if reply.error else ''}")
            text = reply.text
            if text != full:
                same = next((k for k, (a, b) in enumerate(zip(text, full)) if a != b), min(len(text), len(full)))
                problems.append(f"{conversation_id}: the stored reply is not the text sent to its question ({len(text)} vs"
                                f" {len(full)} characters, first difference at {same}: {text[same:same + 60]!r})")
    finally:
        store.close()
    return problems


# --- printing ---------------------------------------------------------------------------------------


def row(measure: str, value: float, unit: str, target: str, met: bool, reference: str | None = None,
        reference_value: float | None = None) -> dict:
    return {"measure": measure, "value": round(value, 3), "unit": unit, "reference": reference,
            "reference_value": None if reference_value is None else round(reference_value, 3),
            "ratio": round(value / reference_value, 2) if reference_value else None, "target": target, "met": met}


def report(cases: dict[int, list[dict]], idle: list[list[float]], args) -> tuple[list[dict], float]:
    idle_all = [lag for samples in idle for lag in samples]
    print(f"\nevent-loop lag ({args.interval} ms precise timer, how late each firing was), pooled over {args.repeat} round(s);"
          " CPU figures are medians of the rounds")
    head = (f"{'streams':>7} | {'lag p50':>7} | {'lag p99':>7} | {'lag max':>7} | {'p99 all N live':>14} | {'CPU s':>6} |"
            f" {'CPU us/delta':>12} | {'main-thread CPU s':>17} | {'deltas/s':>8} | {'x offered':>9} | {'samples':>7}")
    print(head)
    print("-" * len(head))
    print(f"{'idle':>7} | {pct(idle_all, 50):7.2f} | {pct(idle_all, 99):7.2f} | {max(idle_all, default=float('nan')):7.2f} |"
          f" {'':>14} | {'':>6} | {'':>12} | {'':>17} | {'':>8} | {'':>9} | {len(idle_all):>7}")
    rows = [row("event-loop lag p99, idle window", pct(idle_all, 99), "ms", "report only", True)]
    target_p99 = float("nan")
    for n, results in cases.items():
        lag = [v for r in results for v in r["lag"]]
        live = [v for r in results for v in r["lag_all_live"]]
        cpu = statistics.median(r["cpu"] for r in results)
        main_cpu = statistics.median(r["main_cpu"] for r in results)
        per_delta = statistics.median(r["cpu"] / max(1, r["deltas"]) * 1e6 for r in results)
        rate = statistics.median(r["deltas"] / r["wall"] for r in results)
        offered = n * args.rate
        p99 = pct(lag, 99)
        print(f"{n:>7} | {pct(lag, 50):7.2f} | {p99:7.2f} | {max(lag, default=float('nan')):7.2f} |"
              f" {pct(live, 99) if live else float('nan'):14.2f} | {cpu:6.2f} | {per_delta:12.1f} | {main_cpu:17.2f} |"
              f" {rate:8.0f} | {rate / offered:9.2f} | {len(lag):>7}")
        rows += [
            row(f"event-loop lag p99, {n} stream(s) at once", p99, "ms",
                f"< {TARGET_P99_MS:g} ms" if n == TARGET_STREAMS else "report only",
                p99 < TARGET_P99_MS if n == TARGET_STREAMS else True, "idle window", pct(idle_all, 99)),
            row(f"process CPU per delta, {n} stream(s) at once", per_delta, "us", "report only", True),
        ]
        if n == TARGET_STREAMS:
            target_p99 = p99
    if 1 in cases and len(cases) > 1:  # the shown reply renders; the others only parse, accumulate and store
        one = cases[1]
        for n, results in cases.items():
            if n > 1:
                extra = [(r["cpu"] - statistics.median(o["cpu"] for o in one)) / max(1, r["deltas"] - statistics.median(
                    o["deltas"] for o in one)) * 1e6 for r in results]
                print(f"  {n} streams: the {n - 1} in the background cost {statistics.median(extra):.0f} us CPU per delta"
                      f" (CPU above 1 stream's, per delta above its); the one on screen"
                      f" {statistics.median(o['cpu'] / max(1, o['deltas']) * 1e6 for o in one):.0f} us")
    print("\nper round:")
    for n, results in cases.items():
        for k, r in enumerate(results, 1):
            print(f"  {n} stream(s), round {k}: lag p99 {pct(r['lag'], 99):6.2f} ms, longest block {r['longest_block']:6.1f} ms"
                  f" ({r['longest_block_at']}); sends took {r['sends'] * 1e3:.0f} ms; gc {r['gc']};"
                  f" {r['deltas']} deltas in {r['wall']:.2f} s (per stream {', '.join(map(str, r['per_stream']))});"
                  f" streams took {', '.join(f'{s:.2f}' for s in r['stream_seconds'])} s;"
                  f" first delta {r['first_delta_after_send'] * 1e3:.0f} ms after the first send;"
                  f" store written {r['writer_lag'] * 1e3:.0f} ms after the last run ended;"
                  f" outcomes {', '.join(sorted(set(map(str, r['outcomes']))))}{'; STOPPED after the grace time' if r['stopped'] else ''}")
    return rows, target_p99


# --- the run -----------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=lambda v: [int(x) for x in v.split(",")], default=[1, 2, 4],
                        help="the numbers of conversations streaming at once, comma-separated (default 1,2,4)")
    parser.add_argument("--deltas", type=int, default=2000, help="text deltas per reply (default 2000)")
    parser.add_argument("--rate", type=float, default=500.0, help="text deltas per second per stream (default 500)")
    parser.add_argument("--delta-bytes", type=int, default=200, help="UTF-8 bytes per delta (default 200)")
    parser.add_argument("--repeat", type=int, default=3, help="measured rounds, each case once per round (default 3)")
    parser.add_argument("--interval", type=int, default=5, help="the lag timer's interval in ms (default 5)")
    parser.add_argument("--quick", action="store_true", help="one round (as --repeat 1)")
    parser.add_argument("--profile", action="store_true",
                        help="print a cProfile of the main thread during the last round's largest case")
    parser.add_argument("--json", metavar="PATH", help="also write the rows (the suite's format) there")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.repeat = 1
    if args.serve:
        serve(args.rate, args.deltas, args.delta_bytes)
        return 0

    serve_args = ["--rate", str(args.rate), "--deltas", str(args.deltas), "--delta-bytes", str(args.delta_bytes)]
    from _paced_server import app_beside_server

    with app_beside_server(__file__, serve_args, "bench-concurrent-"):
        return run(args)


def run(args) -> int:
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    def qt_message(_mode, _context, message: str) -> None:  # the offscreen plugin says this at every new chat
        if "propagateSizeHints" not in message:
            print(message, file=sys.stderr)

    qInstallMessageHandler(qt_message)
    app = QApplication([sys.argv[0]])
    from desktop_copilot.app.window_setup import create_event_loop, create_main_window, start_on_first_use
    from desktop_copilot.core.bootstrap import open_store
    from desktop_copilot.core.config.app_config import AppConfig
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.runtime import Runtime

    loop = create_event_loop(app)
    paths = AppPaths.resolve().ensure()
    runtime = Runtime(paths, AppConfig.from_environment())
    store = open_store(paths, runtime.warnings)
    window = create_main_window(runtime, store)
    start_on_first_use(window)
    window.resize(1000, 760)
    window.show()
    app.processEvents()
    runs = Runs(window.controller)
    probe = LagProbe(args.interval)
    gc_pauses = GcPauses()
    questions: dict[str, str] = {}
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()

    print(f"{os.cpu_count()} CPUs, load average at the start {os.getloadavg()}; event loop {type(loop).__qualname__},"
          f" Qt platform {app.platformName()}, window {window.width()}x{window.height()}")
    print(f"each stream: {args.deltas} deltas of ~{args.delta_bytes} B at {args.rate:g}/s"
          f" ({args.deltas / args.rate:.1f} s, {args.deltas * args.delta_bytes / 1024:.0f} KB); cases {args.streams},"
          f" 1 warm-up + {args.repeat} round(s)")
    cases: dict[int, list[dict]] = {n: [] for n in args.streams}
    idle: list[list[float]] = []
    ids: list[str] = []
    counts: dict[str, int] = {}

    async def rounds() -> None:
        probe.start()
        await asyncio.sleep(0.5)
        warm = await streams_case(window, store, runs, probe, gc_pauses, questions, 1, args)  # imports, first request, caches
        ids.extend(warm["ids"])
        for k in range(args.repeat):
            idle.append(await idle_lag(probe, 1.0))
            for n in args.streams:
                last = profiler if k == args.repeat - 1 and n == max(args.streams) else None
                result = await streams_case(window, store, runs, probe, gc_pauses, questions, n, args, last)
                cases[n].append(result)
                ids.extend(result["ids"])
                print(f"  round {k + 1}, {n} stream(s): lag p99 {pct(result['lag'], 99):.2f} ms, {result['cpu']:.2f} s CPU,"
                      f" {result['deltas']} deltas in {result['wall']:.2f} s", flush=True)
        probe.stop()
        counts["gc-tracked objects"] = len(gc.get_objects())  # a full (gen2) pass walks them all on the GUI thread

    started = time.perf_counter()
    try:
        loop.run_until_complete(rounds())
    finally:  # as the app closes (window_setup.run_window)
        window.close()
        loop.run_until_complete(window.controller.aclose())
        loop.run_until_complete(window.background.aclose())
        runtime.stop_mcp()
        store.close()
    elapsed = time.perf_counter() - started
    rows, target_p99 = report(cases, idle, args)
    problems = check_store(paths.database, ids, questions, args)
    measured = len(ids) - 1
    if problems:
        print(f"\nFAILED: {len(problems)} of {len(ids)} replies are not complete in the database:")
        for problem in problems:
            print(f"  {problem}")
    else:
        print(f"\nstore: all {len(ids)} replies ({measured} measured + 1 warm-up) are complete in the database"
              f" (completed, end_turn, the exact {args.deltas} deltas sent to its own question)")
    rows.append(row("replies complete in the database", len(ids) - len(problems), "replies", f"= {len(ids)}", not problems))
    if profiler is not None:
        import pstats

        print(f"\n--- cProfile of the main thread, {max(args.streams)} streams, last round: top 30 by own time ---")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
    print(f"\n{len(ids)} runs in {elapsed:.0f} s; {counts.get('gc-tracked objects', 0):,} gc-tracked objects before closing;"
          f" load average at the end {os.getloadavg()}")
    if TARGET_STREAMS in cases:
        print(f"{TARGET_STREAMS} streams: lag p99 {target_p99:.1f} ms (target < {TARGET_P99_MS:g} ms):"
              f" {'met' if target_p99 < TARGET_P99_MS else 'NOT met'}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    window.deleteLater()
    loop.close()
    asyncio.set_event_loop(None)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
