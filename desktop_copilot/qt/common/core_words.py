"""Words the Qt-free core hands to the window (risk and decision labels, key names, the tool-status pills), marked for
Qt's translation tools here; `core_text(english)` shows one in the interface language (unknown text stays as it is)."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

CONTEXT = "CoreWords"

WORDS = (
    # core/tools/base.py Risk.label, ToolSource.label
    QT_TRANSLATE_NOOP("CoreWords", "Read-only"),
    QT_TRANSLATE_NOOP("CoreWords", "Reaches the internet"),
    QT_TRANSLATE_NOOP("CoreWords", "Changes files"),
    QT_TRANSLATE_NOOP("CoreWords", "Destructive"),
    QT_TRANSLATE_NOOP("CoreWords", "Undeclared effects"),
    QT_TRANSLATE_NOOP("CoreWords", "Built-in"),
    # core/approval/decisions.py DECISION_LABELS
    QT_TRANSLATE_NOOP("CoreWords", "Allowed once"),
    QT_TRANSLATE_NOOP("CoreWords", "Allowed in this conversation"),
    QT_TRANSLATE_NOOP("CoreWords", "Always allowed"),
    QT_TRANSLATE_NOOP("CoreWords", "Denied"),
    QT_TRANSLATE_NOOP("CoreWords", "Read-only: ran without asking"),
    QT_TRANSLATE_NOOP("CoreWords", "Allowed by an earlier grant"),
    QT_TRANSLATE_NOOP("CoreWords", "Allowed by a rule"),
    QT_TRANSLATE_NOOP("CoreWords", "Denied by a rule"),
    QT_TRANSLATE_NOOP("CoreWords", "Allowed by --yes"),
    QT_TRANSLATE_NOOP("CoreWords", "Blocked"),
    # qt/common/theme.py TOOL_BADGES (the status pills of tool cards)
    QT_TRANSLATE_NOOP("CoreWords", "Pending"),
    QT_TRANSLATE_NOOP("CoreWords", "Needs approval"),
    QT_TRANSLATE_NOOP("CoreWords", "Running"),
    QT_TRANSLATE_NOOP("CoreWords", "Done"),
    QT_TRANSLATE_NOOP("CoreWords", "Error"),
    QT_TRANSLATE_NOOP("CoreWords", "Cancelled"),
)


KEY_LABEL = QT_TRANSLATE_NOOP("CoreWords", "{provider} API key")
"""Every key's label (core/provider_table.py: "Anthropic API key", "Tavily API key"); the name stays as it is."""
KEY_SUFFIX = " API key"


def core_text(english: str) -> str:
    """`english`, a label from the core, in the interface language (unknown text stays as it is)."""
    if english.endswith(KEY_SUFFIX):
        return QCoreApplication.translate(CONTEXT, KEY_LABEL).format(provider=english.removesuffix(KEY_SUFFIX))
    return QCoreApplication.translate(CONTEXT, english)
