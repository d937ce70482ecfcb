"""The soak's leak check (tests/support/resources.py) names what a process took and did not give back: a task, a
thread, a socket, a pipe, a file, a child process; and finds nothing once they are given back."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading

from tests.support.resources import Resources, child_processes, leaks, open_fds, os_thread_names, task_names, thread_names


def now(loop: asyncio.AbstractEventLoop | None = None) -> Resources:
    return Resources(tasks=task_names(loop) if loop else [], threads=thread_names(), os_threads=os_thread_names(),
                     fds=open_fds(), children=child_processes())


def test_every_kind_of_resource_taken_is_named_and_nothing_once_given_back(tmp_path):
    loop = asyncio.new_event_loop()
    before = now(loop)
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname())
    read_end, write_end = os.pipe()
    handle = open(tmp_path / "kept-open.txt", "w")  # noqa: SIM115 - kept open on purpose
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="soak-test-thread")
    thread.start()
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)

    async def forever() -> None:
        await asyncio.Event().wait()

    task = loop.create_task(forever())
    port = server.getsockname()[1]
    try:
        found = leaks(before, now(loop))
        assert found["asyncio tasks"] == ["test_every_kind_of_resource_taken_is_named_and_nothing_once_given_back.<locals>.forever"]
        assert "soak-test-thread" in found["threads"]
        assert found["OS threads"]
        fds = found["file descriptors"]
        assert f"file | {tmp_path / 'kept-open.txt'}" in fds
        assert sum(item.startswith("pipe") for item in fds) >= 2  # ours, and the child's stdin
        assert any(item.startswith("socket | tcp") and item.endswith(f"-> 127.0.0.1:{port}") for item in fds), fds
        assert any(item.startswith(f"socket | tcp 127.0.0.1:{port}") for item in fds), fds  # the listening one
        assert [item for item in found["child processes"] if item.startswith(f"{child.pid}: ")] == [
            f"{child.pid}: {sys.executable} -c import sys; sys.stdin.read()"]
    finally:
        task.cancel()
        loop.run_until_complete(asyncio.gather(task, return_exceptions=True))
        child.stdin.close()
        child.wait(10)
        stop.set()
        thread.join(5)
        handle.close()
        for fd in (read_end, write_end):
            os.close(fd)
        client.close()
        server.close()
    after = now(loop)
    loop.close()
    left = leaks(before, after)  # other tests' threads may still be ending or starting: only ours must be gone
    assert left.get("asyncio tasks", []) == []
    assert "soak-test-thread" not in left.get("threads", [])
    assert [item for item in left.get("file descriptors", []) if "kept-open" in item or f":{port}" in item] == []
    assert [item for item in left.get("child processes", []) if item.startswith(f"{child.pid}: ")] == []


def test_a_reconnection_is_not_a_leak_but_a_second_connection_is():
    server = socket.create_server(("127.0.0.1", 0))
    first = socket.create_connection(server.getsockname())
    before = Resources(fds=open_fds())
    first.close()
    again = socket.create_connection(server.getsockname())  # another local port, the same peer
    try:
        assert "file descriptors" not in leaks(before, Resources(fds=open_fds()))
        second = socket.create_connection(server.getsockname())
        try:
            grown = leaks(before, Resources(fds=open_fds()))["file descriptors"]
            assert any(item.startswith("socket | tcp") for item in grown), grown
        finally:
            second.close()
    finally:
        again.close()
        server.close()
