"""Compaction in the real window: the marker before the compacted messages (collapsed, opened, undone), Compact now
from the header against a loopback Anthropic server, the RecoveryBar after an overflow, and a new chat from a summary
with its way back to the original."""

from __future__ import annotations

import json
import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu, QToolButton

from desktop_copilot.core.bootstrap import build_runtime
from desktop_copilot.core.conversation.models import Compaction, Conversation, Message, MessageStatus, Role
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.transcript.segments import LEAD_KINDS
from desktop_copilot.qt.transcript.message_jump import jump_to_message
from desktop_copilot.qt.transcript.parts.compaction import TOGGLE, UNDO, marker_text
from tests.qt.transcript.transcript_support import hotspot_point
from tests.support.history_seed import seed_app_store, seed_conversation
from tests.support.loopback import anthropic_error, anthropic_text_reply, sse_response
from tests.support.memory_keyring import use_memory_keyring
from tests.support.settings_support import open_dialog

SUMMARY = "The user asked about the Yangtze; the assistant gave its length (6,300 km) and its dams."
OVERFLOW_ERROR = ("The conversation is still too long for the model's context window after compacting it (the Anthropic "
                  "API answered 400: prompt is too long: 219898 tokens > 200000 maximum). Use Compact now to summarise "
                  "more of it, or New chat from a summary to go on in a new conversation; the messages are all kept.")


def _turns(count: int) -> list[tuple[str, str]]:
    return [(f"Question {n} about rivers", f"Answer {n}: the river runs {n * 100} km.") for n in range(count)]


def _seed_compacted(turns: int = 6, compacted: int = 8, *, last_status=MessageStatus.COMPLETED, error=None) -> dict:
    """A stored conversation of `turns` turns whose first `compacted` messages are compacted."""

    def seed(store: Store) -> dict:
        conversation = seed_conversation(store, "Rivers of China", _turns(turns), last_status=last_status, error=error)
        messages = conversation.messages
        compaction = Compaction(first_message_id=messages[0].id, last_message_id=messages[compacted - 1].id, summary=SUMMARY,
                                messages=compacted, tokens_before=118_000, tokens_after=6_000, provider="anthropic",
                                model="claude-haiku-4-5")
        store.save_compaction(conversation.id, 0, compaction)
        return {"conversation": conversation, "compaction": compaction}

    return seed_app_store(seed)


def _rows(model, kind: str) -> list[int]:
    return [row for row in range(model.rowCount()) if model.segment_at(row).kind == kind]


def _shown_rows_of(window, message_id: str) -> list[int]:
    view, model = window.view, window.controller.model
    return [row for row in model.rows_of(message_id) if view.rows.heights[row] > 0 and model.segment_at(row).kind not in LEAD_KINDS]


def test_a_compacted_conversation_shows_the_marker_collapsed_and_opens_the_original_messages(qtbot, make_window):
    seeded = _seed_compacted()
    window = make_window()
    model, view = window.controller.model, window.view
    messages = seeded["conversation"].messages
    [marker] = _rows(model, "compaction")
    assert marker_text(model.segment_at(marker).state) == "Compacted 8 messages · 118k → 6k tokens"
    assert model.message_id_at(0) == messages[0].id and model.row_of(messages[0].id) == marker
    view.repaint()
    assert view.rows.heights[marker] > 0
    for message in messages[:8]:  # in the model, out of sight
        assert model.rows_of(message.id) and not _shown_rows_of(window, message.id)
        assert all(model.is_hidden(row) for row in model.rows_of(message.id) if row != marker)
    assert _shown_rows_of(window, messages[8].id) and not _rows(model, "compaction_summary")

    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=hotspot_point(view, marker, TOGGLE))
    view.repaint()
    assert model.segment_at(marker).state[-1] is True  # open
    summary_rows = _rows(model, "compaction_summary")
    assert summary_rows and summary_rows[0] == marker + 1 and model.segment_at(summary_rows[0]).state[1] == SUMMARY
    assert not any(model.is_hidden(row) for row in range(model.rowCount()))
    qtbot.waitUntil(lambda: all(model.segment_at(row).kind != "pending" for row in model.rows_of(messages[1].id)))
    assert [m.text for m in model.messages()[:2]] == ["Question 0 about rivers", "Answer 0: the river runs 0 km."]

    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Return)  # the marker clicked last closes again from the keyboard
    assert model.is_compaction_open(seeded["compaction"].id) is False
    assert not _rows(model, "compaction_summary") and not _shown_rows_of(window, messages[3].id)


