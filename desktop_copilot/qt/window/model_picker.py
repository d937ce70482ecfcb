"""The model picker in the conversation header: a button showing "Provider · model" that opens the popup of models
(model_popup.py), with what it lists: the providers not switched off, their models and whether their key is there
(checked on the keyring thread); a provider's list can be refreshed from its API and is then kept in the settings."""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, QPoint, Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QWidget

from desktop_copilot.core.bootstrap import apply_settings
from desktop_copilot.core.keys.redaction import redact
from desktop_copilot.core.runtime import MissingKeyError
from desktop_copilot.core.config.settings import SettingsError, models_cache_now
from desktop_copilot.qt.bridge.background import BackgroundTasks
from desktop_copilot.qt.bridge.controller import ChatController
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme
from desktop_copilot.qt.common.theme_switch import themed_style_sheet
from desktop_copilot.qt.window.model_popup import ModelPopup, ProviderState

log = logging.getLogger(__name__)


def problem_in_words(exc: BaseException) -> str:
    """The failure shown under the provider, masked: an SDK's message quotes the error body, where a 401 may echo the key."""
    if isinstance(exc, MissingKeyError):
        return str(exc)
    status = getattr(exc, "status_code", None)
    detail = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return redact(QCoreApplication.translate("ModelPicker", "Could not list the models: {problem}").format(problem=detail) + (
        f" (HTTP {status})" if status else ""))


@themed_style_sheet
def picker_style(theme: Theme) -> str:
    return f"""
        QFrame#modelPicker {{ background: {theme.button_hover}; border: 1px solid {theme.border}; border-radius: 10px; }}
        QFrame#modelPicker:hover {{ background: {theme.row_hover}; }}
        QFrame#modelPicker:focus {{ border-color: {theme.accent}; }}
        QFrame#modelPicker > QLabel {{ background: transparent; border: none; font-size: 9pt; color: {theme.muted}; }}
        QFrame#modelPicker > QLabel#pickerProvider {{ color: {theme.text}; font-weight: 600; }}
    """


