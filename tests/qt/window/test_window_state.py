"""The real window remembers, across a close and a new start: its size, the width of the conversation list and whether
it shows, and the open conversation (the latest when that one was deleted); the other settings stay as they were."""

from __future__ import annotations

import json

import pytest

from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.config.settings import Settings, SettingsFile
from desktop_copilot.core.storage.store import Store
from tests.qt.conftest import run_async
from tests.support.history_seed import seed_app_store, seed_conversation


def settings_path():
    return AppPaths.resolve().settings_file


def saved() -> dict:
    return json.loads(settings_path().read_text(encoding="utf-8"))


@pytest.fixture
def start(qtbot, qasync_loop):
    """Starts the window as the app does (create_main_window, then shown), without the test size make_window sets."""
    from desktop_copilot.app.window_setup import create_main_window

    made = []

    def make(runtime: Runtime | None = None):
        runtime = runtime or Runtime(AppPaths.resolve().ensure(), AppConfig.from_environment())
        store = Store(runtime.paths.database)
        window = create_main_window(runtime, store)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        made.append((window, store))
        return window

    yield make
    for window, store in made:
        run_async(qtbot, window.controller.aclose())
        store.close()


def close(qtbot, window) -> None:
    with qtbot.waitSignal(window.sig_closed, timeout=2000):
        window.close()


def test_size_and_list_width_come_back_at_the_next_start(qtbot, start):
    window = start()
    window.resize(740, 560)
    window.splitter.setSizes([230, 510])
    qtbot.waitUntil(lambda: window.splitter.sizes()[0] == 230, timeout=2000)
    close(qtbot, window)
    assert saved()["window_splitter_sizes"][0] == 230 and saved()["sidebar_visible"] is True
    assert saved()["window_geometry"]

    again = start()
    assert (again.width(), again.height()) == (740, 560)
    assert again.splitter.sizes()[0] == 230
    assert not again.history.sidebar.isHidden() and again.menus.sidebar_action.isChecked()


def test_a_hidden_list_stays_hidden_and_comes_back_as_wide_as_it_was(qtbot, start):
    window = start()
    window.splitter.setSizes([250, 600])
    qtbot.waitUntil(lambda: window.splitter.sizes()[0] == 250, timeout=2000)
    window.menus.sidebar_action.trigger()
    close(qtbot, window)
    assert saved()["sidebar_visible"] is False and saved()["window_splitter_sizes"][0] == 250

    again = start()
    assert again.history.sidebar.isHidden() and not again.menus.sidebar_action.isChecked()
    again.menus.sidebar_action.trigger()
    qtbot.waitUntil(lambda: again.splitter.sizes()[0] == 250, timeout=2000)


def test_the_open_conversation_is_reopened_not_the_latest(qtbot, start):
    older, newer = seed_app_store(lambda store: (seed_conversation(store, "Older plan", [("q1", "a1")], age_days=3),
                                                 seed_conversation(store, "Newer notes", [("q2", "a2")], age_days=0)))
    window = start()
    assert window.history.current_id == newer.id  # nothing remembered yet: the latest
    assert window.history.open(older.id)
    close(qtbot, window)
    assert saved()["open_conversation_id"] == older.id

    again = start()
    assert again.history.current_id == older.id
    assert again.title_label.text() == "Older plan"


def test_a_deleted_remembered_conversation_falls_back_to_the_latest(qtbot, start):
    older, newer = seed_app_store(lambda store: (seed_conversation(store, "Older plan", [("q1", "a1")], age_days=3),
                                                 seed_conversation(store, "Newer notes", [("q2", "a2")], age_days=0)))
    window = start()
    window.history.open(older.id)
    close(qtbot, window)
    seed_app_store(lambda store: store.delete_conversation(older.id))

    assert start().history.current_id == newer.id


def test_the_other_settings_are_kept_and_the_runtime_sees_the_state(qtbot, start, monkeypatch):
    from desktop_copilot.core.bootstrap import build_runtime
    from tests.support.memory_keyring import use_memory_keyring

    use_memory_keyring(monkeypatch)
    SettingsFile(AppPaths.resolve().ensure().settings_file).save(Settings(default_model="claude-opus-4-1", disabled_tools={"web_fetch"}))
    runtime = build_runtime(check_keyring=False)
    window = start(runtime)
    window.menus.sidebar_action.trigger()
    close(qtbot, window)
    assert saved()["default_model"] == "claude-opus-4-1" and saved()["disabled_tools"] == ["web_fetch"]
    assert saved()["sidebar_visible"] is False
    assert runtime.settings.sidebar_visible is False and runtime.settings.default_model == "claude-opus-4-1"


def test_odd_window_state_in_the_file_is_forgotten_not_fatal():
    settings = Settings.model_validate({"default_model": "claude-opus-4-1", "window_splitter_sizes": [-5, "wide"]})
    assert settings.window_splitter_sizes == [] and settings.default_model == "claude-opus-4-1"
