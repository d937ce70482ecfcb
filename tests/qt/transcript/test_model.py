"""TranscriptModel: a well-behaved Qt model of segments; a change to a message becomes dataChanged on the
rows that look different and row inserts/removals for segments added or dropped; stored conversations
open lazily (row count up front, bodies fetched on demand into a bounded cache)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, Role, TextBlock, ThinkingBlock
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.transcript.chunking import TARGET_CHARS
from desktop_copilot.qt.transcript.model import TranscriptModel


def _conversation() -> list[Message]:
    reply = Message.assistant("claude-test")
    accumulate(reply, ev.Start(model="claude-test"))
    accumulate(reply, ev.TextDelta(index=0, text="Hello"))
    return [Message.user("Hi"), reply, Message.user("And now?")]


def _signals(model: TranscriptModel) -> list[tuple]:
    seen = []
    model.dataChanged.connect(lambda top, bottom, roles: seen.append(("changed", top.row(), bottom.row())))
    model.rowsInserted.connect(lambda _parent, first, last: seen.append(("inserted", first, last)))
    model.rowsRemoved.connect(lambda _parent, first, last: seen.append(("removed", first, last)))
    return seen


def test_passes_the_qt_model_tester(qtmodeltester):
    model = TranscriptModel()
    model.set_messages(_conversation())
    qtmodeltester.check(model, force_py=True)
    model.append_message(Message.assistant())
    qtmodeltester.check(model, force_py=True)


def test_roles_expose_the_live_message(qtbot):
    messages = _conversation()
    model = TranscriptModel()
    model.set_messages(messages)
    index = model.index(1, 0)
    assert index.data(TranscriptModel.MessageRole) is messages[1]
    assert index.data(TranscriptModel.MessageIdRole) == messages[1].id
    assert index.data(TranscriptModel.AuthorRole) == "assistant"
    assert index.data(TranscriptModel.StatusRole) == "streaming"
    assert index.data(Qt.ItemDataRole.DisplayRole) == "Hello"
    assert index.data(TranscriptModel.SegmentRole).kind == "text"
    assert model.roleNames()[TranscriptModel.MessageRole] == b"message"


def test_message_changed_emits_data_changed_for_that_row_only(qtbot):
    messages = _conversation()
    model = TranscriptModel()
    model.set_messages(messages)
    seen = []
    model.dataChanged.connect(lambda top, bottom, roles: seen.append((top.row(), bottom.row(), list(roles))))

    accumulate(messages[1], ev.TextDelta(index=0, text=" world"))
    assert model.message_changed(messages[1].id)

    assert len(seen) == 1
    top, bottom, roles = seen[0]
    assert (top, bottom) == (1, 1)
    assert TranscriptModel.RevisionRole in roles and TranscriptModel.MessageIdRole not in roles
    assert model.index(1, 0).data(TranscriptModel.RevisionRole) == messages[1].revision


def test_a_long_streaming_reply_grows_by_inserted_rows(qtbot):
    model = TranscriptModel()
    reply = Message.assistant("m")
    accumulate(reply, ev.Start(model="m"))
    model.set_messages([Message.user("Hi"), reply])
    seen = _signals(model)
    paragraph = "A sentence that fills a paragraph of the reply, more or less. " * 4 + "\n\n"
    accumulate(reply, ev.TextDelta(index=0, text=paragraph))
    model.message_changed(reply.id)
    assert seen == [("changed", 1, 1)]  # the waiting dots became the text
    seen.clear()
    while model.rowCount() < 4:
        rows_before = model.rowCount()
        accumulate(reply, ev.TextDelta(index=0, text=paragraph))
        model.message_changed(reply.id)
        assert all(first >= rows_before - 1 for _kind, first, _last in seen)  # only the growing end is touched
        assert ("inserted", rows_before, rows_before) in seen or model.rowCount() == rows_before
        seen.clear()
    last = model.rowCount() - 1
    accumulate(reply, ev.Done(reason="end_turn"))
    seen.clear()
    model.message_changed(reply.id)
    assert seen == [("changed", last, last)]
    segments = [model.segment_at(row) for row in range(1, model.rowCount())]
    assert all(s.end - s.start >= TARGET_CHARS for s in segments[:-1]) and not any(s.open for s in segments)
    assert "".join(reply.text[s.start : s.end] for s in segments) == reply.text


def test_expanding_thinking_inserts_its_rows(qtbot):
    reply = Message.assistant("m")
    reply.blocks = [ThinkingBlock(thinking="pondering\n" * 600, started_at=1.0, ended_at=2.0), TextBlock(text="Done.")]
    reply.status = MessageStatus.COMPLETED
    model = TranscriptModel()
    model.set_messages([reply])
    seen = _signals(model)
    model.set_expanded(reply.id, 0, True)
    assert [s.kind for s in map(model.segment_at, range(model.rowCount()))][:2] == ["thinking", "thinking_body"]
    assert seen[0][0] == "inserted" and seen[0][1] == 1 and model.segment_at(model.rowCount() - 1).kind == "text"
    model.set_expanded(reply.id, 0, False)
    assert model.rowCount() == 2


def test_unknown_message_changes_nothing(qtbot):
    model = TranscriptModel()
    model.set_messages(_conversation())
    with qtbot.assertNotEmitted(model.dataChanged):
        assert not model.message_changed("msg_unknown")


def test_append_inserts_one_row_and_is_idempotent(qtbot):
    model = TranscriptModel()
    message = Message.user("Hi")
    with qtbot.waitSignal(model.rowsInserted) as inserted:
        model.append_message(message)
    assert inserted.args[1:] == [0, 0]
    with qtbot.assertNotEmitted(model.rowsInserted):
        model.append_message(message)
    assert model.rowCount() == 1 and model.row_of(message.id) == 0


@pytest.fixture
def stored(tmp_path):
    """A stored conversation of 600 messages (search indexing skipped to seed quickly)."""
    store = Store(tmp_path / "db.sqlite")
    store.indexer.index = lambda *args: None
    conversation = Conversation(title="long")
    store.save_conversation(conversation)
    with store.transaction():
        for seq in range(600):
            text = f"message {seq} " + "words " * (seq % 50)
            message = Message.user(text) if seq % 2 == 0 else Message(role=Role.ASSISTANT, blocks=[TextBlock(text=text)])
            store.save_message(conversation.id, seq, message)
    yield store, conversation.id
    store.close()


def test_open_lazy_knows_every_row_but_loads_only_the_end(qtbot, stored, qtmodeltester):
    store, conversation_id = stored
    model = TranscriptModel()
    recent = model.open_lazy(store, conversation_id, tail=20)
    assert len(model.message_ids()) == 600 and model.rowCount() == 600
    assert [m.text.split()[1] for m in recent] == [str(n) for n in range(580, 600)]
    assert model.source.loads == 20 and model.has_pending(0, 579) and not model.has_pending(580, 599)
    assert model.fetch(0, 9) == 10 and model.source.loads == 30
    assert model.segment_at(0).kind == "user" and model.message_at(1).text.startswith("message 1 ")
    qtmodeltester.check(model, force_py=True)  # reads every row: all load, the cache stays bounded
    assert model.source.in_memory() <= model.source.capacity + 20


def test_a_long_list_handed_over_is_cut_into_rows_as_it_is_shown(qtbot):
    messages = [Message.user(f"Question {n}\n\n" + "words " * 300 * (n % 3)) for n in range(1000)]
    model = TranscriptModel()
    model.set_messages(messages)
    assert model.rowCount() == 1000 and model.has_pending(0, 959) and not model.has_pending(960, 999)
    assert model.fetch(0, 4) == 5 and model.segment_at(0).kind == "user" and model.message_at(0) is messages[0]
    assert model.source.loads == 0  # all were in memory already


def _reply(text: str) -> Message:
    return Message(role=Role.ASSISTANT, blocks=[TextBlock(text=text)], status=MessageStatus.COMPLETED)


def test_replace_from_removes_the_archived_rows_and_shows_the_restored_ones(qtbot):
    model = TranscriptModel()
    kept, old_reply, restored = Message.user("q"), _reply("old answer"), _reply("earlier answer")
    model.set_messages([kept, old_reply])
    removed, inserted, resets = [], [], []
    model.rowsRemoved.connect(lambda _parent, first, last: removed.append((first, last)))
    model.rowsInserted.connect(lambda _parent, first, last: inserted.append((first, last)))
    model.modelReset.connect(lambda: resets.append(1))
    first_row = model.row_of(old_reply.id)

    model.replace_from(1, [restored])

    assert model.message_ids() == [kept.id, restored.id]
    assert removed == [(first_row, model.rowCount() - 1)] and resets == []
    assert inserted and inserted[0][0] == first_row
    assert model.row_of(old_reply.id) is None and model.source.peek(old_reply.id) is None
    assert model.message_at(model.row_of(restored.id)).text == "earlier answer"


# --- the switch row -----------------------------------------------------------------------


def _answer(provider: str | None, model: str | None, text: str = "answer") -> Message:
    return Message(role=Role.ASSISTANT, provider=provider, model=model, blocks=[TextBlock(text=text)],
                   status=MessageStatus.COMPLETED)


def _kinds(model: TranscriptModel, message: Message) -> list[str]:
    return [model.segment_at(row).kind for row in model.rows_of(message.id)]


def test_a_reply_of_another_model_starts_with_a_switch_row(qtbot, qtmodeltester):
    claude, deepseek, again = _answer(None, "claude-sonnet-4-6"), _answer("deepseek", "deepseek-chat"), _answer("deepseek", "deepseek-chat")
    model = TranscriptModel()
    model.set_messages([Message.user("a"), claude, Message.user("b"), deepseek, Message.user("c"), again])
    assert _kinds(model, claude) == ["text"] and _kinds(model, again) == ["text"]
    assert _kinds(model, deepseek) == ["switch", "text"]
    assert model.segment_at(model.row_of(deepseek.id)).state == ("DeepSeek · deepseek-chat",)
    assert model.message_at(model.row_of(deepseek.id)) is deepseek  # the row belongs to the reply it announces
    qtmodeltester.check(model, force_py=True)


def test_a_streaming_reply_of_another_model_is_announced_and_follows_the_model_it_reports(qtbot):
    model = TranscriptModel()
    model.provider_label = lambda provider_id: {"openai": "My OpenAI"}.get(provider_id, provider_id)
    model.set_messages([Message.user("a"), _answer("anthropic", "claude-sonnet-4-6"), Message.user("b")])
    seen = _signals(model)
    reply = Message.assistant("gpt-4.1-mini", "openai")
    model.append_message(reply)
    first = model.row_of(reply.id)
    assert _kinds(model, reply) == ["switch", "waiting"] and seen == [("inserted", first, first + 1)]
    assert model.segment_at(first).state == ("My OpenAI · gpt-4.1-mini",)
    seen.clear()
    accumulate(reply, ev.Start(model="gpt-4.1-mini-2025-04-14"))  # the API names the dated model
    accumulate(reply, ev.TextDelta(index=0, text="Hi"))
    model.message_changed(reply.id)
    assert model.segment_at(first).state == ("My OpenAI · gpt-4.1-mini-2025-04-14",)
    assert ("changed", first, first) in seen or ("changed", first, first + 1) in seen


def test_a_lazily_opened_reply_shows_its_switch_once_the_reply_before_it_is_loaded(qtbot, tmp_path):
    store = Store(tmp_path / "db.sqlite")
    conversation = Conversation(title="switched")
    store.save_conversation(conversation)
    messages = [Message.user("q1"), _answer(None, "claude-sonnet-4-6"), Message.user("q2"), _answer("deepseek", "deepseek-chat")]
    for seq, message in enumerate(messages):
        store.save_message(conversation.id, seq, message)
    model = TranscriptModel()
    model.open_lazy(store, conversation.id, tail=2)
    assert [model.segment_at(row).kind for row in range(model.rowCount())] == ["pending", "pending", "user", "text"]
    seen = _signals(model)

    assert model.fetch(0, 1) == 2

    assert [model.segment_at(row).kind for row in range(model.rowCount())] == ["user", "text", "user", "switch", "text"]
    assert ("inserted", 3, 3) in seen and ("changed", 4, 4) in seen  # the old first row's spacing changed
    assert model.source.loads == 4
    store.close()


def test_a_reply_that_finishes_keeps_its_cut_and_is_not_cut_again(qtbot, monkeypatch):
    from desktop_copilot.core.transcript import chunking
    from desktop_copilot.core.transcript.segments import MessageSegmenter

    model = TranscriptModel()
    reply = Message.assistant("m")
    accumulate(reply, ev.Start(model="m"))
    model.set_messages([Message.user("Hi"), reply])
    paragraph = "A sentence of a long reply, with `code` and more words after it. " * 6 + "\n\n"
    for _ in range(40):
        accumulate(reply, ev.TextDelta(index=0, text=paragraph))
        model.message_changed(reply.id)
    streamed = [model.segment_at(row) for row in range(1, model.rowCount())]
    scanned: list[int] = []
    original_scan = chunking.Chunker._scan_line
    monkeypatch.setattr(chunking.Chunker, "_scan_line", lambda self, line, start: (scanned.append(start), original_scan(self, line, start))[1])
    accumulate(reply, ev.Done(reason="end_turn"))
    reply.status = MessageStatus.COMPLETED
    model.message_changed(reply.id)
    finished = [model.segment_at(row) for row in range(1, model.rowCount())]
    assert scanned == []  # nothing of the text was scanned again: the pieces cut while it streamed stand
    assert all(new is old for new, old in zip(finished[:-1], streamed[:-1]))
    assert finished == MessageSegmenter().segments(reply)  # the same rows a fresh cut of the finished reply gives
    scanned.clear()
    model.message_changed(reply.id)  # a later change (e.g. a thinking block expanded) does not cut it again either
    assert scanned == []


def test_a_text_replaced_by_one_as_long_is_cut_afresh(qtbot):
    from desktop_copilot.core.transcript.segments import MessageSegmenter

    model = TranscriptModel()
    reply = Message.assistant("m")
    accumulate(reply, ev.Start(model="m"))
    accumulate(reply, ev.TextDelta(index=0, text=("first version of the words. " * 60 + "\n\n") * 3))
    accumulate(reply, ev.Done(reason="end_turn"))
    reply.status = MessageStatus.COMPLETED
    model.set_messages([reply])
    reply.blocks[0].text = reply.blocks[0].text.replace("first", "other")  # same length, other text
    model.message_changed(reply.id)
    assert [model.segment_at(row) for row in range(model.rowCount())] == MessageSegmenter().segments(reply)
