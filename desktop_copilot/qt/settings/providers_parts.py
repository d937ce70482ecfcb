"""The widgets of Settings ▸ Providers: a provider's row (switch, key, base URL, Test) and the Add endpoint form
(name, base URL, default model, optional key, extra headers), with their checks: an id made from the name,
http(s) URLs, and no secret in a header (headers go to settings.json; a key goes to the keyring)."""

from __future__ import annotations

import os
import re
import unicodedata
from urllib.parse import urlsplit

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_copilot.core.provider_table import ProviderSpec
from desktop_copilot.core.keys.redaction import redact
from desktop_copilot.core.keys.known_keys import KNOWN_KEYS, KeySpec
from desktop_copilot.core.config.settings import CustomProvider, ModelsCache, Settings
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.settings.form_parts import form_label, form_layout, lay_out_dialog, parse_header_lines
from desktop_copilot.qt.settings.key_field import KeyField
from desktop_copilot.qt.settings.models_page import hint
from desktop_copilot.qt.settings.styles import set_kind
from desktop_copilot.qt.settings.toggle_switch import ToggleSwitch

SECRET_HEADERS = {"authorization", "proxy-authorization", "api-key", "x-api-key", "x-goog-api-key", "cookie"}
SECRET_ENDINGS = ("-key", "_key", "apikey", "-token", "_token", "-secret", "password")
"""An HTTP header name (RFC 9110 token)."""
WIRES = {"anthropic": QT_TRANSLATE_NOOP("ProviderRow", "Anthropic Messages API"), "chat_completions": QT_TRANSLATE_NOOP("ProviderRow",
    "Chat Completions"), "gemini": QT_TRANSLATE_NOOP("ProviderRow", "Gemini API"),
         "ollama": QT_TRANSLATE_NOOP("ProviderRow", "Ollama, on this machine or your network")}
LABEL_WIDTH = 86


class EndpointError(ValueError):
    """A value in the form that cannot be used; the message says why and what to do."""


def url_problem(text: str, *, required: bool = False) -> str | None:
    """Why `text` is not an http(s) URL with a host (None when it is, or when it is blank and not `required`)."""
    text = text.strip()
    if not text:
        return QCoreApplication.translate("ProviderRow", "is needed") if required else None
    if not text.lower().startswith(("http://", "https://")):
        return QCoreApplication.translate("ProviderRow", "must start with http:// or https://")
    try:
        host = urlsplit(text).hostname
    except ValueError:
        host = None
    return None if host else QCoreApplication.translate("ProviderRow", "has no host name")


