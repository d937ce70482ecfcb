"""The Models page: the default model (from `GET /v1/models`, cached, or a built-in list), the output limit,
extended thinking and its budget, the tool-round limit, and compaction of long conversations (context_group.py)."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_copilot.core.config.app_config import DEFAULT_MODEL, MAX_TOKENS_ENV, parse_max_tokens
from desktop_copilot.core.provider_table import PROVIDERS
from desktop_copilot.core.providers.key_test import check_provider_key
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.config.settings import ModelsCache, Settings
from desktop_copilot.qt.bridge.background import BackgroundTasks, off_gui_thread
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme_switch import theme_switch
from desktop_copilot.qt.settings.context_group import ContextGroup
from desktop_copilot.qt.settings.styles import set_kind
from desktop_copilot.qt.settings.toggle_switch import ToggleSwitch

CACHE_MAX_AGE = timedelta(days=1)
"""An older list is fetched again when the page is first shown (if there is a key)."""
MAX_THINKING_BUDGET = 64_000
MAX_OUTPUT_LIMIT = 128_000
"""The largest output limit the spin box offers (what Opus and Sonnet 4.6 accept)."""
LABEL_WIDTH = 130
NATIVE_LANGUAGE_NAMES = {"en": "English", "zh_CN": "简体中文"}  # i18n: not translated
"""Settings.language values after "auto", named in the Language box in their own words."""


def group(title: str, form: QFormLayout) -> QFrame:
    """A white card with a bold title over a form."""
    frame = QFrame(objectName="settingsGroup")
    column = QVBoxLayout(frame)
    column.setContentsMargins(16, 14, 16, 14)
    column.setSpacing(8)
    column.addWidget(PlainLabel(title, objectName="groupTitle"))
    form.setHorizontalSpacing(14)
    form.setVerticalSpacing(8)
    form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    column.addLayout(form)
    return frame


def label(text: str) -> QLabel:
    """A form label; one fixed width lines the fields up across the groups."""
    widget = PlainLabel(text)
    widget.setFixedWidth(LABEL_WIDTH)
    widget.setMinimumHeight(32)  # as tall as a field, so the text sits on the field's centre line
    return widget


def beside(field: QWidget, text: str) -> QHBoxLayout:
    """A field with a short muted explanation to its right."""
    row = QHBoxLayout()
    row.setSpacing(12)
    row.addWidget(field)
    row.addWidget(hint(text), 1)
    return row


def hint(text: str = "") -> QLabel:
    label = PlainLabel(text, objectName="hint", wordWrap=True)
    label.setOpenExternalLinks(True)
    return label


class ModelsPage(QWidget):
    sig_models_fetched = Signal(list)
    """Model ids the API just listed (the dialog caches them in settings.json)."""

    def __init__(self, runtime: Runtime, settings: Settings, base_url, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.base_url = base_url
        """() -> the Anthropic base URL as it would be after Apply."""
        self.tasks = BackgroundTasks(lambda text: self._show_list_state(text, "error"))
        self._fetched_once = False
        self.model_box = QComboBox(editable=True, objectName="modelBox")
        self.model_box.setMinimumWidth(280)
        self.refresh_button = QPushButton(self.tr("Refresh"))
        self.refresh_button.setToolTip(self.tr("Ask the API which models your key can use"))
        self.list_state = hint()
        self.env_model = hint()
        self.max_tokens = QSpinBox(minimum=1, maximum=max(MAX_OUTPUT_LIMIT, settings.max_tokens), singleStep=1000,
                                   suffix=self.tr(" tokens"), objectName="maxTokensBox")
        self.max_tokens.setGroupSeparatorShown(True)
        self.max_tokens.setFixedWidth(150)
        self.max_tokens.setAccessibleName(self.tr("Output limit (max tokens)"))
        self.max_tokens.setToolTip(self.tr("max_tokens of each request: the longest reply Claude may write"))
        self.env_max_tokens = hint()
        self.thinking_switch = ToggleSwitch()
        self.budget = QSpinBox(minimum=1024, maximum=MAX_THINKING_BUDGET, singleStep=1024, suffix=self.tr(" tokens"))
        self.budget.setGroupSeparatorShown(True)
        self.budget.setFixedWidth(150)
        self.rounds = QSpinBox(minimum=0, maximum=100)
        self.rounds.setFixedWidth(150)
        self.rounds.setToolTip(self.tr("0 means Claude may not use tools at all"))
        self.language_box = QComboBox(objectName="languageBox")
        self.language_box.addItem(self.tr("Automatic (system language)"), "auto")
        for value, name in NATIVE_LANGUAGE_NAMES.items():
            self.language_box.addItem(name, value)  # each language in its own words, not translated
        self.language_box.setCurrentIndex(max(0, self.language_box.findData(settings.language)))
        self.language_box.setAccessibleName(self.tr("Interface language"))
        self.appearance_box = QComboBox(objectName="appearanceBox")
        for text, value in ((self.tr("Automatic"), "auto"), (self.tr("Light"), "light"), (self.tr("Dark"), "dark")):
            self.appearance_box.addItem(text, value)
        self.appearance_box.setCurrentIndex(max(0, self.appearance_box.findData(settings.theme)))
        self.appearance_box.setAccessibleName(self.tr("Appearance"))
        self._appearance_hooked = False
        self.notifications_switch = ToggleSwitch()
        self.notifications_switch.setObjectName("notificationsSwitch")
        self.notifications_switch.setChecked(settings.desktop_notifications)
        self.notifications_switch.setAccessibleName(self.tr("Desktop notifications"))
        self.context = ContextGroup(runtime, settings, self)  # when to compact, turns kept whole, the summariser
        for spin in (self.max_tokens, self.budget, self.rounds):
            spin.lineEdit().setTextMargins(6, 0, 0, 0)  # style-sheet padding does not reach a spin box's text
        self._layout()
        self.set_model_ids(*_initial_ids(settings))
        self.model_box.setCurrentText(settings.default_model or DEFAULT_MODEL)
        self.thinking_switch.setChecked(settings.thinking_enabled)
        self.budget.setValue(settings.thinking_budget)
        self.budget.setEnabled(settings.thinking_enabled)
        self.rounds.setValue(settings.max_tool_rounds)
        self.max_tokens.setValue(settings.max_tokens)
        self._show_environment_overrides()
        self.thinking_switch.toggled.connect(self.budget.setEnabled)
        self.refresh_button.clicked.connect(lambda: self.tasks.start(self.refresh()))

    def _layout(self) -> None:
        model_row = QHBoxLayout()
        model_row.setSpacing(8)
        model_row.addWidget(self.model_box, 1)
        model_row.addWidget(self.refresh_button)
        model_form = QFormLayout()
        model_form.addRow(label(self.tr("Default model")), model_row)
        model_form.addRow("", self.list_state)
        model_form.addRow("", self.env_model)
        model_form.addRow(label(self.tr("Output limit")), beside(
            self.max_tokens, self.tr("Max tokens per reply. A longer answer is cut off; Continue picks it up.")))
        model_form.addRow("", self.env_max_tokens)
        thinking_form = QFormLayout()
        thinking_form.addRow(label(self.tr("Extended thinking")), beside(self.thinking_switch, self.tr("Let Claude think before it answers")))
        thinking_form.addRow(label(self.tr("Thinking budget")), beside(self.budget, self.tr("At least 1,024. More allows deeper reasoning and costs more.")))
        tools_form = QFormLayout()
        tools_form.addRow(label(self.tr("Max tool rounds")), beside(self.rounds, self.tr("Tool calls per reply before Claude must answer.")))
        context_form = QFormLayout()
        self.context.add_rows(context_form, label, beside, hint)
        language_form = QFormLayout()
        language_form.addRow(label(self.tr("Language")), beside(self.language_box, self.tr("Applies at the next start.")))
        language_form.addRow(label(self.tr("Appearance")), beside(self.appearance_box, self.tr("Automatic follows the system's light or dark mode.")))
        language_form.addRow(label(self.tr("Notifications")), beside(self.notifications_switch, self.tr(
            "Tell me when a reply in another conversation finishes or needs my approval.")))
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(12)
        column.addWidget(group(self.tr("Model"), model_form))
        column.addWidget(group(self.tr("Thinking"), thinking_form))
        column.addWidget(group(self.tr("Tool use"), tools_form))
        column.addWidget(group(self.tr("Long conversations"), context_form))
        column.addWidget(group(self.tr("Interface"), language_form))
        column.addStretch(1)

    # --- the model list ------------------------------------------------------------------

    def set_model_ids(self, ids: list[str] | tuple[str, ...], fetched_at: datetime | None) -> None:
        current = self.model_box.currentText()
        self.model_box.clear()
        self.model_box.addItems(list(ids))
        self.model_box.setCurrentText(current)
        if fetched_at is None:
            self._show_list_state(self.tr("Built-in list. Refresh asks the API (needs an Anthropic key)."), "info")
        else:
            when = fetched_at.astimezone().strftime("%Y-%m-%d %H:%M")
            self._show_list_state(self.tr("%n models from the API, fetched {when}.", "", len(ids)).format(when=when), "info")

    async def refresh(self, *, quiet: bool = False) -> bool:
        found = await off_gui_thread(self.runtime.keys.get, "anthropic")
        if found is None:
            if not quiet:
                self._show_list_state(self.tr("Add an Anthropic key on the Providers page to fetch the list."), "error")
            return False
        self.refresh_button.setEnabled(False)
        self._show_list_state(self.tr("Asking the API for models…"), "busy")
        spec = PROVIDERS["anthropic"]
        try:
            listed = await check_provider_key(spec, found.secret, self.base_url() or self.runtime.base_url(spec))
        finally:
            self.refresh_button.setEnabled(True)
        if not listed.ok:
            self._show_list_state(f"{listed.message} " + (self.tr("Showing the cached list.") if self._cached else self.tr("Showing the built-in list.")), "error")
            return False
        ids = listed.model_ids
        self.set_model_ids(ids, datetime.now(timezone.utc))
        self.sig_models_fetched.emit(ids)
        return True

    def showEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().showEvent(event)
        if not self._appearance_hooked and (applied := getattr(self.window(), "sig_applied", None)) is not None:
            self._appearance_hooked = True
            applied.connect(self.apply_appearance)  # the settings dialog saved (OK or Apply): switch live
        cache = self.runtime.settings.provider_models.get("anthropic") if self.runtime.settings else None
        if not self._fetched_once and (cache is None or _age(cache) > CACHE_MAX_AGE):
            self._fetched_once = True
            self.tasks.start(self.refresh(quiet=True))

    @property
    def _cached(self) -> bool:
        return bool(self.runtime.settings and self.runtime.settings.provider_models.get("anthropic"))

    def _show_list_state(self, text: str, kind: str) -> None:
        self.list_state.setText(text)
        set_kind(self.list_state, kind)

    def _show_environment_overrides(self) -> None:
        model = os.environ.get("DESKTOP_COPILOT_MODEL", "").strip()
        self.env_model.setText(self.tr("{setting} is set and wins over this choice.").format(setting=f"DESKTOP_COPILOT_MODEL={model}") if model else "")
        self.env_model.setVisible(bool(model))
        self.env_max_tokens.setText(_max_tokens_override(os.environ.get(MAX_TOKENS_ENV, "").strip()))
        self.env_max_tokens.setVisible(bool(self.env_max_tokens.text()))

    def apply_appearance(self) -> None:
        """Light, dark or the system's, as chosen, for every open window at once (once the settings are saved)."""
        if (switch := theme_switch()) is not None:
            switch.set_setting(self.appearance_box.currentData())

    # --- results ---------------------------------------------------------------------------

    def edits(self, settings: Settings) -> dict:
        """The fields this page edits, as Settings values (validated by the caller)."""
        model = self.model_box.currentText().strip()
        if settings.default_model is None and model == DEFAULT_MODEL:
            model = None
        return {
            "default_model": model or None,
            "thinking_enabled": self.thinking_switch.isChecked(),
            "thinking_budget": self.budget.value(),
            "max_tool_rounds": self.rounds.value(),
            "max_tokens": self.max_tokens.value(),
            "language": self.language_box.currentData(),
            "theme": self.appearance_box.currentData(),
            "desktop_notifications": self.notifications_switch.isChecked(),
            **self.context.edits(),
        }


def _initial_ids(settings: Settings) -> tuple[list[str], datetime | None]:
    cache: ModelsCache | None = settings.provider_models.get("anthropic")
    if cache and cache.model_ids:
        return cache.model_ids, cache.fetched_at
    return list(dict.fromkeys([DEFAULT_MODEL, *PROVIDERS["anthropic"].fallback_models])), None


def _max_tokens_override(raw: str) -> str:
    """What the page says about DESKTOP_COPILOT_MAX_TOKENS (nothing when it is not set)."""
    if not raw:
        return ""
    try:
        parse_max_tokens(raw)
    except ValueError:
        return QCoreApplication.translate("ModelsPage",
            "{setting} is not a positive number of tokens and is ignored.").format(setting=f"{MAX_TOKENS_ENV}={raw}")
    return QCoreApplication.translate("ModelsPage", "{setting} is set and wins over this field.").format(setting=f"{MAX_TOKENS_ENV}={raw}")


def _age(cache: ModelsCache) -> timedelta:
    fetched = cache.fetched_at if cache.fetched_at.tzinfo else cache.fetched_at.replace(tzinfo=timezone.utc)
    return datetime.now(timezone.utc) - fetched
