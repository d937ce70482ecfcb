"""A loopback proxy in front of a real Streamable HTTP MCP server that breaks the answers to `tools/call` as told:
a busy status with `retry-after`, silence, a malformed or truncated event, a connection closed mid-event. Every
other request (initialize, tools/list, the notification stream) passes through unchanged."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "te", "trailer", "upgrade"}
FAULTS = ("busy", "silent", "malformed", "truncated", "closed")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _ProxyServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's names
        self._forward(b"")

    def do_DELETE(self) -> None:  # noqa: N802
        self._forward(b"")

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        fault = self.server.fault_for(body)
        if fault == "busy":
            self._send_whole(503, b'{"error": "busy"}', {"retry-after": "1", "content-type": "application/json"})
        elif fault == "silent":
            self.server.stopping.wait(self.server.silence)
            self.close_connection = True
        else:
            self._forward(body, fault)

    def _send_whole(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _forward(self, body: bytes, fault: str | None = None) -> None:
        upstream = urlsplit(self.server.upstream)
        connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=120)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP and k.lower() != "host"}
        connection.request(self.command, self.path, body=body or None, headers=headers)
        response = connection.getresponse()
        self.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() not in HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        try:
            if fault is None:
                while chunk := response.read1(65536):
                    self._chunk(chunk)
            else:
                whole = response.read()
                if fault == "malformed":
                    self._chunk(b'event: message\ndata: {"jsonrpc": "2.0", "id": 1, "result": {"content": [\n\n')
                    self.wfile.write(b"0\r\n\r\n")
                    return
                self._chunk(whole[: len(whole) // 2])  # "truncated": the body ends there; "closed": the socket too
                if fault == "truncated":
                    self.wfile.write(b"0\r\n\r\n")
                else:
                    self.close_connection = True
                    return
                return
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        finally:
            connection.close()

    def _chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()


class _ProxyServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, upstream: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.upstream = upstream
        self.faults: deque[str] = deque()
        self.silence = 30.0
        self.stopping = threading.Event()
        self.calls_seen = 0

    def handle_error(self, request, client_address) -> None:
        """A connection that broke (the server behind died, the client went away) is what these tests make happen."""

    def fault_for(self, body: bytes) -> str | None:
        try:
            message = json.loads(body or b"{}")
        except ValueError:
            return None
        if isinstance(message, dict) and message.get("method") == "tools/call":
            self.calls_seen += 1
            return self.faults.popleft() if self.faults else None
        return None


class McpFaultProxy:
    """`with McpFaultProxy(server.url) as proxy: proxy.fail_next("malformed")`; `proxy.url` is the MCP endpoint."""

    def __init__(self, upstream_url: str) -> None:
        parts = urlsplit(upstream_url)
        self._path = parts.path
        self._server = _ProxyServer(f"{parts.scheme}://{parts.netloc}")
        self._thread = threading.Thread(target=self._server.serve_forever, name="mcp-fault-proxy", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}{self._path}"

    @property
    def calls_seen(self) -> int:
        return self._server.calls_seen

    def fail_next(self, *faults: str) -> None:
        """The next `tools/call` answers get these faults, one each, in order (then calls pass through)."""
        assert set(faults) <= set(FAULTS), faults
        self._server.faults.extend(faults)

    def __enter__(self) -> McpFaultProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        deadline = time.monotonic() + 5
        while self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
