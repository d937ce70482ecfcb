"""The `shell` tool: one command run in the workspace folder (`/bin/sh -c`; `cmd.exe /c` on Windows), its output
shown live on the card, its exit status, stdout and stderr returned to the model.

Off until the user switches it on in Settings ▸ Tools, and every call asks (`grantable` False: no standing grant
covers it). The command runs in its own process group (session) with no stdin, in an environment without the app's
keys and tokens; when it ends, times out or the reply is stopped, the whole group is stopped (SIGTERM, then SIGKILL
after STOP_GRACE seconds), so nothing it started is left running.

The output is read on a thread (any asyncio loop will do, qasync's too) and handed to the event loop chunk by chunk.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import locale
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, ClassVar

from pydantic import BaseModel, Field

from desktop_copilot.core.keys.known_keys import KNOWN_KEYS
from desktop_copilot.core.provider_table import PROVIDERS, TOOL_KEYS
from desktop_copilot.core.tools.base import PydanticTool, Risk, ToolContext, ToolError, ToolResult
from desktop_copilot.core.words import tr

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0
"""Seconds a command may run: DEFAULT_TIMEOUT unless its `timeout` argument says otherwise, never more than this."""
STOP_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL when the process group is stopped."""
DRAIN_WAIT = 0.5
"""Seconds the output of what a finished command left running may still arrive before the group is stopped."""
READ_CHUNK = 65536
PENDING_CHUNKS = 64
"""At most this many chunks wait for the event loop: a command printing faster than the card takes it waits (its pipe
fills) rather than the app's memory."""
KEPT_HEAD_CHARS, KEPT_TAIL_CHARS = 200_000, 800_000
"""Of each stream the card (and the database) keeps the first and the last this many characters."""
MODEL_HEAD_CHARS, MODEL_TAIL_CHARS = 8_000, 24_000
"""Of each stream the model gets the first and the last this many characters, with a note of what was left out."""

WINDOWS = os.name == "nt"

SECRET_SUFFIXES = ("_API_KEY", "_APIKEY", "_TOKEN", "_SECRET", "_SECRET_KEY", "_ACCESS_KEY", "_PASSWORD", "_PASSWD")
SECRET_NAMES = frozenset({"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD"})
INTERNAL_PREFIX = "DESKTOP_COPILOT_"
"""The app's own variables (its home, log and database settings): none of the command's business."""


# --- the environment -------------------------------------------------------------------------


def key_variables() -> frozenset[str]:
    """The variables the app reads a key from: every provider's and every built-in tool's (`ANTHROPIC_API_KEY`, …)."""
    names = {spec.env_var for spec in KNOWN_KEYS.values()}
    names |= {spec.key_env for spec in PROVIDERS.values()} | {key.key_env for key in TOOL_KEYS.values()}
    return frozenset(name.upper() for name in names)


def is_secret_variable(name: str, known: frozenset[str] | None = None) -> bool:
    """Whether the variable `name` may carry a key, token or password (or the app's internals) and is left out."""
    upper = name.upper()
    return (upper in (key_variables() if known is None else known) or upper in SECRET_NAMES
            or upper.endswith(SECRET_SUFFIXES) or upper.startswith(INTERNAL_PREFIX))


def command_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The app's environment (`environ`: os.environ) without a variable that may carry a key, token or password."""
    source = os.environ if environ is None else environ
    known = key_variables()
    return {name: value for name, value in source.items() if not is_secret_variable(name, known)}


# --- what a stream printed -------------------------------------------------------------------


class Capture:
    """One stream's text as it arrives: its first `head` and last `tail` characters, and how many fell between."""

    def __init__(self, head: int = KEPT_HEAD_CHARS, tail: int = KEPT_TAIL_CHARS) -> None:
        self.head_limit, self.tail_limit = head, tail
        self.head = ""
        self._tail: list[str] = []
        self._tail_chars = 0
        self.dropped = 0

    def add(self, text: str) -> None:
        if len(self.head) < self.head_limit:
            room = self.head_limit - len(self.head)
            self.head, text = self.head + text[:room], text[room:]
        if text:
            self._tail.append(text)
            self._tail_chars += len(text)
            if self._tail_chars > 2 * self.tail_limit:
                self._compact()

    def _compact(self) -> str:
        rest = "".join(self._tail)
        if len(rest) > self.tail_limit:
            self.dropped += len(rest) - self.tail_limit
            rest = rest[len(rest) - self.tail_limit :]
        self._tail, self._tail_chars = [rest], len(rest)
        return rest

    @property
    def chars(self) -> int:
        """How many characters arrived in all."""
        return len(self.head) + self.dropped + self._tail_chars

    def text(self, head: int | None = None, tail: int | None = None) -> str:
        """The first `head` and last `tail` characters (what is kept when None), with a line saying how many
        were left out between them."""
        head = self.head_limit if head is None else min(head, self.head_limit)
        tail = self.tail_limit if tail is None else min(tail, self.tail_limit)
        rest = self._compact()
        if not self.dropped and len(self.head) + len(rest) <= head + tail:
            return self.head + rest
        first = self.head[:head]
        whole = self.head + rest if not self.dropped else rest  # what is known of the end
        last = whole[len(whole) - tail :] if tail else ""
        return f"{first}\n[… {self.chars - len(first) - len(last):,} characters left out …]\n{last}"


