"""Settings ▸ Providers: the default provider, and for each provider (the cloud ones, the model servers on this
computer with whether each runs, then the user's endpoints) its switch, key, base URL and Test (the model list,
fetched off the GUI thread). Keys are saved at once (`KeyActions`); the rest, and adding or removing endpoints,
on OK/Apply through the dialog."""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_copilot.core.bootstrap import effective_config
from desktop_copilot.core.config.app_config import PROVIDER_ENV
from desktop_copilot.core.keys.key_values import KeyValueError, clean_key_value
from desktop_copilot.core.keys.keyring_backends import KeyringStatus
from desktop_copilot.core.provider_table import DEFAULT_PROVIDER, PROVIDERS, base_url, custom_spec
from desktop_copilot.core.keys.redaction import redact
from desktop_copilot.core.providers.factory import SDK_MODULES
from desktop_copilot.core.providers.streaming import ProviderError
from desktop_copilot.core.runtime import MissingKeyError, Runtime
from desktop_copilot.core.keys.secrets import FoundKey, KeyLookup
from desktop_copilot.core.keys.known_keys import KNOWN_KEYS
from desktop_copilot.core.config.settings import CustomProvider, Settings
from desktop_copilot.qt.bridge.background import BackgroundTasks, off_gui_thread
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.settings.keys_page import KeyActions, cancel_when_destroyed, keyring_notice
from desktop_copilot.qt.settings.models_page import beside, group, hint, label
from desktop_copilot.qt.settings.providers_parts import EndpointForm, ProviderRow, url_problem
from desktop_copilot.qt.settings.server_status import ServerStatus
from desktop_copilot.qt.settings.styles import set_kind

log = logging.getLogger(__name__)

TEST_TIMEOUT = 30.0


def describe_failure(row: ProviderRow, url: str, exc: BaseException) -> str:
    """Why listing the models failed, in words and without a key (a provider's own errors are in words already)."""
    spec = row.spec
    if isinstance(exc, MissingKeyError):
        text = QCoreApplication.translate("ProvidersPage", "No key: paste one above and press Save (or Test it as typed).")
    elif isinstance(exc, ProviderError):
        text = str(exc)
    elif isinstance(exc, TimeoutError):
        text = QCoreApplication.translate("ProvidersPage", "{provider} did not answer at {url}.").format(provider=spec.label, url=url)
    else:
        log.info("listing the %s models failed", spec.id, exc_info=exc)
        text = QCoreApplication.translate("ProvidersPage", "{provider} could not list its models ({error}).").format(provider=spec.label,
            error=f"{type(exc).__name__}: {exc}")
    return redact(text)