class ModelPicker(QFrame):
    """The header button: "Provider · model" of the open conversation. A click, Space, Enter or Down opens the
    popup; it is disabled while a reply is being written. Keys are checked on the keyring thread each time
    the popup opens; lists refreshed here are kept in the settings like the settings dialog's."""

    sig_add_key_requested = Signal(str)
    """A provider's "Add a key…" was chosen: its id."""

    def __init__(self, controller: ChatController, parent: QWidget | None = None, theme: Theme = DEFAULT_THEME) -> None:
        super().__init__(parent, objectName="modelPicker")
        self.controller = controller
        self.provider_label = PlainLabel(objectName="pickerProvider")
        self.model_label = PlainLabel(objectName="pickerModel")
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 3, 8, 3)
        row.setSpacing(5)
        for widget in (self.provider_label, PlainLabel("·", objectName="pickerDot"), self.model_label,
                       PlainLabel("▾", objectName="pickerArrow")):
            row.addWidget(widget)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setAttribute(Qt.WidgetAttribute.WA_Hover)
        self.setStyleSheet(picker_style(theme))
        self.popup = ModelPopup(self, theme)
        self.popup.sig_chosen.connect(self.choose)
        self.popup.sig_add_key.connect(self.sig_add_key_requested)
        self.popup.sig_refresh.connect(self.refresh_models)
        self.tasks = BackgroundTasks()
        self.has_key: dict[str, bool] = {}
        self.listed: dict[str, list[str]] = {}
        self.problems: dict[str, str] = {}
        self.refreshing: set[str] = set()
        self.asked: set[str] = set()
        """Local servers already asked for their models by opening the popup."""
        controller.sig_busy_changed.connect(self._on_busy_changed)
        controller.sig_model_changed.connect(self.refresh)
        self.refresh()

    @property
    def runtime(self):
        return self.controller.session.runtime

    def refresh(self) -> None:
        """Show the provider and model the conversation's next message goes to."""
        controller = self.controller
        self.provider_label.setText(controller.provider_label(controller.provider_id))
        self.model_label.setText(controller.model_name)
        self.setToolTip(self.tr("Stop the reply to change the model") if controller.busy
                        else self.tr("The model answering in this conversation: click to choose another"))

    def text(self) -> str:
        return f"{self.provider_label.text()} · {self.model_label.text()}"

    def choose(self, provider_id: str, model: str) -> bool:
        return self.controller.choose_model(provider_id, model)

    # --- the popup -------------------------------------------------------------------

    def open_popup(self) -> ModelPopup:
        popup = self.popup
        popup.search.blockSignals(True)
        popup.search.clear()
        popup.search.blockSignals(False)
        popup.show_states(self.provider_states(), (self.controller.provider_id, self.controller.model_name))
        popup.move(self._popup_position())
        popup.show()
        popup.search.setFocus(Qt.FocusReason.PopupFocusReason)
        self.tasks.start(self.check_keys())
        self._list_local_servers()
        return popup

    def _list_local_servers(self) -> None:
        """The first time the popup opens, each model server on this computer with no list yet is asked for its models
        (a server that is not running says so under its name), so its models can be chosen without a Refresh."""
        hidden = self.runtime.settings.disabled_providers if self.runtime.settings is not None else set()
        for spec in self.runtime.providers().values():
            if spec.local and spec.id not in hidden and spec.id not in self.asked and not self._listed(spec.id):
                self.asked.add(spec.id)
                self.refresh_models(spec.id, quiet=True)

    def provider_states(self) -> list[ProviderState]:
        """Each provider not switched off in Settings, with its models: the list it gave (cached in the settings
        or refreshed here), else its default; plus the conversation's model and the configured default."""
        runtime, settings = self.runtime, self.runtime.settings
        hidden = settings.disabled_providers if settings is not None else set()
        config, current = runtime.config, (self.controller.provider_id, self.controller.model_name)
        states = []
        for spec in runtime.providers().values():
            if spec.id in hidden:
                continue
            listed = self._listed(spec.id) or ([spec.default_model] if spec.default_model else [])
            extra = [current[1]] if spec.id == current[0] else []
            if spec.id == config.provider and (spec.wire == "anthropic" or not config.model.startswith("claude-")):
                extra.append(config.model)
            models = list(dict.fromkeys(m for m in extra if m and m not in listed)) + listed
            has_key = True if not spec.needs_key else self.has_key.get(spec.key_name)
            states.append(ProviderState(spec, models, has_key, spec.id in self.refreshing, self.problems.get(spec.id, "")))
        return states

    def _listed(self, provider_id: str) -> list[str]:
        if provider_id in self.listed:
            return self.listed[provider_id]
        settings = self.runtime.settings
        if settings is None:
            return []
        cache = settings.provider_models.get(provider_id)
        return list(cache.model_ids) if cache is not None else []

    def _popup_position(self) -> QPoint:
        """Under the button, its right edge on the button's, kept on the screen."""
        popup, below = self.popup, self.mapToGlobal(QPoint(self.width(), self.height() + 4))
        x, y = below.x() - popup.width(), below.y()
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        if screen is not None:
            x = max(screen.left(), min(x, screen.right() - popup.width()))
            y = min(y, max(screen.top(), screen.bottom() - popup.height()))
        return QPoint(x, y)

    def _update_popup(self) -> None:
        if self.popup.isVisible():
            self.popup.show_states(self.provider_states())

    async def check_keys(self) -> None:
        """Learn which providers' keys are present (read off the GUI thread); the popup follows."""
        runtime = self.runtime
        names = sorted({spec.key_name for spec in runtime.providers().values() if spec.key_name})
        found = await runtime.keys_present(names)
        if any(self.has_key.get(name) != present for name, present in found.items()):
            self.has_key.update(found)
            self._update_popup()

    def refresh_models(self, provider_id: str, *, quiet: bool = False) -> None:
        """Ask the provider for its models (off the GUI thread); a failure is shown under its name, unless `quiet`
        (a local server asked unbidden: one that is not running shows no error)."""
        if provider_id in self.refreshing:
            return
        self.refreshing.add(provider_id)
        self.problems.pop(provider_id, None)
        self._update_popup()
        self.tasks.start(self._refresh(provider_id, quiet))

    async def _refresh(self, provider_id: str, quiet: bool = False) -> None:
        try:
            ids = await self.runtime.list_models(provider_id)
        except Exception as exc:  # the client's errors, in words under the provider
            log.info("listing the models of %s failed: %s", provider_id, type(exc).__name__)
            if not quiet:
                self.problems[provider_id] = problem_in_words(exc)
        else:
            self.listed[provider_id] = list(ids)
            self._keep_in_settings(provider_id, list(ids))
        finally:
            self.refreshing.discard(provider_id)
            self._update_popup()

    def _keep_in_settings(self, provider_id: str, ids: list[str]) -> None:
        settings = self.runtime.settings
        if settings is None or not ids:
            return
        listed = {**settings.provider_models, provider_id: models_cache_now(ids)}
        try:
            apply_settings(self.runtime, settings.model_copy(update={"provider_models": listed}))
        except (SettingsError, OSError) as exc:
            log.warning("the model list was not kept: %s", exc)

    # --- the button ------------------------------------------------------------------

    def _on_busy_changed(self, busy: bool) -> None:
        self.setEnabled(not busy)
        if busy:
            self.popup.close()
        self.refresh()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt name
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.open_popup()
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt name
        if event.key() in (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Down):
            self.open_popup()
            return
        super().keyPressEvent(event)
