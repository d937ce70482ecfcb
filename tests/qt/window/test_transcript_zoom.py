"""View ▸ Zoom in / Zoom out / Actual size (Ctrl+=, Ctrl+-, Ctrl+0) in the real window: the transcript's text grows and
shrinks in steps, rows are laid out again, a theme switch keeps the size, and the size is kept for the next start."""

from __future__ import annotations

from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.config.settings import SettingsFile
from desktop_copilot.qt.common.theme import DARK_THEME
from tests.support.history_seed import seed_app_store, seed_conversation


def _heights(window) -> list[int]:
    view = window.view
    return [view.visualRect(view.model().index(row, 0)).height() for row in range(view.model().rowCount())]


def test_zoom_steps_relayout_survive_a_theme_switch_and_are_kept(qtbot, make_window):
    seed_app_store(lambda store: seed_conversation(store, "Notes", [("What is a refracting telescope?",
                                                                     "One that bends light with lenses. " * 12)]))
    window = make_window()
    qtbot.waitUntil(lambda: window.view.model().rowCount() > 0, timeout=5000)
    base = window.view.delegate.env.theme.base_point_size
    before = _heights(window)
    menus = window.menus
    assert [k.toString() for k in menus.zoom_in_action.shortcuts()] == ["Ctrl+=", "Ctrl++"]
    assert menus.zoom_out_action.shortcut().toString() == "Ctrl+-" and menus.zoom_reset_action.shortcut().toString() == "Ctrl+0"
    menus.zoom_in_action.trigger()
    assert window.view.delegate.zoom == 1.1
    window.menus.zoom_in_action.trigger()
    assert window.view.delegate.zoom == 1.25
    assert window.view.delegate.env.theme.base_point_size == round(base * 1.25, 2)
    qtbot.waitUntil(lambda: sum(_heights(window)) > sum(before), timeout=3000)  # laid out again, larger

    window.view.delegate.apply_theme(DARK_THEME)  # what the theme switch does: the size stays
    assert window.view.delegate.env.theme.dark and window.view.delegate.env.theme.base_point_size == round(base * 1.25, 2)

    assert window.save_window_state()
    assert SettingsFile(window.controller.session.runtime.paths.settings_file).load().transcript_zoom == 1.25

    menus.zoom_reset_action.trigger()
    assert window.view.delegate.zoom == 1.0
    for _ in range(20):
        window.menus.zoom_out_action.trigger()
    assert window.view.delegate.zoom == 0.67  # the smallest step, no further


def test_the_kept_size_applies_at_the_next_start(qtbot, make_window):
    stored = SettingsFile(AppPaths.resolve().ensure().settings_file)
    stored.save(stored.load().model_copy(update={"transcript_zoom": 1.5}))
    window = make_window()
    window.restore_window_state()
    assert window.view.delegate.zoom == 1.5
