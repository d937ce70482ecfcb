"""The real window started where the database file cannot be created (a regular file stands where the data folder goes:
a real condition, also for root, who writes through read-only permissions): a lasting banner says why and what to do,
a reply from the loopback Anthropic server shows and can be exported, and once the folder can be made, the next
check writes everything into the real file (read back with sqlite3), the banner goes and the status bar says so."""

from __future__ import annotations

import json
import sqlite3
import textwrap

import pytest
from PySide6.QtCore import QEvent, QCoreApplication
from PySide6.QtWidgets import QFileDialog

from desktop_copilot.app.window_setup import create_main_window, install_error_reporting
from desktop_copilot.core.bootstrap import open_store
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.conversation.models import Role
from desktop_copilot.core.runtime import Runtime
from tests.qt.conftest import qasync_loop, run_async  # noqa: F401 - fixtures are used by name
from tests.support.start_probe import run_start_probe
from tests.support.loopback import anthropic_text_reply, sse_response

pytestmark = pytest.mark.qt_no_exception_capture  # the app's own hook is watched instead


@pytest.fixture
def unusable_window(qtbot, qasync_loop, loopback_env):  # noqa: F811
    paths = AppPaths.resolve()
    paths.data_dir.parent.mkdir(parents=True, exist_ok=True)
    paths.data_dir.write_text("a file where the data folder goes")
    paths.ensure()
    store = open_store(paths)
    window = create_main_window(Runtime(paths, AppConfig.from_environment()), store)
    qtbot.addWidget(window)
    uncaught: list[str] = []
    window.sig_unexpected_error.connect(uncaught.append)
    undo = install_error_reporting(window)
    yield window, paths, store, uncaught
    undo()
    run_async(qtbot, window.controller.aclose())
    store.close()


def test_a_window_without_its_database_file_keeps_the_conversation_exports_it_and_writes_it_once_it_can(
        qtbot, loopback_env, unusable_window, monkeypatch, tmp_path):
    window, paths, store, uncaught = unusable_window
    banner = window.banner
    assert store.unopened is not None and window.disk_retry.timer.isActive()
    assert "cannot be saved" in banner.text() and str(paths.data_dir) in banner.text() and "File ▸ Export" in banner.text()
    assert banner.close_button.isHidden()  # lasting: it cannot be dismissed
    banner.dismiss()
    assert "cannot be saved" in banner.text()

    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("Signal 8 is up until noon.")))
    assert window.send("Is the typhoon signal up?")
    qtbot.waitUntil(lambda: not window.controller.busy and any(
        m.role is Role.ASSISTANT for m in window.controller.model.messages()), timeout=15000)
    conversation_id = window.controller.session.conversation.id
    assert [c.id for c in store.list_conversations()] == [conversation_id]

    exported = tmp_path / "all.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (str(exported), ""))
    assert window.history.file_actions.export_all() == exported
    assert "Signal 8 is up until noon." in exported.read_text(encoding="utf-8")
    assert json.loads(exported.read_text(encoding="utf-8"))

    assert window.disk_retry.retry() is False and "cannot be saved" in banner.text()  # still in the way
    paths.data_dir.unlink()  # the user moves the file away; activating the window tries again
    QCoreApplication.sendEvent(window, QEvent(QEvent.Type.WindowActivate))
    qtbot.waitUntil(lambda: store.unopened is None, timeout=5000)

    assert banner.isHidden() and not window.disk_retry.timer.isActive()
    assert "everything you wrote is on disk now" in window.statusBar().currentMessage()
    with sqlite3.connect(f"file:{paths.database}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("SELECT id FROM conversations").fetchall() == [(conversation_id,)]
        blocks = "".join(row[0] for row in db.execute("SELECT blocks FROM messages WHERE conversation_id=?", (conversation_id,)))
    db.close()
    assert "Is the typhoon signal up?" in blocks and "Signal 8 is up until noon." in blocks
    assert uncaught == []


START_PROBE = textwrap.dedent(
    """
    import json
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    def look():
        windows = [w for w in QApplication.topLevelWidgets() if type(w).__name__ == "MainWindow" and w.isVisible()]
        banner = getattr(windows[0], "banner", None) if windows else None
        if banner is not None and not banner.isHidden():
            print(json.dumps({"banner": banner.text(), "lasting": banner.lasting}), flush=True)
            windows[0].close()

    app = QApplication(["desktop-copilot"])
    timer = QTimer(interval=50)
    timer.timeout.connect(look)
    timer.start()
    QTimer.singleShot(60000, app.closeAllWindows)
    from desktop_copilot.app.cli import main
    main([])
    """
)


def test_the_app_starts_where_the_data_folder_cannot_be_made(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "data").write_text("a file where the data folder goes")
    seen = run_start_probe(home, START_PROBE)
    assert "cannot be saved" in seen["banner"] and str(home / "data") in seen["banner"] and seen["lasting"]
    assert (home / "data").is_file()  # left as it was


def test_a_database_that_can_be_read_but_not_written_shows_its_history_and_continues_it(qtbot, qasync_loop,  # noqa: F811
                                                                                           loopback_env):
    """The file SQLite can read but not open for writing (a read-only folder: the store kept in memory as open_store
    keeps it there; core/storage/test_in_memory_history.py makes the folder really read-only): the old conversation is
    listed and opens, the banner says it is shown, a reply continues it, and the next check writes it into the file
    once, beside what it held."""
    from desktop_copilot.core.conversation.models import Conversation, Message
    from desktop_copilot.core.storage.in_memory import Unopened
    from desktop_copilot.core.storage.store import Store

    paths = AppPaths.resolve().ensure()
    seed = Store(paths.database)
    old = Conversation(title="Typhoon signal", messages=[Message.user("Is the typhoon signal up?")])
    seed.save_conversation(old)
    seed.save_message(old.id, 0, old.messages[0])
    seed.close()
    store = Store.in_memory(paths.database, Unopened("read_only", "unable to open database file", paths.data_dir))
    window = create_main_window(Runtime(paths, AppConfig.from_environment()), store)
    qtbot.addWidget(window)
    try:
        assert window.history.conversations.index_of(old.id).isValid()
        assert "The conversations saved there are shown" in window.banner.text() and "File ▸ Export" in window.banner.text()
        assert window.history.open(old.id)
        loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("Signal 8 is up until noon.")))
        assert window.send("And the ferries?")
        qtbot.waitUntil(lambda: not window.controller.busy and len(window.controller.session.conversation.messages) == 3,
                        timeout=15000)
        assert window.controller.session.conversation.id == old.id

        assert window.disk_retry.retry() is True and window.banner.isHidden()
        with sqlite3.connect(f"file:{paths.database}?mode=ro", uri=True) as db:
            assert db.execute("SELECT id FROM conversations").fetchall() == [(old.id,)]
            texts = [row[0] for row in db.execute("SELECT blocks FROM messages WHERE conversation_id=? ORDER BY seq",
                                                  (old.id,))]
        db.close()
        assert len(texts) == 3 and "Is the typhoon" in texts[0] and "ferries" in texts[1] and "Signal 8" in texts[2]
    finally:
        run_async(qtbot, window.controller.aclose())
        store.close()
