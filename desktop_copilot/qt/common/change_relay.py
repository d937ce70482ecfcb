"""ChangeRelay: "it changed" from a store's or manager's listener, on whichever thread calls it, to a slot on the GUI
thread."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal


class ChangeRelay(QObject):
    """Carries "it changed" from whichever thread a store or manager calls its listeners on to `slot`, later, on the
    GUI thread (a queued signal). `listener()` is what to subscribe; it does nothing once the relay's owner is gone."""

    sig_changed = Signal()

    def __init__(self, owner: QObject, slot) -> None:
        super().__init__(owner)
        self.sig_changed.connect(slot, Qt.ConnectionType.QueuedConnection)

    def listener(self):
        relay = self
        return lambda *_args: _notify(relay)


def _notify(relay: ChangeRelay) -> None:
    """A listener's call (any thread): a queued signal, unless the relay was deleted with its owner."""
    if shiboken6.isValid(relay):
        try:
            relay.sig_changed.emit()
        except RuntimeError:  # deleted between the check and the emit
            pass
