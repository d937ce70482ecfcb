"""End to end in the real window: a conversation started from an assistant (New chat ▸ the assistant) sends the
assistant's system prompt, its thinking and only its tools to the loopback Anthropic server, run after run, and
keeps them when reopened from the history."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu

from desktop_copilot.core.config.assistants import Assistant, AssistantLibrary
from desktop_copilot.core.conversation.models import Role
from desktop_copilot.qt.window.system_prompt import new_chat_menu
from tests.support.loopback import anthropic_text_reply, sse_response

PROMPT = "You answer questions about tides in one sentence.\n潮汐问题用一句话回答。"


def _replies(window):
    return [m for m in window.controller.model.messages() if m.role is Role.ASSISTANT]


def _send_through_the_composer(qtbot, window, text: str) -> None:
    count = len(_replies(window))
    window.composer.edit.insertPlainText(text)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(_replies(window)) == count + 1 and not window.controller.busy, timeout=15000)


def _system(body: dict) -> str | None:
    system = body.get("system")
    return system if system is None or isinstance(system, str) else "".join(part["text"] for part in system)


def _start_from(qtbot, window, assistant_id: str) -> None:
    sidebar = window.history.sidebar
    sidebar.set_new_chat_menu(lambda: new_chat_menu(window))  # the wiring the window does
    qtbot.mouseClick(sidebar.new_menu_button, Qt.MouseButton.LeftButton)
    menu = next(m for m in window.findChildren(QMenu, "newChatMenu") if m.isVisible())
    next(a for a in menu.actions() if a.objectName() == f"assistant:{assistant_id}").trigger()
    menu.hide()


def test_a_conversation_from_an_assistant_sends_its_prompt_thinking_and_only_its_tools(qtbot, loopback_env, make_window):
    loopback = loopback_env  # both the Anthropic and the Tavily key are set: every built-in web tool could be offered
    loopback.enqueue(
        "/v1/messages",
        sse_response(anthropic_text_reply("Plain chat.")),
        sse_response(anthropic_text_reply("Tides follow the moon.", msg_id="msg_test_0002")),
        sse_response(anthropic_text_reply("Twice a day.", msg_id="msg_test_0003")),
    )
    window = make_window()
    _send_through_the_composer(qtbot, window, "Hello")  # a plain chat first: the settings' tools, no system prompt
    plain_id = window.controller.session.conversation.id
    library = AssistantLibrary.in_folder(window.controller.session.runtime.paths.config_dir)
    tides = library.add(Assistant(name="Tides", system=PROMPT, thinking=True, thinking_budget=2048, tools=frozenset({"web_fetch"})))

    _start_from(qtbot, window, tides.id)
    assert window.controller.session.conversation.id != plain_id and window.controller.model.rowCount() == 0
    _send_through_the_composer(qtbot, window, "Why are there tides?")
    _send_through_the_composer(qtbot, window, "How often?")

    plain, first, second = (request.json() for request in loopback.requests_to("/v1/messages"))
    assert _system(plain) is None and "thinking" not in plain
    assert sorted(tool["name"] for tool in plain["tools"]) == ["tavily_search", "web_fetch"]
    for body in (first, second):
        assert _system(body) == PROMPT
        assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
        assert [tool["name"] for tool in body["tools"]] == ["web_fetch"]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]  # the assistant's conversation only

    conversation_id = window.controller.session.conversation.id
    stored = window.controller.session.store.load_conversation_header(conversation_id)
    assert (stored.assistant_id, stored.system, stored.thinking_budget, stored.tools) == (tides.id, PROMPT, 2048, ["web_fetch"])

    library.delete(tides.id)  # the conversation keeps what it started with
    assert window.history.open(plain_id) and window.history.open(conversation_id)
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Still tides.")))
    _send_through_the_composer(qtbot, window, "And spring tides?")
    reopened = loopback.requests_to("/v1/messages")[-1].json()
    assert _system(reopened) == PROMPT and reopened["thinking"]["budget_tokens"] == 2048
    assert [tool["name"] for tool in reopened["tools"]] == ["web_fetch"]


def test_an_assistant_without_tools_sends_none(qtbot, loopback_env, make_window):
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("Hello, world.")))
    window = make_window()
    _start_from(qtbot, window, "translator")
    _send_through_the_composer(qtbot, window, "你好，世界")
    body = loopback_env.requests_to("/v1/messages")[0].json()
    translator = AssistantLibrary.in_folder(window.controller.session.runtime.paths.config_dir).get("translator")
    assert _system(body) == translator.system and "translator between Chinese and English" in _system(body)
    assert not body.get("tools") and "thinking" not in body