# --- the process group -----------------------------------------------------------------------


def start_process(command: str, folder: Path, env: dict[str, str]) -> subprocess.Popen:
    """`command` started in `folder` in a process group of its own, with no stdin and both outputs piped."""
    common = {"cwd": str(folder), "env": env, "stdin": subprocess.DEVNULL, "stdout": subprocess.PIPE,
              "stderr": subprocess.PIPE, "close_fds": True}
    if WINDOWS:
        return subprocess.Popen(f'cmd.exe /d /s /c "{command}"', creationflags=subprocess.CREATE_NEW_PROCESS_GROUP, **common)
    return subprocess.Popen(["/bin/sh", "-c", command], start_new_session=True, **common)


def _in_group(stat_path: str, group: int) -> bool:
    try:
        with open(stat_path, "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return False  # gone meanwhile
    return len(fields) > 2 and int(fields[2]) == group and fields[0] not in (b"Z", b"X")


def group_alive(group: int) -> bool:
    """Whether a process of the process group `group` still runs (a zombie, which only waits to be reaped, does not)."""
    if sys.platform.startswith("linux") and os.path.isdir("/proc"):
        try:
            return any(_in_group(f"/proc/{entry.name}/stat", group) for entry in os.scandir("/proc") if entry.name.isdigit())
        except OSError:
            pass
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(group: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, sig)


def stop_group(process: subprocess.Popen, grace: float = STOP_GRACE) -> bool:
    """Stops every process of `process`'s group (blocking: SIGTERM, then SIGKILL after `grace` seconds); whether one
    was still running. On Windows: CTRL_BREAK, then `taskkill /T /F` of the tree."""
    if WINDOWS:
        if process.poll() is not None:
            return False
        with contextlib.suppress(OSError):
            process.send_signal(signal.CTRL_BREAK_EVENT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(grace)
            return True
        subprocess.run(["taskkill", "/T", "/F", "/PID", str(process.pid)], capture_output=True, check=False)
        return True
    group = process.pid  # start_new_session: the shell leads its own session and group
    if not group_alive(group):
        return False
    _signal_group(group, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        time.sleep(0.02)
        if not group_alive(group):
            return True
    _signal_group(group, signal.SIGKILL)
    deadline = time.monotonic() + 2.0
    while group_alive(group) and time.monotonic() < deadline:
        time.sleep(0.02)
    return True


# --- reading the output ----------------------------------------------------------------------


Deliver = Callable[[str, bytes], None]
"""(stream name, bytes): b"" at the end of the stream."""


def _pump_selector(pipes: dict[str, IO[bytes]], deliver: Deliver, stop: threading.Event) -> None:
    """POSIX: both pipes on one thread, until both end or `stop` is set."""
    selector = selectors.DefaultSelector()
    try:
        for name, pipe in pipes.items():
            selector.register(pipe.fileno(), selectors.EVENT_READ, name)
        while selector.get_map() and not stop.is_set():
            for key, _ in selector.select(0.1):
                try:
                    data = os.read(key.fd, READ_CHUNK)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if not data:
                    selector.unregister(key.fd)
                deliver(key.data, data)
    finally:
        selector.close()


def _pump_blocking(name: str, pipe: IO[bytes], deliver: Deliver, stop: threading.Event) -> None:
    """Windows (no select on pipes): one thread per pipe."""
    try:
        while not stop.is_set() and (data := pipe.read1(READ_CHUNK)):
            deliver(name, data)
    except (OSError, ValueError):
        pass
    deliver(name, b"")


class Running:
    """A started command: its output read on threads into `stdout` and `stderr` (and reported as it comes), its
    exit status, and the stopping of its group."""

    def __init__(self, process: subprocess.Popen, report: Callable[[str], None]) -> None:
        self.process = process
        self.report = report
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[tuple[str, bytes | int]] = asyncio.Queue()
        self.code: int | None = None
        encoding = locale.getpreferredencoding(False) if WINDOWS else "utf-8"
        self.captures = {"stdout": Capture(), "stderr": Capture()}
        self.decoders = {name: codecs.getincrementaldecoder(encoding)("replace") for name in self.captures}
        self.open_streams = set(self.captures)
        self.left_behind = False
        self._stop_reading = threading.Event()
        self._room = threading.Semaphore(PENDING_CHUNKS)
        pipes = {"stdout": process.stdout, "stderr": process.stderr}
        self._threads = [threading.Thread(target=self._wait, name="shell-wait", daemon=True)]
        if WINDOWS:
            self._threads += [threading.Thread(target=_pump_blocking, args=(name, pipe, self._deliver_chunk, self._stop_reading),
                                               name=f"shell-{name}", daemon=True) for name, pipe in pipes.items()]
        else:
            self._threads.append(threading.Thread(target=_pump_selector, args=(pipes, self._deliver_chunk, self._stop_reading),
                                                  name="shell-output", daemon=True))
        for thread in self._threads:
            thread.start()

    # on the threads

    def _deliver(self, name: str, data: bytes | int) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            self.loop.call_soon_threadsafe(self.queue.put_nowait, (name, data))

    def _deliver_chunk(self, name: str, data: bytes) -> None:
        """Output for the loop, once fewer than PENDING_CHUNKS wait for it (dropped when reading stops meanwhile)."""
        while not self._room.acquire(timeout=0.1):
            if self._stop_reading.is_set():
                return
        self._deliver(name, data)

    def _wait(self) -> None:
        self._deliver("exit", self.process.wait())

    # on the loop

    def _take(self, name: str, data: bytes | int) -> str:
        """Takes one item from the threads; the text it adds to the output."""
        if name == "exit":
            self.code = int(data)
            return ""
        self._room.release()
        text = self.decoders[name].decode(data, final=not data)
        if not data:
            self.open_streams.discard(name)
        if text:
            self.captures[name].add(text)
        return text

    def _take_queued(self, first: tuple[str, bytes | int] | None = None) -> None:
        """Takes `first` and whatever else waits, and shows their output on the card at once (one event, however
        many chunks piled up while the loop was busy)."""
        shown = [self._take(*first)] if first is not None else []
        while not self.queue.empty():
            shown.append(self._take(*self.queue.get_nowait()))
        if text := "".join(shown):
            self.report(text)

    async def _next(self, timeout: float) -> None:
        """Takes what arrives within `timeout` seconds (nothing when nothing does)."""
        try:
            async with asyncio.timeout(max(timeout, 0)):
                first = await self.queue.get()
        except TimeoutError:
            return
        self._take_queued(first)

    async def wait(self, limit: float) -> bool:
        """Reads until the command ends and a moment more (what it left running may still print); False when it
        did not end within `limit` seconds."""
        deadline = self.loop.time() + limit
        while self.code is None:
            if (remaining := deadline - self.loop.time()) <= 0:
                return False
            await self._next(remaining)
        drained = self.loop.time() + DRAIN_WAIT
        while self.open_streams and (remaining := drained - self.loop.time()) > 0:
            await self._next(remaining)
        return True

    async def stop(self) -> None:
        """Stops what is left of the group (on a thread, which finishes the job even if this is cancelled), then
        takes the last output and closes the pipes."""
        finished = self.loop.create_future()

        def work() -> None:
            try:
                left = stop_group(self.process)
            except Exception:  # noqa: BLE001 - reported as "nothing was left"; the pipes are closed all the same
                left = False
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(lambda: finished.done() or finished.set_result(left))

        threading.Thread(target=work, name="shell-stop", daemon=True).start()
        try:
            self.left_behind = await finished
            ends = self.loop.time() + 1.0
            while self.open_streams and (remaining := ends - self.loop.time()) > 0:
                await self._next(remaining)
            self._take_queued()
        finally:
            self.close()

    def close(self) -> None:
        self._stop_reading.set()
        if not WINDOWS:
            for thread in self._threads[1:]:
                thread.join(0.5)
        for pipe in (self.process.stdout, self.process.stderr):
            with contextlib.suppress(OSError):
                pipe.close()


# --- the tool --------------------------------------------------------------------------------


class ShellArgs(BaseModel):
    command: str = Field(min_length=1, description="The command line, as the shell takes it (pipes, &&, redirections).")
    timeout: float | None = Field(default=None, gt=0, description=(
        f"Seconds after which the command and everything it started are stopped: {DEFAULT_TIMEOUT:g} unless given, "
        f"at most {MAX_TIMEOUT:g}."))


def shell_folder(ctx: ToolContext) -> Path:
    """The workspace folder the command runs in; a ToolError when none is chosen or it is gone."""
    if ctx.workspace is None:
        raise ToolError("No workspace folder is chosen, so there is no folder to run the command in. "
                        "The user can pick one in Settings ▸ Tools; until then commands cannot run.")
    folder = Path(ctx.workspace).expanduser().resolve()
    if not folder.is_dir():
        raise ToolError(f"The workspace folder {folder} does not exist any more. The user can pick another one in Settings.")
    return folder


def time_limit(args: ShellArgs) -> float:
    return min(args.timeout or DEFAULT_TIMEOUT, MAX_TIMEOUT)


def _section(name: str, capture: Capture, head: int | None, tail: int | None) -> str:
    text = capture.text(head, tail).removesuffix("\n")
    return f"--- {name} ---\n" + (text if capture.chars else "(nothing)")


def _ending(code: int | None, limit: float) -> str:
    if code is None:
        return f"timed out after {limit:g} s: the command and every process it started were stopped"
    if code < 0 and not WINDOWS:
        try:
            return f"ended by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"ended by signal {-code}"
    return f"exit status {code}"


class Shell(PydanticTool):
    name: ClassVar[str] = "shell"
    description: ClassVar[str] = (
        f"Run one shell command ({'cmd.exe /c' if WINDOWS else '/bin/sh -c'}) in the user's workspace folder and get "
        "its exit status, stdout and stderr. The user approves every command before it runs. There is no stdin "
        f"(a command that waits for input reads end-of-file). Stopped after {DEFAULT_TIMEOUT:g} s unless `timeout` "
        f"says otherwise (at most {MAX_TIMEOUT:g}); processes it leaves running in the background are stopped when it "
        "ends. API keys and tokens are not in its environment. Long output is cut to its beginning and end.")
    arguments: ClassVar[type[BaseModel]] = ShellArgs
    risk: ClassVar[Risk] = Risk.DESTRUCTIVE
    needs_workspace: ClassVar[bool] = True
    enabled_by_default: ClassVar[bool] = False
    grantable: ClassVar[bool] = False
    """Every command asks: a standing grant never covers the shell (read by the approval hook)."""
    timeout: ClassVar[float] = MAX_TIMEOUT + 60
    """The executor's limit, past the tool's own (which stops the group and still returns the output)."""

    async def preview(self, args: ShellArgs, ctx: ToolContext) -> str:
        folder = ctx.workspace if ctx.workspace is not None else tr("(no workspace folder)")
        lines = args.command.split("\n")
        shown = "\n".join([f"$ {lines[0]}", *(f"  {line}" for line in lines[1:])])
        return tr("Runs in {folder}, stopped after {seconds} s:").format(folder=folder, seconds=f"{time_limit(args):g}") + f"\n{shown}"

    async def run(self, args: ShellArgs, ctx: ToolContext) -> ToolResult:
        folder = shell_folder(ctx)
        limit = time_limit(args)
        try:
            process = start_process(args.command, folder, command_environment())
        except OSError as exc:
            raise ToolError(f"The command could not be started: {exc.strerror or exc}.") from None
        running = Running(process, ctx.report_output)
        try:
            ended = await running.wait(limit)
        except BaseException:  # stopped (the run was cancelled) or failed: nothing it started is left running
            await running.stop()
            raise
        await running.stop()
        code = running.code if ended else None
        ending = _ending(code, limit)
        if ended and running.left_behind:
            ending += "\n(processes it left running in the background were stopped)"
        out, err = running.captures["stdout"], running.captures["stderr"]
        whole = f"{ending}\n{_section('stdout', out, None, None)}\n{_section('stderr', err, None, None)}"
        for_model = (f"{ending}\n{_section('stdout', out, MODEL_HEAD_CHARS, MODEL_TAIL_CHARS)}\n"
                     f"{_section('stderr', err, MODEL_HEAD_CHARS, MODEL_TAIL_CHARS)}")
        return ToolResult(whole, is_error=code != 0, model_text=for_model if for_model != whole else None)
