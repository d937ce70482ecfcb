"""ChatController with a scripted session: deltas are coalesced into frame-sized flushes, failures
become sig_error (never sys.excepthook), Stop cancels, and the doom-loop question is asked without blocking."""

from __future__ import annotations

import asyncio
import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.agent.loop import AgentLoop, LoopChoice, RunOptions
from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, Usage
from desktop_copilot.core.runtime import MissingKeyError
from desktop_copilot.core.tools.base import ToolContext
from desktop_copilot.core.usage.pricing import DEFAULT_TABLE
from desktop_copilot.core.usage.totals import conversation_totals
from desktop_copilot.qt.bridge.controller import ChatController
from desktop_copilot.qt.transcript.model import TranscriptModel
from tests.core.usage.test_usage import assert_same


class ScriptedSession:
    """Stands in for ChatSession: `script(emit, confirm)` plays the run."""

    def __init__(self, script) -> None:
        self.conversation = Conversation()
        self.runtime = None
        self.script = script

    async def send(self, text, emit, confirm_loop=None):
        user = Message.user(text)
        self.conversation.messages.append(user)
        emit(ev.MessageCreated(message=user, message_id=user.id))
        return await self.script(self, emit, confirm_loop)


def _controller(script) -> tuple[ChatController, TranscriptModel]:
    model = TranscriptModel()
    return ChatController(ScriptedSession(script), model), model


class PacedProvider:
    """A provider streaming `deltas` text deltas with a pause between them (the real loop folds them)."""

    def __init__(self, deltas: int, pause: float) -> None:
        self.deltas, self.pause = deltas, pause

    async def stream(self, request):
        yield ev.Start(model="m")
        for n in range(self.deltas):
            yield ev.TextDelta(index=0, text=f"w{n} ")
            await asyncio.sleep(self.pause)
        yield ev.Done(reason="end_turn")


async def _stream_reply(session, emit, confirm, deltas=300, pause=0.0005):
    loop = AgentLoop(PacedProvider(deltas, pause), [], ToolContext(keys={}, http=None, endpoints={}), RunOptions(model="m"), emit, confirm)
    return await loop.run(session.conversation.messages)


def test_deltas_are_coalesced_into_few_row_updates(qtbot, qasync_loop):
    controller, model = _controller(_stream_reply)
    changes = []
    model.dataChanged.connect(lambda top, bottom, roles: changes.append((top.row(), bottom.row())))
    with qtbot.waitSignal(controller.sig_run_finished) as finished:
        assert controller.send("hello")
    assert finished.args == ["completed", "end_turn"]
    qtbot.waitUntil(lambda: not controller.busy)
    reply = model.message_at(1)
    assert reply.status is MessageStatus.COMPLETED and reply.text.startswith("w0 w1")
    assert set(changes) == {(1, 1)}
    assert len(changes) < 300 / 3, f"{len(changes)} row updates for 300 deltas"


def test_only_one_run_at_a_time(qtbot, qasync_loop):
    controller, _model = _controller(_stream_reply)
    with qtbot.waitSignal(controller.sig_busy_changed):
        assert controller.send("one")
    assert not controller.send("two")
    qtbot.waitUntil(lambda: not controller.busy)


def test_an_exception_becomes_sig_error_not_excepthook(qtbot, qasync_loop, monkeypatch):
    async def broken(session, emit, confirm):
        raise RuntimeError("boom")

    hooked = []
    monkeypatch.setattr(sys, "excepthook", lambda *exc: hooked.append(exc))
    controller, _model = _controller(broken)
    with qtbot.waitSignal(controller.sig_error) as error:
        controller.send("hello")
    assert "RuntimeError: boom" in error.args[0]
    qtbot.waitUntil(lambda: not controller.busy)
    assert hooked == []


def test_missing_key_gives_the_text_back(qtbot, qasync_loop):
    class NoKeySession(ScriptedSession):
        async def send(self, text, emit, confirm_loop=None):
            raise MissingKeyError("No Anthropic API key is configured.")

    controller = ChatController(NoKeySession(None), TranscriptModel())
    given_back = []
    controller.sig_send_rejected.connect(given_back.append)
    with qtbot.waitSignal(controller.sig_error):
        controller.send("keep me")
    assert given_back == ["keep me"]


def test_stop_cancels_the_run(qtbot, qasync_loop):
    started = []

    async def forever(session, emit, confirm):
        started.append(True)
        await asyncio.Event().wait()

    controller, _model = _controller(forever)
    controller.send("hello")
    qtbot.waitUntil(lambda: bool(started))
    with qtbot.waitSignal(controller.sig_busy_changed) as busy:
        assert controller.stop()
    assert busy.args == [False] and not controller.busy


