"""The settings dialog (Providers, Models, Tools, Tool keys, MCP servers, Permissions, Knowledge, Assistants, Prices): keys are saved to the
keyring at once, everything else on OK/Apply through core.bootstrap.apply_settings (MCP servers, permissions and knowledge
sources change at once, in their own files)."""

from __future__ import annotations

import logging

from pydantic import ValidationError
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QListWidget,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_copilot.core.bootstrap import apply_settings, effective_config
from desktop_copilot.core.keys.keyring_store import KeyStoreError
from desktop_copilot.core.provider_table import DEFAULT_PROVIDER
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.config.settings import Settings, SettingsError, models_cache_now
from desktop_copilot.qt.bridge.background import BackgroundTasks
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme_switch import current_theme
from desktop_copilot.qt.settings.assistants_page import AssistantsPage
from desktop_copilot.qt.settings.keys_page import KeysPage
from desktop_copilot.qt.settings.knowledge_page import KnowledgePage, window_indexing
from desktop_copilot.qt.settings.mcp_page import McpPage
from desktop_copilot.qt.settings.model_profiles import ModelProfilesPage, conversation_model
from desktop_copilot.qt.settings.models_page import ModelsPage
from desktop_copilot.qt.settings.permissions_page import PermissionsPage
from desktop_copilot.qt.settings.prices_page import PricesPage
from desktop_copilot.qt.settings.providers_page import ProvidersPage
from desktop_copilot.qt.settings.styles import set_kind, settings_style_sheet
from desktop_copilot.qt.settings.tools_page import ToolsPage

log = logging.getLogger(__name__)

PAGES = {
    "providers": (QT_TRANSLATE_NOOP("SettingsDialog", "Providers"),
                  QT_TRANSLATE_NOOP("SettingsDialog", "Which services answer: each one's key, endpoint and model list, and the default. "
                                                      "Keys are saved at once, the rest on OK.")),
    "models": (QT_TRANSLATE_NOOP("SettingsDialog", "Models"),
               QT_TRANSLATE_NOOP("SettingsDialog", "Which Claude answers, and how much it may think and use tools.")),
    "tools": (QT_TRANSLATE_NOOP("SettingsDialog", "Tools"),
              QT_TRANSLATE_NOOP("SettingsDialog", "What Claude may use while it answers. A tool without its key is never offered.")),
    "keys": (QT_TRANSLATE_NOOP("SettingsDialog", "Tool keys"),
             QT_TRANSLATE_NOOP("SettingsDialog", "Keys for the tools that need one (web search). Each provider's key is on the "
                                                 "Providers page. Saving stores a key at once.")),
    "mcp": (QT_TRANSLATE_NOOP("SettingsDialog", "MCP servers"),
            QT_TRANSLATE_NOOP("SettingsDialog", "Programs and services that give Claude more tools. Changes here take effect at once.")),
    "permissions": (QT_TRANSLATE_NOOP("SettingsDialog", "Permissions"),
                    QT_TRANSLATE_NOOP("SettingsDialog", "Rules that allow, ask or deny tool calls, and the permissions you gave on approval cards.")),
    "knowledge": (QT_TRANSLATE_NOOP("SettingsDialog", "Knowledge"),
                  QT_TRANSLATE_NOOP("SettingsDialog", "Folders and files you add here are searched by the search_knowledge tool. "
                                                      "Everything stays on this computer; with an embedding model, passages are "
                                                      "sent to it to be embedded.")),
    "assistants": (QT_TRANSLATE_NOOP("SettingsDialog", "Assistants"),
                   QT_TRANSLATE_NOOP("SettingsDialog", "Starting points for new chats: a system prompt, a model, thinking and tools. "
                                                       "Changes here are saved at once.")),
    "prices": (QT_TRANSLATE_NOOP("SettingsDialog", "Prices"),
               QT_TRANSLATE_NOOP("SettingsDialog", "What each model costs per million tokens, used for the cost of each reply, each "
                                                   "conversation and View ▸ Usage. Applied on OK.")),
    "profiles": (QT_TRANSLATE_NOOP("SettingsDialog", "Model profiles"),
                 QT_TRANSLATE_NOOP("SettingsDialog", "What each model takes, how it thinks and calls tools, and where each figure "
                                                     "came from. Correct a figure that is wrong for you; applied on OK.")),
}
"""Page name -> its title and subtitle, in English (translated where shown)."""


