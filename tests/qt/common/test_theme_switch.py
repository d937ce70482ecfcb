"""Light and dark: both themes name the same colours and are readable (WCAG contrast of text, muted text, badges and
highlighted code), and the switch changes the real window live: the painted transcript, the sidebar, an open settings
dialog; "auto" follows the system's colour scheme, a forced setting does not, and Settings ▸ Models switches on OK."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import fields

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QApplication

from desktop_copilot.core.bootstrap import build_runtime
from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, TextBlock, ThinkingBlock, ToolCallBlock, ToolCallStatus
from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.tools.base import Risk
from desktop_copilot.qt.common.theme import DARK_THEME, DEFAULT_THEME, LIGHT_THEME, THEMES, Theme, color_names
from desktop_copilot.qt.common.theme_switch import current_theme, install_theme_switch, theme_for, theme_switch
from desktop_copilot.qt.history.sidebar_style import sidebar_style_sheet
from desktop_copilot.qt.settings.dialog import SettingsDialog
from desktop_copilot.qt.settings.styles import settings_style_sheet
from desktop_copilot.qt.transcript.parts.markdown import highlight_code
from desktop_copilot.qt.window.styles import window_style_sheet
from tests.qt.conftest import run_async

BOTH = pytest.mark.parametrize("theme", list(THEMES.values()), ids=list(THEMES))
CODE = '''@cache
def area(radius: float = 2.5) -> float:
    """The area of a circle."""  # a comment
    return math.pi * radius ** 2 if radius > 0 else None
'''
REPLY = f"Here is the function:\n\n```python\n{CODE}```\n\nIt returns `None` for a negative radius."


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance of `#rrggbb`."""
    channels = [int(colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: str, other: str) -> float:
    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.fixture
def switch(qapp):
    """Closed after the test: open widgets, the palette and the scheme request go back to the light default."""
    made = []

    def install(setting: str):
        made.append(install_theme_switch(qapp, setting))
        return made[-1]

    yield install
    if (installed := theme_switch()) is not None:
        installed.close()
    assert current_theme() is DEFAULT_THEME


# --- the palettes ------------------------------------------------------------------------------------------------


def test_both_themes_name_the_same_colours_and_the_dark_one_sets_each_of_its_own():
    names = color_names()
    assert {"background", "text", "muted", "card", "code_background", "sidebar_background", "diff_added", "diff_removed",
            "chart_bar", "chart_bar_flagged", "chart_axis", "chart_label"} <= set(names)
    for theme in THEMES.values():
        assert all(QColor(getattr(theme, name)).isValid() for name in names), theme.name
    same = [name for name in names if getattr(DARK_THEME, name) == getattr(LIGHT_THEME, name)]
    assert same == [], f"the dark theme keeps light colours: {same}"  # a colour added to Theme later needs a dark value too
    assert [item.name for item in fields(Theme)] == [item.name for item in fields(type(DARK_THEME))]
    assert DARK_THEME.dark and not LIGHT_THEME.dark and LIGHT_THEME is DEFAULT_THEME


def test_each_theme_has_every_status_and_risk_pill_with_the_same_words():
    assert set(DARK_THEME.tool_badges) == set(LIGHT_THEME.tool_badges) == set(ToolCallStatus)
    assert set(DARK_THEME.risk_badges) == set(LIGHT_THEME.risk_badges) == set(Risk)
    for status in ToolCallStatus:
        assert DARK_THEME.tool_badges[status].text == LIGHT_THEME.tool_badges[status].text
        assert DARK_THEME.tool_badges[status].background != LIGHT_THEME.tool_badges[status].background
    assert len({badge.background for badge in DARK_THEME.tool_badges.values()}) == len(ToolCallStatus)


TEXT_ON = ["background", "card", "user_bubble", "code_background", "sidebar_background", "row_hover", "row_selected",
           "highlight", "button_hover"]


@BOTH
def test_text_reaches_wcag_aaa_on_every_surface(theme):
    for surface in TEXT_ON:
        assert contrast(theme.text, getattr(theme, surface)) >= 7, (theme.name, surface)


@BOTH
def test_muted_text_and_coloured_text_reach_wcag_aa(theme):
    pairs = [("muted", surface) for surface in ("background", "card", "sidebar_background", "code_background")] + [
        ("chart_label", "background"), ("inline_code", "code_background"), ("error_text", "error_background"),
        ("error_text", "card"), ("ok_text", "ok_background"), ("warn_text", "warn_background"),
        ("info_text", "info_background"), ("info_strong", "info_background"), ("diff_added", "code_background"),
        ("diff_removed", "code_background"), ("background", "text"),  # the Stop button
    ]
    for fore, back in pairs:
        assert contrast(getattr(theme, fore), getattr(theme, back)) >= 4.5, (theme.name, fore, back)


@BOTH
def test_accent_and_bold_button_text_reach_the_large_text_level(theme):
    assert contrast(theme.accent, theme.background) >= 3  # links and the chart's bars
    assert contrast(theme.on_accent, theme.accent) >= 3  # bold text on Send and the primary buttons
    assert contrast(theme.chart_bar, theme.background) >= 3


@BOTH
def test_every_pill_reads_against_its_fill(theme):
    for badge in [*theme.tool_badges.values(), *theme.risk_badges.values()]:
        assert contrast(badge.foreground, badge.background) >= 4.5, (theme.name, badge)


@BOTH
def test_highlighted_code_reads_on_the_code_background(theme, qapp):
    html = highlight_code(CODE, "python", theme)
    assert f'bgcolor="{theme.code_background}"' in html
    coloured = [(colour, text) for colour, text in re.findall(r'<span style="[^"]*color: ?(#[0-9a-fA-F]{6})[^"]*">([^<]*)</span>', html)
                if text.strip()]
    assert len({colour.lower() for colour, _ in coloured}) >= 3, html  # keywords, strings, comments… in colours
    for colour, text in coloured:
        assert contrast(colour, theme.code_background) >= 4.5, (theme.name, colour, text)


def test_dark_code_uses_a_dark_pygments_style():
    from pygments.styles import get_style_by_name
    from pygments.token import Keyword

    assert luminance(get_style_by_name(DARK_THEME.code_style).background_color) < 0.05
    assert luminance(get_style_by_name(LIGHT_THEME.code_style).background_color) > 0.8
    dark, light = highlight_code(CODE, "python", DARK_THEME), highlight_code(CODE, "python", LIGHT_THEME)
    assert dark != light
    keyword = get_style_by_name(DARK_THEME.code_style).style_for_token(Keyword)["color"]
    assert f"#{keyword}".lower() in dark.lower()


def test_the_setting_picks_a_theme_and_an_unknown_value_follows_the_system():
    assert theme_for("auto", Qt.ColorScheme.Dark) is DARK_THEME
    assert theme_for("auto", Qt.ColorScheme.Light) is theme_for("auto", Qt.ColorScheme.Unknown) is LIGHT_THEME
    assert theme_for("light", Qt.ColorScheme.Dark) is LIGHT_THEME and theme_for("dark", Qt.ColorScheme.Light) is DARK_THEME
    assert Settings().theme == "auto"
    assert Settings.model_validate({"theme": "dark"}).theme == "dark"
    assert Settings.model_validate({"theme": "purple"}).theme == "auto"  # not worth losing the settings file over


# --- switching live ----------------------------------------------------------------------------------------------


def seed_conversation(store: Store) -> None:
    """A reply with a thinking block, a finished tool call and a code block (stored, so the window opens it)."""
    conversation = Conversation(title="Circle area", model="claude-sonnet-4-6", provider="anthropic")
    reply = Message.assistant("claude-sonnet-4-6", "anthropic")
    reply.blocks = [
        ThinkingBlock(thinking="The user wants a small function.", started_at=1.0, ended_at=3.0),
        ToolCallBlock(id="t1", name="web_fetch", arguments={"url": "https://example.com/circle"}, status=ToolCallStatus.DONE,
                      result="A circle's area is pi r squared.", started_at=3.0, ended_at=4.0),
        TextBlock(text=REPLY),
    ]
    reply.status = MessageStatus.COMPLETED
    conversation.messages = [Message.user("Write me a function for the area of a circle."), reply]
    store.save_conversation(conversation)
    for seq, message in enumerate(conversation.messages):
        store.save_message(conversation.id, seq, message)


def colours(image: QImage) -> Counter:
    """How many pixels of each colour (`#rrggbb`) an image has, sampled every second pixel."""
    return Counter(image.pixelColor(x, y).name() for x in range(0, image.width(), 2) for y in range(0, image.height(), 2))


def most_common(image: QImage) -> str:
    return colours(image).most_common(1)[0][0]


@pytest.fixture
def window(make_window):
    runtime = build_runtime(check_keyring=False)
    store = Store(runtime.paths.database)
    seed_conversation(store)
    store.close()
    made = make_window(runtime)
    assert made.controller.model.rowCount() > 3
    return made


def test_switching_repaints_the_transcript_sidebar_and_window_live(qtbot, switch, window):
    view, sidebar = window.view, window.history.sidebar
    view.scrollToTop()
    before, before_sidebar = view.viewport().grab().toImage(), sidebar.grab().toImage()
    assert most_common(before) == LIGHT_THEME.background
    assert LIGHT_THEME.code_background in colours(before) and LIGHT_THEME.sidebar_background == most_common(before_sidebar)

    dark = switch("dark")
    assert dark.theme is DARK_THEME and current_theme() is DARK_THEME
    qtbot.wait(10)
    after, after_sidebar = view.viewport().grab().toImage(), sidebar.grab().toImage()
    painted = colours(after)
    assert most_common(after) == DARK_THEME.background
    assert DARK_THEME.code_background in painted and DARK_THEME.card in painted  # the code block and the tool card
    assert not {LIGHT_THEME.background, LIGHT_THEME.code_background, LIGHT_THEME.card} & set(painted)
    assert view.delegate.env.theme is DARK_THEME
    assert most_common(after_sidebar) == DARK_THEME.sidebar_background
    assert DARK_THEME.row_selected in colours(after_sidebar)  # the open conversation's row, painted by its delegate
    assert sidebar.styleSheet() == sidebar_style_sheet(DARK_THEME) and window.styleSheet() == window_style_sheet(DARK_THEME)
    assert QApplication.palette().color(QPalette.ColorRole.Window).name() == DARK_THEME.background
    assert QApplication.palette().color(QPalette.ColorRole.WindowText).name() == DARK_THEME.text

    dark.set_setting("light")
    qtbot.wait(10)
    again = view.viewport().grab().toImage()
    assert most_common(again) == LIGHT_THEME.background and DARK_THEME.code_background not in colours(again)
    assert sidebar.styleSheet() == sidebar_style_sheet(LIGHT_THEME)


def test_an_open_settings_dialog_switches_and_models_page_applies_the_choice_on_ok(qtbot, switch, window):
    installed = switch("light")
    runtime = build_runtime(check_keyring=False)
    dialog = SettingsDialog(runtime)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.show_page("models")
    qtbot.waitExposed(dialog)
    page = dialog.models_page
    assert page.appearance_box.currentData() == "auto"
    page.appearance_box.setCurrentIndex(page.appearance_box.findData("dark"))
    assert installed.theme is LIGHT_THEME  # nothing changes before the settings are saved

    assert run_async(qtbot, dialog.apply(close=True))
    assert runtime.settings.theme == "dark" and installed.setting == "dark" and installed.theme is DARK_THEME
    assert window.styleSheet() == window_style_sheet(DARK_THEME)

    reopened = SettingsDialog(runtime)  # built light: the switch restyles what is open when it switches
    qtbot.addWidget(reopened)
    assert reopened.models_page.appearance_box.currentData() == "dark"
    installed.set_setting("auto")
    assert reopened.styleSheet() == settings_style_sheet(LIGHT_THEME)
    installed.set_setting("dark")
    assert reopened.styleSheet() == settings_style_sheet(DARK_THEME)


def test_auto_follows_the_system_scheme_and_a_forced_theme_ignores_it(qtbot, switch, window):
    changes = []
    auto = switch("auto")
    auto.sig_theme_changed.connect(changes.append)
    assert auto.theme is LIGHT_THEME  # offscreen reports no scheme: light

    auto.on_system_scheme(Qt.ColorScheme.Dark)
    assert auto.theme is DARK_THEME and changes == [DARK_THEME]
    assert window.view.delegate.env.theme is DARK_THEME and window.styleSheet() == window_style_sheet(DARK_THEME)
    auto.on_system_scheme(Qt.ColorScheme.Dark)
    assert changes == [DARK_THEME]  # no change, no second restyle
    auto.on_system_scheme(Qt.ColorScheme.Light)
    assert auto.theme is LIGHT_THEME and changes == [DARK_THEME, LIGHT_THEME]

    auto.set_setting("light")
    auto.on_system_scheme(Qt.ColorScheme.Dark)
    assert auto.theme is LIGHT_THEME and changes == [DARK_THEME, LIGHT_THEME]
    auto.set_setting("dark")
    auto.on_system_scheme(Qt.ColorScheme.Light)
    assert auto.theme is DARK_THEME
