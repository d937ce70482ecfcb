"""The editor under Settings ▸ Model profiles' table: the user's figures for the model chosen there (context window,
output limit, tool protocol, thinking style, images), each blank or Automatic to leave it to the provider, the table or
the default, and "Reset to automatic"."""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QLocale, QRegularExpression, Signal
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import QComboBox, QFormLayout, QFrame, QHBoxLayout, QLineEdit, QPushButton, QVBoxLayout, QWidget

from desktop_copilot.core.profiles.profile import THINKING_STYLES, TOOL_PROTOCOLS, ModelProfile
from desktop_copilot.core.profiles.reported import MAX_TOKENS_FIGURE
from desktop_copilot.core.profiles.stored import ModelOverride
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.settings.models_page import beside, hint, label
from desktop_copilot.qt.settings.profile_table import figure_text
from desktop_copilot.qt.settings.styles import set_kind

COUNT_FIELDS = ("context_window", "output_limit")
CHOICE_FIELDS = ("tools", "thinking", "images")
CHOICES: dict[str, tuple[tuple[Any, str], ...]] = {
    "tools": tuple(zip(TOOL_PROTOCOLS, (QT_TRANSLATE_NOOP("ProfileEditor", "Native tool calls"),
                                        QT_TRANSLATE_NOOP("ProfileEditor", "Tools described as text")))),
    "thinking": tuple(zip(THINKING_STYLES, (QT_TRANSLATE_NOOP("ProfileEditor", "No thinking shown"),
                                            QT_TRANSLATE_NOOP("ProfileEditor", "Anthropic thinking blocks"),
                                            QT_TRANSLATE_NOOP("ProfileEditor", "A separate reasoning field"),
                                            QT_TRANSLATE_NOOP("ProfileEditor", "<think> tags in the text"),
                                            QT_TRANSLATE_NOOP("ProfileEditor", "Gemini thought parts")))),
    "images": ((True, QT_TRANSLATE_NOOP("ProfileEditor", "Yes")), (False, QT_TRANSLATE_NOOP("ProfileEditor", "No"))),
}
"""Each choice field's values after Automatic, with their words."""
_SEPARATORS = re.compile(r"[\s,._'’]")


def parse_token_count(text: str) -> int | None:
    """A typed number of tokens ("131072", "131,072", "131 072"); None when blank. ValueError for 0 or an absurd size."""
    digits = _SEPARATORS.sub("", text)
    if not digits:
        return None
    value = int(digits)
    if not 0 < value <= MAX_TOKENS_FIGURE:
        raise ValueError(text)
    return value