def test_undo_compaction_calls_the_session_and_the_marker_and_the_store_say_it_is_undone(qtbot, make_window):
    seeded = _seed_compacted()
    window = make_window()
    model, view = window.controller.model, window.view
    compaction, conversation = seeded["compaction"], seeded["conversation"]
    [marker] = _rows(model, "compaction")
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=hotspot_point(view, marker, UNDO))
    [marker] = _rows(model, "compaction")
    assert marker_text(model.segment_at(marker).state) == "Compaction undone · 8 messages sent whole again"
    assert model.is_compaction_open(compaction.id) and not any(model.is_hidden(row) for row in range(model.rowCount()))
    assert window.controller.session.conversation.compactions[0].undone is True
    stored = window.controller.session.store.load_conversation_header(conversation.id)
    assert [(c.id, c.undone) for c in stored.compactions] == [(compaction.id, True)]
    assert window.statusBar().currentMessage() == "Compaction undone: those messages are sent whole again."
    layout = view.delegate.layout(model.index(marker, 0))
    assert [h.action for h in layout.parts[0].hotspots] == [TOGGLE]  # no second Undo


def test_the_marker_menu_opens_copies_and_undoes(qtbot, make_window):
    seeded = _seed_compacted()
    window = make_window()
    model, view = window.controller.model, window.view
    [marker] = _rows(model, "compaction")
    menu = QMenu()
    view.fill_context_menu(menu, model.index(marker, 0))
    texts = [action.text() for action in menu.actions() if action.text()]
    assert texts == ["Show the compacted messages", "Copy summary", "Undo compaction"]  # not the first message's own commands
    next(a for a in menu.actions() if a.text() == "Show the compacted messages").trigger()
    assert model.is_compaction_open(seeded["compaction"].id)
    next(a for a in menu.actions() if a.text() == "Undo compaction").trigger()
    assert window.controller.session.conversation.compactions[0].undone is True


def test_a_search_hit_inside_a_collapsed_compaction_opens_it(qtbot, make_window):
    seeded = _seed_compacted()
    window = make_window()
    model = window.controller.model
    target = seeded["conversation"].messages[4]
    assert jump_to_message(window.view, target.id)
    assert model.is_compaction_open(seeded["compaction"].id)
    window.view.repaint()
    assert _shown_rows_of(window, target.id)


def _conversation_menu(window) -> QMenu:
    return window.findChild(QToolButton, "conversationMenuButton").menu()


def test_compact_now_in_the_header_summarises_through_the_provider_and_shows_the_marker(qtbot, loopback_env, make_window):
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply(SUMMARY, pieces=3, input_tokens=900, output_tokens=40)))
    seeded = seed_app_store(lambda store: {"conversation": seed_conversation(store, "Rivers of China", _turns(7))})
    window = make_window()
    model = window.controller.model
    action = next(a for a in _conversation_menu(window).actions() if a.text() == "Compact now")
    assert action.isEnabled()
    action.trigger()
    assert window.controller.busy and not action.isEnabled()  # one run at a time
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    assert action.isEnabled()
    [request] = loopback_env.requests_to("/v1/messages")
    body = request.json()
    assert "summary" in str(body.get("system", "")).lower() and "Question 0 about rivers" in str(body["messages"])
    [made] = model.compactions()
    assert made.summary == SUMMARY and made.kind == "summary"
    messages = seeded["conversation"].messages
    assert made.first_message_id == messages[0].id
    [marker] = _rows(model, "compaction")
    assert model.segment_at(marker).message_id == messages[0].id
    assert marker_text(model.segment_at(marker).state).startswith(f"Compacted {made.messages} messages · ")
    window.view.repaint()
    assert not _shown_rows_of(window, messages[1].id) and _shown_rows_of(window, messages[-1].id)
    stored = window.controller.session.store.load_conversation_header(seeded["conversation"].id)
    assert [c.id for c in stored.compactions] == [made.id]
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Compacted "))


