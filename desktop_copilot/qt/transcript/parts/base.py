"""What the part painters share: the `Part` a row paints, the paint environment and the painter contract."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Protocol

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QPainter, QTextCharFormat

from desktop_copilot.core.conversation.models import Message
from desktop_copilot.qt.transcript.parts.documents import Document, DocumentCache, Documents, LiveMarkdown, LivePlainText
from desktop_copilot.qt.transcript.parts.tail_renderer import TailRendering
from desktop_copilot.core.transcript.segments import Segment
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme

LIVE_PIECES = 8
"""Live documents kept at most: one per piece still streaming, and pieces that finished while scrolled away
(each holds at most one piece of bounded size)."""


@dataclass(slots=True, eq=False)
class Hotspot:
    """A clickable area a part paints (a button, a "Show all" link): `rect` is relative to the part's top-left."""

    rect: QRect
    action: str
    """What a click does: "decide" (this call), "decide_all" (every waiting call of the message), "show_all",
    "copy_code" (a code block's Copy button), "toggle_compaction", "undo_compaction", "open_origin" (parts/compaction)."""
    value: str = ""
    """The decision for "decide" and "decide_all"; the code block's number in the part for "copy_code"; the compaction's
    or the conversation's id."""
    label: str = ""


@dataclass
class CardState:
    """What the user did to tool cards that the model does not hold (by tool call id)."""

    hover: tuple = ()
    """(call id, action, value) of the button under the pointer."""
    pressed: tuple = ()
    sending: set[str] = field(default_factory=set)
    """Calls whose decision was sent and is not back yet: their buttons are gone, so no call is decided twice."""
    shown_whole: set[str] = field(default_factory=set)
    """Cards whose long argument values are shown in full ("Show all")."""
    copied: tuple = ()
    """(owner, action, value) of the Copy button that has just copied: it says "Copied" for a moment."""
    images: OrderedDict[tuple[str, int], Any] = field(default_factory=OrderedDict)
    """Decoded result thumbnails (QImage, or None for one that could not be shown), least recently used first."""
    current_marker: str = ""
    """The compaction whose marker was clicked last: Enter opens or closes it while the transcript has the focus."""
    focused: tuple = ()
    """(call id, action, value) of the waiting card's button the keyboard is on (its focus ring shows) while the
    transcript has the focus; () otherwise (qt/transcript/approval_keys.py)."""


@dataclass(slots=True)
class Part:
    """What a row paints: a block of the message (`index` >= 0) or a message-level notice, and for text
    the piece of it the row's segment names."""

    kind: str
    message: Message
    index: int = -1
    expanded: bool = False
    top: int = 0
    height: int = 0
    documents: Documents = field(default_factory=list)
    """Documents measured for this part, kept so painting does not look them up again."""
    segment: Segment | None = None
    hotspots: list[Hotspot] = field(default_factory=list)
    """Clickable areas measured for this part (buttons on a tool card)."""
    items: list[Any] = field(default_factory=list)
    """What a painter laid out in `measure` for `paint` to draw (a tool card's sections)."""
    pending: bool = False
    """Its documents are not final yet (a render is still on the tail worker): the view measures it again shortly."""

    @property
    def block(self):
        return self.message.blocks[self.index]

    @property
    def owner(self) -> str:
        """Whose buttons the part's hotspots are (for their hover, pressed and copied looks): the tool call's id,
        else the message, block and piece."""
        block = self.message.blocks[self.index] if 0 <= self.index < len(self.message.blocks) else None
        call_id = getattr(block, "id", None)
        return call_id if isinstance(call_id, str) else f"{self.message.id}:{self.index}:{self.segment.start if self.segment else 0}"

    @property
    def live(self) -> bool:
        """The message is still streaming and this is its last block."""
        return not self.message.status.finished and self.index == len(self.message.blocks) - 1

    def piece(self, text: str, plain: bool = False) -> str:
        """The slice of `text` this row shows, with the Markdown that re-opens a cut fence or table
        (`plain`: without the line break it was cut after, which would show as an empty line)."""
        segment = self.segment
        if segment is None:
            return text
        piece = segment.prefix + text[segment.start : segment.end]
        return piece[:-1] if plain and not segment.tail and piece.endswith("\n") else piece


