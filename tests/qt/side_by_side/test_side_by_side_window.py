"""Ask several models in the real window: Anthropic, a Chat Completions server (LM Studio's wire) and Ollama, all on
loopback servers, answer one message in columns; one fails mid-stream while the others finish; one answer is stopped on
its own; the picked one goes into the transcript and the conversation continues with it alone."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop_copilot.core.conversation.models import MessageStatus, Role
from desktop_copilot.core.side_by_side import ModelChoice
from desktop_copilot.qt.side_by_side.choose_models import ChooseModelsDialog
from tests.support import ollama_support
from tests.support.chat_completions_support import CHAT, chat_reply, chat_response
from tests.support.loopback import anthropic_text_reply, sse_response

CLAUDE = ModelChoice("anthropic", "claude-sonnet-4-6")
LOCAL = ModelChoice("lmstudio", "mistral-7b-instruct")
OLLAMA = ModelChoice("ollama", "llama3.2")


@pytest.fixture
def window(loopback_env, make_window, monkeypatch):
    monkeypatch.setenv("LMSTUDIO_BASE_URL", f"{loopback_env.url}/v1")
    monkeypatch.setenv("OLLAMA_HOST", loopback_env.url)
    return make_window()


def script_three(loopback, *, local_fails=False, slow_local=False):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Claude: the sky is blue.", pieces=4), delay=0.02))
    local = chat_reply("Mistral: light scatters " * (20 if slow_local else 1), pieces=40 if slow_local else 4)
    if local_fails:
        loopback.enqueue(CHAT, chat_response(local[:3], done=False, drop=True, delay=0.02))
    else:
        loopback.enqueue(CHAT, chat_response(local, delay=0.1 if slow_local else 0.02))
    loopback.enqueue(ollama_support.CHAT, ollama_support.text_reply("Llama: ", "Rayleigh scattering.", delay=0.02))


def ask(qtbot, window, text, choices):
    window.composer.edit.insertPlainText(text)
    assert window.side_by_side.ask(text, choices)
    qtbot.waitUntil(lambda: window.side_by_side.columns.isVisible() and transcript(window) == [("user", text)], timeout=5000)


def transcript(window):
    return [(m.role.value, m.text) for m in window.controller.model.messages()]


def column_texts(window, index):
    return [m.text for m in window.side_by_side.columns.columns[index].model.messages()]


def test_three_providers_answer_in_columns_one_failing_and_the_picked_one_continues(qtbot, window, loopback_env):
    script_three(loopback_env, local_fails=True)
    ask(qtbot, window, "Why is the sky blue?", [CLAUDE, LOCAL, OLLAMA])
    columns = window.side_by_side.columns
    assert [c.model_label.text() for c in columns.columns] == ["Anthropic · claude-sonnet-4-6",
                                                              "LM Studio · mistral-7b-instruct", "Ollama · llama3.2"]
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=15000)

    assert window.composer.text() == ""  # the message went out
    assert transcript(window) == [("user", "Why is the sky blue?")]  # the answers are in the columns, not twice
    assert column_texts(window, 0) == ["Claude: the sky is blue."]
    assert column_texts(window, 2) == ["Llama: Rayleigh scattering."]
    assert column_texts(window, 1)[0].startswith("Mistral")
    states = [c.state_label.text() for c in columns.columns]
    assert states == ["Done", "Interrupted", "Done"]
    assert all(c.pick_button.isVisible() and c.pick_button.isEnabled() and not c.stop_button.isVisible() for c in columns.columns)
    assert "in ·" in columns.columns[0].usage_label.text()  # each column its own tokens and cost

    qtbot.mouseClick(columns.columns[2].pick_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not columns.isVisible(), timeout=3000)
    assert transcript(window) == [("user", "Why is the sky blue?"), ("assistant", "Llama: Rayleigh scattering.")]
    assert window.model_picker.text() .endswith("llama3.2")
    (versions,) = window.versions.versions.values()
    assert versions.count == 3  # the picked answer and the two others, in the version switcher

    conversation_id = window.controller.session.conversation.id
    stored = window.controller.session.store.load_conversation(conversation_id)
    assert [m.text for m in stored.messages] == ["Why is the sky blue?", "Llama: Rayleigh scattering."]

    loopback_env.enqueue(ollama_support.CHAT, ollama_support.text_reply("Sunsets are red."))
    window.composer.edit.insertPlainText("And at sunset?")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(transcript(window)) == 4 and not window.controller.busy, timeout=10000)
    sent = loopback_env.requests_to(ollama_support.CHAT)[-1].json()["messages"]
    assert [m["content"] for m in sent if m["role"] != "system"] == [
        "Why is the sky blue?", "Llama: Rayleigh scattering.", "And at sunset?"]


def test_one_answer_stopped_from_its_column_while_the_others_finish(qtbot, window, loopback_env):
    script_three(loopback_env, slow_local=True)
    ask(qtbot, window, "Why is the sky blue?", [CLAUDE, LOCAL, OLLAMA])
    local = window.side_by_side.columns.columns[1]
    qtbot.waitUntil(lambda: local.stop_button.isVisible() and bool(column_texts(window, 1)) and bool(column_texts(window, 1)[0]),
                    timeout=10000)
    qtbot.mouseClick(local.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=15000)
    assert local.state_label.text() == "Stopped"
    turn = window.controller.side_by_side.shown
    stopped = turn.answer(1)[0]
    assert stopped.status is MessageStatus.STOPPED and stopped.text.startswith("Mistral")
    assert column_texts(window, 0) == ["Claude: the sky is blue."]
    (tail,) = [t for t in window.controller.session.versions(1) if t.messages[0].id == stopped.id]
    assert tail.messages[0].status is MessageStatus.STOPPED  # in the database, as it was stopped


def test_switching_away_mid_turn_and_back_shows_the_columns_live(qtbot, window, loopback_env):
    script_three(loopback_env, slow_local=True)
    ask(qtbot, window, "Why is the sky blue?", [CLAUDE, LOCAL, OLLAMA])
    asked = window.controller.session.conversation.id
    window.history.new_conversation()
    qtbot.waitUntil(lambda: not window.side_by_side.columns.isVisible(), timeout=3000)
    assert window.controller.running(asked)
    window.history.open(asked)
    qtbot.waitUntil(lambda: window.side_by_side.columns.isVisible(), timeout=3000)
    assert transcript(window) == [("user", "Why is the sky blue?")]
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=20000)
    assert column_texts(window, 1)[0] == "Mistral: light scatters " * 20


def test_a_new_message_without_a_pick_goes_on_from_the_first_answer(qtbot, window, loopback_env):
    script_three(loopback_env)
    ask(qtbot, window, "Why is the sky blue?", [CLAUDE, LOCAL, OLLAMA])
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=15000)
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("Red, at sunset.")))
    window.composer.edit.insertPlainText("And at sunset?")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.side_by_side.columns.isVisible(), timeout=3000)
    qtbot.waitUntil(lambda: not window.controller.busy and len(transcript(window)) == 4, timeout=10000)
    assert transcript(window) == [("user", "Why is the sky blue?"), ("assistant", "Claude: the sky is blue."),
                                  ("user", "And at sunset?"), ("assistant", "Red, at sunset.")]
    assert [m.role for m in window.controller.model.messages()].count(Role.ASSISTANT) == 2


def test_the_dialog_offers_models_that_can_answer_and_asks_two_to_four(qtbot, window):
    window.composer.edit.insertPlainText("Compare these")
    assert window.composer.several_button.isEnabled()
    qtbot.mouseClick(window.composer.several_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.side_by_side.dialog is not None, timeout=5000)
    dialog = window.side_by_side.dialog
    assert isinstance(dialog, ChooseModelsDialog) and dialog.isVisible()
    offered = [dialog.list.item(row).data(Qt.ItemDataRole.UserRole + 1) for row in range(dialog.list.count())]
    assert ModelChoice("anthropic", window.controller.model_name) in offered
    assert not any(choice.provider_id == "openai" for choice in offered)  # no key for it: not offered
    assert dialog.choices() == [ModelChoice(window.controller.provider_id, window.controller.model_name)]
    assert not dialog.ask_button.isEnabled()  # one is not several
    claude = [c for c in offered if c.provider_id == "anthropic"]
    local = [c for c in offered if c.provider_id == "ollama"]
    dialog.set_ticked([claude[0], local[0]])
    assert dialog.ask_button.isEnabled() and dialog.count.text() == "2 ticked"
    dialog.reject()
    qtbot.waitUntil(lambda: window.side_by_side.dialog is None, timeout=2000)
    assert window.composer.text() == "Compare these"  # nothing was sent


def test_five_ticked_are_too_many(qtbot):
    choices = [ModelChoice("anthropic", f"claude-{n}") for n in range(5)]
    dialog = ChooseModelsDialog([("Anthropic", choice) for choice in choices], choices[:4])
    qtbot.addWidget(dialog)
    assert dialog.ask_button.isEnabled() and dialog.count.text() == "4 ticked"
    dialog.set_ticked(choices)
    assert not dialog.ask_button.isEnabled() and dialog.count.text() == "5 ticked: four at most"
    dialog.filter.setText("claude-3")
    assert [dialog.list.item(row).isHidden() for row in range(5)] == [True, True, True, False, True]
