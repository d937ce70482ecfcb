"""Conversations that run while another one is shown, in the real window against a loopback Anthropic server and the
app's real SQLite store: a slow reply goes on while another conversation is opened and sent to, a conversation opened
mid-run catches up and follows its run live, a tool call waiting for approval in a conversation not shown is answered
from the status bar's list (which opens it at the card), several conversations stream at once, closing the window
mid-run asks first (keep it open, or stop and quit with the partial replies kept as stopped), and the sidebar marks each
conversation's state (replying, waiting for approval with the count, failed, interrupted, a new reply not seen yet).
The notifications these runs send are tested in test_notifications.py."""

from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.conversation.models import Message, MessageStatus, Role, ToolCallStatus
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.storage.store import Store
from desktop_copilot.qt.history.conversation_list_model import ConversationListModel
from desktop_copilot.qt.history.run_states import APPROVAL, FAILED, INTERRUPTED, STREAMING, UNSEEN, RowState
from desktop_copilot.qt.transcript.message_jump import RowFlash
from tests.qt.conftest import run_async
from tests.qt.transcript.parts.test_approval_card import hotspot_rect
from tests.support.conversation_replies import ByConversation, DeleteNote
from tests.support.history_seed import seed_app_store, seed_conversation
from tests.support.loopback import ScriptedResponse, anthropic_error, anthropic_text_reply, anthropic_tool_reply, sse_response

Model = ConversationListModel
STORY = " ".join(f"word{n}" for n in range(60))
"""A reply long enough to stream for a while in 60 pieces."""


@pytest.fixture
def script(loopback_env) -> ByConversation:
    handler = ByConversation()
    loopback_env.set_handler("/v1/messages", handler)
    return handler


@pytest.fixture
def notes() -> DeleteNote:
    return DeleteNote()


@pytest.fixture
def open_window(qtbot, make_window, script, notes):
    """Opens the real window on the app's database, with the note tool among its tools (`runtime`: one with settings)."""
    made = []

    def open_(runtime: Runtime | None = None):
        runtime = runtime or Runtime(AppPaths.resolve().ensure(), AppConfig.from_environment())
        runtime.registry.register(notes)
        made.append(make_window(runtime))
        return made[-1]

    yield open_
    for window in made:
        run_async(qtbot, window.background.aclose())  # as the app does at close (window_setup)


@pytest.fixture
def window(open_window):
    return open_window()


# --- helpers ----------------------------------------------------------------------------------------------


def slow(text: str, pieces: int = 60, delay: float = 0.03) -> ScriptedResponse:
    return sse_response(anthropic_text_reply(text, pieces=pieces), delay=delay)


def quick(text: str) -> ScriptedResponse:
    return sse_response(anthropic_text_reply(text))


def shown_id(window) -> str:
    return window.controller.session.conversation.id


def shown_replies(window) -> list[Message]:
    return [m for m in window.controller.model.messages() if m.role is Role.ASSISTANT]


def start(qtbot, window, text: str) -> str:
    """Send `text` in the conversation shown; its id once the message is in."""
    assert window.send(text)
    qtbot.waitUntil(lambda: any(m.role is Role.USER and m.text == text for m in window.controller.session.conversation.messages))
    return shown_id(window)


def new_chat(qtbot, window) -> None:
    before = shown_id(window)
    assert window.history.new_conversation()
    assert shown_id(window) != before and not window.controller.session.conversation.messages


def live_reply(window, conversation_id: str) -> Message | None:
    """The newest reply of a conversation with a run in progress, as its run holds it."""
    running = next((c for c in window.controller.running_conversations() if c.id == conversation_id), None)
    messages = running.messages if running is not None else []
    return next((m for m in reversed(messages) if m.role is Role.ASSISTANT), None)


def streamed(window, conversation_id: str) -> str:
    """What has arrived so far of the reply a conversation's run is writing ("" before it starts or after the run)."""
    reply = live_reply(window, conversation_id)
    return reply.text if reply is not None else ""


