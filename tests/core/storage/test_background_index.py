"""Search rows written by the BackgroundIndexer on its own thread and connection (a real SQLite file): the saving
thread does not wait for them, a search finds what was saved before it, and an exit or a crash before the rows
are written leaves them to the next start."""

from __future__ import annotations

import re
import sqlite3
import threading

from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, TextBlock
from desktop_copilot.core.storage import background_index, search
from desktop_copilot.core.storage.background_index import segment_in_slices
from desktop_copilot.core.storage.search import segment
from desktop_copilot.core.storage.search_index import SearchIndex
from desktop_copilot.core.storage.store import Store


def finished_reply(text: str) -> Message:
    message = Message.assistant("m")
    message.blocks = [TextBlock(text=text)]
    message.status = MessageStatus.COMPLETED
    return message


def saved(store: Store, text: str) -> tuple[Conversation, Message]:
    conversation = Conversation(title="a chat")
    store.save_conversation(conversation)
    reply = finished_reply(text)
    store.save_message(conversation.id, 0, reply)
    return conversation, reply


def pending(path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT conversation_id, message_id FROM search_pending").fetchall()


def indexed_ids(path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {row[0] for row in db.execute("SELECT message_id FROM search_index WHERE message_id != ''")}


class Gate:
    """Holds the writes of messages' search rows until opened, and records the threads they ran on (a title's
    row is written at once by the saving thread)."""

    def __init__(self, monkeypatch) -> None:
        self.open = threading.Event()
        self.threads: set[int] = set()
        write = SearchIndex.write

        def gated(index, conversation_id, message_id, body):
            if message_id:
                self.threads.add(threading.get_ident())
                assert self.open.wait(10), "the gate was never opened"
            return write(index, conversation_id, message_id, body)

        monkeypatch.setattr(SearchIndex, "write", gated)


def test_a_finished_reply_is_indexed_off_the_saving_thread_and_found_by_search(tmp_path, monkeypatch):
    gate = Gate(monkeypatch)
    path = tmp_path / "c.sqlite3"
    store = Store(path)
    try:
        conversation, reply = saved(store, "penguins migrate in winter; 今天香港天气")
        # save_message returned while the row is still held at the gate: it did not wait for the index
        assert pending(path) == [(conversation.id, reply.id)]
        assert reply.id not in indexed_ids(path)
        gate.open.set()
        assert [hit.message_id for hit in store.search("penguins")] == [reply.id]  # a search waits for what was saved
        assert [hit.message_id for hit in store.search("天气")] == [reply.id]
        assert gate.threads and threading.get_ident() not in gate.threads
        assert pending(path) == []
    finally:
        gate.open.set()
        store.close()


def test_close_writes_the_queued_rows_and_leaves_no_thread(tmp_path, monkeypatch):
    gate = Gate(monkeypatch)
    path = tmp_path / "c.sqlite3"
    store = Store(path)
    _conversation, reply = saved(store, "a long answer about glaciers " * 2000)
    threading.Timer(0.2, gate.open.set).start()
    store.close()  # returns once the queued row is written
    assert reply.id in indexed_ids(path) and pending(path) == []
    assert not [t for t in threading.enumerate() if t.name == "search-indexer"]


def test_rows_not_written_before_a_crash_are_indexed_at_the_next_start(tmp_path, monkeypatch):
    path = tmp_path / "c.sqlite3"
    store = Store(path)
    monkeypatch.setattr(store.indexer, "index", lambda *args: None)  # the process dies before the thread writes
    conversation, reply = saved(store, "volcanoes erupt")
    store.close()
    assert pending(path) == [(conversation.id, reply.id)] and reply.id not in indexed_ids(path)
    reopened = Store(path)
    try:
        assert [hit.message_id for hit in reopened.search("volcanoes")] == [reply.id]
        assert pending(path) == []
    finally:
        reopened.close()


def test_a_message_deleted_before_its_row_is_written_is_not_indexed(tmp_path, monkeypatch):
    gate = Gate(monkeypatch)
    path = tmp_path / "c.sqlite3"
    store = Store(path)
    try:
        conversation, _reply = saved(store, "ephemeral words")
        kept_conversation, kept = saved(store, "kept words")
        store.delete_conversation(conversation.id)
        assert pending(path) == [(kept_conversation.id, kept.id)]
        gate.open.set()
        assert store.wait_for_index(10)
        assert indexed_ids(path) == {kept.id}
        assert store.search("ephemeral") == []
    finally:
        gate.open.set()
        store.close()


def test_a_crash_recovered_reply_is_indexed_in_the_background(tmp_path):
    path = tmp_path / "c.sqlite3"
    store = Store(path)
    conversation = Conversation(title="t")
    store.save_conversation(conversation)
    reply = finished_reply("half an answer about otters")
    reply.status = MessageStatus.STREAMING
    store.save_message(conversation.id, 0, reply)
    store.close()
    store = Store(path)
    try:
        assert store.mark_unfinished_interrupted() == 1
        assert [hit.message_id for hit in store.search("otters")] == [reply.id]
        assert reply.id not in store.indexer.thread_ids and threading.get_ident() not in store.indexer.thread_ids
        assert pending(path) == []
    finally:
        store.close()


def test_segmenting_in_slices_equals_segmenting_at_once(monkeypatch):
    monkeypatch.setattr(background_index, "SLICE_CHARS", 7)
    text = "mixed 今天香港天气 text, 日本語とかな and 한국어 runs; 末尾" * 5
    assert "".join(segment_in_slices(text)) == segment(text)
    assert segment(text) == re.sub(f"([{search._CJK}])", r" \1 ", text)  # each CJK character between spaces, as before


def test_indexing_waits_a_moment_unless_someone_waits_for_it(tmp_path, monkeypatch):
    monkeypatch.setattr(background_index.BackgroundIndexer, "delay", 30.0)  # far longer than the test
    path = tmp_path / "c.sqlite3"
    store = Store(path)
    try:
        _conversation, reply = saved(store, "delayed penguins")
        assert not store.indexer.idle() and reply.id not in indexed_ids(path)  # still waiting its turn
        assert [hit.message_id for hit in store.search("penguins")] == [reply.id]  # a search does not wait 30 s
    finally:
        store.close()


def test_work_submitted_while_the_thread_ends_is_still_done(tmp_path):
    """Each round's job arrives when the thread of the round before may be ending: none is left waiting."""
    from desktop_copilot.core.storage.keyed_worker import KeyedWorker

    class Counter(KeyedWorker):
        def _handle(self, db, key, job):
            db.execute("SELECT 1").fetchone()

    worker = Counter(lambda: sqlite3.connect(tmp_path / "w.sqlite3", check_same_thread=False))
    for round_ in range(300):
        worker.submit(round_, None)
        if round_ % 3 == 0:
            assert worker.wait(5), f"round {round_} was left in the queue"
    assert worker.close(5) and worker.done == 300
    assert not worker._last_thread.is_alive()  # its own (other tests' stores may still be ending theirs)