LiveDocument = LiveMarkdown | LivePlainText


class LiveDocuments:
    """Documents of pieces that are still streaming, keyed by (message id, block index, piece start)."""

    def __init__(self) -> None:
        self._live: OrderedDict[tuple[str, int, int], LiveDocument] = OrderedDict()

    def get(self, key: tuple[str, int, int], build: Callable[[], LiveDocument]) -> LiveDocument:
        live = self._live.get(key)
        if live is None:
            live = self._live[key] = build()
            while len(self._live) > LIVE_PIECES:  # pieces that finished while scrolled away
                self._live.popitem(last=False)
        self._live.move_to_end(key)
        return live

    def pop(self, key: tuple[str, int, int]) -> LiveDocument | None:
        return self._live.pop(key, None)

    def __len__(self) -> int:
        return len(self._live)


class SelectionLook(Protocol):
    """What painters need of the transcript's text selection (qt/transcript/selection.py)."""

    def range_in(self, part: Part) -> tuple[int, int] | None:
        """The selected [start, end) of the part's document positions, or None."""

    def char_format(self) -> QTextCharFormat:
        """How selected text looks (the palette's highlight)."""


@dataclass
class PaintEnv:
    theme: Theme = DEFAULT_THEME
    documents: DocumentCache = field(default_factory=DocumentCache)
    live: LiveDocuments = field(default_factory=LiveDocuments)
    clock: Callable[[], float] = time.time
    """Wall-clock seconds, as the models' timestamps are (tests pass a fake)."""
    cards: CardState = field(default_factory=CardState)
    selection: SelectionLook | None = None
    """The text selection the view keeps, painted by the parts whose text can be selected."""
    tails: TailRendering | None = None
    """Where live pieces' Markdown is rendered (None: the app's tail worker; tests pass RenderNow)."""
    reply_of: Callable[[str], list[Message]] | None = None
    """A message id -> the messages of its reply, in order (the delegate binds the model's `reply_of`): the knowledge
    passages under a reply come from all of them."""

    def highlight(self, part: Part):
        """(start, end, format) of the part's selected text for draw_documents, or None."""
        found = self.selection.range_in(part) if self.selection is not None else None
        return (found[0], found[1], self.selection.char_format()) if found else None

    def apply_theme(self, theme: Theme) -> None:
        """Paint with `theme` from now on (qt/common/theme_switch.py): documents rendered in the old colours are dropped."""
        self.theme = theme
        self.documents.clear()
        self.live = LiveDocuments()

    def cached(self, key: Hashable, width: int, build: Callable[[], Document]) -> Document:
        """The document for `key` (content identity, not width), re-wrapped to `width` if needed:
        re-wrapping is much cheaper than rendering the Markdown again after a resize."""
        document = self.documents.get(key, build)
        if document.textWidth() != width:
            document.setTextWidth(width)
        return document

    def column(self, row: QRect) -> QRect:
        """The reading column inside a row: centred, at most `max_column_width` wide."""
        width = max(120, min(self.theme.max_column_width, row.width() - 2 * self.theme.margin))
        left = row.left() + max(self.theme.margin, (row.width() - width) // 2)
        return QRect(left, row.top(), width, row.height())


class PartPainter:
    """Measures and paints one kind of part; `toggle_rect` is the area a click expands or collapses."""

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        raise NotImplementedError

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        raise NotImplementedError

    def toggle_rect(self, part: Part, rect: QRect, env: PaintEnv) -> QRect | None:
        return None

    def text_origin(self, part: Part, rect: QRect, env: PaintEnv) -> QPoint | None:
        """Where the part's `documents` are drawn when the part is at `rect`, if its text can be selected."""
        return None
