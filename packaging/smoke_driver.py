#!/usr/bin/env python3
"""Drives an installed (or bundled) Desktop Copilot for packaging/smoke_test.sh; stdlib only.

    smoke_driver.py ask      --exe desktop-copilot
        `ask` streams a reply from a loopback Anthropic server with a fake key; checks the text and exit 0.
    smoke_driver.py mcp      --exe desktop-copilot
        `mcp add` the demo MCP server (tests/support/mcp_servers/demo_server.py, over stdio), `mcp list` shows it
        ready with all its tools, and `ask --yes` runs its read_note tool for a loopback model: the bundled MCP SDK
        starts a real server and speaks to it. The server runs under a Python that has the `mcp` package (this
        one, else the checkout's .venv); without one the step is skipped (exit 77) and says why.
    smoke_driver.py fetch    --exe desktop-copilot
        `ask --yes` runs web_fetch on an HTML page the loopback server serves; the tool result must be trafilatura's
        Markdown (headings, links), which proves trafilatura, its settings.cfg and justext's stoplists are bundled
        (without them web_fetch falls back to plain stripped text).
    smoke_driver.py shown    --exe desktop-copilot
        offscreen, with DESKTOP_COPILOT_EXIT_AFTER_SHOW=1: the window shows, then the app exits 0 by itself.
    smoke_driver.py window   --exe desktop-copilot [--prompt TEXT] [--screenshot PNG]
        on the X display in $DISPLAY (e.g. Xvfb): waits for the "Desktop Copilot" window, optionally
        types a prompt and takes a screenshot while the loopback reply streams, then closes the window
        the way a window manager does (WM_DELETE_WINDOW) and expects exit code 0.

The loopback server is tests/support/loopback.py (found next to this folder). X11 is spoken through
ctypes (libX11, and libXtst for typing), so no xdotool or ImageMagick is needed.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.loopback import (  # noqa: E402
    LoopbackServer,
    ScriptedResponse,
    anthropic_text_reply,
    anthropic_tool_reply,
    sse_response,
)

FAKE_KEY = "sk-ant-smoke-test-not-a-real-key"
SKIPPED = 77
"""Exit code of a step that cannot run here (smoke_test.sh reports it as skipped, not passed)."""
DEMO_SERVER = ROOT / "tests" / "support" / "mcp_servers" / "demo_server.py"
WINDOW_TITLE = "Desktop Copilot"
REPLY = (
    "Hello from the **loopback server**! This reply streams in small pieces so you can watch it arrive.\n\n"
    "Here is some code:\n\n```python\ndef greet(name: str) -> str:\n    return f\"Hello, {name}!\"\n```\n\n"
    "- it was installed from a `.deb`\n- it runs from `/opt/desktop-copilot`\n- and its key is fake\n\n"
    "That is all: the stream ends here."
)


def fail(message: str) -> int:
    print(f"smoke: FAIL: {message}", file=sys.stderr)
    return 1


def app_env(server_url: str, home: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TAVILY_", "DESKTOP_COPILOT_"))}
    env.update(ANTHROPIC_API_KEY=FAKE_KEY, ANTHROPIC_BASE_URL=server_url, DESKTOP_COPILOT_HOME=home, **extra)
    return env


def streaming_server(pieces: int, delay: float) -> LoopbackServer:
    server = LoopbackServer(default=lambda _request: sse_response(anthropic_text_reply(REPLY, pieces=pieces), delay=delay))
    return server.start()


# --- ask ---------------------------------------------------------------------------------------


def cmd_ask(args: argparse.Namespace) -> int:
    server = streaming_server(pieces=12, delay=0.01)
    try:
        with tempfile.TemporaryDirectory() as home:
            proc = subprocess.run(
                [args.exe, "ask", "Say hello"], env=app_env(server.url, home), capture_output=True, text=True, timeout=60
            )
        requests = server.requests_to("/v1/messages")
    finally:
        server.stop()
    if proc.returncode != 0:
        return fail(f"`ask` exited {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}")
    if "That is all: the stream ends here." not in proc.stdout:
        return fail(f"`ask` did not print the streamed reply:\n{proc.stdout}")
    if not requests:
        return fail("the loopback server saw no /v1/messages request")
    sent = requests[0].headers
    if FAKE_KEY not in (sent.get("x-api-key", "") + sent.get("authorization", "")):
        return fail("the request did not carry the key from ANTHROPIC_API_KEY")
    print(f"smoke: ok: `ask` streamed {len(proc.stdout)} characters from the loopback server, exit 0")
    return 0


def run_app(exe: str, *args: str, env: dict[str, str], timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run([exe, *args], env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, encoding="utf-8",
                          timeout=timeout, check=False)


def failed_run(what: str, proc: subprocess.CompletedProcess[str]) -> int:
    return fail(f"{what} exited {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}")


def tool_results(request_body: dict) -> dict[str, dict]:
    """The tool_result blocks of the last (user) message of an Anthropic request, by tool_use_id."""
    content = request_body["messages"][-1]["content"]
    return {block["tool_use_id"]: block for block in content if isinstance(block, dict) and block.get("type") == "tool_result"}


def result_text(block: dict) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content or "")


def tool_round_trip(exe: str, server: LoopbackServer, home: str, call: tuple[str, str, dict], answer: str, prompt: str) -> tuple[int, dict | None]:
    """`ask --yes PROMPT` where the model first calls `call` (id, name, input), then answers `answer`.
    (0, the tool_result block the second request carried), or (1, None) after printing why not."""
    call_id, name, _arguments = call
    server.enqueue("/v1/messages", sse_response(anthropic_tool_reply([call])), sse_response(anthropic_text_reply(answer, pieces=3)))
    proc = run_app(exe, "ask", "--yes", prompt, env=app_env(server.url, home))
    if proc.returncode != 0:
        return failed_run(f"`ask --yes` (the model calls {name})", proc), None
    bodies = [request.json() for request in server.requests_to("/v1/messages")]
    if len(bodies) != 2:
        return fail(f"expected 2 requests to /v1/messages (the tool call, then its result), got {len(bodies)}\nstderr: {proc.stderr}"), None
    offered = {tool.get("name") for tool in bodies[0].get("tools", [])}
    if name not in offered:
        return fail(f"the first request did not offer {name}; it offered {sorted(offered)}\nstderr: {proc.stderr}"), None
    block = tool_results(bodies[1]).get(call_id)
    if block is None:
        return fail(f"the second request carried no tool_result for {call_id}: {json.dumps(bodies[1]['messages'][-1])[:2000]}"), None
    if answer not in proc.stdout:
        return fail(f"`ask` did not print the final answer {answer!r}:\n{proc.stdout}"), None
    return 0, block


# --- mcp (a real stdio MCP server) --------------------------------------------------------------------


def python_with_mcp() -> tuple[str | None, str]:
    """(an interpreter that can run the demo MCP server, or None; what was tried)."""
    candidates = [sys.executable, str(ROOT / ".venv" / "bin" / "python")]
    tried = []
    for python in dict.fromkeys(candidates):
        if not Path(python).exists():
            tried.append(f"{python} (absent)")
            continue
        probe = subprocess.run([python, "-c", "import mcp, mcp_types; from mcp.server.mcpserver import MCPServer"],
                               capture_output=True, text=True, timeout=60, check=False)
        if probe.returncode == 0:
            return python, ""
        tried.append(f"{python} (no `mcp` package)")
    return None, ", ".join(tried)


def demo_tool_count(python: str) -> int:
    """How many tools the demo server itself lists (asked in-process with the SDK, not through the app)."""
    code = ("import asyncio, sys; sys.path.insert(0, sys.argv[1]); from tests.support.mcp_servers.demo_server import build_server; "
            "print(len(asyncio.run(build_server().list_tools())))")
    probe = subprocess.run([python, "-c", code, str(ROOT)], capture_output=True, text=True, timeout=60, check=True)
    return int(probe.stdout.strip())


def cmd_mcp(args: argparse.Namespace) -> int:
    python, tried = python_with_mcp()
    if python is None:
        print(f"smoke: SKIP: no Python with the `mcp` package to run the demo MCP server (tried {tried}); "
              "install the app's dependencies into one, e.g. `.venv/bin/pip install -e .`")
        return SKIPPED
    print(f"smoke: mcp: the demo server runs under {python}")
    expected = demo_tool_count(python)
    server = LoopbackServer().start()
    try:
        with tempfile.TemporaryDirectory() as home:
            env = app_env(server.url, home)
            added = run_app(args.exe, "mcp", "add", "demo", "--", python, str(DEMO_SERVER), "--transport", "stdio", env=env)
            if added.returncode != 0:
                return failed_run("`mcp add demo -- python demo_server.py --transport stdio`", added)
            listed = run_app(args.exe, "mcp", "list", env=env)
            if listed.returncode != 0:
                return failed_run("`mcp list`", listed)
            match = re.search(r"state: ready, (\d+) tools?", listed.stdout)
            if match is None:
                return fail(f"`mcp list` does not show the demo server ready:\n{listed.stdout}\nstderr: {listed.stderr}")
            if int(match.group(1)) != expected or "read_note" not in listed.stdout:
                return fail(f"`mcp list` shows {match.group(1)} tools, the demo server has {expected} (read_note among them):\n{listed.stdout}")
            print(f"smoke: ok: `mcp list`: demo ready, {expected} tools")
            call = ("toolu_smoke_mcp", "mcp__demo__read_note", {"name": "todo"})
            status, block = tool_round_trip(args.exe, server, home, call, "You need to buy milk.", "What is on my todo note?")
            if status:
                return status
    finally:
        server.stop()
    text = result_text(block)
    if block.get("is_error") or text.strip() != "Buy milk.":
        return fail(f"the tool result of mcp__demo__read_note is not the note 'Buy milk.': {json.dumps(block)[:2000]}")
    print("smoke: ok: `ask --yes` ran mcp__demo__read_note over stdio and sent the model its result 'Buy milk.'")
    return 0


# --- fetch (web_fetch with trafilatura) --------------------------------------------------------------

PAGE_HTML = """<!doctype html>
<html><head><meta charset="utf-8"><title>Smoke page</title></head><body>
<nav><a href="/home">Home</a> | <a href="/about">About</a></nav>
<article><h1>Packaging smoke test</h1>
<p>The bundled app fetched this paragraph from a loopback server.</p>
<h2>Why it matters</h2>
<p>See <a href="https://example.org/docs">the docs</a> for <b>details</b>.</p>
</article>
<footer>Boilerplate footer that extraction drops</footer>
</body></html>
"""
"""Short on purpose: below trafilatura's MIN_EXTRACTED_SIZE its justext fallback runs too, which reads justext's stoplists."""
PAGE_MARKERS = (
    "URL: ",  # web_fetch's own header line
    "The bundled app fetched this paragraph from a loopback server.",
    "## Why it matters",  # Markdown headings, links and bold come only from trafilatura, not from the plain-text fallback
    "[the docs](https://example.org/docs)",
    "**details**",
)


def cmd_fetch(args: argparse.Namespace) -> int:
    server = LoopbackServer().start()
    server.set_handler("/page", lambda _request: ScriptedResponse(headers={"content-type": "text/html; charset=utf-8"}, chunks=[PAGE_HTML.encode()]))
    url = f"{server.url}/page"
    try:
        with tempfile.TemporaryDirectory() as home:
            call = ("toolu_smoke_fetch", "web_fetch", {"url": url})
            status, block = tool_round_trip(args.exe, server, home, call, "The page is about the smoke test.", "What does the page say?")
            if status:
                return status
        fetched = server.requests_to("/page")
    finally:
        server.stop()
    text = result_text(block)
    if not fetched:
        return fail("web_fetch never requested the page from the loopback server")
    missing = [marker for marker in PAGE_MARKERS if marker not in text]
    if block.get("is_error") or missing or f"URL: {url}" not in text:
        return fail(f"the web_fetch result lacks {missing or 'the URL line'} (no trafilatura Markdown?):\n{text[:3000]}")
    if "Boilerplate footer" in text:
        return fail(f"the web_fetch result kept the page's footer, so trafilatura did not extract it:\n{text[:3000]}")
    print(f"smoke: ok: `ask --yes` ran web_fetch on {url}; the model got trafilatura's Markdown ({len(text)} characters)")
    return 0


# --- shown (offscreen, exit-after-show hook) -------------------------------------------------------


def cmd_shown(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as home:
        env = app_env("http://127.0.0.1:9", home, DESKTOP_COPILOT_EXIT_AFTER_SHOW="1", QT_QPA_PLATFORM="offscreen")
        start = time.monotonic()
        try:
            proc = subprocess.run([args.exe], env=env, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            return fail(
                f"the app was still running {args.timeout:.0f} s after start with DESKTOP_COPILOT_EXIT_AFTER_SHOW=1 "
                "(does desktop_copilot/app/gui.py honour that variable?)"
            )
        elapsed = time.monotonic() - start
    if proc.returncode != 0 or "Traceback" in proc.stderr:
        return fail(f"the app exited {proc.returncode} after showing its window\nstderr: {proc.stderr}")
    print(f"smoke: ok: offscreen window shown and closed, exit 0 after {elapsed:.2f} s")
    return 0


# --- window (real X server) -----------------------------------------------------------------------


class XClientMessageEvent(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
        ("display", ctypes.c_void_p), ("window", ctypes.c_ulong), ("message_type", ctypes.c_ulong),
        ("format", ctypes.c_int), ("l", ctypes.c_long * 5),
    ]


class XEvent(ctypes.Union):
    _fields_ = [("xclient", XClientMessageEvent), ("pad", ctypes.c_long * 24)]


class XWindowAttributes(ctypes.Structure):
    _fields_ = [
        ("x", ctypes.c_int), ("y", ctypes.c_int), ("width", ctypes.c_int), ("height", ctypes.c_int),
        ("border_width", ctypes.c_int), ("depth", ctypes.c_int), ("visual", ctypes.c_void_p),
        ("root", ctypes.c_ulong), ("class_", ctypes.c_int), ("bit_gravity", ctypes.c_int),
        ("win_gravity", ctypes.c_int), ("backing_store", ctypes.c_int), ("backing_planes", ctypes.c_ulong),
        ("backing_pixel", ctypes.c_ulong), ("save_under", ctypes.c_int), ("colormap", ctypes.c_ulong),
        ("map_installed", ctypes.c_int), ("map_state", ctypes.c_int), ("all_event_masks", ctypes.c_long),
        ("your_event_mask", ctypes.c_long), ("do_not_propagate_mask", ctypes.c_long),
        ("override_redirect", ctypes.c_int), ("screen", ctypes.c_void_p),
    ]


class XImage(ctypes.Structure):
    _fields_ = [
        ("width", ctypes.c_int), ("height", ctypes.c_int), ("xoffset", ctypes.c_int), ("format", ctypes.c_int),
        ("data", ctypes.POINTER(ctypes.c_ubyte)), ("byte_order", ctypes.c_int), ("bitmap_unit", ctypes.c_int),
        ("bitmap_bit_order", ctypes.c_int), ("bitmap_pad", ctypes.c_int), ("depth", ctypes.c_int),
        ("bytes_per_line", ctypes.c_int), ("bits_per_pixel", ctypes.c_int),
    ]


class X11:
    """The few Xlib calls the smoke test needs: find a window, type, screenshot, ask it to close."""

    IS_VIEWABLE = 2

    def __init__(self) -> None:
        self.lib = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
        lib = self.lib
        lib.XOpenDisplay.restype = ctypes.c_void_p
        lib.XDefaultRootWindow.restype = ctypes.c_ulong
        lib.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        lib.XInternAtom.restype = ctypes.c_ulong
        lib.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        lib.XQueryTree.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong),
                                   ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.POINTER(ctypes.c_ulong)),
                                   ctypes.POINTER(ctypes.c_uint)]
        lib.XFetchName.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_char_p)]
        lib.XGetWindowAttributes.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(XWindowAttributes)]
        lib.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.POINTER(XEvent)]
        lib.XFlush.argtypes = [ctypes.c_void_p]
        lib.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.XFree.argtypes = [ctypes.c_void_p]
        lib.XSetInputFocus.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_ulong]
        lib.XGetImage.restype = ctypes.POINTER(XImage)
        lib.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
                                  ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]
        lib.XStringToKeysym.restype = ctypes.c_ulong
        lib.XStringToKeysym.argtypes = [ctypes.c_char_p]
        lib.XKeysymToKeycode.restype = ctypes.c_ubyte
        lib.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
        self.display = lib.XOpenDisplay(None)
        if not self.display:
            raise RuntimeError(f"cannot open X display {os.environ.get('DISPLAY')!r}")
        self.root = lib.XDefaultRootWindow(self.display)
        self._xtst = None

    def _children(self, window: int) -> list[int]:
        root, parent = ctypes.c_ulong(), ctypes.c_ulong()
        children, count = ctypes.POINTER(ctypes.c_ulong)(), ctypes.c_uint()
        if not self.lib.XQueryTree(self.display, window, root, parent, ctypes.byref(children), ctypes.byref(count)):
            return []
        result = [children[i] for i in range(count.value)]
        if children:
            self.lib.XFree(children)
        return result

    def name(self, window: int) -> str:
        raw = ctypes.c_char_p()
        if self.lib.XFetchName(self.display, window, ctypes.byref(raw)) and raw.value is not None:
            value = raw.value.decode("utf-8", "replace")
            self.lib.XFree(raw)
            return value
        return ""

    def attributes(self, window: int) -> XWindowAttributes:
        attrs = XWindowAttributes()
        self.lib.XGetWindowAttributes(self.display, window, ctypes.byref(attrs))
        return attrs

    def find_window(self, title: str) -> int | None:
        """A viewable top-level window whose WM_NAME starts with `title` (searched two levels deep)."""
        for top in self._children(self.root):
            for window in (top, *self._children(top)):
                if self.name(window).startswith(title) and self.attributes(window).map_state == self.IS_VIEWABLE:
                    return window
        return None

    def close(self, window: int) -> None:
        """What a window manager's close button does: a WM_DELETE_WINDOW client message."""
        event = XEvent()
        event.xclient.type = 33  # ClientMessage
        event.xclient.window = window
        event.xclient.message_type = self.lib.XInternAtom(self.display, b"WM_PROTOCOLS", False)
        event.xclient.format = 32
        event.xclient.l[0] = self.lib.XInternAtom(self.display, b"WM_DELETE_WINDOW", False)
        event.xclient.l[1] = 0  # CurrentTime
        self.lib.XSendEvent(self.display, window, False, 0, ctypes.byref(event))
        self.lib.XFlush(self.display)

    # typing through the XTEST extension
    def _tst(self):
        if self._xtst is None:
            self._xtst = ctypes.CDLL(ctypes.util.find_library("Xtst") or "libXtst.so.6")
            self._xtst.XTestFakeKeyEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong]
            self._xtst.XTestFakeButtonEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong]
            self._xtst.XTestFakeMotionEvent.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                                        ctypes.c_ulong]
        return self._xtst

    def click(self, x: int, y: int) -> None:
        tst = self._tst()
        tst.XTestFakeMotionEvent(self.display, -1, x, y, 0)
        tst.XTestFakeButtonEvent(self.display, 1, True, 0)
        tst.XTestFakeButtonEvent(self.display, 1, False, 0)
        self.lib.XSync(self.display, False)

    def focus(self, window: int) -> None:
        self.lib.XSetInputFocus(self.display, window, 2, 0)  # RevertToParent, CurrentTime
        self.lib.XSync(self.display, False)

    _KEYSYM_NAMES = {" ": "space", "?": "question", "!": "exclam", ",": "comma", ".": "period", "'": "apostrophe",
                     "-": "minus", ":": "colon", "\n": "Return"}
    _SHIFTED = set("?!:ABCDEFGHIJKLMNOPQRSTUVWXYZ")

    def type_text(self, text: str) -> None:
        tst = self._tst()
        shift = self.lib.XKeysymToKeycode(self.display, self.lib.XStringToKeysym(b"Shift_L"))
        for char in text:
            keysym = self.lib.XStringToKeysym(self._KEYSYM_NAMES.get(char, char).encode())
            code = self.lib.XKeysymToKeycode(self.display, keysym)
            if not code:
                raise ValueError(f"cannot type {char!r}")
            if char in self._SHIFTED:
                tst.XTestFakeKeyEvent(self.display, shift, True, 0)
            tst.XTestFakeKeyEvent(self.display, code, True, 0)
            tst.XTestFakeKeyEvent(self.display, code, False, 0)
            if char in self._SHIFTED:
                tst.XTestFakeKeyEvent(self.display, shift, False, 0)
            self.lib.XSync(self.display, False)
            time.sleep(0.02)

    def screenshot(self, path: Path, window: int | None = None) -> tuple[int, int]:
        """The screen (or the part `window` covers) as an RGB PNG (24/32-bit TrueColor, as Xvfb's default)."""
        screen = self.attributes(self.root)
        x, y, width, height = 0, 0, screen.width, screen.height
        if window is not None:
            attrs = self.attributes(window)
            x, y = max(0, attrs.x), max(0, attrs.y)
            width, height = min(attrs.width, screen.width - x), min(attrs.height, screen.height - y)
        image = self.lib.XGetImage(self.display, self.root, x, y, width, height, 0xFFFFFFFF, 2)  # ZPixmap
        if not image:
            raise RuntimeError("XGetImage failed")
        img = image.contents
        if img.bits_per_pixel != 32:
            raise RuntimeError(f"unsupported screen depth: {img.bits_per_pixel} bits per pixel")
        raw = ctypes.string_at(img.data, img.bytes_per_line * height)
        rows = []
        for y in range(height):
            line = raw[y * img.bytes_per_line : y * img.bytes_per_line + width * 4]
            rgb = bytearray(width * 3)
            rgb[0::3], rgb[1::3], rgb[2::3] = line[2::4], line[1::4], line[0::4]  # BGRX -> RGB
            rows.append(b"\x00" + bytes(rgb))
        self.lib.XFree(image)

        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

        png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        png += chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b"")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png)
        return width, height


