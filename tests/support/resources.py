"""What a process holds, for leak checks: asyncio tasks, threads, file descriptors (sockets, pipes, files, by
kind), child processes and RSS, read from asyncio, threading and /proc (Linux); `leaks(before, after)` names every
item of a kind whose count grew."""

from __future__ import annotations

import asyncio
import gc
import os
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

_DIGITS = re.compile(r"\d+")


def live_instances(cls: type) -> int:
    """How many objects of exactly `cls` the garbage collector tracks."""
    return sum(1 for item in gc.get_objects() if type(item) is cls)


def open_sqlite_connections() -> int:
    """sqlite3 connections alive and not closed."""
    import sqlite3

    count = 0
    for item in gc.get_objects():
        if type(item) is sqlite3.Connection:
            try:
                item.in_transaction  # noqa: B018 - raises on a closed connection
            except sqlite3.ProgrammingError:
                continue
            count += 1
    return count


def rss_mb() -> float:
    """VmRSS of this process in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def task_names(loop: asyncio.AbstractEventLoop, skip: asyncio.Task | None = None) -> list[str]:
    """The unfinished tasks of `loop` (the caller's own task left out), each as its coroutine's name; call it on
    `loop`'s thread."""
    out = []
    for task in asyncio.all_tasks(loop):
        if task is skip or task.done():
            continue
        coro = task.get_coro()
        out.append(getattr(coro, "__qualname__", None) or repr(coro))
    return sorted(out)


async def tasks_of_other_loop(loop: asyncio.AbstractEventLoop) -> list[str]:
    """The unfinished tasks of `loop` (another thread's), read on that loop; [] when it is not running."""
    if loop.is_closed() or not loop.is_running():
        return []

    async def read() -> list[str]:
        return task_names(loop, asyncio.current_task())

    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(read(), loop))


def thread_names() -> list[str]:
    return sorted(thread.name for thread in threading.enumerate() if thread.is_alive())


def os_thread_names() -> list[str]:
    """Every thread of the process as the kernel names it (also Qt's threads, which Python does not list)."""
    names = []
    for tid in os.listdir("/proc/self/task"):
        try:
            names.append(Path(f"/proc/self/task/{tid}/comm").read_text().strip())
        except OSError:  # ended meanwhile
            continue
    return sorted(names)