def stored_messages(window, conversation_id: str) -> list[Message]:
    """The conversation's messages as the database file holds them (read on a connection of its own, after the
    store's writer thread wrote what it was given)."""
    store = window.controller.session.store
    assert store.writer.wait(5)
    db = sqlite3.connect(store.path)
    db.row_factory = sqlite3.Row
    try:
        rows = db.execute("SELECT * FROM messages WHERE conversation_id=? ORDER BY seq", (conversation_id,)).fetchall()
        return [Store._message(row) for row in rows]
    finally:
        db.close()


def shown_text(window, message_id: str) -> str:
    """What the transcript's rows of a reply show: its text pieces, joined."""
    model = window.controller.model
    rows = model.rows_of(message_id)
    pieces = []
    for row in rows:
        segment = model.segment_at(row)
        assert segment.kind == "text", segment
        message = model.message_at(row)
        pieces.append(message.blocks[segment.block].text[segment.start:segment.end])
    return "".join(pieces)


def row_state(window, conversation_id: str) -> RowState | None:
    conversations = window.history.conversations
    index = conversations.index_of(conversation_id)
    assert index.isValid(), f"{conversation_id} is not in the sidebar"
    return index.data(Model.RunStateRole)


# --- 1. a slow reply goes on while another conversation is shown --------------------------------------------


def test_a_slow_reply_finishes_while_another_conversation_is_sent_to(qtbot, window, script):
    script.add("Tell me a long story", slow(STORY))
    script.add("What is two and two?", quick("Four."))
    a = start(qtbot, window, "Tell me a long story")
    qtbot.waitUntil(lambda: bool(streamed(window, a)), timeout=5000)

    new_chat(qtbot, window)
    assert window.controller.running(a) and not window.controller.busy
    assert window.composer.button.text() == "Send"
    b = start(qtbot, window, "What is two and two?")
    assert b != a
    qtbot.waitUntil(lambda: not window.controller.running(b), timeout=5000)
    assert [m.text for m in shown_replies(window)] == ["Four."]
    assert window.controller.running(a), "the story should still be streaming in the background"
    assert [m.role for m in window.controller.model.messages()] == [Role.USER, Role.ASSISTANT]  # nothing of A leaked in

    qtbot.waitUntil(lambda: not window.controller.running(a), timeout=8000)
    assert shown_id(window) == b and [m.text for m in shown_replies(window)] == ["Four."]
    [question, answer] = stored_messages(window, a)
    assert question.text == "Tell me a long story"
    assert answer.text == STORY and answer.status is MessageStatus.COMPLETED
    assert [m.text for m in stored_messages(window, b)] == ["What is two and two?", "Four."]

    assert window.history.open(a)
    assert shown_id(window) == a
    [reply] = shown_replies(window)
    assert reply.id == answer.id and reply.status is MessageStatus.COMPLETED
    assert shown_text(window, reply.id) == STORY


def test_a_conversation_opened_mid_run_catches_up_and_follows_the_run_live(qtbot, window, script):
    script.add("Tell me a long story", slow(STORY, delay=0.04))
    script.add("Say hi", quick("Hi!"))
    a = start(qtbot, window, "Tell me a long story")
    qtbot.waitUntil(lambda: bool(streamed(window, a)), timeout=5000)
    new_chat(qtbot, window)
    b = start(qtbot, window, "Say hi")
    qtbot.waitUntil(lambda: not window.controller.running(b), timeout=5000)
    qtbot.waitUntil(lambda: len(streamed(window, a).split()) >= 10, timeout=5000)
    assert window.controller.running(a)

    assert window.history.open(a)
    assert shown_id(window) == a and window.controller.busy
    assert window.composer.button.text() != "Send"  # the shown conversation's run can be stopped from here
    reply = shown_replies(window)[-1]
    caught_up = shown_text(window, reply.id)
    assert caught_up == streamed(window, a)  # everything that arrived while B was shown
    assert len(caught_up.split()) >= 10 and STORY.startswith(caught_up)
    grown = []
    window.controller.model.dataChanged.connect(lambda first, _last, _roles: grown.append(shown_text(window, reply.id)))
    qtbot.waitUntil(lambda: not window.controller.running(a), timeout=8000)
    assert len(grown) >= 3 and grown == sorted(grown, key=len)  # the rows followed the run, piece by piece
    assert all(STORY.startswith(text) for text in grown)
    assert shown_text(window, reply.id) == STORY and reply.status is MessageStatus.COMPLETED
    assert window.composer.button.text() == "Send" and not window.controller.busy
    assert stored_messages(window, a)[-1].text == STORY
    assert row_state(window, a) is None  # finished while shown: nothing new to see


