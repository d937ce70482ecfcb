"""Values read off a wire, made safe to keep. A field is taken only when it has the type the wire documents (a
server that sends a list where a string belongs has that field ignored, not the reply broken); text is made storable
(conversation/clean_values.py)."""

from __future__ import annotations

from typing import Any

from desktop_copilot.core.conversation.clean_values import clean_text


def text_of(value: Any) -> str:
    """`value` when it is a string (as `clean_text`), else ""."""
    return clean_text(value) if isinstance(value, str) else ""


def dict_of(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else {}."""
    return value if isinstance(value, dict) else {}


def list_of(value: Any) -> list[Any]:
    """`value` when it is a JSON array, else []."""
    return value if isinstance(value, list) else []


def index_of(value: Any) -> int | None:
    """`value` when it is a block index (an integer, not negative; not a bool), else None."""
    return value if type(value) is int and value >= 0 else None


def count_of(value: Any) -> int | None:
    """A token count: an integer (or a float with no fraction), not negative and not a bool; else None."""
    if type(value) is float and value.is_integer():
        value = int(value)
    return value if type(value) is int and value >= 0 else None