class ProvidersPage(QWidget):
    sig_models_listed = Signal(str, list)
    """(provider id, model ids) a successful Test listed (the dialog caches them)."""
    sig_key_changed = Signal(str)
    """A key was saved or removed here."""

    def __init__(self, runtime: Runtime, pending: Callable[[], Settings], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.pending = pending
        """() -> the settings as they would be after Apply (raises ValidationError for a bad value)."""
        self.actions = KeyActions(runtime, runtime.key_store, self._show_keyring, self.sig_key_changed.emit)
        self.tasks = BackgroundTasks(self._show_failure)
        cancel_when_destroyed(self, self.tasks)
        self.rows: dict[str, ProviderRow] = {}
        self.servers = ServerStatus(self.rows, self._probe_runtime, self)
        cancel_when_destroyed(self, self.servers.tasks)
        self._probed = False
        self.removed: set[str] = set()
        """Endpoints removed here: their keys are deleted once the settings without them are saved."""
        self.form: EndpointForm | None = None
        settings = runtime.settings or Settings()
        self.default_box = QComboBox(objectName="defaultProviderBox")
        self.default_box.setMinimumWidth(220)
        self.default_note = hint()
        self.notice = PlainLabel(objectName="keyMessage", wordWrap=True)
        self.notice.hide()
        self.keyring_label = QLabel(objectName="keyringNotice", wordWrap=True, textFormat=Qt.TextFormat.RichText)
        self.keyring_label.hide()
        self.add_button = QPushButton(self.tr("Add endpoint…"), objectName="addEndpointButton")
        self.sections = {name: (PlainLabel(title, objectName="sectionTitle"), QVBoxLayout()) for name, title in (
            ("cloud", self.tr("Cloud")), ("local", self.tr("On this computer")), ("custom", self.tr("Endpoints you added")))}
        self._layout()
        for spec in runtime.providers().values():
            self._add_row(ProviderRow(spec, settings, spec.id not in settings.disabled_providers))
        self._fill_defaults(settings.default_provider or DEFAULT_PROVIDER)
        if os.environ.get(PROVIDER_ENV, "").strip():
            self.default_note.setText(QCoreApplication.translate("ModelsPage", "{setting} is set and wins over this choice.").format(
                setting=f"{PROVIDER_ENV}={os.environ[PROVIDER_ENV].strip()}"))
        self.default_note.setVisible(bool(self.default_note.text()))
        self.default_box.currentIndexChanged.connect(lambda _i: self._fill_defaults(self.default_id()))
        self.add_button.clicked.connect(self.open_form)

    def _layout(self) -> None:
        form = QFormLayout()
        form.addRow(label(self.tr("Provider")), beside(self.default_box, self.tr("Each conversation keeps the provider it started with.")))
        form.addRow("", self.default_note)
        adding = QHBoxLayout()
        adding.addWidget(self.add_button)
        adding.addWidget(hint(self.tr("Any other Chat Completions server: a gateway, a proxy, a server on your network.")), 1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(12)
        column.addWidget(group(self.tr("New conversations"), form))
        column.addWidget(self.keyring_label)
        column.addWidget(self.notice)
        for heading, rows in self.sections.values():
            rows.setSpacing(8)
            column.addWidget(heading)
            column.addLayout(rows)
        column.addLayout(adding)
        column.addStretch(1)

    def _section(self, row: ProviderRow) -> str:
        return "custom" if row.spec.custom else "local" if row.spec.local else "cloud"

    def _show_headings(self) -> None:
        """A heading over each group that has rows (none before the user adds an endpoint)."""
        for name, (heading, _rows) in self.sections.items():
            heading.setVisible(any(self._section(row) == name for row in self.rows.values()))

    def _add_row(self, row: ProviderRow) -> None:
        self.rows[row.spec.id] = row
        self.sections[self._section(row)][1].addWidget(row)
        self._show_headings()
        self.servers.watch(row)
        row.switch.toggled.connect(lambda on: self._switched(row, on))
        row.test_button.clicked.connect(lambda: self.tasks.start(self.test(row.spec.id)))
        row.remove_button.clicked.connect(lambda: self.remove_endpoint(row.spec.id))
        if row.key_field is not None:
            row.key_field.set_busy(True)
            row.key_field.sig_save_requested.connect(lambda _name: self.tasks.start(self.save(row.spec.id)))
            row.key_field.sig_remove_requested.connect(
                lambda _name: self.tasks.start(self.actions.remove(row.key_field)))

    def focus(self, provider_id: str) -> ProviderRow:
        """Opens the provider's details and puts the cursor in its key field (else its base URL)."""
        row = self.rows[provider_id]
        row.expand(True)
        field = row.key_field.edit if row.key_field is not None else row.url_edit
        field.setFocus(Qt.FocusReason.OtherFocusReason)
        return row

    # --- the default provider ----------------------------------------------------------------

    def default_id(self) -> str:
        return self.default_box.currentData() or DEFAULT_PROVIDER

    def _switched(self, row: ProviderRow, on: bool) -> None:
        if not on and row.spec.id == self.default_id():
            row.switch.setChecked(True)
            row.say(self.tr("{provider} is the default provider, so it stays on: choose another default first.").format(provider=row.spec.label), "warning")
            return
        row.say("")
        self._fill_defaults(self.default_id())

    def _fill_defaults(self, wanted: str) -> None:
        """The choices are the providers switched on; the default's switch cannot be turned off."""
        chosen = wanted if wanted in self.rows else DEFAULT_PROVIDER
        switch = self.rows[chosen].switch
        switch.blockSignals(True)  # the default is always on (a settings file may say otherwise)
        switch.setChecked(True)
        switch.blockSignals(False)
        self.default_box.blockSignals(True)
        self.default_box.clear()
        for provider_id, row in self.rows.items():
            if row.switch.isChecked():
                self.default_box.addItem(row.spec.label, provider_id)
        self.default_box.setCurrentIndex(self.default_box.findData(chosen))
        self.default_box.blockSignals(False)
        for provider_id, row in self.rows.items():
            row.set_default(provider_id == chosen)
            row.say("")

    # --- endpoints ------------------------------------------------------------------------------

    def open_form(self) -> EndpointForm:
        self.form = EndpointForm(set(PROVIDERS) | set(KNOWN_KEYS) | set(self.rows) | self.removed, self)
        self.form.accepted.connect(lambda form=self.form: self.add_endpoint(form.endpoint(), form.key()))
        self.form.open()
        return self.form

    def add_endpoint(self, endpoint: CustomProvider, key: str = "") -> ProviderRow:
        """A row for the new endpoint (saved on OK/Apply); its key waits in its field until then, or Save."""
        spec = custom_spec(endpoint.id, endpoint.label, endpoint.base_url, endpoint.default_model,
                           needs_key=endpoint.needs_key, headers=endpoint.headers)
        row = ProviderRow(spec, self.runtime.settings or Settings(), True)
        self._add_row(row)
        if row.key_field is not None:
            row.key_field.edit.setText(key)
            self.tasks.start(self.actions.refresh(row.key_field))
        self._fill_defaults(self.default_id())
        row.expand(True)
        return row

    def remove_endpoint(self, provider_id: str) -> None:
        self.servers.stop(provider_id)
        row = self.rows.pop(provider_id)
        self.removed.add(provider_id)
        row.hide()
        row.deleteLater()
        self._show_headings()
        self._fill_defaults(self.default_id())

    async def forget_removed_keys(self) -> None:
        """After Apply: deletes the keys of the endpoints removed (KeyStoreError in words)."""
        for provider_id in sorted(self.removed - set(self.rows)):
            await off_gui_thread(self.runtime.key_store.delete, provider_id)
        self.removed.clear()

    # --- keys and Test ------------------------------------------------------------------------------

    def pending_names(self) -> list[str]:
        return [i for i, row in self.rows.items() if row.key_field is not None and row.key_field.typed().strip()]

    async def load(self) -> None:
        for row in list(self.rows.values()):
            if row.key_field is not None:
                await self.actions.refresh(row.key_field)

    async def save(self, provider_id: str) -> bool:
        return await self.actions.save(self.rows[provider_id].key_field)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt name
        """The first time the page shows, each local server is asked whether it runs (all at once)."""
        super().showEvent(event)
        if not self._probed:
            self._probed = True
            self.servers.probe_all()

    async def test(self, provider_id: str) -> list[str] | None:
        """Lists the models with the settings as edited and the key as typed (else the stored one); a local server's
        row also says from it whether the server runs."""
        row = self.rows[provider_id]
        if url_problem(row.url_edit.text(), required=row.spec.custom):
            row.show_result(self.tr("Correct the base URL first."), "error")
            return None
        try:
            scratch = self._scratch_runtime(row)
        except KeyValueError as exc:
            row.show_result(str(exc), "error")
            return None
        url = scratch.base_url(scratch.spec(provider_id))
        row.set_testing(True)
        if row.spec.local:
            self.servers.stop(provider_id)
            row.show_server_checking()
        try:
            await asyncio.to_thread(importlib.import_module, SDK_MODULES[row.spec.wire])
            ids = await asyncio.wait_for(scratch.list_models(provider_id), TEST_TIMEOUT)
        except Exception as exc:  # noqa: BLE001 - every failure is reported in words
            row.show_result(describe_failure(row, url, exc), "error")
            if row.spec.local:
                row.show_server(None, url, refused=getattr(exc, "status_code", None) is not None)
            return None
        finally:
            row.set_testing(False)
            await scratch.aclose()
        if row.spec.local:
            row.show_server(ids, url)
        row.show_result(self.tr("✓ Works — %n models", "", len(ids)) + (f" ({ids[0]}{', …' if len(ids) > 1 else ''})" if ids else ""), "ok")
        row.result.setToolTip("\n".join(ids[:40]) + ("\n…" if len(ids) > 40 else ""))
        self.sig_models_listed.emit(provider_id, ids)
        return ids

    def _scratch_runtime(self, row: ProviderRow, *, typed_key: bool = True) -> Runtime:
        """A runtime with the pending settings, asking the typed key first (closed after the Test)."""
        try:
            settings = self.pending()
        except ValueError:  # a bad value elsewhere (pydantic's ValidationError): the saved settings
            settings = self.runtime.settings or Settings()
        typed = row.key_field.typed().strip() if row.key_field is not None and typed_key else ""
        first = {row.spec.key_name: FoundKey(clean_key_value(typed), "typed")} if typed else {}
        scratch = Runtime(self.runtime.paths, effective_config(settings), KeyLookup([first, self.runtime.keys]),
                          self.runtime.registry)
        scratch.settings = settings
        return scratch

    def _probe_runtime(self, row: ProviderRow) -> Runtime:
        """For a probe: the key as typed, unless it cannot be used (then the stored one; Test says what is wrong)."""
        try:
            return self._scratch_runtime(row)
        except KeyValueError:
            return self._scratch_runtime(row, typed_key=False)

    def endpoint(self, provider_id: str) -> str:
        """The base URL a request to `provider_id` would go to after Apply (the environment still wins)."""
        row = self.rows[provider_id]
        return base_url(row.spec, os.environ, row.url() or None)

    # --- what OK/Apply saves ---------------------------------------------------------------------------

    def problem(self) -> tuple[str, str] | None:
        """(provider id, a sentence) for the first base URL that cannot be saved."""
        for provider_id, row in self.rows.items():
            if found := url_problem(row.url_edit.text(), required=row.spec.custom):
                return provider_id, self.tr("{provider} base URL {problem}.").format(provider=row.spec.label, problem=found)
        return None

    def edits(self, current: Settings) -> dict:
        """The fields this page edits, as Settings values (validated by the caller)."""
        ids = set(self.rows)
        known = set(PROVIDERS) | {c.id for c in current.custom_providers} | ids
        urls = {k: v for k, v in current.base_urls.items() if k not in ids}
        urls.update({i: row.url() for i, row in self.rows.items() if not row.spec.custom and row.url()})
        default = self.default_id()
        return {
            "default_provider": None if default == DEFAULT_PROVIDER and current.default_provider is None else default,
            "disabled_providers": (current.disabled_providers - known) | {i for i, r in self.rows.items() if not r.switch.isChecked()},
            "base_urls": urls,
            "custom_providers": [row.custom_provider() for row in self.rows.values() if row.spec.custom],
            "provider_models": {k: v for k, v in current.provider_models.items() if k in PROVIDERS or k in ids},
        }

    def _show_keyring(self, status: KeyringStatus) -> None:
        """Only a keyring that cannot keep keys is worth a word here (the Tool keys page always names it)."""
        variables = ", ".join(spec.key_env for spec in PROVIDERS.values() if spec.needs_key)
        self.keyring_label.setText("" if status.usable else keyring_notice(status, variables))
        set_kind(self.keyring_label, "warning")
        self.keyring_label.setVisible(not status.usable)

    def _show_failure(self, text: str) -> None:
        self.notice.setText(text)
        set_kind(self.notice, "error")
        self.notice.show()
        for row in self.rows.values():
            row.test_button.setEnabled(True)
            if row.key_field is not None:
                row.key_field.set_busy(False)