# --- 2. a call waiting for approval in a conversation not shown ---------------------------------------------


def tool_card_row(window, call_id: str) -> int:
    model = window.controller.model
    for row in range(model.rowCount()):
        segment = model.segment_at(row)
        if segment.kind == "tool" and model.message_at(row).blocks[segment.block].id == call_id:
            return row
    raise AssertionError(f"no card for {call_id}")


def test_an_approval_in_the_background_is_answered_from_the_status_bar(qtbot, window, script, notes, monkeypatch):
    alerts = []
    monkeypatch.setattr(QApplication, "alert", staticmethod(lambda widget, duration=0: alerts.append((widget, shown_id(widget)))))
    calls = [("toolu_a1", "delete_note", {"name": "todo"}), ("toolu_a2", "delete_note", {"name": "shopping"})]
    script.add("Tidy my notes", sse_response(anthropic_tool_reply(calls), hold=0.3),
               quick("Deleted your todo and shopping notes."))
    script.add("Say hi", quick("Hi!"))
    a = start(qtbot, window, "Tidy my notes")
    new_chat(qtbot, window)
    b = start(qtbot, window, "Say hi")
    qtbot.waitUntil(lambda: not window.controller.running(b), timeout=5000)

    indicator = window.background.indicator
    qtbot.waitUntil(lambda: indicator.isVisible(), timeout=5000)
    assert shown_id(window) == b
    assert window.controller.approvals.waiting(a) == ["toolu_a1", "toolu_a2"]
    assert window.controller.waiting_calls == []  # none in the conversation shown
    assert "2 waiting for approval" in indicator.text()
    assert alerts == [(window, b)]  # the desktop's attention, once, for the round that waits in A
    assert row_state(window, a) == RowState(APPROVAL, 2)
    assert notes.deleted == []

    menu = indicator.menu()
    menu.popup(indicator.mapToGlobal(indicator.rect().topLeft()))
    qtbot.waitUntil(lambda: len(menu.actions()) == 2)
    assert [action.text() for action in menu.actions()] == ["Tidy my notes: delete_note"] * 2
    assert [action.data() for action in menu.actions()] == [(a, "toolu_a1"), (a, "toolu_a2")]
    menu.actions()[1].trigger()
    menu.close()

    assert shown_id(window) == a and window.controller.busy
    assert window.controller.waiting_calls == ["toolu_a1", "toolu_a2"]
    reply = shown_replies(window)[0]
    view = window.view
    [flash] = view.viewport().findChildren(RowFlash)  # the jump to the card's message
    assert flash.index.row() == window.controller.model.message_row(reply.id)
    card = tool_card_row(window, "toolu_a2")
    assert view.visualRect(window.controller.model.index(card, 0)).intersects(view.viewport().rect())

    sidebar_changes = []
    window.history.conversations.dataChanged.connect(
        lambda first, _last, roles: sidebar_changes.append(first.data(Model.RunStateRole)) if Model.RunStateRole in roles else None)
    for call_id, left in (("toolu_a1", 1), ("toolu_a2", 0)):
        view.viewport().repaint()
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                         pos=hotspot_rect(view, "Allow once", tool_card_row(window, call_id)).center())
        qtbot.waitUntil(lambda call_id=call_id: call_id not in window.controller.approvals.waiting(), timeout=3000)
        if left:  # what still waits is told everywhere at once: the status bar's list, the sidebar, the status line
            assert indicator.isVisible() and f"{left} waiting for approval" in indicator.text()
            assert sidebar_changes[-1] == RowState(APPROVAL, left)
            assert f"{left} tool call waiting" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: not window.controller.running(a), timeout=5000)
    assert notes.deleted == ["todo", "shopping"]
    assert [call.status for call in reply.tool_calls] == [ToolCallStatus.DONE, ToolCallStatus.DONE]
    assert shown_replies(window)[-1].text == "Deleted your todo and shopping notes."
    assert indicator.isHidden() and row_state(window, a) is None
    stored = stored_messages(window, a)
    assert stored[-1].text == "Deleted your todo and shopping notes." and stored[-1].status is MessageStatus.COMPLETED


