"""Shared by the selection and copy tests: replies built in memory, where a piece of text lies on screen, and
real mouse gestures on the view."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt

from desktop_copilot.core.conversation.models import Message, MessageStatus, TextBlock
from desktop_copilot.qt.transcript.parts.text_ranges import find_text, point_of


def reply(*texts: str, status: MessageStatus = MessageStatus.COMPLETED) -> Message:
    message = Message.assistant()
    message.blocks = [TextBlock(text=text) for text in texts]
    message.status = status
    return message


def spot(view, needle: str, row: int | None = None, after: int = 0) -> QPoint:
    """A viewport point just inside the first character of `needle` (+`after` characters) as painted, in `row`
    or in the first row on screen showing it."""
    model = view.model()
    for number in [row] if row is not None else range(model.rowCount()):
        index = model.index(number, 0)
        found = view.delegate.text_part(index, view.visualRect(index))
        at = find_text(found[0].documents, needle) if found else None
        if at is not None:
            return (point_of(found[0].documents, at + after) + found[1] + QPointF(1.5, 0)).toPoint()
    raise AssertionError(f"{needle!r} is not on screen")


def drag(qtbot, view, start: QPoint, end: QPoint, steps: int = 6) -> None:
    """Press at `start`, move there in steps with the button held, release: as a hand would."""
    viewport = view.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for step in range(1, steps + 1):
        at = start + (end - start) * (step / steps)
        _move_with_button(viewport, at)  # QTest's mouseMove does not say which button is held
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)


def _move_with_button(viewport, at: QPoint) -> None:
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    event = QMouseEvent(QEvent.Type.MouseMove, QPointF(at), QPointF(viewport.mapToGlobal(at)), Qt.MouseButton.NoButton,
                        Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(viewport, event)


def copy_keys(qtbot, view) -> None:
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
