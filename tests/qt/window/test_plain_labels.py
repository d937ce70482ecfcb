"""Text from outside (errors, titles, model names, tool descriptions) is shown as text: every label of the
window and the settings dialog is plain text, except the few whose own fixed text carries a link."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from desktop_copilot.qt.settings.entry import open_settings

RICH_ON_PURPOSE = {"keyLink", "keyringNotice"}
"""Labels whose text the app writes itself (a "Get a key" link, the keyring notice with its outside parts escaped)."""


def _rich_labels(widget) -> list[str]:
    return [
        f"{label.objectName() or type(label.parent()).__name__}: {label.text()[:40]!r}"
        for label in widget.findChildren(QLabel)
        if label.textFormat() != Qt.TextFormat.PlainText and label.objectName() not in RICH_ON_PURPOSE
    ]


def test_window_and_settings_labels_are_plain_text(qtbot, make_window):
    window = make_window()
    hostile = '<img src="/dev/zero"> <a href="file:///etc/passwd">x</a>'
    window.banner.show_error(hostile)
    window.title_label.setText(hostile)
    assert window.banner.label.text() == hostile  # shown as the characters it is
    dialog = open_settings(window)
    qtbot.addWidget(dialog)
    assert len(window.findChildren(QLabel)) > 5 and len(dialog.findChildren(QLabel)) > 5
    assert _rich_labels(window) == []
    assert _rich_labels(dialog) == []