class ProfileEditor(QFrame):
    """The user's figures for one model. Every change emits the model's override as it now stands (None: nothing set);
    figures the editor does not show (PDFs, sampling, thinking sent back) are kept as they were."""

    sig_override_changed = Signal(object)
    """The shown model's ModelOverride after an edit, or None when no figure is set any more."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="settingsGroup")
        self._kept: ModelOverride = ModelOverride()
        self.title = PlainLabel(objectName="groupTitle")
        self.counts = {name: self._count_edit() for name in COUNT_FIELDS}
        self.choices = {name: QComboBox(objectName=f"{name}Choice") for name in CHOICE_FIELDS}
        for name, box in self.choices.items():
            box.addItem(self.tr("Automatic"), None)
            for value, words in CHOICES[name]:
                box.addItem(self.tr(words), value)
            box.currentIndexChanged.connect(self._edited)
        self.reset_button = QPushButton(self.tr("Reset to automatic"), objectName="resetProfile")
        self.reset_button.setToolTip(self.tr("Forget the figures you set for this model"))
        self.problem = hint()
        self.problem.hide()
        names = {"context_window": self.tr("Context window"), "output_limit": self.tr("Output limit"),
                 "tools": self.tr("Tool protocol"), "thinking": self.tr("Thinking style"), "images": self.tr("Images")}
        for name, widget in {**self.counts, **self.choices}.items():
            widget.setAccessibleName(names[name])
        self._layout(names)
        self.reset_button.clicked.connect(self.reset)
        self.show_model(None)

    def _count_edit(self) -> QLineEdit:
        edit = QLineEdit()
        edit.setValidator(QRegularExpressionValidator(QRegularExpression(r"[\d\s,._'’]{0,16}"), edit))
        edit.setFixedWidth(180)
        edit.textEdited.connect(self._edited)
        return edit

    def _layout(self, names: dict[str, str]) -> None:
        form = QFormLayout()
        form.setHorizontalSpacing(14)
        form.setVerticalSpacing(8)
        for name, edit in self.counts.items():
            form.addRow(label(names[name]), beside(edit, self.tr("tokens; blank: automatic")))
        for name, box in self.choices.items():
            form.addRow(label(names[name]), beside(box, ""))
        form.addRow("", self.problem)
        buttons = QHBoxLayout()
        buttons.addWidget(self.reset_button)
        buttons.addWidget(hint(self.tr("Your figures win over the provider's and the table's.")), 1)
        column = QVBoxLayout(self)
        column.setContentsMargins(16, 14, 16, 14)
        column.setSpacing(8)
        column.addWidget(self.title)
        column.addLayout(form)
        column.addLayout(buttons)

    def show_model(self, model: str | None, override: ModelOverride | None = None, automatic: ModelProfile | None = None) -> None:
        """Shows `model`'s own figures (`override`), each field saying what Automatic gives (`automatic`: its profile
        without them); None: no model chosen, the fields off."""
        self._kept = override or ModelOverride()
        self.title.setText(model if model is not None else self.tr("Choose a model above to correct its figures"))
        self.problem.hide()
        for name, edit in self.counts.items():
            value = getattr(self._kept, name)
            edit.setText(str(value) if value is not None else "")
            edit.setPlaceholderText(self.tr("Automatic: {value}").format(value=figure_text(getattr(automatic, name)))
                                    if automatic is not None else "")
        for name, box in self.choices.items():
            box.blockSignals(True)
            automatic_index = box.findData(getattr(automatic, name).value) if automatic is not None else -1
            box.setItemText(0, self.tr("Automatic ({value})").format(value=box.itemText(automatic_index))
                            if automatic_index > 0 else self.tr("Automatic"))
            box.setCurrentIndex(max(0, box.findData(getattr(self._kept, name))) if getattr(self._kept, name) is not None else 0)
            box.blockSignals(False)
        for widget in (*self.counts.values(), *self.choices.values(), self.reset_button):
            widget.setEnabled(model is not None)

    def override(self) -> ModelOverride | None:
        """The figures as the fields now set them, with those the editor does not show; None when none is set.
        ValueError for a token count that cannot be one."""
        figures = self._kept.model_dump()
        for name, edit in self.counts.items():
            figures[name] = parse_token_count(edit.text())
        for name, box in self.choices.items():
            figures[name] = box.currentData()
        found = ModelOverride(**figures)
        return found if found.model_dump() else None

    def reset(self) -> None:
        """Clears every figure of the model (those not shown here too)."""
        self._kept = ModelOverride()
        for edit in self.counts.values():
            edit.clear()
        for box in self.choices.values():
            box.blockSignals(True)
            box.setCurrentIndex(0)
            box.blockSignals(False)
        self.problem.hide()
        self.sig_override_changed.emit(None)

    def _edited(self, *_args: Any) -> None:
        try:
            found = self.override()
        except ValueError:
            self.problem.setText(self.tr("A token count is a whole number from 1 to {most}; leave it blank for "
                                         "automatic.").format(most=QLocale().toString(MAX_TOKENS_FIGURE)))
            set_kind(self.problem, "error")
            self.problem.show()
            return
        self.problem.hide()
        self.sig_override_changed.emit(found)

