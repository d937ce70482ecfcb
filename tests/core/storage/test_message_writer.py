"""Message rows written on the store's writer thread (a real SQLite file): the saver does not wait for the disk,
every later read or write of messages through the store sees the row, and reads of the archive do not wait."""

from __future__ import annotations

import sqlite3
import threading

from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, TextBlock
from desktop_copilot.core.storage import message_writer
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.storage.versions import TailArchive


class HeldWrites:
    """Holds the writer thread's rows until released; records the threads that wrote them."""

    def __init__(self, monkeypatch) -> None:
        self.release = threading.Event()
        self.threads: set[int] = set()
        write = message_writer.MessageRow.write

        def held(row, db):
            if threading.current_thread().name == "message-writer":
                self.threads.add(threading.get_ident())
                assert self.release.wait(10), "never released"
            return write(row, db)

        monkeypatch.setattr(message_writer.MessageRow, "write", held)


def reply(text: str, status: MessageStatus = MessageStatus.STREAMING) -> Message:
    message = Message.assistant("m")
    message.blocks = [TextBlock(text=text)]
    message.status = status
    return message


def test_a_background_save_returns_at_once_and_later_reads_see_the_row(tmp_path, monkeypatch):
    held = HeldWrites(monkeypatch)
    store = Store(tmp_path / "c.sqlite3")
    try:
        conversation = Conversation(title="t")
        store.save_conversation(conversation)
        message = reply("half of it")
        store.save_message(conversation.id, 0, message, background=True)  # returns although the row is held
        message.blocks[0].text = "changed after the save"  # the row was taken when saved
        assert not store.writer.idle()
        threading.Timer(0.2, held.release.set).start()
        loaded = store.load_conversation(conversation.id)  # waits for the queued row
        assert [m.text for m in loaded.messages] == ["half of it"]
        assert held.threads and threading.get_ident() not in held.threads
    finally:
        held.release.set()
        store.close()


def test_a_save_on_the_callers_thread_comes_after_the_queued_ones(tmp_path, monkeypatch):
    held = HeldWrites(monkeypatch)
    store = Store(tmp_path / "c.sqlite3")
    try:
        conversation = Conversation(title="t")
        store.save_conversation(conversation)
        message = reply("streaming text")
        store.save_message(conversation.id, 0, message, background=True)
        finished = reply("the whole text", MessageStatus.COMPLETED)
        finished.id = message.id
        threading.Timer(0.2, held.release.set).start()
        store.save_message(conversation.id, 0, finished)  # waits for the queued row, then writes over it
        assert store.load_conversation(conversation.id).messages[0].text == "the whole text"
        assert [hit.message_id for hit in store.search("whole")] == [message.id]
    finally:
        held.release.set()
        store.close()


def test_reading_the_archive_does_not_wait_for_queued_rows(tmp_path, monkeypatch):
    held = HeldWrites(monkeypatch)
    store = Store(tmp_path / "c.sqlite3")
    try:
        conversation = Conversation(title="t")
        store.save_conversation(conversation)
        store.save_message(conversation.id, 0, reply("x" * 100_000), background=True)
        assert TailArchive(store).anchors(conversation.id) == {}  # answered while the row is still held
        assert not store.writer.idle()
    finally:
        held.release.set()
        store.close()


def test_close_writes_the_queued_rows(tmp_path):
    path = tmp_path / "c.sqlite3"
    store = Store(path)
    conversation = Conversation(title="t")
    store.save_conversation(conversation)
    message = reply("last words before closing", MessageStatus.COMPLETED)
    store.save_message(conversation.id, 0, message, background=True)
    store.close()
    reopened = Store(path)
    try:
        assert reopened.load_conversation(conversation.id).messages[0].text == "last words before closing"
        assert [hit.message_id for hit in reopened.search("closing")] == [message.id]
    finally:
        reopened.close()


def test_blocks_are_stored_as_text_exactly_as_serialised(tmp_path):
    text = "中文的句子，emoji 🌍, a \"quote\", a backslash \\ and a\nnewline " * 50
    store = Store(tmp_path / "c.sqlite3")
    try:
        conversation = Conversation(title="t")
        store.save_conversation(conversation)
        message = reply(text, MessageStatus.COMPLETED)
        store.save_message(conversation.id, 0, message, background=True)
        store.save_message(conversation.id, 1, reply("on the caller's thread", MessageStatus.COMPLETED))
        index = store.message_index(conversation.id)
    finally:
        store.close()
    db = sqlite3.connect(tmp_path / "c.sqlite3")
    try:
        rows = db.execute("SELECT typeof(blocks), blocks, length(CAST(blocks AS BLOB)) FROM messages ORDER BY seq").fetchall()
        assert [kind for kind, _, _ in rows] == ["text", "text"]
        assert rows[0][1] == message_writer.BLOCKS.dump_json(message.blocks).decode()
        assert db.execute("SELECT count(*) FROM messages WHERE blocks LIKE '%中文的句子%'").fetchone() == (1,)
        assert [summary.size for summary in index] == [size for _, _, size in rows]
    finally:
        db.close()
    reopened = Store(tmp_path / "c.sqlite3")
    try:
        assert [m.text for m in reopened.load_conversation(conversation.id).messages] == [text, "on the caller's thread"]
    finally:
        reopened.close()
