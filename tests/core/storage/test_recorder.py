"""StoreRecorder on a real SQLite file: deltas reach the disk within 250 ms even when nothing follows them."""

from __future__ import annotations

import asyncio

import pytest

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.models import Conversation, Message
from desktop_copilot.core.storage.recorder import WRITE_INTERVAL, StoreRecorder
from desktop_copilot.core.storage.store import Store


def stored_text(path, conversation_id: str, writer: Store | None = None) -> str:
    """The reply's text as another connection reads it, once `writer`'s queued rows are written (the recorder
    writes on the store's writer thread)."""
    if writer is not None:
        assert writer.writer.wait(5)
    reader = Store(path)
    try:
        return reader.load_conversation(conversation_id).messages[-1].text
    finally:
        reader.close()


@pytest.mark.asyncio
async def test_last_delta_before_a_stall_is_written_by_the_timer(tmp_path):
    path = tmp_path / "c.sqlite3"
    store = Store(path)
    conversation = Conversation(messages=[Message.user("hi")])
    reply = Message.assistant("m")
    conversation.messages.append(reply)
    recorder = StoreRecorder(store, conversation)

    def record(event: ev.Event) -> None:
        event.message_id = reply.id
        accumulate(reply, event)
        recorder.record(event)

    recorder.record(ev.MessageCreated(message=reply, message_id=reply.id))
    record(ev.Start(model="m"))
    record(ev.TextStart(index=0))
    record(ev.TextDelta(index=0, text="first "))
    record(ev.TextDelta(index=0, text="tail"))  # within the interval: held, then the stream stalls
    assert stored_text(path, conversation.id, store) in ("", "first ")
    await asyncio.sleep(WRITE_INTERVAL + 0.15)
    assert stored_text(path, conversation.id, store) == "first tail"
    store.close()


@pytest.mark.asyncio
async def test_the_rows_are_written_on_the_writer_thread_and_the_finished_reply_is_searchable(tmp_path):
    import threading

    path = tmp_path / "c.sqlite3"
    store = Store(path)
    conversation = Conversation(title="t", messages=[Message.user("hi")])
    store.save_conversation(conversation)
    reply = Message.assistant("m")
    conversation.messages.append(reply)
    recorder = StoreRecorder(store, conversation)
    recorder.record(ev.MessageCreated(message=reply, message_id=reply.id))
    for event in (ev.Start(model="m"), ev.TextStart(index=0), ev.TextDelta(index=0, text="walruses " * 5000),
                  ev.TextEnd(index=0), ev.Done(reason="end_turn")):
        event.message_id = reply.id
        accumulate(reply, event)
        recorder.record(event)
    recorder.flush()
    assert [hit.message_id for hit in store.search("walruses")] == [reply.id]  # reads wait for the queued rows
    assert store.load_conversation(conversation.id).messages[-1].text == reply.text
    assert store.writer.done and threading.get_ident() not in store.writer.thread_ids
    store.close()
    assert not [t for t in threading.enumerate() if t.name in ("message-writer", "search-indexer")]


@pytest.mark.asyncio
async def test_a_text_end_is_written_with_the_next_write_not_at_once(tmp_path):
    path = tmp_path / "c.sqlite3"
    store = Store(path)
    conversation = Conversation(messages=[Message.user("hi")])
    reply = Message.assistant("m")
    conversation.messages.append(reply)
    recorder = StoreRecorder(store, conversation)
    recorder.record(ev.MessageCreated(message=reply, message_id=reply.id))
    written: list[str] = []
    save = store.save_message
    store.save_message = lambda conversation_id, seq, message, **kw: (written.append(message.text), save(conversation_id, seq, message, **kw))
    for event in (ev.Start(model="m"), ev.TextStart(index=0), ev.TextDelta(index=0, text="all of it"), ev.TextEnd(index=0)):
        event.message_id = reply.id
        accumulate(reply, event)
        recorder.record(event)
    assert written == ["", ""]  # Start and TextStart at once; the delta and the end of the text wait for the timer
    await asyncio.sleep(WRITE_INTERVAL + 0.15)
    assert written == ["", "", "all of it"]
    assert stored_text(path, conversation.id, store) == "all of it"
    store.close()
