"""ChatController on a real ChatSession (a real Runtime, the real Anthropic adapter talking to a loopback server, a Store
on disk): deltas are coalesced into frame-sized flushes, failures become sig_error (never sys.excepthook), Stop cancels,
and the doom-loop question is asked without blocking and its answer steers the agent loop."""

from __future__ import annotations

import asyncio
import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop_copilot.core.agent.loop import LOOP_REPEATS
from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, Role, ToolCallStatus
from desktop_copilot.core.keys.secrets import EnvironmentKeys, KeyLookup
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.usage.pricing import DEFAULT_TABLE
from desktop_copilot.core.usage.totals import conversation_totals
from desktop_copilot.qt.bridge.controller import ChatController
from desktop_copilot.qt.transcript.model import TranscriptModel
from tests.core.usage.test_usage import assert_same
from tests.qt.conftest import run_async
from tests.support.loopback import anthropic_sse, anthropic_text_reply, anthropic_tool_reply, sse_response, tavily_results

MESSAGES = "/v1/messages"
SEARCH = "/search"
KEYS = {"ANTHROPIC_API_KEY": "sk-ant-controller-1234", "TAVILY_API_KEY": "tvly-controller-1234"}


@pytest.fixture
def make_controller(qtbot, qasync_loop, loopback, tmp_path):
    """`make_controller(keys)`: a ChatController on a new conversation with Claude, its runtime's Anthropic adapter and
    Tavily tool pointed at the loopback server, its store a database in tmp_path; closed (runs stopped, HTTP clients
    and store closed) after the test."""
    made = []

    def make(keys: dict[str, str] = KEYS) -> ChatController:
        config = AppConfig(anthropic_base_url=loopback.url, tavily_base_url=loopback.url)
        runtime = Runtime(AppPaths.resolve().ensure(), config, KeyLookup([EnvironmentKeys(dict(keys))]))
        store = Store(tmp_path / "db.sqlite3")
        conversation = Conversation(provider="anthropic", model="claude-sonnet-4-6")
        controller = ChatController(ChatSession(runtime, conversation, store), TranscriptModel())
        made.append((controller, store))
        return controller

    yield make
    for controller, store in made:
        run_async(qtbot, controller.aclose())
        store.close()


def stored_messages(controller: ChatController) -> list:
    stored = controller.session.store.load_conversation(controller.session.conversation.id)
    return stored.messages if stored is not None else []


def endless_reply(text: str = "Thinking about it") -> object:
    """A reply that begins (its first words arrive) and then never ends: the connection stays open, silent."""
    events = anthropic_text_reply(text)
    return sse_response(anthropic_sse(events[:3]), stall=3600)  # message_start, content_block_start, one text delta


def test_deltas_are_coalesced_into_few_row_updates(qtbot, make_controller, loopback):
    words = "".join(f"w{n} " for n in range(300))
    loopback.enqueue(MESSAGES, sse_response(anthropic_text_reply(words, pieces=300), delay=0.001))  # 300 deltas, paced
    controller = make_controller()
    model = controller.model
    changes = []
    model.dataChanged.connect(lambda top, bottom, roles: changes.append((top.row(), bottom.row())))
    with qtbot.waitSignal(controller.sig_run_finished, timeout=15000) as finished:
        assert controller.send("hello")
    assert finished.args == ["completed", "end_turn"]
    qtbot.waitUntil(lambda: not controller.busy)
    reply = model.message_at(1)
    assert reply.status is MessageStatus.COMPLETED and reply.text == words
    assert set(changes) == {(1, 1)}
    assert 1 < len(changes) < 300 / 3, f"{len(changes)} row updates for 300 deltas"
    assert [m.text for m in stored_messages(controller)] == ["hello", words]


def test_only_one_run_at_a_time(qtbot, make_controller, loopback):
    loopback.enqueue(MESSAGES, sse_response(anthropic_text_reply("One answer.", pieces=20), delay=0.01))
    controller = make_controller()
    with qtbot.waitSignal(controller.sig_busy_changed) as busy:
        assert controller.send("one")
    assert busy.args == [True]
    assert not controller.send("two")
    qtbot.waitUntil(lambda: not controller.busy, timeout=10000)
    assert len(loopback.requests_to(MESSAGES)) == 1
    assert [m.text for m in controller.session.conversation.messages] == ["one", "One answer."]