# --- 3. several at once ------------------------------------------------------------------------------------


def test_three_conversations_stream_at_once_and_all_finish_in_the_store(qtbot, window, script):
    prompts = {f"Question {n}": " ".join(f"answer{n}-{i}" for i in range(50)) for n in (1, 2, 3)}
    ids = {}
    for prompt, answer in prompts.items():
        if ids:
            new_chat(qtbot, window)
        script.add(prompt, slow(answer, pieces=50, delay=0.03))
        ids[prompt] = start(qtbot, window, prompt)
    assert [c.id for c in window.controller.running_conversations()] == list(ids.values())
    for conversation_id in ids.values():
        assert row_state(window, conversation_id) == RowState(STREAMING)

    qtbot.waitUntil(lambda: not window.controller.running_conversations(), timeout=8000)
    for prompt, answer in prompts.items():
        question, reply = stored_messages(window, ids[prompt])
        assert question.text == prompt and reply.text == answer and reply.status is MessageStatus.COMPLETED
    assert shown_replies(window)[-1].text == prompts["Question 3"]
    assert [row_state(window, ids[p]) for p in prompts] == [RowState(UNSEEN), RowState(UNSEEN), None]


# --- 4. closing the window mid-run -------------------------------------------------------------------------


def quit_box_button(window, text: str):
    box = window.quit_box
    assert box is not None and box.isVisible()
    return next(button for button in box.buttons() if button.text() == text)


def test_closing_mid_run_asks_and_keeping_the_window_open_lets_the_reply_finish(qtbot, window, script):
    script.add("Tell me a long story", slow(STORY))
    a = start(qtbot, window, "Tell me a long story")
    qtbot.waitUntil(lambda: bool(streamed(window, a)), timeout=5000)

    assert not window.close()
    qtbot.waitUntil(lambda: window.quit_box is not None and window.quit_box.isVisible())
    assert "1 conversation" in window.quit_box.text()
    quit_box_button(window, "Keep the window open").click()
    qtbot.waitUntil(lambda: window.quit_box is None)
    assert window.isVisible() and window.controller.running(a)

    qtbot.waitUntil(lambda: not window.controller.running(a), timeout=8000)
    assert stored_messages(window, a)[-1].text == STORY
    closed = []
    window.sig_closed.connect(lambda: closed.append(True))
    assert window.close()  # nothing runs any more: no question
    assert closed == [True] and window.quit_box is None


def test_stop_and_quit_keeps_the_partial_replies_marked_stopped(qtbot, window, script):
    script.add("Tell me a long story", slow(STORY))
    script.add("Tell me another one", slow(STORY))
    a = start(qtbot, window, "Tell me a long story")
    new_chat(qtbot, window)
    b = start(qtbot, window, "Tell me another one")
    qtbot.waitUntil(lambda: len(streamed(window, a).split()) >= 3 and len(streamed(window, b).split()) >= 3, timeout=5000)
    closed = []
    window.sig_closed.connect(lambda: closed.append(True))

    window.close()
    qtbot.waitUntil(lambda: window.quit_box is not None and window.quit_box.isVisible())
    assert "2 conversation" in window.quit_box.text()
    assert window.isVisible() and closed == []
    quit_box_button(window, "Stop and quit").click()
    qtbot.waitUntil(lambda: closed == [True])
    assert not window.isVisible()
    qtbot.waitUntil(lambda: not window.controller.running_conversations(), timeout=5000)
    for conversation_id in (a, b):
        question, reply = stored_messages(window, conversation_id)
        assert question.role is Role.USER and reply.status is MessageStatus.STOPPED
        assert reply.text and STORY.startswith(reply.text) and len(reply.text) < len(STORY)


