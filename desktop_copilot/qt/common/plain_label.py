"""PlainLabel: a QLabel that always shows its text as text. Errors, titles, model names and tool
descriptions come from outside; as rich text, `<img src=…>` in them would make Qt read a file."""

from __future__ import annotations

from PySide6 import QtCore
from PySide6.QtWidgets import QLabel


class PlainLabel(QLabel):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.setTextFormat(QtCore.Qt.TextFormat.PlainText)