def test_compact_now_with_nothing_to_compact_says_so(qtbot, loopback_env, make_window):
    seed_app_store(lambda store: seed_conversation(store, "Short", _turns(2)))
    window = make_window()
    assert window.compaction.compact_now()
    qtbot.waitUntil(lambda: not window.controller.busy)
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Nothing to compact"))
    assert not loopback_env.requests_to("/v1/messages") and not window.controller.model.compactions()


def test_an_overflow_offers_compact_now_and_a_new_chat_from_a_summary(qtbot, loopback_env, make_window):
    seed_app_store(lambda store: seed_conversation(store, "Rivers of China", _turns(7), last_status=MessageStatus.FAILED,
                                                   error=OVERFLOW_ERROR))
    window = make_window()
    bar = window.recovery
    assert bar.isVisible() and bar.kind == "overflow"
    assert bar.title.text() == "This conversation no longer fits the model's context window."
    assert bar.compact_button.isVisible() and bar.summary_button.isVisible() and bar.retry_button.isVisible()
    assert not bar.edit_button.isVisible()

    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply(SUMMARY)),
                         sse_response(anthropic_text_reply("The Yangtze is 6,300 km long.", msg_id="msg_test_0002")))
    window.banner.show_error(OVERFLOW_ERROR)
    qtbot.mouseClick(bar.compact_button, Qt.MouseButton.LeftButton)  # compacts, then asks again for the failed reply
    assert window.controller.busy and bar.isHidden() and window.banner.isHidden()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    assert len(loopback_env.requests_to("/v1/messages")) == 2
    retry = loopback_env.requests_to("/v1/messages")[1].json()
    assert SUMMARY in str(retry["messages"][0]) and "Question 0 about rivers" not in str(retry["messages"])
    assert window.controller.model.compactions() and _rows(window.controller.model, "compaction")
    last = window.controller.session.conversation.messages[-1]
    assert (last.role, last.text, last.status) == (Role.ASSISTANT, "The Yangtze is 6,300 km long.", MessageStatus.COMPLETED)
    assert bar.isHidden()


