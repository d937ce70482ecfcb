"""The Markdown of a streaming tail and of its finished chunks is turned into HTML on a worker thread; the GUI thread
swaps the newest render in at the piece's next update, with the text that came after it appended, and nothing a model
wrote loads anything."""

from __future__ import annotations

import threading
import time

from PySide6.QtGui import QFont, QTextCursor

from desktop_copilot.qt.common.theme import DEFAULT_THEME
from desktop_copilot.qt.transcript.parts import tail_renderer
from desktop_copilot.qt.transcript.parts.documents import InertDocument, LiveMarkdown, markdown_document
from desktop_copilot.qt.transcript.parts.tail_renderer import RenderNow, TailWorker
from tests.qt.transcript.transcript_support import Later


def wait_for(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the worker gave no render in time"
        time.sleep(0.005)


def bold_fragments(document) -> list[str]:
    found, block = [], document.begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            if fragment.charFormat().fontWeight() >= QFont.Weight.Bold:
                found.append(fragment.text())
            iterator += 1
        block = block.next()
    return found


def test_the_tail_is_rendered_on_another_thread_and_swapped_in_at_the_next_update(qapp, monkeypatch):
    threads: list[str] = []
    render = tail_renderer.render_tail
    monkeypatch.setattr(tail_renderer, "render_tail", lambda *args: (threads.append(threading.current_thread().name), render(*args))[1])
    worker = TailWorker()
    now = [0.0]
    live = LiveMarkdown(DEFAULT_THEME, clock=lambda: now[0], tails=worker)
    live.update("Some **bold", 500)
    assert live.tail.toPlainText() == "Some **bold"  # plain text until a render is back
    live.update("Some **bold** words", 500)  # not due yet: asked once, the new text appended as plain text
    wait_for(lambda: worker.rendered == 1)
    assert threads == ["markdown-tails"]
    chunks, tail = live.update("Some **bold** words and more", 500)
    assert bold_fragments(tail) == [] and tail.toPlainText() == "Some **bold** words and more"  # "**" not closed yet
    now[0] += 1.0
    live.update("Some **bold** words and more.", 500)
    wait_for(lambda: worker.rendered == 2)
    _chunks, tail = live.update("Some **bold** words and more. Then", 500)
    assert bold_fragments(tail) == ["bold"] and tail.toPlainText() == "Some bold words and more. Then"
    assert isinstance(tail, InertDocument) and chunks.documents == []


def test_a_render_of_a_tail_a_chunk_has_since_taken_is_not_shown(qapp):
    tails = RenderNow()
    now = [0.0]
    live = LiveMarkdown(DEFAULT_THEME, clock=lambda: now[0], tails=tails)
    live.update("First paragraph with *stress*", 500)
    tails.submit(live, 0, "First paragraph with *stress*", DEFAULT_THEME)  # a render of the old tail, not taken yet
    chunks, tail = live.update("First paragraph with *stress*.\n\nSecond", 500)  # the first paragraph became a chunk
    assert [d.toPlainText() for d in chunks.documents] == ["First paragraph with stress."]
    assert tail.toPlainText() == "Second"


def test_a_newer_request_replaces_one_not_started_and_a_dropped_piece_leaves_nothing_behind(qapp):
    worker = TailWorker()
    gate = threading.Event()
    started = threading.Event()
    render = tail_renderer.render_tail

    def slow(*args):
        started.set()
        gate.wait(10)
        return render(*args)

    owner, other = LiveMarkdown(DEFAULT_THEME, tails=worker), LiveMarkdown(DEFAULT_THEME, tails=worker)
    tail_renderer.render_tail = slow
    try:
        worker.submit(other, 0, "busy", DEFAULT_THEME)
        assert started.wait(10)  # the worker is busy with `other`: the next two requests of `owner` wait
        worker.submit(owner, 0, "a", DEFAULT_THEME)
        worker.submit(owner, 0, "a b", DEFAULT_THEME)
        gate.set()
        wait_for(lambda: worker.rendered == 2)
    finally:
        tail_renderer.render_tail = render
    assert worker.take(owner).text == "a b" and worker.take(owner) is None  # only the newest was rendered, given once
    worker.forget(other)
    assert worker.take(other) is None
    worker.submit(owner, 0, "c", DEFAULT_THEME)
    del owner  # a piece scrolled away and dropped: its request and result go with it
    wait_for(lambda: not worker._wanted)
    assert len(worker._done) == 0


def test_the_worker_thread_ends_when_no_tail_streams_and_comes_back_with_the_next(qapp, monkeypatch):
    monkeypatch.setattr(tail_renderer, "IDLE_EXIT_S", 0.05)
    worker, owner = TailWorker(), LiveMarkdown(DEFAULT_THEME)
    worker.submit(owner, 0, "one", DEFAULT_THEME)
    wait_for(lambda: worker.rendered == 1)
    first = worker._thread
    wait_for(lambda: worker._thread is None and not first.is_alive())  # an idle window keeps no thread
    worker.submit(owner, 0, "two", DEFAULT_THEME)
    wait_for(lambda: worker.rendered == 2)
    assert worker.take(owner).text == "two"


def test_stop_lets_the_thread_go_at_once_and_a_later_request_starts_it_again(qapp):
    worker, owner = TailWorker(), LiveMarkdown(DEFAULT_THEME)
    worker.submit(owner, 0, "one", DEFAULT_THEME)
    wait_for(lambda: worker.rendered == 1)
    thread = worker._thread
    worker.stop()
    assert not thread.is_alive() and worker._thread is None and worker.take(owner) is None
    worker.submit(owner, 0, "two", DEFAULT_THEME)
    wait_for(lambda: worker.rendered == 2)
    assert worker.take(owner).text == "two"


def test_a_finished_chunk_is_rendered_on_the_worker_and_shown_in_a_document_of_its_own_at_the_next_update(qapp, monkeypatch):
    threads: list[str] = []
    render = tail_renderer.render_tail
    monkeypatch.setattr(tail_renderer, "render_tail", lambda *args: (threads.append(threading.current_thread().name), render(*args))[1])
    worker = TailWorker()
    live = LiveMarkdown(DEFAULT_THEME, clock=lambda: 0.0, tails=worker)
    chunks, tail = live.update("A **bold** start.\n\nNext", 500)
    assert chunks.documents == [] and tail.toPlainText() == "A **bold** start.\n\nNext"  # in the tail until its HTML is back
    wait_for(lambda: worker.rendered == 2)  # the chunk, then the tail after it
    chunks, tail = live.update("A **bold** start.\n\nNext words", 500)
    assert [d.toPlainText() for d in chunks.documents] == ["A bold start."] and bold_fragments(chunks.documents[0]) == ["bold"]
    assert tail.toPlainText() == "Next words"  # the tail's render (from the chunk's end) came with it
    assert threads == ["markdown-tails"] * 2


def test_a_chunk_render_of_text_since_replaced_is_not_shown(qapp):
    tails = Later()
    live = LiveMarkdown(DEFAULT_THEME, clock=lambda: 0.0, tails=tails)
    live.update("Old paragraph.\n\nx", 500)
    tails.release()
    chunks, tail = live.update("New paragraph!\n\nxy", 500)  # replaced (a retry), not extended
    assert chunks.documents == [] and tail.toPlainText() == "New paragraph!\n\nxy"
    tails.release()  # asked again, for the text as it is now
    chunks, tail = live.update("New paragraph!\n\nxyz", 500)
    assert [d.toPlainText() for d in chunks.documents] == ["New paragraph!"] and tail.toPlainText() == "xyz"


def test_a_piece_that_ended_while_the_reply_streams_on_shows_as_it_was_until_its_render_is_back(qapp):
    tails = Later()
    text = "First *one*.\n\n```python\nx = 1\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    live = LiveMarkdown(DEFAULT_THEME, tails=tails)  # never shown open: all of it is one chunk
    assert live.close(text, 500) is None
    chunks, tail = live.documents
    assert chunks.documents == [] and tail.toPlainText() == text
    tails.release()
    stack = live.close(text, 500)
    exact = markdown_document(text, 500, DEFAULT_THEME)
    assert stack is chunks and [d.toPlainText() for d in stack.documents] == [exact.toPlainText()]
    assert stack.documents[0].code == exact.code == [("python", "x = 1\n")]


def test_finishing_renders_in_place_what_the_worker_has_not_given_back_and_drops_its_requests(qapp):
    tails = Later()
    text = "One paragraph.\n\nTwo **bold** words"
    live = LiveMarkdown(DEFAULT_THEME, clock=lambda: 0.0, tails=tails)
    live.update(text, 500)
    assert len(tails.asked) == 2  # the chunk and the tail
    stack = live.finish(text, 500)
    assert len(tails.asked) == 0
    assert [d.toPlainText() for d in stack.documents] == [markdown_document(text, 500, DEFAULT_THEME).toPlainText()]
    assert bold_fragments(stack.documents[-1]) == ["bold"]


def test_a_piece_dropped_takes_its_chunk_request_with_it(qapp):
    tails = Later()
    live = LiveMarkdown(DEFAULT_THEME, clock=lambda: 0.0, tails=tails)
    live.update("A paragraph.\n\nmore", 500)
    assert len(tails.asked) == 2
    del live
    assert len(tails.asked) == 0


def test_a_live_piece_is_pending_while_part_of_it_shows_as_plain_text_and_settles_without_more_text(qapp):
    tails = Later()
    live = LiveMarkdown(DEFAULT_THEME, clock=lambda: 0.0, tails=tails)
    text = "A *first* paragraph.\n\nThe **open** end"
    live.update(text, 500)
    assert live.pending
    tails.release()
    chunks, tail = live.update(text, 500)  # the stream paused: the same text again
    assert not live.pending
    assert [d.toPlainText() for d in chunks.documents] == ["A first paragraph."] and bold_fragments(tail) == ["open"]


def test_text_appended_after_a_render_is_plain_not_in_the_format_of_the_render_s_last_character(qapp):
    """A render ending in a bold run or a link: what streams in after it, until the next render, is plain text (bold CJK
    text there loaded a font face of its own; text in the link's format was part of the link)."""
    now = [0.0]
    for rendered, more in (("Some **bold**", " 流式渲染 and more"), ("See [a link](https://example.com/x)", " then words")):
        live = LiveMarkdown(DEFAULT_THEME, clock=lambda: now[0], tails=RenderNow())
        live.update(rendered, 500)
        _chunks, tail = live.update(rendered + more, 500)  # not due: appended as plain text after the render
        assert tail.toPlainText().endswith(more)
        shown = tail.toPlainText()
        cursor = QTextCursor(tail)
        for position in range(len(shown) - len(more) + 1, len(shown) + 1):  # the format of the character before it
            cursor.setPosition(position)
            form = cursor.charFormat()
            assert form.fontWeight() < QFont.Weight.Bold and not form.isAnchor() and not form.anchorHref(), shown[position - 1]
        assert bold_fragments(tail) == (["bold"] if "bold" in rendered else [])