def _titled(name: str, body: QWidget) -> QScrollArea:
    title, subtitle = (QCoreApplication.translate("SettingsDialog", text) for text in PAGES[name])
    page = QWidget(objectName="pageBody")
    column = QVBoxLayout(page)
    column.setContentsMargins(28, 24, 28, 24)
    column.setSpacing(6)
    column.addWidget(PlainLabel(title, objectName="pageTitle"))
    column.addWidget(PlainLabel(subtitle, objectName="pageSubtitle", wordWrap=True))
    column.addSpacing(12)
    column.addWidget(body, 1)
    scroll = QScrollArea(objectName="pageScroll", widgetResizable=True)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    scroll.setWidget(page)
    return scroll


class SettingsDialog(QDialog):
    sig_applied = Signal()
    """Settings were saved and are in effect (the window refreshes its model label)."""

    def __init__(self, runtime: Runtime, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="settingsDialog")
        self.runtime = runtime
        self.setWindowTitle(self.tr("Settings"))
        self.resize(840, 640)
        self.setStyleSheet(settings_style_sheet(current_theme()))
        self.tasks = BackgroundTasks(self._show_status_error)
        settings = runtime.settings or Settings()
        self.keys_page = KeysPage(runtime, runtime.key_store, self._tool_url)
        self.models_page = ModelsPage(runtime, settings, lambda: self.providers_page.endpoint(DEFAULT_PROVIDER))
        self.tools_page = ToolsPage(runtime.registry.all(), runtime.switched_off_tools, settings)
        self.providers_page = ProvidersPage(runtime, self.pending_settings)
        self.mcp_page = McpPage(runtime.mcp_config, runtime.mcp)
        self.permissions_page = PermissionsPage(runtime.grants)
        self.knowledge_page = KnowledgePage(runtime, settings, window_indexing(parent))
        self.assistants_page = AssistantsPage(runtime)
        self.prices_page = PricesPage(settings)
        self.profiles_page = ModelProfilesPage(runtime, conversation_model(parent))
        self.nav = QListWidget(objectName="settingsNav")
        self.nav.setFixedWidth(180)
        self.stack = QStackedWidget()
        pages = {"providers": self.providers_page, "keys": self.keys_page, "models": self.models_page, "tools": self.tools_page,
                 "mcp": self.mcp_page, "permissions": self.permissions_page, "knowledge": self.knowledge_page, "assistants": self.assistants_page,
                 "prices": self.prices_page, "profiles": self.profiles_page}  # the stack in the order the pages came; the list in PAGES order
        self._scrolls = {name: _titled(name, page) for name, page in pages.items()}
        for scroll in self._scrolls.values():
            self.stack.addWidget(scroll)
        for title, _subtitle in PAGES.values():
            self.nav.addItem(self.tr(title))
        self.status = PlainLabel(objectName="keyMessage", wordWrap=True)
        self.ok_button = QPushButton(self.tr("OK"), objectName="primaryButton", default=True, autoDefault=True)
        self.apply_button = QPushButton(self.tr("Apply"), autoDefault=False)
        self.cancel_button = QPushButton(self.tr("Cancel"), autoDefault=False)
        self._layout()
        self.nav.currentRowChanged.connect(lambda row: self.stack.setCurrentWidget(self._scrolls[list(PAGES)[row]]))
        self.nav.setCurrentRow(0)
        self.keys_page.sig_keys_changed.connect(self.tools_page.set_keys)
        self.providers_page.sig_models_listed.connect(self._cache_listed)
        self.models_page.sig_models_fetched.connect(lambda ids: self._cache_listed(DEFAULT_PROVIDER, ids))
        self.tools_page.sig_add_key.connect(self.show_key)
        self.sig_applied.connect(self.knowledge_page.applied)
        self.tools_page.set_knowledge(runtime.has_knowledge(fresh=True))  # search_knowledge: offered with a source on
        self.knowledge_page.indexing.sig_changed.connect(lambda: self.tools_page.set_knowledge(runtime.has_knowledge(fresh=True)))
        self.ok_button.clicked.connect(lambda: self.tasks.start(self.apply(close=True)))
        self.apply_button.clicked.connect(lambda: self.tasks.start(self.apply()))
        self.cancel_button.clicked.connect(self.reject)
        self.keys_page.tasks.start(self.keys_page.load())
        self.providers_page.tasks.start(self.providers_page.load())

    def _layout(self) -> None:
        buttons = QWidget(objectName="buttonBar")
        row = QHBoxLayout(buttons)
        row.setContentsMargins(20, 12, 20, 12)
        row.addWidget(self.status, 1)
        for button in (self.cancel_button, self.apply_button, self.ok_button):
            row.addWidget(button)
        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(0)
        body.addWidget(self.nav)
        body.addWidget(self.stack, 1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addLayout(body, 1)
        column.addWidget(buttons)

    # --- navigation --------------------------------------------------------------------

    def show_page(self, name: str) -> None:
        self.nav.setCurrentRow(list(PAGES).index(name))

    def current_page(self) -> str:
        return list(PAGES)[self.nav.currentRow()]

    def show_key(self, name: str) -> None:
        if name in self.keys_page.fields:
            self.show_page("keys")
            self.keys_page.focus_key(name)
        elif name in self.providers_page.rows:
            self.show_provider(name)

    def show_provider(self, provider_id: str) -> None:
        self.show_page("providers")
        self._scrolls["providers"].ensureWidgetVisible(self.providers_page.focus(provider_id))

    # --- saving ------------------------------------------------------------------------

    def pending_settings(self) -> Settings:
        """The settings as edited (raises ValidationError for a bad value)."""
        current = self.runtime.settings or Settings()
        registered = {tool.name for tool in self.runtime.registry.all()}
        edits = self.models_page.edits(current)
        edits["disabled_tools"] = (current.disabled_tools - registered) | self.tools_page.switched_off()
        edits.update(self.providers_page.edits(current))
        edits.update(self.tools_page.edits())
        edits.update(self.prices_page.edits())
        edits.update(self.profiles_page.edits(current))
        edits.update(self.knowledge_page.edits())
        return Settings.model_validate({**current.model_dump(), **edits})

    async def apply(self, *, close: bool = False) -> bool:
        """Saves typed keys and the settings; closes on success when `close`."""
        for name in self.keys_page.pending_names():
            if not await self.keys_page.save(name):
                self.show_key(name)
                return False
        for provider_id in self.providers_page.pending_names():
            if not await self.providers_page.save(provider_id):
                self.show_provider(provider_id)
                return False
        if problem := self.providers_page.problem():
            self._show_status_error(self.tr("Not saved: {problem}").format(problem=problem[1]))
            self.show_provider(problem[0])
            return False
        if problem := self.prices_page.problem():
            self._show_status_error(self.tr("Not saved: {problem}").format(problem=problem))
            self.show_page("prices")
            return False
        if problem := self.knowledge_page.problem():
            self._show_status_error(self.tr("Not saved: {problem}").format(problem=problem))
            self.show_page("knowledge")
            return False
        try:
            apply_settings(self.runtime, self.pending_settings())
            await self.providers_page.forget_removed_keys()
        except ValidationError as exc:
            self._show_status_error(self.tr("Not saved: {problem}").format(problem=_first_problem(exc)))
            self.show_page("models")
            return False
        except (SettingsError, OSError) as exc:
            self._show_status_error(self.tr("Not saved: {problem}").format(problem=exc))
            return False
        except KeyStoreError as exc:  # the settings were saved; a removed endpoint's key was not deleted
            self._show_status_error(self.tr("Saved, but {problem}").format(problem=exc))
            return False
        self.status.setText(self.tr("Saved."))
        set_kind(self.status, "ok")
        self.sig_applied.emit()
        if close:
            self.accept()
        return True

    def _cache_listed(self, provider_id: str, ids: list[str]) -> None:
        """Keeps a model list a Test or Refresh fetched in settings.json at once (only the list: other edits wait for OK)."""
        current = self.runtime.settings or Settings()
        listed = models_cache_now(ids)
        if provider_id == DEFAULT_PROVIDER:  # the Models page offers the default provider's (Claude's) models
            self.models_page.set_model_ids(ids, listed.fetched_at)
        try:
            apply_settings(self.runtime, current.model_copy(update={"provider_models": {**current.provider_models, provider_id: listed}}))
        except (SettingsError, OSError) as exc:
            log.warning("the model list of %s was not cached: %s", provider_id, exc)

    def _tool_url(self, _name: str) -> str | None:
        """A tool's base URL as it would be after Apply (the environment still wins): Tavily's is the only one."""
        try:
            config = effective_config(self.pending_settings())
        except ValidationError:
            config = self.runtime.config
        return config.tavily_base_url

    def _show_status_error(self, text: str) -> None:
        self.status.setText(text)
        set_kind(self.status, "error")

    def done(self, result: int) -> None:
        self.tasks.cancel_all()
        self.keys_page.tasks.cancel_all()
        self.models_page.tasks.cancel_all()
        self.providers_page.tasks.cancel_all()
        self.providers_page.servers.tasks.cancel_all()  # a local server still being asked whether it runs
        self.mcp_page.tasks.cancel_all()
        self.profiles_page.tasks.cancel_all()
        self.knowledge_page.release()
        super().done(result)


def _first_problem(error: ValidationError) -> str:
    item = error.errors(include_url=False)[0]
    names = {"thinking_budget": QCoreApplication.translate("ModelsPage", "Thinking budget")}
    where = names.get(str(item["loc"][0]), str(item["loc"][0])) if item["loc"] else QCoreApplication.translate("SettingsDialog", "settings")
    return f"{where} {item['msg'].removeprefix('Value error, ')}."
