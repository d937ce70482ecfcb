"""Runs the demo MCP server over HTTP (Streamable HTTP or SSE) in a subprocess on a free loopback port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Self

REPO = Path(__file__).resolve().parents[3]
START_TIMEOUT = 30.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def demo_command(*args: str) -> list[str]:
    """The command line that runs the demo server (stdio unless `--transport` is given)."""
    return [sys.executable, "-m", "tests.support.mcp_servers.demo_server", *args]


class DemoHttpServer:
    """`with DemoHttpServer("http") as server: server.url` — the server listens until the block ends."""

    def __init__(self, transport: str = "http", *, extra_args: tuple[str, ...] = (), env: dict[str, str] | None = None) -> None:
        self.transport = transport
        self.port = free_port()
        self.extra_args = extra_args
        self.env = {**os.environ, **(env or {})}
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/mcp" if self.transport == "http" else f"{self.base}/sse"

    name = "the demo server"

    def command(self) -> list[str]:
        return demo_command("--transport", self.transport, "--port", str(self.port), *self.extra_args)

    def start(self) -> DemoHttpServer:
        self.process = subprocess.Popen(
            self.command(), cwd=REPO, env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}: {err[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise TimeoutError(f"{self.name} did not listen on {self.port} within {START_TIMEOUT:g} s")

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        if self.process.stderr:
            self.process.stderr.close()
        self.process = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def stdio_config(name: str = "demo", *args: str, **fields: object):
    """An McpServerConfig that runs the demo server over stdio from the repository."""
    from desktop_copilot.core.mcp.server_config import McpServerConfig

    command = demo_command(*args)
    return McpServerConfig(name=name, command=command[0], args=command[1:], cwd=str(REPO), **fields)


def process_gone(pid: int) -> bool:
    """True when `pid` neither runs nor lingers as a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("X",)
