"""The dialog of "Ask several models": the models of every provider that can answer (its key is there, or it needs
none), two to four of them ticked; the last choice is offered again."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from desktop_copilot.core.side_by_side import MAX_MODELS, MIN_MODELS, ModelChoice
from desktop_copilot.qt.common.plain_label import PlainLabel

CHOICE_ROLE = Qt.ItemDataRole.UserRole + 1


class ChooseModelsDialog(QDialog):
    """`entries`: (provider name, choice) of each model offered; `ticked`: the choices ticked at first."""

    def __init__(self, entries: Sequence[tuple[str, ModelChoice]], ticked: Sequence[ModelChoice] = (),
                 parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="chooseModelsDialog")
        self.setWindowTitle(self.tr("Ask several models"))
        self.resize(440, 480)
        self.note = PlainLabel(self.tr("Tick two to four models. Each answers the same message at once, side by side; "
                                       "you then pick the answer to go on with."), objectName="chooseModelsNote")
        self.note.setWordWrap(True)
        self.filter = QLineEdit(objectName="chooseModelsFilter", placeholderText=self.tr("Filter models"))
        self.list = QListWidget(objectName="chooseModelsList")
        for name, choice in entries:
            item = QListWidgetItem(f"{name} · {choice.model}", self.list)
            item.setData(CHOICE_ROLE, choice)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if choice in ticked else Qt.CheckState.Unchecked)
        self.count = PlainLabel("", objectName="chooseModelsCount")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.ask_button = self.buttons.addButton(self.tr("Ask"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addWidget(self.note)
        column.addWidget(self.filter)
        column.addWidget(self.list, 1)
        column.addWidget(self.count)
        column.addWidget(self.buttons)
        self.list.itemChanged.connect(lambda _item: self._update())
        self.filter.textChanged.connect(self._apply_filter)
        self._update()

    def set_ticked(self, choices: Sequence[ModelChoice]) -> None:
        for row in range(self.list.count()):
            item = self.list.item(row)
            item.setCheckState(Qt.CheckState.Checked if item.data(CHOICE_ROLE) in choices else Qt.CheckState.Unchecked)

    def choices(self) -> list[ModelChoice]:
        """The ticked models, in the list's order."""
        return [self.list.item(row).data(CHOICE_ROLE) for row in range(self.list.count())
                if self.list.item(row).checkState() == Qt.CheckState.Checked]

    def _update(self) -> None:
        ticked = len(self.choices())
        fits = MIN_MODELS <= ticked <= MAX_MODELS
        self.ask_button.setEnabled(fits)
        if ticked > MAX_MODELS:
            self.count.setText(self.tr("%n ticked: four at most", "", ticked))
        else:
            self.count.setText(self.tr("%n ticked", "", ticked))

    def _apply_filter(self, text: str) -> None:
        words = text.lower().split()
        for row in range(self.list.count()):
            item = self.list.item(row)
            item.setHidden(not all(word in item.text().lower() for word in words))
