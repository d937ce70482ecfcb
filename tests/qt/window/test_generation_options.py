"""The real window: the header's Generation… dialog sets the conversation's temperature and top-p (by keyboard), which
the next request sends and a stored conversation keeps at once; an assistant's values come with a conversation
started from it; Settings ▸ Assistants edits them; the dialog is styled for the dark theme too."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QToolButton

from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.assistants import Assistant, AssistantLibrary
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.qt.common.theme import DARK_THEME
from desktop_copilot.qt.settings.styles import settings_style_sheet
from desktop_copilot.qt.window.generation_options import GenerationDialog
from desktop_copilot.qt.window.system_prompt import start_from_assistant
from tests.qt.conftest import send_and_wait
from tests.support.loopback import anthropic_text_reply, sse_response


def _open(qtbot, window) -> GenerationDialog:
    window.generation_action.trigger()  # the header's Conversation menu
    dialog = next(d for d in window.findChildren(GenerationDialog) if d.isVisible())
    qtbot.waitExposed(dialog)
    return dialog


def test_set_by_keyboard_sent_with_the_next_request_and_kept_by_a_stored_conversation(qtbot, loopback_env, make_window):
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("Cool.")), sse_response(anthropic_text_reply("Warm.")))
    window = make_window()
    button = window.generation_action
    menu_button = window.findChild(QToolButton, "conversationMenuButton")
    assert button.text() == "Generation…" and button in menu_button.menu().actions()
    assert menu_button.focusPolicy() != Qt.FocusPolicy.NoFocus
    assert "Temperature: model default · Top-p: model default" in button.toolTip()

    dialog = _open(qtbot, window)
    temperature = dialog.temperature
    assert temperature.default_box.isChecked() and not temperature.spin.isEnabled()
    assert dialog.focusWidget() is temperature.default_box  # the dialog opens on the first field
    qtbot.keyClick(temperature.default_box, Qt.Key.Key_Space)  # untick "Model default": the number takes the keys
    assert temperature.spin.isEnabled() and dialog.focusWidget() is temperature.spin
    qtbot.keyClicks(temperature.spin, "0.3")
    qtbot.keyClick(temperature.spin, Qt.Key.Key_Return)  # Return saves (the default button)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    conversation = window.controller.session.conversation
    store = window.controller.session.store
    assert (conversation.temperature, conversation.top_p) == (0.3, None)
    assert store.load_conversation_header(conversation.id) is None  # a new chat is stored with its first message
    assert "Temperature: 0.3 · Top-p: model default" in button.toolTip()

    send_and_wait(qtbot, window, "Hello")
    assert (store.load_conversation_header(conversation.id).temperature, conversation.top_p) == (0.3, None)

    dialog = _open(qtbot, window)
    assert dialog.temperature.value() == 0.3 and dialog.top_p.value() is None
    dialog.temperature.default_box.setChecked(True)
    dialog.top_p.default_box.setChecked(False)
    dialog.top_p.spin.setValue(0.8)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    header = store.load_conversation_header(conversation.id)  # a stored conversation: saved at once
    assert (header.temperature, header.top_p) == (None, 0.8)
    assert "Temperature: model default · Top-p: 0.8" in button.toolTip()

    send_and_wait(qtbot, window, "Again")
    first, second = (request.json() for request in loopback_env.requests_to("/v1/messages"))
    assert first["temperature"] == 0.3 and "top_p" not in first
    assert second["top_p"] == 0.8 and "temperature" not in second


def test_cancel_keeps_what_was_there(qtbot, make_window):
    window = make_window()
    conversation = window.controller.session.conversation
    conversation.temperature = 1.2
    dialog = _open(qtbot, window)
    assert dialog.temperature.spin.value() == 1.2
    dialog.temperature.default_box.setChecked(True)
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible() and conversation.temperature == 1.2


def test_a_value_set_more_precisely_elsewhere_is_kept_when_not_changed(qtbot, make_window):
    window = make_window()
    conversation = window.controller.session.conversation
    conversation.temperature = 0.125  # e.g. `ask --temperature 0.125`; the spin box shows 0.12 (or 0.13)
    dialog = _open(qtbot, window)
    assert dialog.save() and conversation.temperature == 0.125


def test_an_assistant_s_values_come_with_its_conversation_and_can_be_put_back(qtbot, make_window):
    window = make_window()
    library = AssistantLibrary.in_folder(window.controller.session.runtime.paths.config_dir)
    careful = library.add(Assistant(name="Careful", temperature=0.1, top_p=0.6))
    assert start_from_assistant(window, careful)
    conversation = window.controller.session.conversation
    assert (conversation.temperature, conversation.top_p) == (0.1, 0.6)
    assert "Temperature: 0.1 · Top-p: 0.6" in window.generation_action.toolTip()  # the header follows the new chat
    dialog = _open(qtbot, window)
    assert dialog.restore_button.isVisible()
    dialog.temperature.spin.setValue(1.9)
    dialog.top_p.default_box.setChecked(True)
    qtbot.mouseClick(dialog.restore_button, Qt.MouseButton.LeftButton)
    assert (dialog.temperature.value(), dialog.top_p.value()) == (0.1, 0.6)
    dialog.reject()


def test_settings_assistants_page_edits_them(qtbot):
    from desktop_copilot.qt.settings.assistants_page import AssistantsPage

    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig())
    library = AssistantLibrary.in_folder(runtime.paths.config_dir)
    mine = library.add(Assistant(name="Mine", top_p=0.9))
    page = AssistantsPage(runtime, library)
    qtbot.addWidget(page)
    page.show()
    assert page.select("coder")
    assert not page.temperature.isEnabled() and not page.top_p.isEnabled()  # built in: read-only
    assert page.select(mine.id)
    assert page.temperature.value() is None and page.top_p.value() == 0.9 and page.temperature.isEnabled()
    page.temperature.default_box.setChecked(False)
    page.temperature.spin.setValue(0.45)
    page.top_p.default_box.setChecked(True)
    assert page.save_button.isEnabled()
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    entry = json.loads((runtime.paths.config_dir / "assistants.json").read_text(encoding="utf-8"))["assistants"][0]
    assert (entry["temperature"], entry["top_p"]) == (0.45, None)
    assert AssistantLibrary.in_folder(runtime.paths.config_dir).get(mine.id).new_conversation().temperature == 0.45



def _luminance(colour: QColor) -> float:
    return 0.2126 * colour.redF() + 0.7152 * colour.greenF() + 0.0722 * colour.blueF()


def test_the_dialog_is_dark_in_the_dark_theme(qtbot, dark, make_window):
    window = make_window()
    window.controller.session.conversation.temperature = 0.5
    dialog = _open(qtbot, window)
    assert dialog.styleSheet() == settings_style_sheet(DARK_THEME)
    spin = dialog.temperature.spin
    image = spin.grab().toImage()
    inside = image.pixelColor(image.width() // 4, image.height() // 2)
    assert _luminance(inside) < 0.3, inside.name()  # the field is dark, not a white box
    text = dialog.about.palette().color(dialog.about.foregroundRole())
    assert _luminance(text) > 0.4  # and its words are light
    dialog.reject()