def _socket_table() -> dict[str, str]:
    """Socket inode -> "tcp 127.0.0.1:port -> 127.0.0.1:port" / "unix path" for this process's network namespace."""
    table: dict[str, str] = {}
    for kind in ("tcp", "tcp6"):
        try:
            lines = Path(f"/proc/self/net/{kind}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if len(parts) > 9:
                table[parts[9]] = f"{kind} {_address(parts[1])} -> {_address(parts[2])}"
    try:
        for line in Path("/proc/self/net/unix").read_text().splitlines()[1:]:
            parts = line.split()
            if len(parts) > 6:
                table[parts[6]] = "unix " + (parts[7] if len(parts) > 7 else "(unnamed)")
    except OSError:
        pass
    return table


def _address(hex_address: str) -> str:
    host, _, port = hex_address.partition(":")
    if len(host) == 8:
        host = ".".join(str(int(host[i:i + 2], 16)) for i in (6, 4, 2, 0))
    return f"{host}:{int(port, 16)}"


def open_fds() -> list[tuple[str, str]]:
    """(kind, description) of every open file descriptor: kind is "socket", "pipe", "file", "anon" (eventfd,
    epoll, timerfd…) or "device"; the description says which (a socket's addresses, a file's path)."""
    fd_dir = Path("/proc/self/fd")
    sockets: dict[str, str] | None = None
    out = []
    for name in os.listdir(fd_dir):
        try:
            target = os.readlink(fd_dir / name)
        except OSError:  # closed meanwhile (e.g. the listdir's own descriptor)
            continue
        if target.startswith("socket:["):
            sockets = _socket_table() if sockets is None else sockets
            inode = target[8:-1]
            out.append(("socket", sockets.get(inode, f"socket inode {inode}")))
        elif target.startswith("pipe:["):
            out.append(("pipe", target))
        elif target.startswith("anon_inode:"):
            out.append(("anon", target.removeprefix("anon_inode:")))
        elif target.startswith("/dev/"):
            out.append(("device", target))
        else:
            out.append(("file", target))
    return sorted(out)


def child_processes(exclude: set[int] = frozenset()) -> list[str]:
    """Every living descendant of this process but the `exclude`d ones (and theirs), as "pid: command line"."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if fields and fields[0] != "Z":  # a zombie is gone, only not reaped yet
            parents[int(entry)] = int(fields[1])
    mine, found = os.getpid(), []
    for pid in parents:
        seen, at = 0, pid
        while at in parents and at != mine and at not in exclude and seen < 64:
            at, seen = parents[at], seen + 1
        if at == mine and pid != mine:
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                continue
            found.append(f"{pid}: {command[:200]}")
    return sorted(found)


@dataclass
class Resources:
    """What the process held at one moment."""

    tasks: list[str] = field(default_factory=list)
    """The GUI loop's unfinished asyncio tasks."""
    mcp_tasks: list[str] = field(default_factory=list)
    """The MCP thread's loop's unfinished tasks."""
    threads: list[str] = field(default_factory=list)
    """Python's threads, by name."""
    os_threads: list[str] = field(default_factory=list)
    """The kernel's threads of the process, by name (Qt's too)."""
    fds: list[tuple[str, str]] = field(default_factory=list)
    children: list[str] = field(default_factory=list)
    widgets: int = 0
    """QApplication.allWidgets()."""
    qobjects: int = 0
    """QObjects under the main window (findChildren)."""
    timers: int = 0
    """Timers the GUI loop has registered with Qt (cancelled ones too, until they are taken off)."""
    databases: int = 0
    """Open SQLite connections (sqlite3.Connection objects alive and not closed): SQLite keeps the descriptor of a connection closed
    while another one holds a lock on the file, to reuse it, so a database file's descriptors may outnumber them."""
    messages: int = 0
    """Live conversation messages (core.models.Message) anywhere in the process."""
    rss_mb: float = 0.0

    def counts(self) -> dict[str, int]:
        kinds = Counter(kind for kind, _ in self.fds)
        return {"tasks": len(self.tasks), "MCP tasks": len(self.mcp_tasks), "threads": len(self.threads), "OS threads": len(self.os_threads),
                "fds": len(self.fds), "sockets": kinds["socket"], "pipes": kinds["pipe"], "files": kinds["file"],
                "children": len(self.children), "widgets": self.widgets, "QObjects": self.qobjects, "messages": self.messages,
                "SQLite connections": self.databases,
                "loop timers": self.timers}


def _grown(before: list[str], after: list[str], key=lambda item: _DIGITS.sub("#", item)) -> list[str]:
    """The items of `after` of every kind (`key`) that has more items than in `before`: the new ones, or when
    the same ones are there more often, the extra copies."""
    kinds_before, kinds_after = Counter(map(key, before)), Counter(map(key, after))
    out = []
    for kind, count in kinds_after.items():
        extra = count - kinds_before[kind]
        if extra > 0:
            of_kind = [item for item in after if key(item) == kind]
            fresh = [item for item in of_kind if item not in before]
            out.extend((fresh + [item for item in of_kind if item not in fresh])[:extra])
    return sorted(out)


def _fd_kind(item: str) -> str:
    """A descriptor's kind for counting: a socket by its family and the port it talks to (not its own, random one),
    a pipe as one kind, a file by its path."""
    kind, _, what = item.partition(" | ")
    if kind == "socket":
        return "socket " + what.split(" ")[0] + " " + what.rpartition("->")[2].strip()
    if kind == "pipe":
        return "pipe"
    return item


def leaks(before: Resources, after: Resources) -> dict[str, list[str]]:
    """Per resource, the items `after` holds beyond `before` (empty lists are left out)."""
    found = {
        "asyncio tasks": _grown(before.tasks, after.tasks),
        "MCP loop tasks": _grown(before.mcp_tasks, after.mcp_tasks),
        "threads": _grown(before.threads, after.threads),
        "OS threads": _grown(before.os_threads, after.os_threads),
        "file descriptors": _grown([f"{k} | {d}" for k, d in before.fds], [f"{k} | {d}" for k, d in after.fds], _fd_kind),
        "child processes": _grown(before.children, after.children, key=lambda item: item.partition(": ")[2]),
    }
    if after.widgets > before.widgets:
        found["widgets"] = [f"{after.widgets - before.widgets} more widgets ({before.widgets} -> {after.widgets})"]
    if after.timers > before.timers:
        found["event-loop timers"] = [f"{after.timers - before.timers} more ({before.timers} -> {after.timers})"]
    if after.databases > before.databases:
        found["SQLite connections"] = [f"{after.databases - before.databases} more ({before.databases} -> {after.databases})"]
    if after.messages > before.messages:
        found["messages held"] = [f"{after.messages - before.messages} more ({before.messages} -> {after.messages})"]
    if after.qobjects > before.qobjects:
        found["QObjects under the window"] = [f"{after.qobjects - before.qobjects} more ({before.qobjects} -> {after.qobjects})"]
    return {kind: items for kind, items in found.items() if items}


def describe(found: dict[str, list[str]]) -> str:
    return "; ".join(f"{kind}: {', '.join(items)}" for kind, items in found.items()) or "nothing"
