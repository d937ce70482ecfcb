"""A scripted loopback HTTP/1.1 server (background thread) plus builders for Anthropic/Tavily replies."""

from __future__ import annotations

import json
import os
import re
import socket
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

CORPUS_DIR = Path(os.environ.get("DESKTOP_COPILOT_CORPUS") or Path(__file__).resolve().parents[1] / "fixtures" / "corpus").resolve()
"""Recorded provider streams kept in the repository as test data (tests/fixtures/corpus/SOURCES.md)."""


@dataclass
class ScriptedResponse:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] = field(default_factory=list)
    """Body pieces, each written and flushed as its own HTTP chunk."""
    delay: float = 0.0
    """Seconds to sleep before each chunk."""
    drop: bool = False
    """After the chunks, close the socket abruptly, without the terminating zero-length chunk."""
    hold: float = 0.0
    """Seconds to sleep before sending the status line."""
    stall: float = 0.0
    """After the chunks, seconds of silence (the connection stays open) before the body ends."""


class _Headers(dict):
    """A dict of headers with lower-cased keys that also looks keys up case-insensitively."""

    def __setitem__(self, key: str, value: str) -> None:
        super().__setitem__(key.lower(), value)

    def __getitem__(self, key: str) -> str:
        return super().__getitem__(key.lower())

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and super().__contains__(key.lower())

    def get(self, key: str, default: Any = None) -> Any:
        return super().get(key.lower(), default)


@dataclass
class RecordedRequest:
    method: str
    path: str
    """The path without the query string."""
    headers: dict[str, str]
    """Lower-cased keys; lookups are case-insensitive."""
    body: bytes
    query: str = ""

    def json(self) -> Any:
        return json.loads(self.body)


