"""What the window's first frame needs from settings.json (language, theme, size and place, the conversation list's
width and whether it shows), read with `json` alone so the window can show before pydantic and the settings model
load. Anything odd gives the default here; the full load right after (core/config/settings.py) reports and repairs it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

THEMES = ("auto", "light", "dark")


@dataclass(frozen=True, slots=True)
class FirstFrameSettings:
    """The same names, defaults and forgiveness as the fields of `Settings` they mirror."""

    language: str = "auto"
    theme: str = "auto"
    window_geometry: str | None = None
    window_splitter_sizes: tuple[int, ...] = ()
    sidebar_visible: bool = True


def read_first_frame_settings(path: Path) -> FirstFrameSettings:
    """The first-frame fields of settings.json; defaults for a missing, unreadable or damaged file or field."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return FirstFrameSettings()
    if not isinstance(data, dict):
        return FirstFrameSettings()
    return FirstFrameSettings(
        language=data["language"] if isinstance(data.get("language"), str) else "auto",
        theme=data["theme"] if data.get("theme") in THEMES else "auto",
        window_geometry=_text_or_none(data.get("window_geometry")),
        window_splitter_sizes=_sizes(data.get("window_splitter_sizes")),
        sidebar_visible=_flag(data.get("sidebar_visible", True)),
    )


TRUE_WORDS = {"1", "on", "t", "true", "y", "yes"}
FALSE_WORDS = {"0", "off", "f", "false", "n", "no"}


def _flag(value: Any) -> bool:
    """pydantic's reading of a bool (0/1 and yes/no words count too); anything else, the default."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in TRUE_WORDS | FALSE_WORDS:
        return value.strip().lower() in TRUE_WORDS
    return True


def _text_or_none(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _sizes(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(size, int) and not isinstance(size, bool) and size >= 0 for size in value):
        return ()
    return tuple(value)