def test_an_exception_becomes_sig_error_not_excepthook(qtbot, make_controller, monkeypatch):
    controller = make_controller()

    # Nothing in a real session fails unexpectedly on demand: the first step of a real send (reading the keys and
    # building the provider and tools) is made to fail as a bug anywhere in the core would, with an exception that
    # is none of the ones the controller words for the user.
    async def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(controller.session.runtime, "prepare_run", broken)
    hooked, given_back = [], []
    monkeypatch.setattr(sys, "excepthook", lambda *exc: hooked.append(exc))
    controller.sig_send_rejected.connect(given_back.append)
    with qtbot.waitSignal(controller.sig_error) as error:
        controller.send("hello")
    assert "RuntimeError: boom" in error.args[0]
    qtbot.waitUntil(lambda: not controller.busy)
    assert hooked == [] and given_back == ["hello"]


def test_missing_key_gives_the_text_back(qtbot, make_controller, loopback):
    controller = make_controller(keys={})  # no Anthropic key: the runtime raises the real MissingKeyError
    given_back = []
    controller.sig_send_rejected.connect(given_back.append)
    with qtbot.waitSignal(controller.sig_error) as error:
        controller.send("keep me")
    assert "Anthropic" in error.args[0]
    qtbot.waitUntil(lambda: not controller.busy)
    assert given_back == ["keep me"]
    assert controller.session.conversation.messages == [] and stored_messages(controller) == []
    assert loopback.requests == []


def test_stop_cancels_the_run(qtbot, make_controller, loopback):
    loopback.enqueue(MESSAGES, endless_reply("Thinking about it"))
    controller = make_controller()
    model = controller.model
    controller.send("hello")
    qtbot.waitUntil(lambda: model.rowCount() == 2 and model.message_at(1).text == "Thinking about it", timeout=10000)
    finished = []
    controller.sig_run_finished.connect(lambda outcome, detail: finished.append(outcome))
    with qtbot.waitSignal(controller.sig_busy_changed) as busy:
        assert controller.stop()
    assert busy.args == [False] and not controller.busy
    assert finished == ["stopped"]
    assert model.message_at(1).status is MessageStatus.STOPPED and model.message_at(1).text == "Thinking about it"
    assert not controller.stop()  # nothing runs any more


def test_stop_before_the_message_was_sent_gives_the_text_back(qtbot, make_controller, loopback, monkeypatch):
    controller = make_controller()
    asked = []

    async def locked_keyring(names):  # as a keyring waiting for its password would: the keys never come
        asked.append(names)
        await asyncio.Event().wait()

    monkeypatch.setattr(controller.session.runtime, "find_keys", locked_keyring)
    given_back, errors = [], []
    controller.sig_send_rejected.connect(given_back.append)
    controller.sig_error.connect(errors.append)
    controller.send("not yet")
    qtbot.waitUntil(lambda: bool(asked))
    with qtbot.waitSignal(controller.sig_busy_changed):
        assert controller.stop()
    assert given_back == ["not yet"] and errors == []
    assert controller.model.rowCount() == 0 and stored_messages(controller) == [] and loopback.requests == []


def test_stop_after_the_message_was_sent_keeps_it(qtbot, make_controller, loopback):
    loopback.enqueue(MESSAGES, endless_reply())
    controller = make_controller()
    given_back, sent = [], []
    controller.sig_send_rejected.connect(given_back.append)
    controller.sig_user_message_sent.connect(sent.append)
    controller.send("hello")
    qtbot.waitUntil(lambda: bool(loopback.requests_to(MESSAGES)), timeout=10000)
    assert sent == ["hello"]
    with qtbot.waitSignal(controller.sig_busy_changed):
        assert controller.stop()
    assert given_back == []
    assert controller.model.message_at(0).text == "hello"
    assert stored_messages(controller)[0].text == "hello"


# --- the doom-loop question -------------------------------------------------------------


def repeat_search(loopback, calls: int, then: str | None = "Done searching.") -> None:
    """The model asks `calls` times for the same Tavily search (the tool runs against the loopback server without
    asking: it only reads), then answers `then`."""
    replies = [sse_response(anthropic_tool_reply([(f"toolu_{n:02}", "tavily_search", {"query": "weather"})], msg_id=f"msg_{n:02}"))
               for n in range(calls)]
    if then is not None:
        replies.append(sse_response(anthropic_text_reply(then, msg_id="msg_last")))
    loopback.enqueue(MESSAGES, *replies)
    loopback.set_handler(SEARCH, lambda request: tavily_results("weather", [("HKO", "https://www.hko.gov.hk", "Sunny")]))


def loop_box() -> QMessageBox | None:
    boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
    return boxes[0] if boxes else None


def answer_loop_box(qtbot, button: str | None) -> None:
    """Wait for the question and click `button` (None: press Escape)."""
    qtbot.waitUntil(lambda: loop_box() is not None, timeout=10000)
    box = loop_box()
    if button is None:
        qtbot.keyClick(box, Qt.Key.Key_Escape)
    else:
        next(b for b in box.buttons() if b.text() == button).click()
    qtbot.waitUntil(lambda: loop_box() is None)