def make_id(name: str, taken: set[str]) -> str:
    """A settings id for `name` ("LM Studio" -> "lm-studio"), not one of `taken` (a -2, -3… is added)."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    base = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")[:32].strip("-") or "endpoint"
    candidate, number = base, 2
    while candidate in taken:
        candidate, number = f"{base}-{number}", number + 1
    return candidate


def parse_headers(text: str) -> dict[str, str]:
    """`Name: value` lines (blank lines skipped); EndpointError for a malformed line or a header that carries
    a secret, which would be written to settings.json in plain text."""
    def no_secret(name: str, value: str) -> None:
        lowered = name.lower()
        if lowered in SECRET_HEADERS or lowered.endswith(SECRET_ENDINGS) or redact(value) != value:
            raise EndpointError(QCoreApplication.translate(
                "EndpointForm", "“{name}” would carry a secret, and headers are saved in settings.json as plain text. Put the key "
                "in the API key field instead: it is kept in the keyring and sent as “Authorization: Bearer …”.").format(name=name)
            )

    return parse_header_lines(text, lambda number: EndpointError(
        QCoreApplication.translate("EndpointForm", "Header line {number} is not “Name: value”.").format(number=number)), no_secret)


class ProviderRow(QFrame):
    """One provider: a header (switch, name, Default tag, for a local server whether it runs, key state) that opens
    the details (key, optional for a local server; base URL, Test, and for an endpoint the user added its headers and
    Remove). The page does the work."""

    def __init__(self, spec: ProviderSpec, settings: Settings, switched_on: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="providerCard")
        self.spec = spec
        self.switch = ToggleSwitch()
        self.switch.setChecked(switched_on)
        self.switch.setAccessibleName(self.tr("Offer {provider}").format(provider=spec.label))
        self.name = PlainLabel(spec.label, objectName="providerName")
        self.default_tag = PlainLabel(self.tr("Default"), objectName="defaultTag")
        self.key_state = PlainLabel(objectName="keyState")
        self.server_state = PlainLabel(objectName="serverState")
        self.server_state.setVisible(spec.local)  # set before it has a parent: never a window of its own
        self.message = PlainLabel(objectName="keyMessage", wordWrap=True)
        self.message.setContentsMargins(0, 4, 0, 0)
        self.message.hide()
        self.arrow = QToolButton(objectName="detailsButton", checkable=True, autoRaise=True)
        self.arrow.setArrowType(Qt.ArrowType.RightArrow)
        self.arrow.setAccessibleName(self.tr("{provider} details").format(provider=spec.label))
        self.key_field = KeyField(_key_spec(spec), embedded=True, placeholder=spec.key_placeholder if spec.needs_key else
                                  self.tr("Optional: only if the server asks for a key")) if spec.key_name else None
        self.url_edit = QLineEdit(placeholderText=spec.base_url if not spec.custom else "http://host:port/v1")
        self.url_edit.setText(_configured_url(spec, settings))
        self.url_edit.setAccessibleName(self.tr("{provider} base URL").format(provider=spec.label))
        self.url_note = hint()
        self.test_button = QPushButton(self.tr("Test"))
        self.test_button.setToolTip(self.tr("Asks for the model list with the key and base URL above (nothing is saved but the list)"))
        self.result = PlainLabel(objectName="keyMessage", wordWrap=True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.remove_button = QPushButton(self.tr("Remove endpoint"), objectName="removeEndpoint")
        self.remove_button.setHidden(not spec.custom)  # hidden before it has a parent: never a window of its own
        self.header = QWidget(objectName="providerHeader")
        self.body = QWidget(objectName="providerBody")
        self.body.hide()
        self._layout()
        self.arrow.toggled.connect(self.expand)
        self.url_edit.textChanged.connect(self._check_url)
        if self.key_field is not None:
            self.key_field.sig_found_changed.connect(self.show_key_state)
        if self.key_field is None:
            self.show_key_state()
        else:
            self.key_state.setText(self.tr("Checking…"))  # until the page has read where the key comes from
        self._check_url()
        self._show_cached(settings.provider_models.get(spec.id))

    def _layout(self) -> None:
        head = QHBoxLayout(self.header)
        head.setContentsMargins(0, 0, 0, 0)
        head.setSpacing(10)
        head.addWidget(self.switch)
        head.addWidget(self.name)
        head.addWidget(self.default_tag)
        head.addWidget(self.server_state)
        head.addStretch(1)
        head.addWidget(self.key_state)
        head.addWidget(self.arrow)
        form = QFormLayout(self.body)
        form.setContentsMargins(0, 6, 0, 0)
        form.setHorizontalSpacing(12)
        form.setVerticalSpacing(6)
        about = QHBoxLayout()
        about.addWidget(hint(self.tr("{wire} · id {id}").format(wire=self.tr(WIRES[self.spec.wire]), id=self.spec.id)), 1)
        about.addWidget(self.remove_button)
        form.addRow("", about)
        form.addRow(form_label(self.tr("API key")), self.key_field or hint(self.tr("No key needed")))
        form.addRow(form_label(self.tr("Base URL")), self.url_edit)
        form.addRow("", self.url_note)
        if self.spec.headers:
            form.addRow(form_label(self.tr("Headers")), hint("; ".join(f"{n}: {v}" for n, v in self.spec.headers)))
        test = QHBoxLayout()
        test.setSpacing(12)
        test.addWidget(self.test_button, 0, Qt.AlignmentFlag.AlignTop)
        test.addWidget(self.result, 1)
        form.addRow(form_label(self.tr("Models")), test)
        column = QVBoxLayout(self)
        column.setContentsMargins(16, 10, 12, 10)
        column.setSpacing(0)
        column.addWidget(self.header)
        column.addWidget(self.message)
        column.addWidget(self.body)

    def expand(self, shown: bool) -> None:
        self.arrow.setChecked(shown)
        self.arrow.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self.body.setVisible(shown)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt name
        """A click on the header (not on its switch) opens or closes the details."""
        if self.header.geometry().contains(event.position().toPoint()):
            self.expand(not self.body.isVisible())
        super().mouseReleaseEvent(event)

    def set_default(self, is_default: bool) -> None:
        self.default_tag.setVisible(is_default)
        self.switch.setToolTip(self.tr("The default provider is always offered; choose another default to switch it off")
                               if is_default else self.tr("Offer {provider} in the model picker").format(provider=self.spec.label))

    def say(self, text: str, kind: str = "info") -> None:
        """A line under the header, seen also while the details are closed."""
        self.message.setText(text)
        set_kind(self.message, kind)
        self.message.setVisible(bool(text))

    def show_key_state(self) -> None:
        found = self.key_field.found if self.key_field is not None else []
        if self.key_field is None or (not found and not self.spec.needs_key):
            text, kind = self.tr("No key needed"), "none"
        elif not found:
            text, kind = self.tr("No key — add one"), "missing"
        elif found[0].source == "keyring":
            backend = re.sub(r" \(.*\)$", "", self.key_field.backend) or QCoreApplication.translate("KeyField", "the keyring")
            text, kind = self.tr("Key stored in {place} · {hint}").format(place=backend, hint=found[0].secret.hint), "keyring"
        elif found[0].source == "session":
            text, kind = self.tr("Key for this session only · {hint}").format(hint=found[0].secret.hint), "session"
        else:
            text, kind = self.tr("Key from {variable} · {hint}").format(variable=self.key_field.spec.env_var, hint=found[0].secret.hint), "environment"
        self.key_state.setText(text)
        self.key_state.setToolTip(self.key_field.state.text() if found else "")
        set_kind(self.key_state, kind)

    def set_testing(self, busy: bool) -> None:
        self.test_button.setEnabled(not busy)
        if busy:
            self.show_result(self.tr("Asking {provider} for its models…").format(provider=self.spec.label), "busy")

    def show_result(self, text: str, kind: str) -> None:
        self.result.setText(text)
        set_kind(self.result, kind)

    def show_server(self, models: list[str] | None, url: str, *, refused: bool = False) -> None:
        """Whether the local server at `url` listed its `models` (None: it did not; `refused`: it answered with an
        error, which the Test result says), in a quiet line."""
        if refused:
            text, kind = self.tr("Running, but it refused the request"), "running"
        elif models is None:
            text, kind = self.tr("Not running at {url}").format(url=url), "stopped"
        else:
            text, kind = self.tr("Running · %n models", "", len(models)), "running"
        self.server_state.setText(text)
        self.server_state.setToolTip("\n".join(models[:40]) if models else "")
        set_kind(self.server_state, kind)

    def show_server_checking(self) -> None:
        self.server_state.setText(self.tr("Checking…"))
        set_kind(self.server_state, "checking")

    def url(self) -> str:
        return self.url_edit.text().strip().rstrip("/")

    def custom_provider(self) -> CustomProvider:
        spec = self.spec
        return CustomProvider(id=spec.id, label=spec.label, base_url=self.url(), default_model=spec.default_model,
                              needs_key=spec.needs_key, headers=dict(spec.headers))

    def _check_url(self) -> None:
        problem = url_problem(self.url_edit.text(), required=self.spec.custom)
        env = os.environ.get(self.spec.base_url_env, "").strip() if self.spec.base_url_env else ""
        if problem:
            text = self.tr("The base URL {problem}.").format(problem=problem)
        else:
            text = QCoreApplication.translate("ModelsPage", "{setting} is set and wins over this field.").format(
                setting=f"{self.spec.base_url_env}={env}") if env else ""
        self.url_note.setText(text)
        set_kind(self.url_note, "error" if problem else "info")
        self.url_note.setVisible(bool(text))

    def _show_cached(self, cache: ModelsCache | None) -> None:
        if cache is not None and cache.model_ids:
            when = cache.fetched_at.astimezone().strftime("%Y-%m-%d %H:%M")
            self.show_result(self.tr("%n models listed {when}.", "", len(cache.model_ids)).format(when=when), "info")


def _key_spec(spec: ProviderSpec) -> KeySpec:
    known = KNOWN_KEYS.get(spec.key_name or "")
    return known if known is not None else KeySpec(spec.id, "", QCoreApplication.translate("ProviderRow", "{provider} key").format(provider=spec.label), "")


def _configured_url(spec: ProviderSpec, settings: Settings) -> str:
    return spec.base_url if spec.custom else settings.base_urls.get(spec.id, "")


class EndpointForm(QDialog):
    """Add endpoint: after `accepted`, `endpoint()` is the CustomProvider and `key()` the key typed (or "")."""

    def __init__(self, taken: set[str], parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="endpointForm")
        self.taken = taken
        self.setWindowTitle(self.tr("Add endpoint"))
        self.setMinimumWidth(520)
        self.name_edit = QLineEdit(placeholderText="LM Studio")  # i18n: not translated
        self.id_hint = PlainLabel(objectName="hint")
        self.url_edit = QLineEdit(placeholderText="http://localhost:1234/v1")
        self.model_edit = QLineEdit(placeholderText=self.tr("As the server names it (Test lists them)"))
        self.key_edit = QLineEdit(placeholderText=self.tr("Optional: kept in the keyring"), echoMode=QLineEdit.EchoMode.Password)
        self.headers_edit = QPlainTextEdit(objectName="headersEdit")
        self.headers_edit.setPlaceholderText("X-Title: Desktop Copilot\nHTTP-Referer: https://example.org")  # i18n: not translated
        self.headers_edit.setFixedHeight(72)
        self.problem = PlainLabel(objectName="keyMessage", wordWrap=True)
        self.problem.hide()
        self.add_button = QPushButton(self.tr("Add"), objectName="primaryButton", default=True)
        self.cancel_button = QPushButton(self.tr("Cancel"), autoDefault=False)
        self._layout()
        self.name_edit.textChanged.connect(self._show_id)
        self.add_button.clicked.connect(self.accept)
        self.cancel_button.clicked.connect(self.reject)
        self._show_id("")
        self._endpoint: CustomProvider | None = None

    def _layout(self) -> None:
        form = form_layout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        form.addRow(form_label(self.tr("Name"), 110), self.name_edit)
        form.addRow("", self.id_hint)
        form.addRow(form_label(self.tr("Base URL"), 110), self.url_edit)
        form.addRow(form_label(self.tr("Default model"), 110), self.model_edit)
        form.addRow(form_label(self.tr("API key"), 110), self.key_edit)
        form.addRow(form_label(self.tr("Extra headers"), 110), self.headers_edit)
        form.addRow("", PlainLabel(self.tr("One “Name: value” a line. No secrets here: use the key field."), objectName="hint"))
        lay_out_dialog(self, [form, self.problem], self.cancel_button, self.add_button)

    def _show_id(self, name: str) -> None:
        self.id_hint.setText(self.tr("Id: {id} (the key is stored under it)").format(id=make_id(name, self.taken)))

    def endpoint(self) -> CustomProvider | None:
        return self._endpoint

    def key(self) -> str:
        return self.key_edit.text().strip()

    def accept(self) -> None:
        try:
            self._endpoint = self._read()
        except EndpointError as exc:
            self.problem.setText(str(exc))
            set_kind(self.problem, "error")
            self.problem.show()
            self.adjustSize()  # the wrapped message needs room the window did not have
            return
        super().accept()

    def _read(self) -> CustomProvider:
        name = self.name_edit.text().strip()
        if not name:
            raise EndpointError(self.tr("Give the endpoint a name."))
        if problem := url_problem(self.url_edit.text(), required=True):
            raise EndpointError(QCoreApplication.translate("ProviderRow", "The base URL {problem}.").format(problem=problem))
        return CustomProvider(id=make_id(name, self.taken), label=name, base_url=self.url_edit.text().strip(),
                              default_model=self.model_edit.text().strip(), needs_key=bool(self.key()),
                              headers=parse_headers(self.headers_edit.toPlainText()))
