"""The real window on a real SQLite file whose disk refuses writes (SQLite's own SQLITE_FULL through max_page_count,
SQLITE_READONLY through query_only): the banner says what happened and what to do, the reply stays in the window
(also after opening another conversation and coming back), nothing reaches the error hook, and once the disk takes
writes again the reply is in the file, whole, and the file passes its integrity check. And the real app started on
a damaged settings.json, mcp.json and database: each kept (aside), said in the banner, the defaults used."""

from __future__ import annotations

import sqlite3
import textwrap

import pytest

from desktop_copilot.app.window_setup import create_main_window, install_error_reporting
from desktop_copilot.core.bootstrap import open_store
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.conversation.models import MessageStatus, Role
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.storage.debug_pragmas import PRAGMAS_ENV
from tests.qt.conftest import make_window, qasync_loop, run_async  # noqa: F401 - fixtures are used by name
from tests.support.start_probe import run_start_probe
from tests.support.loopback import anthropic_text_reply, sse_response

pytestmark = pytest.mark.qt_no_exception_capture  # the app's own hook is watched instead

ANSWER = "".join(f"Paragraph {i}: a long answer that needs new pages in the database file.\n\n" for i in range(400))


def replies(window) -> list:
    return [m for m in window.controller.model.messages() if m.role is Role.ASSISTANT]


def stored_blocks(path) -> dict[str, str]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = dict(db.execute("SELECT id, blocks FROM messages").fetchall())
    db.close()
    return rows


@pytest.fixture
def watched_window(make_window):  # noqa: F811
    """A window whose uncaught exceptions are collected (there must be none)."""
    window = make_window()
    uncaught: list[str] = []
    window.sig_unexpected_error.connect(uncaught.append)
    undo = install_error_reporting(window)
    store = window.controller.session.store
    store.writer.retry_interval = 0.2
    yield window, store, uncaught
    undo()


def test_a_full_disk_shows_the_banner_keeps_the_reply_and_saves_it_when_space_returns(qtbot, loopback_env, watched_window):
    window, store, uncaught = watched_window
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply(ANSWER, pieces=40)))
    store.pragmas = ["max_page_count=1"]  # SQLite's own limit: the file cannot grow any more
    store.archive_connection.execute("PRAGMA max_page_count=1")

    assert window.send("Write a long answer")
    qtbot.waitUntil(lambda: not window.controller.busy and bool(replies(window)), timeout=15000)
    qtbot.waitUntil(lambda: "disk is full" in window.banner.text(), timeout=5000)

    assert "free some disk space" in window.banner.text() and not window.banner.isHidden()
    reply = replies(window)[0]
    assert reply.status is MessageStatus.COMPLETED and reply.text == ANSWER  # shown whole, in memory
    assert "Paragraph 399" not in stored_blocks(store.path).get(reply.id, "")
    conversation_id = window.controller.session.conversation.id
    assert window.history.new_conversation() and window.history.open(conversation_id)  # away and back
    qtbot.waitUntil(lambda: bool(replies(window)) and replies(window)[0].text == ANSWER, timeout=5000)
    window.banner.dismiss()  # a new attempt dismisses errors, not the disk's condition
    assert "disk is full" in window.banner.text()

    store.pragmas = []  # the user frees space
    store.archive_connection.execute("PRAGMA max_page_count=1073741823")
    qtbot.waitUntil(lambda: window.banner.isHidden(), timeout=10000)
    assert "everything is saved" in window.statusBar().currentMessage()
    assert "Paragraph 399" in stored_blocks(store.path)[reply.id]
    assert uncaught == []


def test_a_read_only_database_at_start_says_so_and_where_and_keeps_the_reply(qtbot, loopback_env, monkeypatch, qasync_loop):  # noqa: F811
    paths = AppPaths.resolve().ensure()
    open_store(paths).close()  # an existing database, then opened read-only the way the app starts
    monkeypatch.setenv(PRAGMAS_ENV, "query_only=ON")
    store = open_store(paths)
    store.writer.retry_interval = 3600
    window = create_main_window(Runtime(paths, AppConfig.from_environment()), store)
    qtbot.addWidget(window)
    try:
        assert "read-only" in window.banner.text() and str(paths.data_dir) in window.banner.text()
        loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("Still here.")))
        assert window.send("Hello")
        qtbot.waitUntil(lambda: not window.controller.busy and bool(replies(window)), timeout=15000)
        assert replies(window)[0].text == "Still here." and "read-only" in window.banner.text()
        assert stored_blocks(store.path) == {}
        conversation_id = window.controller.session.conversation.id
        assert [c.id for c in store.list_conversations()] == [conversation_id]  # the sidebar lists it all the same
        assert window.history.delete(conversation_id) is False  # refused, said by the banner's storage line
        assert [c.id for c in store.list_conversations()] == [conversation_id] and "read-only" in window.banner.text()
    finally:
        run_async(qtbot, window.controller.aclose())
        store.close()


START_PROBE = textwrap.dedent(
    """
    import json, sys
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    seen = {}

    def look():
        windows = [w for w in QApplication.topLevelWidgets() if type(w).__name__ == "MainWindow" and w.isVisible()]
        banner = getattr(windows[0], "banner", None) if windows else None
        if banner is None or banner.isHidden():
            return
        if "start" not in seen:
            seen["start"] = banner.text()
            windows[0].composer.edit.insertPlainText("hello")  # the first edit reads mcp.json (start on first use)
        elif banner.text() != seen["start"]:
            seen["first_use"] = banner.text()
            print(json.dumps(seen), flush=True)
            windows[0].close()

    app = QApplication(["desktop-copilot"])
    timer = QTimer(interval=50)
    timer.timeout.connect(look)
    timer.start()
    QTimer.singleShot(60000, lambda: [print(json.dumps(seen), flush=True), app.closeAllWindows()])
    from desktop_copilot.app.cli import main
    main([])
    """
)


def test_the_app_starts_on_damaged_files_keeps_them_and_says_so(tmp_path):
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "data").mkdir()
    (home / "config" / "settings.json").write_text('{"theme": "dark", ', encoding="utf-8")
    damaged_mcp = b'{"mcpServers": {"a": {"command": "x"},}'
    (home / "config" / "mcp.json").write_bytes(damaged_mcp)
    (home / "data" / "conversations.sqlite3").write_bytes(b"not a database " * 400)
    seen = run_start_probe(home, START_PROBE)
    assert "kept as" in seen["start"] and "settings" in seen["start"]  # settings.json, kept aside
    assert "database was damaged" in seen["start"]
    assert "not valid JSON" in seen["first_use"] and "mcp.json" in seen["first_use"]
    config, data = sorted(p.name for p in (home / "config").iterdir()), sorted(p.name for p in (home / "data").iterdir())
    assert any(name.startswith("settings.json.broken-") for name in config)
    assert (home / "config" / "mcp.json").read_bytes() == damaged_mcp  # not changed until the user fixes it
    assert any(name.startswith("conversations.sqlite3.damaged-") for name in data)
    with sqlite3.connect(home / "data" / "conversations.sqlite3") as db:  # a new database, in use
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
