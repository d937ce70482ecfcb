"""Settings ▸ Model profiles: one provider's models (what it last reported, the model lists cached, the conversation's
model) with each figure and where it came from; Refresh asks the provider, and the editor below sets the user's own
figures. Both wait in this page until OK/Apply saves them (`edits`)."""

from __future__ import annotations

import asyncio
import importlib
import logging
from datetime import datetime, timezone

from PySide6.QtCore import QItemSelection, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.keys.redaction import redact
from desktop_copilot.core.profiles.known_models import TAKEN
from desktop_copilot.core.profiles.profile import ModelFacts, ModelProfile
from desktop_copilot.core.profiles.stored import ModelOverride, ReportedFacts, facts_key, reported_for, split_facts_key, stored_profile, with_reported
from desktop_copilot.core.provider_table import ProviderSpec
from desktop_copilot.core.providers.factory import SDK_MODULES
from desktop_copilot.core.providers.streaming import ProviderError
from desktop_copilot.core.runtime import MissingKeyError, Runtime
from desktop_copilot.qt.bridge.background import BackgroundTasks
from desktop_copilot.qt.common.theme import Theme
from desktop_copilot.qt.common.theme_switch import current_theme, themed_style_sheet
from desktop_copilot.qt.settings.keys_page import cancel_when_destroyed
from desktop_copilot.qt.settings.models_page import hint
from desktop_copilot.qt.settings.profile_editor import ProfileEditor
from desktop_copilot.qt.settings.profile_table import VALUE_ROLE, ProfileTableModel, SourceMarkDelegate, legend
from desktop_copilot.qt.settings.styles import set_kind

log = logging.getLogger(__name__)

REFRESH_TIMEOUT = 30.0
LOCAL_REFRESH_TIMEOUT = 10.0
"""Seconds a model server on this machine may take (Ollama asks `/api/show` of every model)."""


def conversation_model(window: QWidget | None) -> tuple[str, str] | None:
    """(provider id, model) the conversation of `window` talks to next, or None (no window, or none that chats)."""
    controller = getattr(window, "controller", None) if isinstance(window, QMainWindow) else None
    try:
        return (controller.provider_id, controller.model_name) if controller is not None else None
    except Exception:  # noqa: BLE001 - an unknown provider: the page starts on the default one
        log.info("the conversation's model is not known", exc_info=True)
        return None


