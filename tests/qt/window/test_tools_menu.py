"""The composer's Tools button in the real window: the tools switched on in Settings, grouped by source, switched per
conversation; what is switched off is not offered to the model (the loopback server sees the request), kept with the
conversation, and "Offer all" goes back to following Settings."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.support.loopback import anthropic_text_reply, sse_response


def offered(loopback) -> set[str]:
    return {tool["name"] for tool in loopback.requests_to("/v1/messages")[-1].json().get("tools", [])}


def send(qtbot, window, text):
    window.composer.edit.insertPlainText(text)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.controller.busy and any(m.text == text for m in window.controller.model.messages()),
                    timeout=10000)


def test_a_tool_switched_off_for_the_conversation_is_not_offered_and_is_kept(qtbot, loopback_env, make_window):
    loopback_env.enqueue("/v1/messages", *[sse_response(anthropic_text_reply("ok")) for _ in range(3)])
    window = make_window()
    tools = window.tools_menu
    assert tools.button.text() == "Tools" and "web_fetch" in {tool.name for tool in tools.available()}
    menu = tools.open()
    labels = [action.text() for action in menu.actions() if action.text()]
    assert labels[:3] == ["Offer all", "Offer none", "Built-in"] and "web_fetch" in labels
    web_fetch = next(action for action in menu.actions() if action.objectName() == "tool:web_fetch")
    web_fetch.trigger()  # checked -> unchecked
    menu.close()
    count = len(tools.available())
    assert tools.button.text() == f"Tools {count - 1}/{count}"

    send(qtbot, window, "hello")
    assert "web_fetch" not in offered(loopback_env) and "tavily_search" in offered(loopback_env)
    conversation = window.controller.session.conversation
    stored = window.controller.session.store.load_conversation_header(conversation.id)
    assert stored.tools is not None and "web_fetch" not in stored.tools  # kept with the conversation

    window.history.new_conversation()
    assert window.tools_menu.button.text() == "Tools"  # a new chat follows Settings
    window.history.open(conversation.id)
    assert window.tools_menu.button.text() == f"Tools {count - 1}/{count}"
    tools.choose(set())
    send(qtbot, window, "no tools now")
    assert offered(loopback_env) == set()
    tools.choose(None)
    assert window.controller.session.conversation.tools is None
    send(qtbot, window, "all again")
    assert "web_fetch" in offered(loopback_env)
