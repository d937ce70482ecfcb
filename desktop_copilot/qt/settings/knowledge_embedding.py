"""Settings ▸ Knowledge ▸ Embeddings: none (BM25 alone) or an embedding model — its wire, model and base URL, with each
wire's defaults — as `Settings.knowledge_embedding` values."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QComboBox, QFormLayout, QFrame, QLineEdit, QVBoxLayout, QWidget

from desktop_copilot.core.config.settings import KnowledgeEmbedding
from desktop_copilot.qt.settings.models_page import group, hint, label

WIRES: dict[str, tuple[str, str, str, str]] = {
    "openai": (QT_TRANSLATE_NOOP("KnowledgePage", "OpenAI-compatible"), "https://api.openai.com/v1", "text-embedding-3-small", "openai"),
    "gemini": (QT_TRANSLATE_NOOP("KnowledgePage", "Gemini"), "https://generativelanguage.googleapis.com/v1beta", "gemini-embedding-001", "gemini"),
    "ollama": (QT_TRANSLATE_NOOP("KnowledgePage", "Ollama"), "http://127.0.0.1:11434", "nomic-embed-text", ""),
}
"""Wire -> its name, and the base URL, model and key name it starts with."""

class EmbeddingGroup(QFrame):
    """None (words only, BM25) or an embedding model: its wire, model and base URL, with each wire's defaults."""

    def __init__(self, current: KnowledgeEmbedding | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.typed: dict[str, tuple[str, str]] = {wire: (model, url) for wire, (_name, url, model, _key) in WIRES.items()}
        """Wire -> (model, base URL) as last typed, so switching back and forth keeps them."""
        if current is not None:
            self.typed[current.wire] = (current.model, current.base_url)
        self.wire_box = QComboBox(objectName="embeddingWire")
        self.wire_box.addItem(self.tr("None — search by words only"), "")
        for wire, (name, *_rest) in WIRES.items():
            self.wire_box.addItem(QCoreApplication.translate("KnowledgePage", name), wire)
        self.wire_box.setAccessibleName(self.tr("Embedding model"))
        self.model_edit = QLineEdit(objectName="embeddingModel")
        self.model_edit.setAccessibleName(self.tr("Embedding model name"))
        self.url_edit = QLineEdit(objectName="embeddingUrl")
        self.url_edit.setAccessibleName(self.tr("Embedding base URL"))
        self.about = hint()
        form = QFormLayout()
        form.addRow(label(self.tr("Embed with")), self.wire_box)
        form.addRow(label(self.tr("Model")), self.model_edit)
        form.addRow(label(self.tr("Base URL")), self.url_edit)
        form.addRow("", self.about)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(group(self.tr("Embeddings"), form))
        self.wire_box.setCurrentIndex(max(0, self.wire_box.findData(current.wire if current else "")))
        self._wire = self.wire
        self._show_wire()
        self.wire_box.currentIndexChanged.connect(self._wire_changed)

    @property
    def wire(self) -> str:
        return self.wire_box.currentData() or ""

    def _wire_changed(self) -> None:
        if self._wire:
            self.typed[self._wire] = (self.model_edit.text().strip(), self.url_edit.text().strip())
        self._wire = self.wire
        self._show_wire()

    def _show_wire(self) -> None:
        wire = self.wire
        model, url = self.typed.get(wire, ("", ""))
        self.model_edit.setText(model if wire else "")
        self.url_edit.setText(url if wire else "")
        self.model_edit.setEnabled(bool(wire))
        self.url_edit.setEnabled(bool(wire))
        self.about.setText({
            "": self.tr("Passages are found by their words (BM25). An embedding model also finds passages that say the "
                        "same thing in other words."),
            "openai": self.tr("Uses the OpenAI key of Settings ▸ Providers. Passages are sent to this endpoint to be embedded."),
            "gemini": self.tr("Uses the Gemini key of Settings ▸ Providers. Passages are sent to Google to be embedded."),
            "ollama": self.tr("Runs on this computer with Ollama; needs no key. Pull the model first (ollama pull)."),
        }[wire])

    def problem(self) -> str | None:
        if not self.wire:
            return None
        if not self.model_edit.text().strip():
            return self.tr("name the embedding model, or choose None")
        if not self.url_edit.text().strip().startswith(("http://", "https://")):
            return self.tr("the embedding base URL must start with http:// or https://")
        return None

    def value(self) -> dict[str, Any] | None:
        if not self.wire:
            return None
        return {"wire": self.wire, "model": self.model_edit.text().strip(), "base_url": self.url_edit.text().strip(),
                "key_name": WIRES[self.wire][3]}