def test_loop_confirmation_is_a_non_blocking_dialog_and_continue_once_goes_on(qtbot, make_controller, loopback):
    repeat_search(loopback, LOOP_REPEATS)
    controller = make_controller()
    finished = []
    controller.sig_run_finished.connect(lambda outcome, detail: finished.append(outcome))
    controller.send("What is the weather?")
    qtbot.waitUntil(lambda: loop_box() is not None, timeout=10000)
    box = loop_box()
    assert "tavily_search" in box.text() and f"{LOOP_REPEATS} times" in box.text()
    assert sorted(b.text() for b in box.buttons()) == sorted(["Continue once", "Allow repeats in this conversation", "Stop"])
    assert box.escapeButton().text() == "Stop" and box.defaultButton().text() == "Stop"
    assert controller.busy and len(loopback.requests_to(SEARCH)) == LOOP_REPEATS - 1  # asked before the repeat runs
    answer_loop_box(qtbot, "Continue once")
    qtbot.waitUntil(lambda: not controller.busy, timeout=10000)
    assert finished == ["completed"]
    assert len(loopback.requests_to(SEARCH)) == LOOP_REPEATS and len(loopback.requests_to(MESSAGES)) == LOOP_REPEATS + 1
    assert controller.session.conversation.messages[-1].text == "Done searching."
    assert not controller.session.repeats_allowed


def test_allow_repeats_does_not_ask_again_in_this_conversation(qtbot, make_controller, loopback):
    repeat_search(loopback, 2 * LOOP_REPEATS)  # a second run of repeats, past the first question
    controller = make_controller()
    finished = []
    controller.sig_run_finished.connect(lambda outcome, detail: finished.append(outcome))
    controller.send("What is the weather?")
    answer_loop_box(qtbot, "Allow repeats in this conversation")
    qtbot.waitUntil(lambda: not controller.busy, timeout=15000)
    assert finished == ["completed"] and controller.session.repeats_allowed
    assert len(loopback.requests_to(SEARCH)) == 2 * LOOP_REPEATS


@pytest.mark.parametrize("button", ["Stop", None], ids=["stop", "escape"])
def test_stop_or_escape_at_the_loop_question_ends_the_run(qtbot, make_controller, loopback, button):
    repeat_search(loopback, LOOP_REPEATS, then=None)
    controller = make_controller()
    finished = []
    controller.sig_run_finished.connect(lambda outcome, detail: finished.append(outcome))
    controller.send("What is the weather?")
    answer_loop_box(qtbot, button)
    qtbot.waitUntil(lambda: not controller.busy, timeout=10000)
    assert finished == ["loop"]
    assert len(loopback.requests_to(SEARCH)) == LOOP_REPEATS - 1 and len(loopback.requests_to(MESSAGES)) == LOOP_REPEATS
    last = controller.session.conversation.messages[-1]
    assert last.role is Role.ASSISTANT and [call.status for call in last.tool_calls] == [ToolCallStatus.CANCELLED]


def test_usage_is_kept_per_message_revision_not_summed_again_each_turn(qtbot, make_controller, loopback):
    for turn in range(3):  # each reply reports its usage twice: input at message_start, output at message_delta
        loopback.enqueue(MESSAGES, sse_response(anthropic_text_reply("an answer", model="claude-haiku-4-5", msg_id=f"msg_{turn}",
                                                                     input_tokens=1_000, output_tokens=40), delay=0.02))
    controller = make_controller()
    messages = controller.session.conversation.messages
    seen = []
    controller.sig_usage_changed.connect(  # as the window reads them
        lambda ledger: seen.append(ledger.totals(controller.session.conversation.messages, DEFAULT_TABLE)))
    for turn in range(1, 4):
        with qtbot.waitSignal(controller.sig_run_finished, timeout=15000):
            assert controller.send(f"question {turn}")
        qtbot.waitUntil(lambda: not controller.busy)
        assert_same(seen[-1], conversation_totals(messages))
        assert seen[-1].replies == turn and seen[-1].counts.output == 40 * turn
    assert controller.usage.sums == 1  # summed when first asked; each turn after priced only its own reply
    assert any(t.counts.output % 40 for t in seen)  # a reply's first report was shown before its second came

    controller.set_conversation(Conversation(messages=[Message.user("elsewhere")]))  # another conversation: summed anew
    other = controller.session.conversation.messages
    assert controller.usage.totals(other, DEFAULT_TABLE).replies == 0 and controller.usage.sums == 2
