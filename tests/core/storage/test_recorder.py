"""StoreRecorder on a real SQLite file: deltas reach the disk within 250 ms even when nothing follows them."""

from __future__ import annotations

import asyncio

import pytest

from desktop_copilot.core import events as ev
from desktop_copilot.core.accumulate import accumulate
from desktop_copilot.core.models import Conversation, Message
from desktop_copilot.core.storage.recorder import WRITE_INTERVAL, StoreRecorder
from desktop_copilot.core.storage.store import Store


def stored_text(path, conversation_id: str) -> str:
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
    assert stored_text(path, conversation.id) in ("", "first ")
    await asyncio.sleep(WRITE_INTERVAL + 0.15)
    assert stored_text(path, conversation.id) == "first tail"
    store.close()
