"""Edit and resend, regenerate, and switching versions in the real window against a loopback Anthropic
server: the transcript, the stored conversation and the requests sent."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu

from desktop_copilot.core.conversation.models import Role
from tests.support.history_seed import seed_app_store, seed_conversation
from tests.support.loopback import anthropic_text_reply, sse_response


def _texts(window) -> list[str]:
    return [m.text for m in window.controller.model.messages()]


def _stored(window, conversation_id: str) -> list[str]:
    return [m.text for m in window.controller.session.store.load_conversation(conversation_id).messages]


def _menu_actions(window, message_id: str) -> dict:
    """The transcript's context-menu entries for `message_id`'s first row, submenus flattened, by text."""
    model = window.controller.model
    menu = QMenu(window.view)
    for extend in window.view.menu_extenders:  # as the view builds its context menu
        extend(menu, model.index(model.row_of(message_id), 0))
    found = {}
    for action in menu.actions():
        found[action.text()] = action
        if action.menu():
            found.update({sub.text(): sub for sub in action.menu().actions()})
    return found


def _message(window, role: Role, nth: int = -1):
    return [m for m in window.controller.model.messages() if m.role is role][nth]


def _wait_idle(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)


def test_regenerate_replaces_the_last_reply_and_keeps_the_old_one(qtbot, make_window, loopback_env):
    conversation = seed_app_store(lambda store: seed_conversation(store, "Poem", [("Write a haiku", "Old haiku")]))
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("New haiku", pieces=3)))
    window = make_window()
    old_reply = _message(window, Role.ASSISTANT)
    assert "Edit and resend…" not in _menu_actions(window, old_reply.id)

    resets = []
    window.controller.model.modelReset.connect(lambda: resets.append(1))
    _menu_actions(window, old_reply.id)["Regenerate reply"].trigger()
    _wait_idle(qtbot, window)
    assert resets == []  # the model followed the HistoryChanged event; nothing re-read the session

    assert _texts(window) == ["Write a haiku", "New haiku"]
    assert _stored(window, conversation.id) == ["Write a haiku", "New haiku"]
    assert [turn["role"] for turn in loopback_env.requests[0].json()["messages"]] == ["user"]
    new_reply = _message(window, Role.ASSISTANT)
    versions = window.versions.versions[new_reply.id]
    assert (versions.anchor, versions.count, versions.current) == (1, 2, 1)
    assert versions.label() == "‹ 2 / 2 ›"

    # the painted switcher: its "‹" goes back to the earlier reply
    window.view.viewport().repaint()
    arrow = window.versions.switcher_hit(-1, new_reply.id)
    assert arrow is not None and window.versions.switcher_hit(1, new_reply.id) is None
    qtbot.mouseClick(window.view.viewport(), Qt.MouseButton.LeftButton, pos=arrow.center())

    assert _texts(window) == ["Write a haiku", "Old haiku"]
    assert _stored(window, conversation.id) == ["Write a haiku", "Old haiku"]
    versions = window.versions.versions[old_reply.id]
    assert (versions.count, versions.current, versions.label()) == (2, 0, "‹ 1 / 2 ›")
    actions = _menu_actions(window, old_reply.id)
    assert not actions["Version 1 of 2 (shown)"].isEnabled()
    actions["Switch to version 2 of 2"].trigger()
    assert _texts(window) == ["Write a haiku", "New haiku"]
    assert _stored(window, conversation.id) == ["Write a haiku", "New haiku"]


def test_ctrl_shift_r_regenerates(qtbot, make_window, loopback_env):
    seed_app_store(lambda store: seed_conversation(store, "Poem", [("Write a haiku", "Old haiku")]))
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("Another haiku")))
    window = make_window()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: len(loopback_env.requests) == 1, timeout=5000)
    _wait_idle(qtbot, window)
    assert _texts(window) == ["Write a haiku", "Another haiku"]
    assert window.controller.session.version_anchors() == {1: 1}


def test_regenerate_is_offered_only_for_the_last_reply_and_not_while_busy(qtbot, make_window, loopback_env):
    seed_app_store(lambda store: seed_conversation(store, "Two", [("Q1", "A1"), ("Q2", "A2")]))
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("A2 again", pieces=10), delay=0.03))
    window = make_window()
    assert "Regenerate reply" not in _menu_actions(window, _message(window, Role.ASSISTANT, 0).id)
    last = _message(window, Role.ASSISTANT)
    assert window.edits.regenerate()
    qtbot.waitUntil(lambda: window.controller.busy)
    assert not window.edits.regenerate()  # one run at a time
    first_user = _message(window, Role.USER, 0)
    assert not _menu_actions(window, first_user.id)["Edit and resend…"].isEnabled()
    _wait_idle(qtbot, window)
    assert _texts(window) == ["Q1", "A1", "Q2", "A2 again"]
    assert last.id not in window.controller.model.message_ids()


def test_edit_and_resend_replaces_the_tail_and_switching_back_restores_it(qtbot, make_window, loopback_env):
    conversation = seed_app_store(lambda store: seed_conversation(store, "Two", [("Q1", "A1"), ("Q2", "A2")]))
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("A1 for the edit", pieces=2)))
    window = make_window()
    composer, bar = window.composer, window.edits.bar
    composer.set_text("a half-typed draft")
    first_user = _message(window, Role.USER, 0)

    # Esc leaves edit mode and gives the draft back
    _menu_actions(window, first_user.id)["Edit and resend…"].trigger()
    assert bar.isVisible() and bar.text.text() == "Editing a message — Esc to cancel"
    assert composer.text() == "Q1"
    qtbot.keyClick(composer.edit, Qt.Key.Key_Escape)
    assert bar.isHidden() and composer.text() == "a half-typed draft"
    assert _texts(window) == ["Q1", "A1", "Q2", "A2"]

    _menu_actions(window, first_user.id)["Edit and resend…"].trigger()
    composer.set_text("Q1, edited")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert bar.isHidden()
    _wait_idle(qtbot, window)

    assert _texts(window) == ["Q1, edited", "A1 for the edit"]
    assert _stored(window, conversation.id) == ["Q1, edited", "A1 for the edit"]
    sent = loopback_env.requests[0].json()["messages"]
    assert [(turn["role"], turn["content"][0]["text"] if isinstance(turn["content"], list) else turn["content"])
            for turn in sent] == [("user", "Q1, edited")]
    assert composer.text() == "a half-typed draft"
    edited = _message(window, Role.USER, 0)
    assert window.versions.versions[edited.id].label() == "‹ 2 / 2 ›"

    _menu_actions(window, edited.id)["Switch to version 1 of 2"].trigger()
    assert _texts(window) == ["Q1", "A1", "Q2", "A2"]
    assert _stored(window, conversation.id) == ["Q1", "A1", "Q2", "A2"]
    assert window.versions.versions[first_user.id].label() == "‹ 1 / 2 ›"


def test_edit_mode_ends_when_another_conversation_opens(qtbot, make_window):
    ids = seed_app_store(lambda store: [seed_conversation(store, title, [(f"{title} question", "answer")], age_days=age).id
                                        for title, age in (("Older", 1), ("Newer", 0))])
    window = make_window()
    window.composer.set_text("draft")
    assert window.edits.start_edit(_message(window, Role.USER))
    assert window.history.open(ids[0])
    assert window.edits.editing is None and window.edits.bar.isHidden()
    assert window.composer.text() == "draft"
