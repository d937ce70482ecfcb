"""Settings that say what changed (napari's EventedModel is the anchor): the runtime's settings are replaced as a
whole, and each replacement tells the listeners of the fields that differ, once the new settings are in effect."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the runtime is made before anything reads settings.json: pydantic's Settings loads with it
    from desktop_copilot.core.config.settings import Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SettingsChange:
    before: Settings | None
    after: Settings
    fields: frozenset[str]
    """The fields whose values differ (every field when there were no settings before)."""


def changed_fields(before: Settings | None, after: Settings) -> frozenset[str]:
    names = type(after).model_fields
    if before is None:
        return frozenset(names)
    return frozenset(name for name in names if getattr(before, name) != getattr(after, name))


Listener = Callable[[SettingsChange], None]


class SettingsEvents:
    """Listeners of settings changes, each for some fields (or all); `emit` calls those whose fields changed, in the
    order they connected. A listener that fails is logged and the others still hear the change."""

    def __init__(self) -> None:
        self._listeners: list[tuple[frozenset[str] | None, Listener]] = []

    def connect(self, listener: Listener, fields: Iterable[str] | None = None) -> Callable[[], None]:
        """Call `listener` when any of `fields` (None: any field) changes; returns what disconnects it."""
        wanted = None if fields is None else frozenset(fields)
        if wanted:
            from desktop_copilot.core.config.settings import Settings

            if unknown := wanted - set(Settings.model_fields):
                raise ValueError(f"Settings has no field {', '.join(sorted(unknown))}")
        entry = (wanted, listener)
        self._listeners.append(entry)
        return lambda: entry in self._listeners and self._listeners.remove(entry)

    def emit(self, before: Settings | None, after: Settings) -> SettingsChange | None:
        """Tell the listeners what differs between `before` and `after` (None: nothing did)."""
        fields = changed_fields(before, after)
        if not fields:
            return None
        change = SettingsChange(before, after, fields)
        for wanted, listener in list(self._listeners):
            if wanted is None or wanted & fields:
                try:
                    listener(change)
                except Exception:  # noqa: BLE001 - one listener's bug must not keep the change from the others
                    log.exception("a settings listener failed")
        return change
