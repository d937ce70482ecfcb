"""The core's labels (risks, decisions, key names: marked with `N_` where the core makes them, translated in
core/words.py's "CoreMessages" context) and the tool cards' status pills (marked in qt/common/theme.py under the same
context), shown in the interface language by `core_text`."""

from __future__ import annotations

from desktop_copilot.core.words import label_text as core_text

__all__ = ["core_text"]
