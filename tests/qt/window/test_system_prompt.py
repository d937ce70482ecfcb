"""The real window: the system prompt dialog edits what the next request sends (and a stored conversation keeps
it); the New chat drop-down lists the assistants and starts a conversation from one."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu

from desktop_copilot.core.config.assistants import Assistant, AssistantLibrary
from desktop_copilot.qt.window.system_prompt import SystemPromptDialog, new_chat_menu, open_system_prompt, start_from_assistant
from tests.qt.conftest import send_and_wait, window_replies
from tests.support.loopback import anthropic_text_reply, sse_response


def _system_of(request) -> str | None:
    system = request.json().get("system")
    return system if system is None or isinstance(system, str) else "".join(part["text"] for part in system)


def _action(menu: QMenu, name: str):
    return next(a for a in menu.actions() if a.objectName() == name)


def test_the_edited_prompt_is_what_the_next_request_sends(qtbot, loopback_env, make_window):
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("Ahoy.")), sse_response(anthropic_text_reply("Aye.")))
    window = make_window()
    dialog = open_system_prompt(window)
    assert isinstance(dialog, SystemPromptDialog) and dialog.isVisible() and dialog.edit.toPlainText() == ""
    assert not dialog.restore_button.isVisible()  # a plain new chat has no assistant to go back to
    dialog.edit.setPlainText("  Talk like a pirate.\n")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible() and window.controller.session.conversation.system == "Talk like a pirate."

    send_and_wait(qtbot, window, "Hello")
    conversation = window.controller.session.conversation
    store = window.controller.session.store
    assert store.load_conversation_header(conversation.id).system == "Talk like a pirate."

    dialog = open_system_prompt(window)  # a stored conversation: saved at once
    assert dialog.edit.toPlainText() == "Talk like a pirate."
    assert conversation.title in dialog.about.text()
    dialog.edit.setPlainText("Answer in one word.")
    assert dialog.save()
    assert store.load_conversation_header(conversation.id).system == "Answer in one word."
    send_and_wait(qtbot, window, "And now?")
    first, second = loopback_env.requests_to("/v1/messages")
    assert _system_of(first) == "Talk like a pirate." and _system_of(second) == "Answer in one word."


def test_cancel_and_a_blank_prompt(qtbot, loopback_env, make_window):
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("Hi.")))
    window = make_window()
    window.controller.session.conversation.system = "Old prompt."
    dialog = open_system_prompt(window)
    dialog.edit.setPlainText("Never saved.")
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert window.controller.session.conversation.system == "Old prompt."
    dialog = open_system_prompt(window)
    dialog.edit.setPlainText("   \n ")
    assert dialog.save() and window.controller.session.conversation.system is None
    send_and_wait(qtbot, window, "Hello")
    assert _system_of(loopback_env.requests_to("/v1/messages")[0]) is None  # nothing is sent as the system prompt


def test_a_prompt_that_is_too_long_is_refused_in_words(make_window):
    window = make_window()
    dialog = open_system_prompt(window)
    dialog.edit.setPlainText("x" * 100_001)
    assert not dialog.save() and "shorten it" in dialog.message.text() and dialog.isVisible()
    assert window.controller.session.conversation.system is None
    dialog.reject()


def test_new_chat_menu_lists_the_assistants_and_starts_from_one(qtbot, make_window):
    window = make_window()
    library = AssistantLibrary.in_folder(window.controller.session.runtime.paths.config_dir)
    mine = library.add(Assistant(name="Poet", system="Answer in verse."))
    menu = new_chat_menu(window)
    names = [a.text() for a in menu.actions() if a.objectName().startswith("assistant:")]
    assert names == ["Default", "Coder", "Translator 中英互译", "Writer", "Poet"]
    assert _action(menu, "manageAssistants").text() == "Manage assistants…"

    _action(menu, "assistant:coder").trigger()
    conversation = window.controller.session.conversation
    assert conversation.assistant_id == "coder" and conversation.thinking_budget == 8192
    assert conversation.system.startswith("You are a senior software engineer")
    assert window.controller.model.rowCount() == 0  # an empty transcript for the new conversation

    dialog = open_system_prompt(window)
    assert "“Coder”" in dialog.about.text() and dialog.restore_button.isVisible()
    dialog.edit.setPlainText("Something else.")
    qtbot.mouseClick(dialog.restore_button, Qt.MouseButton.LeftButton)
    assert dialog.edit.toPlainText() == library.get("coder").system
    dialog.reject()

    _action(new_chat_menu(window), f"assistant:{mine.id}").trigger()
    assert window.controller.session.conversation.assistant_id == mine.id
    assert window.controller.session.conversation.system == "Answer in verse."
    assert window.controller.session.conversation is not conversation


def test_the_sidebar_drop_down_opens_the_menu(qtbot, make_window):
    window = make_window()
    sidebar = window.history.sidebar
    assert sidebar.new_menu_button.isVisible()  # the window gives the sidebar its menu of assistants
    qtbot.mouseClick(sidebar.new_menu_button, Qt.MouseButton.LeftButton)
    menu = next(m for m in window.findChildren(QMenu, "newChatMenu") if m.isVisible())
    assert _action(menu, "assistant:writer").text() == "Writer"
    _action(menu, "assistant:writer").trigger()
    menu.hide()
    assert window.controller.session.conversation.assistant_id == "writer"


def test_no_new_chat_while_a_reply_is_written(qtbot, loopback_env, make_window):
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("word " * 100, pieces=100), delay=0.05))
    window = make_window()
    assert window.send("Write a long answer")
    qtbot.waitUntil(lambda: window.controller.busy and bool(window_replies(window)), timeout=10000)
    before = window.controller.session.conversation
    writer = AssistantLibrary.in_folder(window.controller.session.runtime.paths.config_dir).get("writer")
    assert not start_from_assistant(window, writer)
    assert window.controller.session.conversation is before
    assert "stop the reply" in window.statusBar().currentMessage()
    window.controller.stop()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=5000)


def test_an_assistant_whose_provider_is_gone_starts_with_the_default(make_window):
    window = make_window()
    gone = Assistant(name="Old endpoint", provider="my-removed-endpoint", model="local-model")
    assert start_from_assistant(window, gone)
    conversation = window.controller.session.conversation
    assert conversation.assistant_id == gone.id and conversation.provider is None and conversation.model is None
    assert "no longer set up" in window.statusBar().currentMessage()


def test_manage_assistants_opens_the_settings_page(qtbot, make_window):
    from desktop_copilot.qt.settings.dialog import PAGES
    from desktop_copilot.qt.settings.entry import open_dialog_of

    if "assistants" not in PAGES:
        pytest.skip("the Assistants page is not in the settings dialog's PAGES yet (the lead merges it)")
    window = make_window()
    _action(new_chat_menu(window), "manageAssistants").trigger()
    dialog = open_dialog_of(window)
    assert dialog is not None and dialog.current_page() == "assistants"
    dialog.reject()
