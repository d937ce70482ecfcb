"""The soak's driver, shared by bench/soak.py (the issue's numbers) and tests/soak/ (scaled down): the real main window
on a real SQLite store, the real Anthropic adapter talking to soak_server.py in a process of its own, and the MCP
demo server as a stdio process started the app's way (mcp.json, at the composer's first change) with its `no_hints`
tool always allowed. Tool turns are typed and sent through the composer; stored conversations are opened from the
history, and new ones are made and deleted, as the sidebar does."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from tests.support.resources import (
    Resources,
    child_processes,
    leaks,
    live_instances,
    open_fds,
    open_sqlite_connections,
    os_thread_names,
    rss_mb,
    task_names,
    tasks_of_other_loop,
    thread_names,
)
from tests.support.soak_server import NO_TOOL, TOOL, expected_reply

ROOT = Path(__file__).resolve().parents[2]
DEMO_SERVER = ROOT / "tests" / "support" / "mcp_servers" / "demo_server.py"
PROCESS_LIFETIME_THREADS = {"keyring"}
"""Threads that live as long as the process by design: core.blocking's one keyring thread (a daemon, started at the
first key read, so that a call stuck on an unlock prompt cannot keep the app from quitting)."""
STORE_THREADS = ("message-writer", "search-indexer")
"""The store's worker threads: each starts when work arrives and ends when its queue is empty."""
TURN_TIMEOUT = 60.0
CJK = "流式渲染必须保持界面流畅，每个增量的开销不应随回复长度增长。"

Progress = Callable[[int], Awaitable[None]]


# --- the model's server ------------------------------------------------------------------------------------------


