"""The editor of one generation option (temperature or top-p): a "Model default" check box and a spin box, shared by
the conversation's Generation dialog and Settings ▸ Assistants; and the options in words for a tooltip."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QHBoxLayout, QWidget

from desktop_copilot.core.conversation.generation import MAX_TEMPERATURE, MAX_TOP_P

DECIMALS = 2
SHOWN_WHEN_DEFAULT = 1.0
"""What the (disabled) spin box shows while the model's default is used: the usual default of both options."""


class GenerationOptionRow(QWidget):
    """`value()` is None while "Model default" is ticked, else the spin box's number."""

    sig_changed = Signal()

    def __init__(self, name: str, minimum: float, maximum: float, step: float, parent: QWidget | None = None,
                 object_name: str = "") -> None:
        super().__init__(parent, objectName=object_name)
        self.default_box = QCheckBox(self.tr("Model default"), objectName=f"{object_name}Default")
        self.default_box.setToolTip(self.tr("Send nothing: the model uses its own default"))
        self.spin = QDoubleSpinBox(objectName=f"{object_name}Spin", minimum=minimum, maximum=maximum, singleStep=step,
                                   decimals=DECIMALS, value=SHOWN_WHEN_DEFAULT)
        self.spin.setAccessibleName(name)
        self.spin.setMinimumWidth(96)
        self._given: tuple[float, float] | None = None
        """The value last set and the spin box's rounding of it."""
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.default_box)
        row.addWidget(self.spin)
        row.addStretch(1)
        self.setFocusProxy(self.default_box)  # a label's buddy, Tab: the check box first, then the number
        self.default_box.toggled.connect(self._on_default_toggled)
        self.spin.valueChanged.connect(lambda _value: self.sig_changed.emit())

    def value(self) -> float | None:
        if self.default_box.isChecked():
            return None
        if self._given is not None and self._given[1] == self.spin.value():
            return self._given[0]  # shown rounded (e.g. 0.125 set with `ask`), kept as it was
        return round(self.spin.value(), DECIMALS)

    def set_value(self, value: float | None) -> None:
        if value is not None:
            self.spin.setValue(value)
        self._given = None if value is None else (value, self.spin.value())
        self.default_box.setChecked(value is None)
        self.spin.setEnabled(value is not None)

    def _on_default_toggled(self, checked: bool) -> None:
        self.spin.setEnabled(not checked)
        if not checked and self.window().focusWidget() is self.default_box:
            self.spin.setFocus(Qt.FocusReason.TabFocusReason)  # the number is what comes next
            self.spin.selectAll()
        self.sig_changed.emit()


def temperature_row(parent: QWidget | None = None) -> GenerationOptionRow:
    name = QCoreApplication.translate("GenerationFields", "Temperature")
    return GenerationOptionRow(name, 0.0, MAX_TEMPERATURE, 0.1, parent, "temperature")


def top_p_row(parent: QWidget | None = None) -> GenerationOptionRow:
    name = QCoreApplication.translate("GenerationFields", "Top-p")
    return GenerationOptionRow(name, 10 ** -DECIMALS, MAX_TOP_P, 0.05, parent, "topP")


def generation_summary(temperature: float | None, top_p: float | None) -> str:
    """"Temperature: 0.7 · Top-p: model default"."""
    def shown(value: float | None) -> str:
        return QCoreApplication.translate("GenerationFields", "model default") if value is None else f"{value:g}"

    return QCoreApplication.translate("GenerationFields", "Temperature: {0} · Top-p: {1}").format(shown(temperature), shown(top_p))