# --- 5. the sidebar's states -------------------------------------------------------------------------------


def row_colours(window, conversation_id: str) -> set[int]:
    """The colours painted in the conversation's sidebar row."""
    view = window.history.sidebar.list_view
    index = window.history.conversations.index_of(conversation_id)
    view.scrollTo(index)
    image = view.viewport().grab().toImage()
    rect = view.visualRect(index)
    return {image.pixel(x, y) for x in range(rect.left(), rect.right()) for y in range(rect.top(), rect.bottom())}


def mark_colour(window, name: str) -> int:
    return window.history.sidebar.list_view.itemDelegate().theme.color(name).rgb()


def test_the_sidebar_marks_replying_failed_new_stopped_and_interrupted_conversations(qtbot, open_window, script):
    cut_off = seed_app_store(lambda store: seed_conversation(store, "Cut off", [("Go on", "Half a")],
                                                            last_status=MessageStatus.INTERRUPTED).id)
    window = open_window()
    assert row_state(window, cut_off) == RowState(INTERRUPTED)  # as stored by an earlier run of the app
    failure = anthropic_error(400, "invalid_request_error", "prompt is malformed")
    failure.hold = 0.3  # fails once another conversation is shown
    script.add("Tell me a long story", slow(STORY, delay=0.02))
    script.add("This one breaks", failure)
    script.add("Stop me", slow(STORY))
    script.add("Say hi", quick("Hi!"))
    assert shown_id(window) == cut_off  # the window opens the newest conversation
    new_chat(qtbot, window)
    story = start(qtbot, window, "Tell me a long story")
    assert row_state(window, story) == RowState(STREAMING)
    new_chat(qtbot, window)
    broken = start(qtbot, window, "This one breaks")
    new_chat(qtbot, window)
    stop_me = start(qtbot, window, "Stop me")
    new_chat(qtbot, window)
    hi = start(qtbot, window, "Say hi")
    qtbot.waitUntil(lambda: not window.controller.running(hi), timeout=5000)
    assert row_state(window, hi) is None  # finished while shown
    assert [row_state(window, c) for c in (story, stop_me)] == [RowState(STREAMING)] * 2
    assert mark_colour(window, "accent") in row_colours(window, story)
    assert mark_colour(window, "accent") not in row_colours(window, hi)

    qtbot.waitUntil(lambda: not window.controller.running(broken), timeout=5000)
    assert row_state(window, broken) == RowState(FAILED)  # not merely "new": it failed
    assert stored_messages(window, broken)[-1].status is MessageStatus.FAILED
    assert mark_colour(window, "error_text") in row_colours(window, broken)
    assert mark_colour(window, "error_text") not in row_colours(window, hi)
    assert mark_colour(window, "warn_text") in row_colours(window, cut_off)

    assert window.controller.stop(stop_me)  # a run not shown, stopped by its id
    qtbot.waitUntil(lambda: not window.controller.running(stop_me), timeout=5000)
    assert row_state(window, stop_me) is None  # the user's own doing: no mark, nothing new
    assert stored_messages(window, stop_me)[-1].status is MessageStatus.STOPPED

    qtbot.waitUntil(lambda: not window.controller.running(story), timeout=8000)
    assert row_state(window, story) == RowState(UNSEEN)
    assert window.history.open(story)
    assert row_state(window, story) is None and shown_replies(window)[-1].text == STORY
    assert window.history.open(broken)
    assert row_state(window, broken) == RowState(FAILED)  # still its newest reply's state once seen
    assert "prompt is malformed" in (shown_replies(window)[-1].error or "")
    assert shown_id(window) == broken and window.history.sidebar.list_view.currentIndex().data(Model.ConversationIdRole) == broken
