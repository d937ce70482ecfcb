"""The composer: Enter sends, Shift+Enter adds a line, Esc stops, Send turns into Stop while busy."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop_copilot.qt.window.composer import Composer


@pytest.fixture
def composer(qtbot):
    composer = Composer()
    qtbot.addWidget(composer)
    composer.show()
    return composer


def test_enter_submits_and_the_text_stays_until_the_message_is_sent(qtbot, composer):
    qtbot.keyClicks(composer.edit, "Hello")
    with qtbot.waitSignal(composer.sig_submitted) as submitted:
        qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert submitted.args == ["Hello"] and composer.text() == "Hello"
    composer.accept_sent("Hello")
    assert composer.text() == ""


def test_text_changed_before_the_send_was_accepted_is_kept(qtbot, composer):
    composer.set_text("Hello")
    assert composer.submit()
    composer.set_text("Hello, and one more thing")
    composer.accept_sent("Hello")
    assert composer.text() == "Hello, and one more thing"


def test_shift_enter_adds_a_line(qtbot, composer):
    qtbot.keyClicks(composer.edit, "one")
    with qtbot.assertNotEmitted(composer.sig_submitted):
        qtbot.keyClick(composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(composer.edit, "two")
    assert composer.text() == "one\ntwo"


def test_blank_text_is_not_sent(qtbot, composer):
    qtbot.keyClicks(composer.edit, "   ")
    with qtbot.assertNotEmitted(composer.sig_submitted):
        qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert not composer.button.isEnabled()


def test_busy_turns_send_into_stop_and_esc_stops(qtbot, composer):
    composer.set_busy(True)
    assert composer.button.text() == "Stop" and composer.button.isEnabled()
    qtbot.keyClicks(composer.edit, "next question")
    with qtbot.assertNotEmitted(composer.sig_submitted):
        qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    with qtbot.waitSignal(composer.sig_stop_requested):
        qtbot.keyClick(composer.edit, Qt.Key.Key_Escape)
    with qtbot.waitSignal(composer.sig_stop_requested):
        qtbot.mouseClick(composer.button, Qt.MouseButton.LeftButton)
    composer.set_busy(False)
    assert composer.button.text() == "Send"
    with qtbot.waitSignal(composer.sig_submitted) as submitted:
        qtbot.mouseClick(composer.button, Qt.MouseButton.LeftButton)
    assert submitted.args == ["next question"]


def test_grows_with_its_content_up_to_a_limit(qtbot, composer):
    one_line = composer.edit.height()
    composer.set_text("line\n" * 3)
    three_lines = composer.edit.height()
    composer.set_text("line\n" * 40)
    assert one_line < three_lines < composer.edit.height() < one_line * 10
