"""What the small add-something dialogs of Settings share: their labels, their form and how they are laid out."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QFormLayout, QHBoxLayout, QLayout, QPushButton, QVBoxLayout, QWidget

from desktop_copilot.core.keys.key_values import HTTP_HEADER_NAME
from desktop_copilot.qt.common.plain_label import PlainLabel

LABEL_WIDTH = 110


def form_label(text: str, width: int = LABEL_WIDTH) -> PlainLabel:
    """A form label whose text sits on the centre line of its field's first line (a field is 32 px high)."""
    widget = PlainLabel(text)
    widget.setFixedWidth(width)
    widget.setMinimumHeight(32)
    widget.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    widget.setContentsMargins(0, 8, 0, 0)
    return widget


def form_layout() -> QFormLayout:
    form = QFormLayout()
    form.setHorizontalSpacing(14)
    form.setVerticalSpacing(8)
    return form


def lay_out_dialog(dialog: QDialog, parts: list[QLayout | QWidget], cancel: QPushButton, confirm: QPushButton) -> None:
    """`parts` one under the other, then Cancel and the confirming button at the bottom right."""
    buttons = QHBoxLayout()
    buttons.addStretch(1)
    buttons.addWidget(cancel)
    buttons.addWidget(confirm)
    column = QVBoxLayout(dialog)
    column.setContentsMargins(20, 18, 20, 16)
    column.setSpacing(12)
    for part in parts:
        if isinstance(part, QLayout):
            column.addLayout(part)
        else:
            column.addWidget(part)
    column.addLayout(buttons)


def parse_header_lines(text: str, malformed: Callable[[int], Exception],
                       check: Callable[[str, str], None] = lambda _name, _value: None) -> dict[str, str]:
    """`Name: value` lines (blank lines skipped); raises `malformed(line_number)` for a line that is not one, and
    lets `check(name, value)` refuse a well-formed one, line by line."""
    headers: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        name, colon, value = line.partition(":")
        name, value = name.strip(), value.strip()
        if not colon or not HTTP_HEADER_NAME.match(name) or not value:
            raise malformed(number)
        check(name, value)
        headers[name] = value
    return headers