class ModelProfilesPage(QWidget):
    def __init__(self, runtime: Runtime, current: tuple[str, str] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="modelProfilesPage")
        self.runtime = runtime
        self.current = current
        """(provider id, model) of the conversation: listed, and chosen when the page opens."""
        self.tasks = BackgroundTasks(lambda text: self._say(text, "error"))
        cancel_when_destroyed(self, self.tasks)
        self._overrides: dict[str, ModelOverride | None] = {}
        """"provider/model" -> the figures the user set here (None: cleared), over the saved ones until OK/Apply."""
        self._reported: dict[str, tuple[list[ModelFacts], datetime]] = {}
        """Provider id -> what Refresh listed, and when; cached in settings.json on OK/Apply."""
        self.setStyleSheet(profiles_style_sheet(current_theme()))
        self.provider_box = QComboBox(objectName="profileProviderBox")
        self.provider_box.setMinimumWidth(200)
        self.provider_box.setAccessibleName(self.tr("Provider"))
        self.filter_edit = QLineEdit(objectName="profileFilter", placeholderText=self.tr("Filter models"), clearButtonEnabled=True)
        self.filter_edit.setAccessibleName(self.tr("Filter models"))
        self.refresh_button = QPushButton(self.tr("Refresh"), objectName="refreshProfiles")
        self.refresh_button.setToolTip(self.tr("Ask the provider which models it has and what each one takes"))
        self.state = hint()
        self.table_model = ProfileTableModel(self)
        self.proxy = QSortFilterProxyModel(self, filterKeyColumn=0, sortRole=VALUE_ROLE)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setSourceModel(self.table_model)
        self.table = self._table()
        self.editor = ProfileEditor()
        self._layout()
        self._fill_providers()
        self.provider_box.currentIndexChanged.connect(lambda _index: self.show_provider(self.provider_id()))
        self.filter_edit.textChanged.connect(self.proxy.setFilterFixedString)
        self.filter_edit.returnPressed.connect(lambda: self.table.setFocus(Qt.FocusReason.OtherFocusReason))
        self.refresh_button.clicked.connect(lambda: self.tasks.start(self.refresh()))
        self.table.selectionModel().selectionChanged.connect(self._chosen)
        self.editor.sig_override_changed.connect(self._override_changed)
        self.show_provider(self.provider_id())

    def _table(self) -> QTableView:
        table = QTableView(objectName="modelProfiles")
        table.setModel(self.proxy)
        table.setItemDelegate(SourceMarkDelegate(current_theme(), table))
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setTabKeyNavigation(False)  # Tab leaves the table for the editor
        table.setSortingEnabled(True)
        table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the provider's order until a header is clicked
        table.setShowGrid(False)
        table.setWordWrap(False)
        table.setMinimumHeight(220)
        table.setAccessibleName(self.tr("Model profiles"))
        table.verticalHeader().hide()
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setHighlightSections(False)
        return table

    def _layout(self) -> None:
        bar = QHBoxLayout()
        bar.setSpacing(8)
        bar.addWidget(self.provider_box)
        bar.addWidget(self.filter_edit, 1)
        bar.addWidget(self.refresh_button)
        marks = hint(self.tr("{legend}. The table was taken {taken}; point at a figure to see where it came from.").format(
            legend=legend(), taken=TAKEN))
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(8)
        column.addLayout(bar)
        column.addWidget(self.state)
        column.addWidget(self.table, 1)
        column.addWidget(marks)
        column.addSpacing(4)
        column.addWidget(self.editor)

    # --- the provider and its models ------------------------------------------------------------------

    def provider_id(self) -> str:
        return self.provider_box.currentData() or ""

    def spec(self) -> ProviderSpec:
        return self.runtime.spec(self.provider_id())

    def _fill_providers(self) -> None:
        """Every provider (those added in Settings once saved), the chosen one kept; at first the conversation's."""
        wanted = self.provider_id() or (self.current[0] if self.current else self.runtime.config.provider)
        self.provider_box.blockSignals(True)
        self.provider_box.clear()
        for spec in self.runtime.providers().values():
            self.provider_box.addItem(spec.label, spec.id)
        self.provider_box.setCurrentIndex(max(0, self.provider_box.findData(wanted)))
        self.provider_box.blockSignals(False)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().showEvent(event)
        if [self.provider_box.itemData(i) for i in range(self.provider_box.count())] != list(self.runtime.providers()):
            self._fill_providers()
            self.show_provider(self.provider_id())

    def models(self, spec: ProviderSpec) -> list[str]:
        """The models of `spec` to list: what it reported last (else the ids its model list cached), those the user
        set figures for, and the conversation's; its default model (if it names one) when there are none."""
        settings = self._pending()
        found = [facts.id for facts in reported_for(settings.model_facts, spec.id)]
        if not found:
            cached = settings.provider_models.get(spec.id)
            found = list(cached.model_ids) if cached is not None else []
        found += [parts[1] for key in settings.model_overrides if (parts := split_facts_key(key)) and parts[0] == spec.id]
        if self.current is not None and self.current[0] == spec.id:
            found.append(self.current[1])
        return list(dict.fromkeys(model for model in found or [spec.default_model] if model))

    def show_provider(self, provider_id: str) -> None:
        """Lists `provider_id`'s models; the model chosen before (else the conversation's, else the first) is chosen."""
        chosen = self.chosen_model()
        spec = self.runtime.spec(provider_id)
        settings = self._pending()
        self.table_model.set_profiles([stored_profile(spec, model, settings.model_overrides, settings.model_facts, settings.learned_tools)
                                       for model in self.models(spec)])
        wanted = [model for model in (chosen, self.current[1] if self.current else None) if model]
        rows = [row for model in wanted if (row := self.table_model.row_of(model)) >= 0]
        self.choose_row(rows[0] if rows else 0)
        if not self.tasks.busy:
            self._say("", "info")

    def choose_row(self, row: int) -> None:
        """Chooses the model in `row` of the table's model (not the sorted view's), if it is shown."""
        index = self.proxy.mapFromSource(self.table_model.index(row, 0))
        if not index.isValid():
            index = self.proxy.index(0, 0)
        if index.isValid():
            self.table.selectRow(index.row())
            self.table.scrollTo(index)
        else:
            self.editor.show_model(None)

    def chosen_model(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        return self.proxy.data(rows[0]) if rows else None

    def _chosen(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        model = self.chosen_model()
        if model is None:
            self.editor.show_model(None)
            return
        spec = self.spec()
        settings = self._pending()
        self.editor.show_model(model, settings.model_overrides.get(facts_key(spec.id, model)),
                               stored_profile(spec, model, {}, settings.model_facts, settings.learned_tools))

    def _override_changed(self, override: ModelOverride | None) -> None:
        model = self.chosen_model()
        if model is None:
            return
        spec = self.spec()
        self._overrides[facts_key(spec.id, model)] = override
        settings = self._pending()
        self.table_model.replace(stored_profile(spec, model, settings.model_overrides, settings.model_facts, settings.learned_tools))

    def profile(self, model: str) -> ModelProfile | None:
        """The profile the table shows for `model` of the chosen provider, or None."""
        row = self.table_model.row_of(model)
        return self.table_model.profile_at(row) if row >= 0 else None

    # --- Refresh ---------------------------------------------------------------------------------------

    async def refresh(self) -> bool:
        """Asks the chosen provider for its models and what it knows of each; a failure is said in its words."""
        spec = self.spec()
        self.refresh_button.setEnabled(False)
        self._say(self.tr("Asking {provider} for its models…").format(provider=spec.label), "busy")
        try:
            await asyncio.to_thread(importlib.import_module, SDK_MODULES[spec.wire])
            listed = await asyncio.wait_for(self.runtime.list_model_facts(spec.id),
                                            LOCAL_REFRESH_TIMEOUT if spec.local else REFRESH_TIMEOUT)
        except Exception as exc:  # noqa: BLE001 - every failure is said in words
            self._say(self.failure_words(spec, exc), "error")
            return False
        finally:
            self.refresh_button.setEnabled(True)
        self._reported[spec.id] = (listed, datetime.now(timezone.utc))
        if self.provider_id() == spec.id:
            self.show_provider(spec.id)
        self._say(self.tr("%n models reported by {provider}.", "", len(listed)).format(provider=spec.label), "info")
        return True

    def failure_words(self, spec: ProviderSpec, exc: BaseException) -> str:
        """Why `spec` could not list its models, in its own words where it gave some, without a key."""
        if isinstance(exc, MissingKeyError):
            text = self.tr("No key for {provider}: add one on the Providers page.").format(provider=spec.label)
        elif isinstance(exc, ProviderError):
            text = str(exc)
        elif isinstance(exc, TimeoutError):
            text = self.tr("{provider} did not answer in time.").format(provider=spec.label)
        else:
            log.info("listing the %s model facts failed", spec.id, exc_info=exc)
            text = self.tr("{provider} could not list its models ({error}).").format(provider=spec.label,
                                                                                    error=f"{type(exc).__name__}: {exc}")
        return redact(text)

    def _say(self, text: str, kind: str) -> None:
        self.state.setText(text)
        self.state.setVisible(bool(text))
        set_kind(self.state, kind)
        if kind == "error":
            self.refresh_button.setEnabled(True)

    # --- what OK/Apply saves ---------------------------------------------------------------------------

    def edits(self, current: Settings) -> dict:
        """`model_overrides` with the figures set here, `model_facts` with what Refresh listed (other entries kept
        as `current` has them)."""
        overrides = {key: found for key, found in current.model_overrides.items() if key not in self._overrides}
        overrides.update({key: found for key, found in self._overrides.items() if found is not None})
        reported: dict[str, ReportedFacts] = dict(current.model_facts)
        for provider_id, (listed, fetched_at) in self._reported.items():
            reported = with_reported(reported, provider_id, listed, fetched_at)
        return {"model_overrides": overrides, "model_facts": reported}

    def _pending(self) -> Settings:
        """The saved settings with this page's edits (what the table shows)."""
        current = self.runtime.settings or Settings()
        return current.model_copy(update=self.edits(current))


@themed_style_sheet
def profiles_style_sheet(theme: Theme) -> str:
    return f"""
        QTableView#modelProfiles {{
            background: {theme.card}; color: {theme.text};
            border: 1px solid {theme.border}; border-radius: 8px; outline: none;
            selection-background-color: {theme.row_selected}; selection-color: {theme.text};
        }}
        QTableView#modelProfiles:focus {{ border-color: {theme.accent}; }}
        QTableView#modelProfiles::item {{ padding: 0 4px; }}
        QTableView#modelProfiles QHeaderView::section {{
            background: {theme.sidebar_background}; color: {theme.muted}; border: none;
            border-bottom: 1px solid {theme.border}; padding: 4px 8px; font-weight: 600;
        }}
        QTableView#modelProfiles QTableCornerButton::section {{ background: {theme.sidebar_background}; border: none; }}
    """