def test_stop_before_the_message_was_sent_gives_the_text_back(qtbot, qasync_loop):
    class KeysStillReadSession(ScriptedSession):
        async def send(self, text, emit, confirm_loop=None):
            await asyncio.Event().wait()  # e.g. Runtime.prepare_run waiting on a locked keyring

    controller = ChatController(KeysStillReadSession(None), TranscriptModel())
    given_back, errors = [], []
    controller.sig_send_rejected.connect(given_back.append)
    controller.sig_error.connect(errors.append)
    controller.send("not yet")
    qtbot.wait(50)
    with qtbot.waitSignal(controller.sig_busy_changed):
        assert controller.stop()
    assert given_back == ["not yet"] and errors == []


def test_stop_after_the_message_was_sent_keeps_it(qtbot, qasync_loop):
    async def forever(session, emit, confirm):
        await asyncio.Event().wait()

    controller, model = _controller(forever)
    given_back = []
    controller.sig_send_rejected.connect(given_back.append)
    controller.send("hello")
    qtbot.waitUntil(lambda: model.rowCount() == 1)
    with qtbot.waitSignal(controller.sig_busy_changed):
        assert controller.stop()
    assert given_back == []


def test_loop_confirmation_is_a_non_blocking_dialog(qtbot, qasync_loop):
    answers = []

    async def repeating(session, emit, confirm):
        answers.append(await confirm(ev.LoopDetected(name="tavily_search", arguments={"query": "x"})))
        return ev.RunFinished()

    controller, _model = _controller(repeating)
    controller.send("hello")

    def dialog():
        boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
        return boxes[0] if boxes else None

    qtbot.waitUntil(lambda: dialog() is not None)
    assert "tavily_search" in dialog().text()
    labels = [button.text() for button in dialog().buttons()]
    assert sorted(labels) == sorted(["Continue once", "Allow repeats in this conversation", "Stop"])
    next(b for b in dialog().buttons() if b.text() == "Continue once").click()
    qtbot.waitUntil(lambda: answers == [LoopChoice.CONTINUE_ONCE])
    qtbot.waitUntil(lambda: not controller.busy)


@pytest.mark.parametrize(("button", "expected"), [("Allow repeats in this conversation", LoopChoice.ALLOW_REPEATS),
                                                  ("Stop", LoopChoice.STOP), (None, LoopChoice.STOP)])
def test_the_loop_question_answers_repeats_or_stop_and_escape_stops(qtbot, qasync_loop, button, expected):
    answers = []

    async def repeating(session, emit, confirm):
        answers.append(await confirm(ev.LoopDetected(name="web_fetch", arguments={"url": "x"})))
        return ev.RunFinished()

    controller, _model = _controller(repeating)
    controller.send("hello")
    boxes = lambda: [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]  # noqa: E731
    qtbot.waitUntil(lambda: bool(boxes()))
    box = boxes()[0]
    if button is None:
        qtbot.keyClick(box, Qt.Key.Key_Escape)
    else:
        next(b for b in box.buttons() if b.text() == button).click()
    qtbot.waitUntil(lambda: answers == [expected])
    qtbot.waitUntil(lambda: not controller.busy)


class UsageProvider:
    """A reply whose usage is reported twice while it streams, as providers do (input first, output at the end)."""

    async def stream(self, request):
        yield ev.Start(model="claude-haiku-4-5")
        yield ev.UsageUpdate(usage=Usage(input_tokens=1_000, output_tokens=1))
        yield ev.TextDelta(index=0, text="an answer")
        await asyncio.sleep(0.02)  # another frame: the first report is flushed on its own
        yield ev.UsageUpdate(usage=Usage(input_tokens=1_000, output_tokens=40, cache_read_tokens=500))
        yield ev.Done(reason="end_turn")


async def _usage_reply(session, emit, confirm):
    loop = AgentLoop(UsageProvider(), [], ToolContext(keys={}, http=None, endpoints={}),
                     RunOptions(model="claude-haiku-4-5"), emit, confirm)
    return await loop.run(session.conversation.messages)


def test_usage_is_kept_per_message_revision_not_summed_again_each_turn(qtbot, qasync_loop):
    controller, _model = _controller(_usage_reply)
    messages = controller.session.conversation.messages
    seen = []
    controller.sig_usage_changed.connect(  # as the window reads them
        lambda ledger: seen.append(ledger.totals(controller.session.conversation.messages, DEFAULT_TABLE)))
    for turn in range(1, 4):
        with qtbot.waitSignal(controller.sig_run_finished):
            assert controller.send(f"question {turn}")
        qtbot.waitUntil(lambda: not controller.busy)
        assert_same(seen[-1], conversation_totals(messages))
        assert seen[-1].replies == turn and seen[-1].counts.output == 40 * turn
    assert controller.usage.sums == 1  # summed when first asked; each turn after priced only its own reply
    assert any(t.counts.output % 40 for t in seen)  # the first report of a reply was shown before the second came

    controller.session.store = None  # the scripted session saves nothing
    controller.set_conversation(Conversation(messages=[Message.user("elsewhere")]))  # another conversation: summed anew
    other = controller.session.conversation.messages
    assert controller.usage.totals(other, DEFAULT_TABLE).replies == 0 and controller.usage.sums == 2