def test_compact_now_after_an_overflow_of_a_short_conversation_compacts_all_but_its_last_turn(qtbot, loopback_env, make_window):
    """Three turns, the last four always sent whole: as the automatic retry does, all but the turn that overflowed."""
    seeded = seed_app_store(lambda store: seed_conversation(store, "Rivers of China", _turns(3),
                                                            last_status=MessageStatus.FAILED, error=OVERFLOW_ERROR))
    window = make_window()
    bar = window.recovery
    assert bar.isVisible() and bar.kind == "overflow"
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply(SUMMARY)),
                         sse_response(anthropic_text_reply("The Yangtze is 6,300 km long.", msg_id="msg_test_0002")))
    qtbot.mouseClick(bar.compact_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    [made] = window.controller.model.compactions()
    messages = seeded.messages
    assert (made.first_message_id, made.last_message_id) == (messages[0].id, messages[3].id)
    assert len(loopback_env.requests_to("/v1/messages")) == 2  # the summary, then the reply asked for again
    last = window.controller.session.conversation.messages[-1]
    assert (last.text, last.status) == ("The Yangtze is 6,300 km long.", MessageStatus.COMPLETED)


def test_an_overflow_reported_by_the_stream_is_known_without_its_words(qtbot, loopback_env, make_window):
    loopback_env.enqueue("/v1/messages", *[anthropic_error(400, "invalid_request_error",
                                                           "prompt is too long: 219898 tokens > 200000 maximum")] * 3)
    window = make_window()
    window.send("Tell me about the Yangtze")
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    reply = window.controller.session.conversation.messages[-1]
    assert reply.status is MessageStatus.FAILED and reply.id in window.controller.overflowed
    assert window.recovery.kind == "overflow" and window.recovery.compact_button.isVisible()
    reply.error = "The provider refused the request."  # other words: the stream's flag is enough
    window.recovery.refresh()
    assert window.recovery.kind == "overflow"


def test_new_chat_from_a_summary_opens_it_with_a_way_back(qtbot, loopback_env, make_window):
    seeded = seed_app_store(lambda store: {"conversation": seed_conversation(
        store, "Rivers of China", _turns(7), last_status=MessageStatus.FAILED, error=OVERFLOW_ERROR)})
    original = seeded["conversation"]
    window = make_window()
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply(SUMMARY)))
    qtbot.mouseClick(window.recovery.summary_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.controller.session.conversation.id != original.id, timeout=10000)
    new = window.controller.session.conversation
    assert new.summarised_from == original.id and SUMMARY in new.messages[0].text
    model = window.controller.model
    [origin] = _rows(model, "origin")
    assert origin == 0 and model.segment_at(origin).state == (original.id, "Rivers of China")
    assert window.history.conversations.row_of(new.id) is not None and window.recovery.isHidden()
    assert window.title_label.text() == new.title

    window.view.repaint()
    qtbot.mouseClick(window.view.viewport(), Qt.MouseButton.LeftButton, pos=hotspot_point(window.view, origin, "open_origin"))
    assert window.controller.session.conversation.id == original.id
    assert not _rows(window.controller.model, "origin")


def test_a_new_chat_made_in_memory_has_no_link_when_the_original_is_gone(qtbot, make_window):
    window = make_window()
    conversation = Conversation(title="Orphan", summarised_from="conv_gone")
    conversation.messages.append(Message.user("Summary"))
    assert window.controller.set_conversation(conversation)
    model = window.controller.model
    [origin] = _rows(model, "origin")
    assert model.segment_at(origin).state == ("conv_gone", None)
    window.view.repaint()
    assert window.view.delegate.layout(model.index(origin, 0)).parts[0].hotspots == []


def test_the_models_page_sets_when_to_compact_what_stays_whole_and_who_summarises(qtbot, make_window, loopback, monkeypatch):
    use_memory_keyring(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.url)
    window = make_window(build_runtime(check_keyring=False))
    dialog = open_dialog(qtbot, window)
    context = dialog.models_page.context
    assert (context.compact_at.value(), context.keep_turns.value()) == (80, 4)
    assert context.summariser_provider.currentText() == "The conversation's model" and not context.summariser_model.isEnabled()
    context.compact_at.setValue(70)
    context.keep_turns.setValue(6)
    context.summariser_provider.setCurrentIndex(context.summariser_provider.findData("anthropic"))
    assert context.summariser_model.isEnabled() and context.summariser_model.count() > 0
    context.summariser_model.setCurrentText("claude-haiku-4-5")
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    saved = json.loads((Path(os.environ["DESKTOP_COPILOT_HOME"]) / "config" / "settings.json").read_text())
    assert (saved["compact_at"], saved["keep_turns"], saved["summariser_provider"], saved["summariser_model"]) == (
        0.7, 6, "anthropic", "claude-haiku-4-5")
    runtime_settings = window.controller.session.runtime.settings
    assert (runtime_settings.compact_at, runtime_settings.keep_turns, runtime_settings.summariser_model) == (0.7, 6, "claude-haiku-4-5")

    dialog = open_dialog(qtbot, window)  # back to the conversation's model: both cleared
    context = dialog.models_page.context
    assert context.summariser_model.currentText() == "claude-haiku-4-5" and context.compact_at.value() == 70
    context.summariser_provider.setCurrentIndex(0)
    assert context.edits()["summariser_provider"] is None and context.edits()["summariser_model"] is None
