"""The "Long conversations" group of the Models page: when older turns are compacted (a share of the model's context
window), how many of the last turns are always sent whole, and which model writes the summaries (the conversation's
own, or a provider and model chosen here)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QLabel, QLayout, QSpinBox, QWidget

from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.runtime import Runtime

COMPACT_AT_PERCENT = (50, 95)
"""What the threshold box offers, in percent (Settings brings any other value within it)."""
MAX_KEEP_TURNS = 50


class ContextGroup(QObject):
    """The fields; `add_rows` puts them in the page's form, `edits` gives their Settings values."""

    def __init__(self, runtime: Runtime, settings: Settings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.compact_at = QSpinBox(minimum=COMPACT_AT_PERCENT[0], maximum=COMPACT_AT_PERCENT[1], singleStep=5,
                                   suffix=" %", objectName="compactAtBox")
        self.compact_at.setValue(round(settings.compact_at * 100))
        self.compact_at.setAccessibleName(self.tr("Compact when the request passes this share of the window"))
        self.keep_turns = QSpinBox(minimum=1, maximum=max(MAX_KEEP_TURNS, settings.keep_turns), objectName="keepTurnsBox")
        self.keep_turns.setValue(settings.keep_turns)
        self.keep_turns.setAccessibleName(self.tr("Turns always sent whole"))
        self.keep_turns.setSuffix(self.tr(" turns"))
        for spin in (self.compact_at, self.keep_turns):
            spin.setFixedWidth(150)
            spin.lineEdit().setTextMargins(6, 0, 0, 0)
        self.summariser_provider = QComboBox(objectName="summariserProviderBox")
        self.summariser_provider.setAccessibleName(self.tr("Summarise with"))
        self.summariser_provider.addItem(self.tr("The conversation's model"), None)
        providers = runtime.providers()
        hidden = settings.disabled_providers
        for spec in providers.values():
            if spec.id not in hidden or spec.id == settings.summariser_provider:
                self.summariser_provider.addItem(spec.label, spec.id)
        if settings.summariser_provider and self.summariser_provider.findData(settings.summariser_provider) < 0:
            self.summariser_provider.addItem(settings.summariser_provider, settings.summariser_provider)  # an endpoint removed since
        self.summariser_model = QComboBox(editable=True, objectName="summariserModelBox")
        self.summariser_model.setMinimumWidth(220)
        self.summariser_model.setAccessibleName(self.tr("Summariser model"))
        self.summariser_model.lineEdit().setPlaceholderText(self.tr("Model"))
        self.summariser_provider.setCurrentIndex(max(0, self.summariser_provider.findData(settings.summariser_provider)))
        self._fill_models(settings)
        self.summariser_model.setCurrentText(settings.summariser_model or self.summariser_model.currentText())
        self.summariser_provider.currentIndexChanged.connect(lambda _index: self._fill_models(settings))

    def add_rows(self, form: QFormLayout, label: Callable[[str], QLabel], beside: Callable[[QWidget, str], QLayout],
                 hint: Callable[[str], QLabel]) -> None:
        """The group's rows in `form`, made with the page's `label`, `beside` and `hint` (settings/models_page.py)."""
        summariser = QHBoxLayout()
        summariser.setSpacing(8)
        summariser.addWidget(self.summariser_provider)
        summariser.addWidget(self.summariser_model, 1)
        form.addRow(label(self.tr("Compact at")), beside(
            self.compact_at, self.tr("Compact when the request passes this share of the model's context window.")))
        form.addRow(label(self.tr("Keep whole")), beside(
            self.keep_turns, self.tr("Always send the last turns whole: they are never compacted.")))
        form.addRow(label(self.tr("Summarise with")), summariser)
        form.addRow("", hint(self.tr("A cheaper model can write the summaries. Compacted messages are kept: the marker in "
                                     "the conversation opens them, and Undo compaction sends them whole again.")))

    def _fill_models(self, settings: Settings) -> None:
        """The chosen provider's models (the list it gave, else its built-in ones); none for the conversation's model."""
        provider_id = self.summariser_provider.currentData()
        typed = self.summariser_model.currentText()
        self.summariser_model.clear()
        self.summariser_model.setEnabled(provider_id is not None)
        if provider_id is None:
            return
        spec = self.runtime.providers().get(provider_id)
        cache = settings.provider_models.get(provider_id)
        models = list(cache.model_ids) if cache is not None else list(spec.fallback_models) if spec is not None else []
        if spec is not None and spec.default_model and spec.default_model not in models:
            models.insert(0, spec.default_model)
        self.summariser_model.addItems(models)
        self.summariser_model.setCurrentText(typed if typed in models else (models[0] if models else typed))

    def edits(self) -> dict:
        """The fields as Settings values (the conversation's model: both None)."""
        provider_id = self.summariser_provider.currentData()
        model = self.summariser_model.currentText().strip() if provider_id is not None else ""
        return {
            "compact_at": self.compact_at.value() / 100,
            "keep_turns": self.keep_turns.value(),
            "summariser_provider": provider_id,
            "summariser_model": model or None,
        }
