"""Code blocks in a real transcript view: each has a Copy button painted at the top right of its header and its
language painted at the left (not part of the text), a click copies the code exactly as the reply wrote it
(without the fence), says "Copied" for a moment, and a block cut over several rows is copied whole."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from desktop_copilot.qt.transcript.model import TranscriptModel
from desktop_copilot.qt.transcript.parts.code_blocks import COPY_ACTION
from tests.qt.transcript.selection_support import reply
from tests.qt.transcript.transcript_support import show_view

CODE = "def f(x):\n\treturn x < 1 and '$a$'  # <b>&amp;</b>  "
PLAIN = "plain text\n    indented\n"
TEXT = f"Here it is:\n\n```python\n{CODE}\n```\n\nAnd without a language:\n\n```\n{PLAIN}```\n"


@pytest.fixture(autouse=True)
def empty_clipboard(qapp):
    QApplication.clipboard().clear()


def _buttons(view, row: int) -> list[tuple[QRect, object, object]]:
    """(the button's rect in viewport coordinates, the hotspot, the part) of each Copy button in `row`."""
    index = view.model().index(row, 0)
    rect = view.visualRect(index)
    layout = view.delegate.layout(index)
    column = view.delegate.env.column(QRect(rect.left(), rect.top(), view.delegate.width, layout.height))
    found = []
    for part in layout.parts:
        origin = layout.part_rect(part, column).topLeft()
        found += [(hotspot.rect.translated(origin), hotspot, part) for hotspot in part.hotspots if hotspot.action == COPY_ACTION]
    return found


def test_the_copy_button_copies_the_exact_code_and_says_copied(qtbot):
    model = TranscriptModel()
    model.set_messages([reply(TEXT)])
    view = show_view(qtbot, model, 760, 600)
    view.viewport().repaint()
    buttons = _buttons(view, 0)
    assert [hotspot.label for _rect, hotspot, _part in buttons] == ["python", ""]

    rect, hotspot, part = buttons[0]
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert QApplication.clipboard().text() == CODE
    assert view.delegate.env.cards.copied == (part.owner, COPY_ACTION, "0")
    qtbot.waitUntil(lambda: view.delegate.env.cards.copied == (), timeout=5000)  # "Copied" goes back to "Copy"

    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=buttons[1][0].center())
    assert QApplication.clipboard().text() == PLAIN.removesuffix("\n")
    assert not view.has_selection()


def _ink(image, area: QRect, background: QColor) -> int:
    return sum(image.pixelColor(x, y) != background for x in range(area.left(), area.right()) for y in range(area.top(), area.bottom()))


def test_the_language_label_and_the_button_are_painted_in_the_header_not_in_the_text(qtbot):
    model = TranscriptModel()
    model.set_messages([reply(TEXT)])
    view = show_view(qtbot, model, 760, 600)
    view.viewport().repaint()
    image = view.viewport().grab().toImage()
    background = QColor(view.delegate.env.theme.code_background)
    (python_button, _h, part), (plain_button, _h2, _p) = _buttons(view, 0)

    def label_area(button: QRect) -> QRect:
        return QRect(QPoint(view.delegate.env.column(view.viewport().rect()).left() + 4, button.top()), QPoint(button.left() - 6, button.bottom()))

    assert _ink(image, label_area(python_button), background) > 10  # "python" is painted
    assert _ink(image, label_area(plain_button), background) == 0  # no language, no label
    assert _ink(image, python_button, background) > 10 and _ink(image, plain_button, background) > 10  # "Copy"
    text = "".join(document.toPlainText() for document in part.documents)
    assert "python" not in text and "Copy" not in text  # selecting the code never picks these up


def test_a_code_block_cut_over_several_rows_is_copied_whole(qtbot):
    lines = [f"line_{n} = {n} * 2  # ${n}" for n in range(300)]
    code = "\n".join(lines)
    model = TranscriptModel()
    model.set_messages([reply(f"Intro.\n\n```js\n{code}\n```\n\nOutro.")])
    view = show_view(qtbot, model, 760, 500)
    rows = [row for row in range(model.rowCount()) if model.segment_at(row).kind == "text"]
    assert len(rows) >= 3  # the block was cut
    for row in rows[:2]:
        view.scrollTo(model.index(row, 0))
        view.viewport().repaint()
        rect, _hotspot, _part = _buttons(view, row)[0]
        assert view.viewport().rect().contains(rect.center())
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        assert QApplication.clipboard().text() == code


def test_code_inside_a_list_item_is_copied_without_the_list_indentation(qtbot):
    model = TranscriptModel()
    model.set_messages([reply("1. Run this:\n\n   ```sh\n   make test\n     --verbose\n   ```\n\n2. Done.")])
    view = show_view(qtbot, model, 760, 600)
    view.viewport().repaint()
    (rect, hotspot, _part), = _buttons(view, 0)
    assert hotspot.label == "sh"
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert QApplication.clipboard().text() == "make test\n  --verbose"