def start_model_server() -> tuple[subprocess.Popen, str]:
    """soak_server.py in a process of its own, and its URL."""
    process = subprocess.Popen([sys.executable, "-m", "tests.support.soak_server"], cwd=ROOT, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = process.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        process.kill()
        raise RuntimeError("the soak's loopback server did not start")
    return process, url


def stop_model_server(process: subprocess.Popen) -> None:
    process.stdin.close()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    process.stdout.close()


# --- the profile ---------------------------------------------------------------------------------------------------


def prepare_profile(conversations: int) -> None:
    """In the app's profile (DESKTOP_COPILOT_HOME): mcp.json with the demo server, the standing grant that lets its
    `no_hints` tool run without asking, and `conversations` stored conversations."""
    from desktop_copilot.core.approval.grants import Grant, GrantStore
    from desktop_copilot.core.bootstrap import PERMISSIONS_FILE
    from desktop_copilot.core.mcp.config_file import mcp_json_path
    from desktop_copilot.core.mcp.server_config import McpServerConfig
    from desktop_copilot.core.config.paths import AppPaths
    from tests.support.history_seed import seed_app_store, seed_conversation

    paths = AppPaths.resolve().ensure()
    server = {"command": sys.executable, "args": [str(DEMO_SERVER), "--transport", "stdio"]}
    mcp_json_path(paths).write_text(json.dumps({"mcpServers": {"demo": server}}))
    identity = McpServerConfig(name="demo", **server).identity
    GrantStore(paths.config_dir / PERMISSIONS_FILE).add(Grant(tool=TOOL, identity=identity, shown_name="no_hints", source_label="demo"))

    def seed(store) -> None:
        for n in range(conversations):
            turns = [(f"Question {n}.{k}: how would you handle case {k}?",
                      f"## Case {k}\n\nSome **bold** prose, `code`, a [link](https://example.com/{n}/{k}) and {CJK}\n\n"
                      + ("```python\n" + "".join(f"value_{i} = compute({i}, {k})\n" for i in range(6)) + "```\n\n" if k % 2 else "")
                      + ("| a | b |\n|---|---|\n| 1 | 2 |\n" if k % 3 == 0 else ""))
                     for k in range(4 + n % 9)]
            seed_conversation(store, f"Stored conversation {n}", turns, age_days=1 + n / 10)

    seed_app_store(seed)


# --- the app -------------------------------------------------------------------------------------------------------


@dataclass
class SoakApp:
    window: object
    runtime: object
    store: object

    @property
    def controller(self):
        return self.window.controller

    @property
    def mcp_loop(self) -> asyncio.AbstractEventLoop | None:
        return getattr(self.runtime.mcp, "_loop", None) if self.runtime.mcp is not None else None


def open_app() -> SoakApp:
    """The window as app/window_setup.py builds it (MCP servers start at the composer's first change), shown; it opens
    the most recent stored conversation. Needs a running qasync loop and the environment pointing at the server."""
    from desktop_copilot.app.window_setup import create_main_window, start_on_first_use
    from desktop_copilot.core.approval.grants import GrantStore
    from desktop_copilot.core.bootstrap import PERMISSIONS_FILE, open_store
    from desktop_copilot.core.config.app_config import AppConfig
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.runtime import Runtime

    paths = AppPaths.resolve().ensure()
    runtime = Runtime(paths, AppConfig.from_environment())
    runtime.grants = GrantStore(paths.config_dir / PERMISSIONS_FILE)
    store = open_store(paths, runtime.warnings)
    store.mark_unfinished_interrupted()
    window = create_main_window(runtime, store)
    start_on_first_use(window)
    window.resize(1000, 760)
    window.show()
    return SoakApp(window, runtime, store)


async def close_app(app: SoakApp) -> None:
    """What the app does when its window closes (app/window_setup.run_window), then the window is deleted."""
    from PySide6.QtCore import QCoreApplication, QEvent

    app.window.close()
    await app.controller.aclose()
    app.runtime.stop_mcp()
    app.store.close()
    app.window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    app.window = None


def close_loop_executor(loop: asyncio.AbstractEventLoop) -> None:
    """Shuts down qasync's default executor (10 QThreads, each with an eventfd, made at the first run_in_executor, e.g.
    a host name lookup), as the app's `loop.close()` does at exit; the soak looks at what is left before that."""
    executor = getattr(loop, "_QEventLoop__default_executor", None)
    if executor is not None:
        executor.shutdown()
        loop._QEventLoop__default_executor = None


async def until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise TimeoutError(f"waited {timeout:g} s for {what}")
        await asyncio.sleep(0.003)


async def settle(app: SoakApp | None) -> None:
    """The store's queues written and their threads ended, cancelled tasks finished, garbage collected."""
    if app is not None and app.store is not None:
        for worker in (app.store.writer, app.store.indexer):
            worker.wait(0)  # hurries a worker waiting out its start delay
            await until(worker.idle, 30, f"{type(worker).__name__} to finish its queue")
    await until(lambda: not any(t.name in STORE_THREADS for t in threading.enumerate()), 10, "the store's threads to end")
    for _ in range(3):
        await asyncio.sleep(0.02)
    gc.collect()


async def snapshot(app: SoakApp | None, exclude_pids: set[int]) -> Resources:
    """What the process holds now, after `settle`."""
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QApplication

    from desktop_copilot.core.conversation.models import Message
    from desktop_copilot.qt.bridge.event_loop import pending_timers

    await settle(app)
    live_instances(Message)  # the scans below allocate a list of every object: RSS is read with that room taken
    rss = rss_mb()
    loop = asyncio.get_running_loop()
    mcp_loop = app.mcp_loop if app is not None else None
    window = app.window if app is not None else None
    return Resources(
        tasks=task_names(loop, asyncio.current_task()),
        mcp_tasks=await tasks_of_other_loop(mcp_loop) if mcp_loop is not None else [],
        threads=thread_names(),
        os_threads=os_thread_names(),
        fds=open_fds(),
        children=child_processes(exclude_pids),
        widgets=len(QApplication.allWidgets()),
        qobjects=len(window.findChildren(QObject)) if window is not None else 0,
        timers=pending_timers(loop) or 0,
        databases=open_sqlite_connections(),
        messages=live_instances(Message) - module_messages(),
        rss_mb=rss,
    )


def module_messages() -> int:
    """Messages the app's modules hold as constants (core/context/budget's stand-in for the next request), made at
    their import: no conversation's."""
    from desktop_copilot.core.conversation.models import Message

    return sum(1 for name, module in list(sys.modules.items()) if name.startswith("desktop_copilot.") and module is not None
               for value in list(vars(module).values()) if type(value) is Message)


def grew_while_running(before: Resources, after: Resources) -> dict[str, list[str]]:
    """What grew between two moments of the running app (`leaks`), but a database file's descriptors while the open
    SQLite connections did not grow: SQLite (unix VFS) keeps the descriptor of a connection closed while another one
    holds a lock on the file and reuses it for the next connection, as closing it would drop the other's POSIX locks.
    The store's worker threads open and close connections, so one more may be kept; after closing none may be left."""
    found = leaks(before, after)
    if "SQLite connections" not in found:
        kept = [item for item in found.get("file descriptors", []) if ".sqlite3" in item]
        found["file descriptors"] = [item for item in found.get("file descriptors", []) if item not in kept]
    return {kind: items for kind, items in found.items() if items}


def left_after_closing(before: Resources, after: Resources) -> tuple[dict[str, list[str]], list[str]]:
    """What the closed app left behind (`leaks`), and the process-lifetime threads among it, which are not counted
    (the kernel's view of each such Python thread is taken out with it)."""
    found = leaks(before, after)
    lifetime = [t for t in found.get("threads", []) if t in PROCESS_LIFETIME_THREADS]
    found["threads"] = [t for t in found.get("threads", []) if t not in PROCESS_LIFETIME_THREADS]
    os_threads = found.get("OS threads", [])
    for _ in lifetime:
        python = next((name for name in os_threads if name.startswith("python") or name in PROCESS_LIFETIME_THREADS), None)
        if python is not None:
            os_threads.remove(python)
    return {kind: items for kind, items in found.items() if items}, lifetime


# --- the soak ------------------------------------------------------------------------------------------------------


def _check_turn(app: SoakApp, turn: int) -> str | None:
    """What is wrong with the conversation's last tool turn (None: the tool ran and the reply came)."""
    messages = app.controller.session.conversation.messages
    replies = [m for m in messages[-3:] if m.role.value == "assistant"]
    calls = [c for m in replies for c in m.tool_calls]
    if not replies or replies[-1].text != expected_reply(turn):
        return f"turn {turn}: the last reply is {replies[-1].text if replies else None!r}"
    if len(calls) != 1 or calls[0].status.value != "done" or calls[0].result != f"echo: turn {turn}":
        return f"turn {turn}: the tool calls were {[(c.name, c.status.value, c.result) for c in calls]}"
    return None


async def send(app: SoakApp, text: str) -> None:
    """Types `text` into the composer, sends it, waits until the reply is finished."""
    composer = app.window.composer
    composer.set_text(text)
    if not composer.submit() or not app.controller.busy:
        raise RuntimeError(f"the composer did not send {text!r}")
    await until(lambda: not app.controller.busy, TURN_TIMEOUT, "the reply")


async def servers_ready(app: SoakApp) -> None:
    """The user starts typing (the MCP servers start at the composer's first change) and sends once they are ready,
    as a user who types for a second or two would."""
    app.window.composer.set_text("C")
    if app.runtime.mcp is None:
        raise RuntimeError("the composer's first change did not start the MCP servers")
    await app.runtime.mcp.wait_ready(30)
    states = [status.state.value for status in app.runtime.mcp.statuses()]
    if states != ["ready"]:
        raise RuntimeError(f"the MCP demo server did not become ready: {app.runtime.mcp.statuses()}")


async def tool_turns(app: SoakApp, count: int, after_turn: Progress | None = None) -> list[str]:
    """`count` tool turns in a new conversation: each a typed message, the model's call of the MCP tool (allowed by
    the standing grant, run by the server process), its result sent back and the model's text. Returns what went
    wrong (empty: every turn did what it should); `after_turn(n)` runs after turn n."""
    history = app.window.history
    history.new_conversation()
    await servers_ready(app)
    problems: list[str] = []
    for turn in range(1, count + 1):
        await send(app, f"Call the tool, turn {turn}.")
        if (problem := _check_turn(app, turn)) is not None:
            problems.append(problem)
        if after_turn is not None:
            await after_turn(turn)
    return problems


async def conversations(app: SoakApp, count: int, after_one: Progress | None = None, skip: int = 0) -> list[str]:
    """Open `count` stored conversations one after another from the history (each replaces the one before), the
    `skip` most recent left out; every tenth is deleted while open, and after it a new chat gets a message and is
    deleted too. Returns what went wrong."""
    history, view = app.window.history, app.window.view
    ids = [c.id for c in app.store.list_conversations()][skip:]
    problems: list[str] = []
    for n in range(1, count + 1):
        if not ids:
            problems.append(f"conversation {n}: no stored conversation left to open")
            break
        conversation_id = ids.pop(0)
        if not history.open(conversation_id) or history.current_id != conversation_id:
            problems.append(f"conversation {n}: {conversation_id} did not open")
        view.scrollToBottom()
        view.viewport().repaint()
        await asyncio.sleep(0)
        view.scrollToTop()  # the older messages are read as they near the screen
        view.viewport().repaint()
        await asyncio.sleep(0)
        if n % 10 == 0:
            history.delete(conversation_id)
            await send(app, f"A new chat {n} {NO_TOOL}")
            made = history.current_id
            if app.store.load_conversation_header(made) is None:
                problems.append(f"conversation {n}: the new chat was not stored")
            history.delete(made)
            if app.store.load_conversation_header(made) is not None or app.store.load_conversation_header(conversation_id):
                problems.append(f"conversation {n}: a deleted conversation is still stored")
        if after_one is not None:
            await after_one(n)
    history.new_conversation()
    return problems


def environment(url: str, home: str) -> dict[str, str]:
    """The variables that point the app at the soak's server and profile."""
    return {"ANTHROPIC_API_KEY": "sk-ant-soak-fake", "ANTHROPIC_BASE_URL": url, "DESKTOP_COPILOT_HOME": home,
            "QT_QPA_PLATFORM": "offscreen"}


def cpu_line() -> str:
    return f"{os.cpu_count()} CPUs, load average {os.getloadavg()}"
