"""Two launches on one profile: the second brings the first window to the front and exits (real processes, offscreen);
a lock left by a killed window is taken over. And two processes writing one database at once (as the window and
`ask` may): every message of both ends up whole, none lost, none mixed with another, the file intact."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from desktop_copilot.app.single_instance import LOCK_NAME

ROOT = Path(__file__).parents[2]
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")


def launch(home: Path, *, exit_after_show: bool = False) -> subprocess.Popen:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_COPILOT_HOME": str(home),
           "ANTHROPIC_API_KEY": "sk-ant-test"}
    env.pop("DESKTOP_COPILOT_EXIT_AFTER_SHOW", None)
    if exit_after_show:
        env["DESKTOP_COPILOT_EXIT_AFTER_SHOW"] = "1"
    return subprocess.Popen([sys.executable, "-m", "desktop_copilot"], env=env, cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def log_text(home: Path) -> str:
    path = home / "logs" / "desktop-copilot.log"
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


@pytest.mark.timeout(180)
def test_a_second_launch_shows_the_first_window_and_a_killed_ones_lock_is_taken_over(tmp_path):
    home = tmp_path / "home"
    first = launch(home)
    try:
        wait_for(lambda: (home / "data" / "conversations.sqlite3").exists(), 120,
                 "the first window never opened its database")
        assert (home / "data" / LOCK_NAME).exists() and first.poll() is None

        second = launch(home)
        _out, err = second.communicate(timeout=120)
        assert second.returncode == 0, err[-2000:]
        assert "already open" in err and "brought to the front" in err
        wait_for(lambda: "a second launch on this profile asked for the window" in log_text(home), 10,
                 "the first window never heard the second launch")
        assert first.poll() is None  # still running, untouched
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)  # a crash: its lock file stays behind
        first.communicate(timeout=30)
    assert (home / "data" / LOCK_NAME).exists()

    third = launch(home, exit_after_show=True)  # opens (the dead holder's lock is stale), then closes normally
    _out, err = third.communicate(timeout=120)
    assert third.returncode == 0, err[-2000:]
    assert "already open" not in err
    assert log_text(home).count("window stopped") == 0


WRITER = textwrap.dedent(
    """
    import json, sys
    from desktop_copilot.core.conversation.models import Conversation, Message
    from desktop_copilot.core.storage.store import Store

    path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = Store(path)
    conversation = Conversation(title=name)
    store.save_conversation(conversation)
    for seq in range(count):
        message = Message.user(f"{name}-{seq}:" + (name[0] * (2000 + seq * 37)))
        store.save_message(conversation.id, seq, message, background=seq % 2 == 0)
        if seq % 10 == 0:
            conversation.title = f"{name} after {seq}"
            store.save_conversation(conversation)
    written = store.close()
    print(json.dumps({"conversation": conversation.id, "written": written, "failures": store.health.failures}))
    """
)


@pytest.mark.timeout(120)
def test_two_processes_writing_one_database_lose_and_mix_nothing(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    count = 150
    runs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), name, str(count)], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE) for name in ("alpha", "bravo")]
    results = {}
    for name, run in zip(("alpha", "bravo"), runs, strict=True):
        out, err = run.communicate(timeout=110)
        assert run.returncode == 0, err[-2000:]
        results[name] = json.loads(out.strip().splitlines()[-1])
        assert results[name]["written"] is True

    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        for name, result in results.items():
            rows = db.execute("SELECT seq, blocks FROM messages WHERE conversation_id=? ORDER BY seq",
                              (result["conversation"],)).fetchall()
            assert [seq for seq, _ in rows] == list(range(count))
            for seq, blocks in rows:
                text = json.loads(blocks)[0]["text"]
                assert text == f"{name}-{seq}:" + name[0] * (2000 + seq * 37)  # whole, and only its own
            title = db.execute("SELECT title FROM conversations WHERE id=?", (result["conversation"],)).fetchone()[0]
            assert title == f"{name} after {count - 1 - (count - 1) % 10}"
    db.close()


def test_a_data_folder_that_cannot_hold_the_lock_lets_the_window_open(tmp_path, qapp):
    from desktop_copilot.app.single_instance import InstanceLock

    in_the_way = tmp_path / "data"
    in_the_way.write_text("a file where the data folder goes")
    lock = InstanceLock(in_the_way)
    assert lock.acquire() is True  # no lock, but the window opens (its conversations kept in memory)
    lock.release()
    folder = tmp_path / "usable"
    first, second = InstanceLock(folder), InstanceLock(folder)
    assert first.acquire() is True and second.acquire() is False  # held by a living process: refused as before
    first.release()
