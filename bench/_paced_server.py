"""The streaming benchmarks' loopback server, run in a process of its own (so it does not compete for the GUI
process's GIL): an Anthropic SSE reply of Markdown-ish deltas paced at `rate` per second, until `max_bytes` are sent
or `seconds` have passed; it prints its URL and serves until its stdin closes."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator


def serve_paced_reply(deltas: Callable[[int], Iterator[str]], rate: float, delta_bytes: int, *,
                      max_bytes: int | None = None, seconds: float | None = None) -> None:
    from tests.support.loopback import LoopbackServer, ScriptedResponse, anthropic_sse

    def body():
        yield from anthropic_sse([
            {"type": "message_start", "message": {"id": "msg_bench", "type": "message", "role": "assistant", "model": "claude-bench",
             "content": [], "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ])
        source, start, sent, i = deltas(delta_bytes), time.perf_counter(), 0, 0
        while (max_bytes is None or sent < max_bytes) and (seconds is None or i < int(rate * seconds)):
            wait = start + i / rate - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            elif seconds is not None and time.perf_counter() - start > seconds:  # the client fell behind: stop at the limit
                break
            text = next(source)
            sent, i = sent + len(text.encode()), i + 1
            yield anthropic_sse([{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}])[0]
        yield from anthropic_sse([
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": i}},
            {"type": "message_stop"},
        ])

    server = LoopbackServer().start()
    server.set_handler("/v1/messages", lambda request: ScriptedResponse(headers={"content-type": "text/event-stream"}, chunks=body()))
    print(server.url, flush=True)
    sys.stdin.read()  # until the parent closes our stdin
    server.stop()


@contextlib.contextmanager
def app_beside_server(script: str, serve_args: list[str], home_prefix: str) -> Iterator[str]:
    """Run `script --serve *serve_args` as the server process and point this process's app at it (a fake key, a fresh
    DESKTOP_COPILOT_HOME, Qt offscreen, no Tavily or model override); yields its URL, stops it and removes the home
    after."""
    home = tempfile.TemporaryDirectory(prefix=home_prefix)
    server = subprocess.Popen([sys.executable, script, "--serve", *serve_args], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = server.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            raise SystemExit("the loopback server did not start")
        os.environ.update(ANTHROPIC_API_KEY="sk-ant-bench-fake", ANTHROPIC_BASE_URL=url, DESKTOP_COPILOT_HOME=home.name,
                          QT_QPA_PLATFORM="offscreen")
        for name in ("TAVILY_API_KEY", "TAVILY_BASE_URL", "DESKTOP_COPILOT_MODEL"):
            os.environ.pop(name, None)
        yield url
    finally:
        server.stdin.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        home.cleanup()
