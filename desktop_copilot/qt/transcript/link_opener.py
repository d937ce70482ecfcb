"""Opening a clicked transcript link: the policy checked again, a confirmation showing the real target when
the link may mislead, then the OS handler. Opener and confirmer are injectable (tests open nothing)."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt, QUrl
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop_copilot.core.content.link_safety import ALLOWED_SCHEMES, is_allowed, needs_confirmation, url_host, visible_form

SHOWN_CHARS = 600
"""A target longer than this is shown elided in the middle (in full under "Show Details…")."""
TOOLTIP_LINE = 80

Opener = Callable[[QUrl], object]
Confirmer = Callable[[QWidget | None, str, str], bool]
"""(parent, the real target, why to ask) -> whether the user chose Open."""


def shown_target(url: str, limit: int = SHOWN_CHARS) -> str:
    """The target as the user should read it: invisible characters spelled out, the middle elided if long."""
    text = visible_form(url)
    return text if len(text) <= limit else f"{text[: limit * 2 // 3]} … {text[-limit // 3 :]}"


def tooltip_html(url: str) -> str:
    """Rich text for a link's tooltip: its full target (escaped, cut into lines that do not wrap) and its host."""
    target = shown_target(url, 2000)
    lines = [html.escape(target[n : n + TOOLTIP_LINE]) for n in range(0, len(target), TOOLTIP_LINE)]
    host = url_host(url) if is_allowed(url) else ""
    lines.append(QCoreApplication.translate("LinkOpener", "<b>Opens:</b> {host}").format(host=html.escape(host)) if host
                 else "<i>" + QCoreApplication.translate("LinkOpener", "Not a web or mail link: it will not open.") + "</i>")
    return f'<qt><p style="white-space: pre;">{"<br>".join(lines)}</p></qt>'


def confirm_with_dialog(parent: QWidget | None, url: str, reason: str) -> bool:
    box = QMessageBox(QMessageBox.Icon.Warning, QCoreApplication.translate("LinkOpener", "Open this link?"), "", QMessageBox.StandardButton.NoButton, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(f"{reason}\n\n" + QCoreApplication.translate("LinkOpener", "It really opens:") + f"\n{shown_target(url)}")
    if len(url) > SHOWN_CHARS:
        box.setDetailedText(visible_form(url))
    open_button = box.addButton(QCoreApplication.translate("LinkOpener", "Open"), QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is open_button


class LinkOpener:
    """`activate(href, visible_text)` opens a link only if the policy allows it, after asking when it may mislead."""

    def __init__(self, parent: QWidget | None, open_url: Opener, confirm: Confirmer | None = None) -> None:
        self.parent = parent
        self.open_url = open_url
        """Given the checked QUrl (the view passes QDesktopServices.openUrl)."""
        self.confirm = confirm or confirm_with_dialog

    def activate(self, href: str, visible_text: str = "") -> bool:
        """True when the link was handed to the opener."""
        if not is_allowed(href):
            return False
        url = QUrl(href)
        if not url.isValid() or url.scheme().lower() not in ALLOWED_SCHEMES:
            return False
        if url.scheme().lower() != "mailto" and url.host(QUrl.ComponentFormattingOption.EncodeUnicode).lower().rstrip(".") != url_host(href):
            return False  # Qt would open another host than the one we checked and show
        reason = needs_confirmation(visible_text, href)
        if reason is not None and not self.confirm(self.parent, href, reason):
            return False
        self.open_url(url)
        return True
