"""The soak: 1,000 tool turns in one conversation and 200 stored conversations opened and closed in the real window,
then the app closed; RSS growth after warm-up, and the asyncio tasks, threads, sockets, file descriptors, MCP server
processes and widgets left behind, while running and after closing (the driver: tests/support/soak.py)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support import soak
from tests.support.resources import Resources, describe

GROWTH_LIMIT = 10.0
"""RSS may grow by less than this (%) from warm-up to the end (the issue's "memory flat over a day")."""
TURN_TIME_LIMIT = 1.1
"""A tool turn at the end may take at most this many times one at warm-up (medians of 50 turns each)."""


def row(measure: str, value: float, unit: str, target: str, met: bool, reference: str | None = None,
        reference_value: float | None = None) -> dict:
    return {"measure": measure, "value": round(value, 2), "unit": unit, "reference": reference,
            "reference_value": None if reference_value is None else round(reference_value, 2),
            "ratio": round(value / reference_value, 3) if reference_value else None, "target": target, "met": met}


def growth(before: float, after: float) -> float:
    return 100.0 * (after - before) / before


def counts_line(label: str, resources: Resources) -> str:
    return f"  {label:<34} RSS {resources.rss_mb:6.1f} MB  " + "  ".join(f"{k} {v}" for k, v in resources.counts().items())


async def run(args) -> list[dict]:
    print(f"{soak.cpu_line()} at the start")
    started = time.perf_counter()
    server_pids = set(args.exclude_pids)
    soak.prepare_profile(args.conversations)
    before = await soak.snapshot(None, server_pids)
    app = soak.open_app()
    marks: dict[str, Resources] = {}
    turn_seconds: list[float] = []
    turn_cpu: list[float] = []
    """This process's CPU seconds per turn (all its threads): what the app did, whatever else the machine runs."""
    last = [time.perf_counter()]
    last_cpu = [time.process_time()]
    warm_turns = min(args.warmup_turns, max(1, args.turns // 2))
    warm_conversations = min(args.warmup_conversations, max(1, args.conversations // 2))
    cache_full_turn = CACHE_FULL_TURN if warm_turns < CACHE_FULL_TURN < args.turns else None

    async def after_turn(turn: int) -> None:
        turn_seconds.append(time.perf_counter() - last[0])
        turn_cpu.append(time.process_time() - last_cpu[0])
        if turn == warm_turns:
            marks["turns warm"] = await soak.snapshot(app, server_pids)
        if turn == cache_full_turn:
            marks["turns, document cache full"] = await soak.snapshot(app, server_pids)
        if turn % 100 == 0:
            print(f"    turn {turn}: {turn_seconds[-1] * 1e3:.0f} ms, RSS {soak.rss_mb():.0f} MB", flush=True)
        last[0], last_cpu[0] = time.perf_counter(), time.process_time()

    async def after_conversation(n: int) -> None:
        if n == warm_conversations:
            marks["conversations warm"] = await soak.snapshot(app, server_pids)
        if n % 50 == 0:
            print(f"    conversation {n}: RSS {soak.rss_mb():.0f} MB", flush=True)

    print(f"\n[1] {args.turns} tool turns in one conversation (MCP stdio tool, always allowed)")
    turn_problems = await soak.tool_turns(app, args.turns, after_turn)
    marks["turns end"] = await soak.snapshot(app, server_pids)
    app.window.history.new_conversation()
    marks["turns closed"] = await soak.snapshot(app, server_pids)
    trimmed = rss_after_malloc_trim()
    print(f"\n[2] {args.conversations} stored conversations opened from the history (every 10th deleted, and a new chat made"
          " and deleted)")
    t0 = time.perf_counter()
    conversation_problems = await soak.conversations(app, args.conversations, after_conversation)
    conversations_wall = time.perf_counter() - t0
    marks["conversations end"] = await soak.snapshot(app, server_pids)
    await soak.close_app(app)
    soak.close_loop_executor(asyncio.get_running_loop())
    after = await soak.snapshot(None, server_pids)

    running = soak.grew_while_running(marks["turns warm"], marks["conversations end"])
    closed, lifetime = soak.left_after_closing(before, after)
    print("\nResources (after the store's queues are written and garbage is collected):")
    for label, resources in [("before the app", before), *marks.items(), ("after closing the app", after)]:
        print(counts_line(label, resources))
    first, final = turn_seconds[:50], turn_seconds[-50:]
    turn_ratio = statistics.median(final) / statistics.median(first)
    print(f"\n  tool turns: {sum(turn_seconds):.0f} s; median of the first 50 {1e3 * statistics.median(first):.0f} ms,"
          f" of the last 50 {1e3 * statistics.median(final):.0f} ms; this process's CPU per turn"
          f" {1e3 * statistics.median(turn_cpu[:50]):.0f} ms and {1e3 * statistics.median(turn_cpu[-50:]):.0f} ms")
    print(f"  conversations: {conversations_wall:.1f} s, {1e3 * conversations_wall / max(1, args.conversations):.0f} ms each")
    print(f"  grew while running (turn {warm_turns} -> the end): {describe(running)}")
    print(f"  left after closing (before the app -> after): {describe(closed)}"
          + (f" (the process-lifetime {', '.join(lifetime)} thread not counted)" if lifetime else ""))
    for problem in (turn_problems + conversation_problems)[:10]:
        print(f"  !! {problem}")
    turns_growth = growth(marks["turns warm"].rss_mb, marks["turns end"].rss_mb)
    conversations_growth = growth(marks["conversations warm"].rss_mb, marks["conversations end"].rss_mb)
    print(f"\n  RSS (MB): turn {warm_turns} {marks['turns warm'].rss_mb:.0f}, turn {args.turns} {marks['turns end'].rss_mb:.0f},"
          f" closed {marks['turns closed'].rss_mb:.0f} (heap trimmed {trimmed:.0f}); conversation {warm_conversations}"
          f" {marks['conversations warm'].rss_mb:.0f}, conversation {args.conversations} {marks['conversations end'].rss_mb:.0f}")

    def amount(*kinds: str, sockets: bool = False) -> int:
        """How many of `kinds` grew while running, or were left after closing, whichever is more."""
        totals = []
        for found in (running, closed):
            total = 0
            for kind in kinds:
                items = found.get(kind, [])
                if kind in SUMMED:
                    total += sum(int(item.split()[0]) for item in items)
                else:
                    total += sum(1 for item in items if not sockets or item.startswith("socket"))
            totals.append(total)
        return max(totals)

    def zero(measure: str, unit: str, *kinds: str, sockets: bool = False) -> dict:
        value = amount(*kinds, sockets=sockets)
        return row(measure, value, unit, "0", value == 0)

    problems = len(turn_problems) + len(conversation_problems)
    rows = [
        row(f"RSS growth, {args.turns:,} tool turns in one conversation (turn {warm_turns} -> {args.turns}, still open)",
            turns_growth, "%", f"< {GROWTH_LIMIT:g} %", turns_growth < GROWTH_LIMIT),
        row(f"RSS growth, {args.conversations} conversations opened and closed ({warm_conversations} -> {args.conversations})",
            conversations_growth, "%", f"< {GROWTH_LIMIT:g} %", conversations_growth < GROWTH_LIMIT),
        *([row(f"RSS growth, turn {cache_full_turn} (document cache full) -> {args.turns}", growth(
            marks["turns, document cache full"].rss_mb, marks["turns end"].rss_mb), "%", "report only", True)] if cache_full_turn else []),
        row(f"RSS growth, turn {warm_turns} -> the long conversation closed, heap trimmed", growth(marks["turns warm"].rss_mb, trimmed),
            "%", "report only", True),
        zero("leaked asyncio tasks (GUI and MCP loops)", "tasks", "asyncio tasks", "MCP loop tasks"),
        zero("leaked threads (Python's and the kernel's)", "threads", "threads", "OS threads"),
        zero("leaked sockets", "sockets", "file descriptors", sockets=True),
        zero("leaked file descriptors (sockets, pipes, files)", "fds", "file descriptors"),
        zero("leaked SQLite connections", "connections", "SQLite connections"),
        zero("leaked MCP server processes", "processes", "child processes"),
        zero("leaked widgets and QObjects", "objects", "widgets", "QObjects under the window"),
        zero("messages still held after their conversation closed", "messages", "messages held"),
        zero("event-loop timers still registered (cancelled timeouts among them)", "timers", "event-loop timers"),
        row("turns and conversations that did not do what they should", problems, "", "0", problems == 0),
        row(f"tool-turn time at turn {args.turns:,} vs turn {min(50, args.turns):,} (median of the last 50 turns vs the first 50)",
            statistics.median(final), "s", f"<= {TURN_TIME_LIMIT:g}x", turn_ratio <= TURN_TIME_LIMIT, "first 50 turns",
            statistics.median(first)),
        row(f"this process's CPU per tool turn at turn {args.turns:,} vs turn {min(50, args.turns):,} (medians of 50 turns;"
            " the same work whatever else the machine runs)", statistics.median(turn_cpu[-50:]), "s", "report only", True,
            "first 50 turns", statistics.median(turn_cpu[:50])),
        row("soak wall time", time.perf_counter() - started, "s", "report only", True),
    ]
    print("\n" + "\n".join(f"  {'MET ' if r['met'] else 'NOT '} {r['measure']:<86} {r['value']:9.2f} {r['unit']:<9} target {r['target']}"
                            + (f" (ratio {r['ratio']:.2f}x)" if r["ratio"] is not None else "") for r in rows))
    print(f"{soak.cpu_line()} at the end")
    return rows


CACHE_FULL_TURN = 200
"""By this turn the transcript's document cache (qt/transcript/parts/documents.CACHE_MB of laid-out documents, ~20 to
~45 KB each for a short message, about two a turn) is full (at 3 MB, by turn ~50)."""
SUMMED = {"SQLite connections", "widgets", "QObjects under the window", "messages held", "event-loop timers"}
"""Kinds `leaks` reports as one "N more (a -> b)" item."""


def rss_after_malloc_trim() -> float:
    """RSS once the C allocator has given its free pages back (what is really still held)."""
    import ctypes

    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass
    return soak.rss_mb()


def quiet_size_hints() -> None:
    """The offscreen platform says "does not support propagateSizeHints()" at every dialog and window: not shown."""
    from PySide6.QtCore import qInstallMessageHandler

    def handler(_kind, _context, message: str) -> None:
        if "propagateSizeHints" not in message:
            print(message, file=sys.stderr)

    qInstallMessageHandler(handler)


def make_loop(app, kind: str) -> asyncio.AbstractEventLoop:
    if kind == "app":
        from desktop_copilot.app.window_setup import create_event_loop

        return create_event_loop(app)
    import qasync

    from desktop_copilot.qt.bridge.event_loop import AppEventLoop

    loop = (AppEventLoop if kind == "fixed" else qasync.QEventLoop)(app)
    asyncio.set_event_loop(loop)
    return loop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=1000, help="tool turns in one conversation (default 1000)")
    parser.add_argument("--conversations", type=int, default=200, help="stored conversations opened and closed (default 200)")
    parser.add_argument("--warmup-turns", type=int, default=50, help="RSS is compared from this turn on (default 50)")
    parser.add_argument("--warmup-conversations", type=int, default=20, help="... and from this conversation on (default 20)")
    parser.add_argument("--quick", action="store_true", help="200 turns and 60 conversations (warm-up 20 and 10)")
    parser.add_argument("--loop", choices=("app", "qasync", "fixed"), default="app",
                        help="the event loop: the app's (app/window_setup.create_event_loop, default), qasync's own, or"
                             " qt/bridge/event_loop.AppEventLoop (which takes cancelled timers off at once)")
    parser.add_argument("--json", metavar="PATH", help="also write the rows there (a JSON list)")
    args = parser.parse_args()
    if args.quick:
        args.turns, args.conversations, args.warmup_turns, args.warmup_conversations = 200, 60, 20, 10

    home = tempfile.TemporaryDirectory(prefix="bench-soak-")
    server, url = soak.start_model_server()
    args.exclude_pids = {server.pid}
    try:
        os.environ.update(soak.environment(url, home.name))
        for name in ("TAVILY_API_KEY", "TAVILY_BASE_URL", "DESKTOP_COPILOT_MODEL", "DESKTOP_COPILOT_PROVIDER"):
            os.environ.pop(name, None)
        from PySide6.QtWidgets import QApplication

        app = QApplication([sys.argv[0]])
        app.setQuitOnLastWindowClosed(False)  # the soak closes the window and then looks at what is left
        quiet_size_hints()
        loop = make_loop(app, args.loop)
        print(f"event loop: {type(loop).__module__}.{type(loop).__qualname__}")
        try:
            rows = loop.run_until_complete(run(args))
        finally:
            loop.close()
            asyncio.set_event_loop(None)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))
    finally:
        soak.stop_model_server(server)
        home.cleanup()


if __name__ == "__main__":
    main()