Handler = Callable[[RecordedRequest], ScriptedResponse]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: LoopbackServer

    def handle_error(self, request, client_address) -> None:
        """A client that hung up (a capped download, a cancelled stream) is what many tests do on purpose: not an error."""
        import sys

        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    def setup(self) -> None:
        super().setup()
        self.server.owner._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.owner._track(self.connection, add=False)

    def _handle(self) -> None:
        path, _, query = self.path.partition("?")
        headers = _Headers()
        for key, value in self.headers.items():
            headers[key] = value
        request = RecordedRequest(self.command, path, headers, self._read_body(), query)
        owner = self.server.owner
        response = owner._respond(request)
        try:
            self._send(response, owner._stopping)
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                body += self.rfile.read(size)
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass
            return body
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, response: ScriptedResponse, stopping: threading.Event) -> None:
        if response.hold and stopping.wait(response.hold):
            raise ConnectionResetError("server stopping")
        self.send_response(response.status)
        for key, value in response.headers.items():
            if key.lower() not in ("content-length", "transfer-encoding"):
                self.send_header(key, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        for chunk in response.chunks:
            if response.delay and stopping.wait(response.delay):
                raise ConnectionResetError("server stopping")
            if chunk:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
        if response.stall and stopping.wait(response.stall):
            raise ConnectionResetError("server stopping")
        if response.drop:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class LoopbackServer:
    """Serves scripted responses on 127.0.0.1 from a daemon thread and records every request.

    Responses come from the FIFO queue of the longest enqueued path prefix that still has one,
    then from the handler of the longest matching prefix, then from `default`, else a 500."""

    def __init__(self, default: Handler | None = None) -> None:
        self.default = default
        self.url = ""
        self.requests: list[RecordedRequest] = []
        self._queues: dict[str, deque[ScriptedResponse]] = {}
        self._handlers: dict[str, Handler] = {}
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def enqueue(self, path: str, *responses: ScriptedResponse) -> None:
        with self._lock:
            self._queues.setdefault(path, deque()).extend(responses)

    def set_handler(self, path: str, fn: Handler) -> None:
        with self._lock:
            self._handlers[path] = fn

    def requests_to(self, path: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.startswith(path)]

    def start(self) -> LoopbackServer:
        self._stopping.clear()
        self._server = _Server(("127.0.0.1", 0), _RequestHandler)
        self._server.owner = self
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="loopback", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._stopping.set()
        self._server.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            (self._connections.add if add else self._connections.discard)(conn)

    def _respond(self, request: RecordedRequest) -> ScriptedResponse:
        with self._lock:
            self.requests.append(request)
            queued = sorted((p for p, q in self._queues.items() if q and request.path.startswith(p)), key=len)
            if queued:
                return self._queues[queued[-1]].popleft()
            handlers = sorted((p for p in self._handlers if request.path.startswith(p)), key=len)
            handler = self._handlers[handlers[-1]] if handlers else self.default
        if handler is None:
            return json_response(
                {"type": "error", "error": {"type": "api_error", "message": f"loopback: nothing was scripted for {request.method} {request.path}"}},
                status=500,
            )
        try:
            return handler(request)
        except Exception as exc:  # a broken handler should show up in the test, not hang it
            return json_response({"type": "error", "error": {"type": "api_error", "message": f"loopback handler failed: {exc!r}"}}, status=500)


class OnLoopback:
    """Lifecycle of an emulator that serves from the LoopbackServer in its `_loopback`: start, stop, `with`, `url`."""

    _loopback: LoopbackServer

    def start(self) -> Self:
        self._loopback.start()
        return self

    def stop(self) -> None:
        self._loopback.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """http://127.0.0.1:<port>"""
        return self._loopback.url


# --- corpus replay -------------------------------------------------------------------------

_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")


def corpus_chunks(name: str, *, split_every: int | None = None) -> list[bytes]:
    """The body of corpus file `name`: `.sse` verbatim, `.jsonl` as `data:` events (with an `event:`
    line from the JSON "type" for Anthropic files), `.ndjson` verbatim. One chunk per SSE event
    (per line for NDJSON), or pieces of `split_every` bytes."""
    path = CORPUS_DIR / name
    raw = path.read_bytes()
    if path.suffix == ".jsonl":
        events = []
        for line in raw.splitlines():
            if not line.strip():
                continue
            head = b""
            if path.name.startswith("anthropic_"):
                head = b"event: %s\n" % json.loads(line)["type"].encode()
            events.append(head + b"data: " + line + b"\n\n")
        raw = b"".join(events)
    if split_every:
        return [raw[i : i + split_every] for i in range(0, len(raw), split_every)]
    if path.suffix == ".ndjson":
        return raw.splitlines(keepends=True)
    chunks, start = [], 0
    for match in _EVENT_END.finditer(raw):
        chunks.append(raw[start : match.end()])
        start = match.end()
    if start < len(raw):
        chunks.append(raw[start:])
    return chunks


# --- response builders ---------------------------------------------------------------------


def anthropic_sse(events: list[dict]) -> list[bytes]:
    """One `event: <type>` / `data: <json>` chunk per event."""
    return [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events]


def _split(text: str, pieces: int) -> list[str]:
    pieces = max(1, min(pieces, len(text) or 1))
    size = -(-len(text) // pieces)
    return [text[i : i + size] for i in range(0, len(text), size)] if text else []


def _message(blocks: list[list[dict]], *, model: str, stop_reason: str, msg_id: str, input_tokens: int, output_tokens: int) -> list[dict]:
    events: list[dict] = [
        {
            "type": "message_start",
            "message": {
                "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
                "stop_reason": None, "stop_sequence": None,
                "usage": {"input_tokens": input_tokens, "output_tokens": 1},
            },
        }
    ]
    for index, block in enumerate(blocks):
        for event in block:
            events.append({**event, "index": index})
    events.append(
        {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None}, "usage": {"output_tokens": output_tokens}}
    )
    events.append({"type": "message_stop"})
    return events


def _text_block(text: str, pieces: int) -> list[dict]:
    return [
        {"type": "content_block_start", "content_block": {"type": "text", "text": ""}},
        *({"type": "content_block_delta", "delta": {"type": "text_delta", "text": p}} for p in _split(text, pieces)),
        {"type": "content_block_stop"},
    ]


def anthropic_text_reply(
    text: str,
    *,
    pieces: int = 1,
    model: str = "claude-test",
    stop_reason: str = "end_turn",
    msg_id: str = "msg_test_0001",
    input_tokens: int = 10,
    output_tokens: int = 5,
) -> list[dict]:
    """A full message_start..message_stop event list with one text block in `pieces` deltas."""
    return _message(
        [_text_block(text, pieces)],
        model=model, stop_reason=stop_reason, msg_id=msg_id, input_tokens=input_tokens, output_tokens=output_tokens,
    )


def anthropic_tool_reply(
    calls: list[tuple[str, str, dict]],
    *,
    text: str | None = None,
    thinking: str | None = None,
    signature: str = "sig-test-0123456789",
    model: str = "claude-test",
    msg_id: str = "msg_test_0002",
) -> list[dict]:
    """Optional thinking block, optional text block, then one tool_use block per (id, name, input)
    call with its input streamed as input_json_delta fragments; stop_reason tool_use."""
    blocks: list[list[dict]] = []
    if thinking is not None:
        blocks.append(
            [
                {"type": "content_block_start", "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
                *({"type": "content_block_delta", "delta": {"type": "thinking_delta", "thinking": p}} for p in _split(thinking, 2)),
                {"type": "content_block_delta", "delta": {"type": "signature_delta", "signature": signature}},
                {"type": "content_block_stop"},
            ]
        )
    if text is not None:
        blocks.append(_text_block(text, 2))
    for call_id, name, arguments in calls:
        fragments = ["", *_split(json.dumps(arguments), 3)] if arguments else [""]
        blocks.append(
            [
                {"type": "content_block_start", "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}}},
                *({"type": "content_block_delta", "delta": {"type": "input_json_delta", "partial_json": f}} for f in fragments),
                {"type": "content_block_stop"},
            ]
        )
    return _message(blocks, model=model, stop_reason="tool_use", msg_id=msg_id, input_tokens=10, output_tokens=20)


def sse_response(events_or_chunks: list[dict] | list[bytes] | bytes | str, **kw: Any) -> ScriptedResponse:
    """An `text/event-stream` 200 (or `status=`) response; dict events are encoded with `anthropic_sse`."""
    if isinstance(events_or_chunks, str):
        events_or_chunks = events_or_chunks.encode()
    if isinstance(events_or_chunks, bytes):
        chunks = [events_or_chunks]
    elif events_or_chunks and isinstance(events_or_chunks[0], dict):
        chunks = anthropic_sse(events_or_chunks)  # type: ignore[arg-type]
    else:
        chunks = list(events_or_chunks)  # type: ignore[arg-type]
    headers = {"content-type": "text/event-stream", "cache-control": "no-cache", **kw.pop("headers", {})}
    return ScriptedResponse(headers=headers, chunks=chunks, **kw)


def json_response(obj: Any, status: int = 200, headers: dict[str, str] | None = None) -> ScriptedResponse:
    return ScriptedResponse(
        status=status,
        headers={"content-type": "application/json", **(headers or {})},
        chunks=[json.dumps(obj).encode()],
    )


def anthropic_error(status: int, type_: str, message: str, headers: dict[str, str] | None = None) -> ScriptedResponse:
    """An Anthropic error body: {"type": "error", "error": {"type": type_, "message": message}}."""
    body = {"type": "error", "error": {"type": type_, "message": message}, "request_id": "req_loopback"}
    return json_response(body, status=status, headers=headers)


def tavily_results(query: str, results: list[tuple[str, str, str]]) -> ScriptedResponse:
    """A Tavily `/search` reply with (title, url, content) results, best score first."""
    return json_response(
        {
            "query": query,
            "follow_up_questions": None,
            "answer": None,
            "images": [],
            "results": [
                {"title": t, "url": u, "content": c, "score": round(0.95 - 0.05 * i, 4), "raw_content": None}
                for i, (t, u, c) in enumerate(results)
            ],
            "response_time": 0.42,
        }
    )
