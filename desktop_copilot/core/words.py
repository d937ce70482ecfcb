"""Messages the Qt-free core says to the user (provider errors, attachment limits, mcp.json problems, link and knowledge
notes, context and permission notices, and the labels the window shows: risks, decisions, key names), marked for translation without Qt: `tr("…")` gives a message in the interface language where it is made,
`N_("…")` only marks a module-level one (translate it with `tr(CONSTANT)` where it is used). Format AFTER translating:
`tr("{count} files").format(count=n)`, so the `{name}` placeholders stay in the translation.

The core has no translator of its own: the Qt layer installs one at start (`install(QCoreApplication.translate)` in
qt/i18n); without it (the command line, the core's tests) every message stays the English written here.
desktop_copilot/qt/i18n/update.py collects the marked strings into the .ts under CONTEXT. A label the core hands over
in English (Risk.label, Decision.label, a key's label) is shown translated with `label_text` (qt/common/core_words.py's
`core_text`).
"""

from __future__ import annotations

from collections.abc import Callable

CONTEXT = "CoreMessages"
"""The translation context of every core message."""

Translate = Callable[[str, str], str]
"""(context, English) -> the text in the interface language."""


def _english(context: str, text: str) -> str:
    return text


_translate: Translate = _english


def install(translate: Translate | None) -> None:
    """Makes `translate` say the core's messages from now on (None: back to English)."""
    global _translate
    _translate = translate or _english


def tr(text: str) -> str:
    """`text`, a marked English message, in the interface language (unknown text stays as it is)."""
    return _translate(CONTEXT, text) if text else text


def N_(text: str) -> str:
    """Marks `text` for translation and gives it back as it is (a constant, translated later with `tr`)."""
    return text


KEY_LABEL = N_("{provider} API key")
"""Every key's label (core/provider_table.py: "Anthropic API key", "Tavily API key"); the name stays as it is."""
KEY_SUFFIX = " API key"


def label_text(english: str) -> str:
    """`english`, a label from the core (a risk, a decision, a key's name), in the interface language."""
    if english.endswith(KEY_SUFFIX):
        return tr(KEY_LABEL).format(provider=english.removesuffix(KEY_SUFFIX))
    return tr(english)