def wait_for(predicate, timeout: float, step: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (value := predicate()) is not None and value is not False:
            return value
        time.sleep(step)
    return None


def cmd_window(args: argparse.Namespace) -> int:
    if not os.environ.get("DISPLAY"):
        return fail("`window` needs an X server in $DISPLAY (run it under xvfb-run)")
    x11 = X11()
    pieces, delay = 80, 0.08  # about 6.5 s of streaming: time to look
    server = streaming_server(pieces=pieces, delay=delay)
    with tempfile.TemporaryDirectory() as home:
        env = app_env(server.url, home)
        env.pop("QT_QPA_PLATFORM", None)
        log = Path(home) / "stderr.txt"
        with log.open("w") as err:
            proc = subprocess.Popen([args.exe], env=env, stdout=err, stderr=err)
        try:
            start = time.monotonic()
            window = wait_for(lambda: x11.find_window(WINDOW_TITLE), timeout=args.timeout)
            if window is None:
                proc.kill()
                return fail(f"no '{WINDOW_TITLE}' window appeared within {args.timeout:.0f} s\n{log.read_text()}")
            attrs = x11.attributes(window)
            print(f"smoke: ok: window '{x11.name(window)}' ({attrs.width}x{attrs.height}) shown "
                  f"{time.monotonic() - start:.2f} s after start")
            time.sleep(1.0)  # first paint, and the provider import warming up
            if args.prompt:
                x11.focus(window)
                # the composer sits along the bottom edge of the window
                x11.click(attrs.x + attrs.width // 2, attrs.y + attrs.height - 40)
                x11.type_text(args.prompt + "\n")
                if not wait_for(lambda: server.requests_to("/v1/messages") or None, timeout=20):
                    proc.kill()
                    return fail(f"typing the prompt sent no request to the loopback server\n{log.read_text()}")
                print("smoke: ok: the prompt reached the loopback server; the reply is streaming")
                time.sleep(pieces * delay * args.at)
            if args.screenshot:
                width, height = x11.screenshot(Path(args.screenshot), window)
                print(f"smoke: screenshot {width}x{height} -> {args.screenshot}")
            if args.prompt:
                time.sleep(pieces * delay * (1 - args.at) + 1.0)  # let the stream finish before closing
            x11.close(window)
            try:
                code = proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                return fail("the app did not exit within 30 s of WM_DELETE_WINDOW")
            if code != 0:
                return fail(f"the app exited {code} after its window was closed\n{log.read_text()}")
            if "Traceback" in log.read_text():
                return fail(f"the app printed a traceback\n{log.read_text()}")
            print("smoke: ok: closing the window ended the app with exit 0")
            return 0
        finally:
            if proc.poll() is None:
                proc.kill()
            server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, fn in (("ask", cmd_ask), ("mcp", cmd_mcp), ("fetch", cmd_fetch), ("shown", cmd_shown), ("window", cmd_window)):
        sub = commands.add_parser(name)
        sub.add_argument("--exe", default="desktop-copilot", help="the launcher to test")
        sub.add_argument("--timeout", type=float, default=30.0)
        sub.set_defaults(run=fn)
        if name == "window":
            sub.add_argument("--prompt", default="", help="type this into the composer and press Enter")
            sub.add_argument("--screenshot", default="", help="write a PNG of the screen while the reply streams")
            sub.add_argument("--at", type=float, default=0.6, help="screenshot after this fraction of the stream")
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    raise SystemExit(main())
