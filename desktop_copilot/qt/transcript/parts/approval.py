"""The approval side of a tool card: waiting state, risk and decision words, arguments with long values shortened,
the coloured preview diff, and the decision buttons (laid out as hotspots, painted with hover and pressed states)."""

from __future__ import annotations

import re

import json
import secrets
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QRect, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPen, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QInputDialog, QLineEdit, QWidget

from desktop_copilot.core.approval.decisions import Decision
from desktop_copilot.core.approval.rules import COMMAND_TOOLS, FILE_TOOLS, HOST_TOOLS
from desktop_copilot.core.conversation.models import Message, ToolCallBlock, ToolCallStatus
from desktop_copilot.core.tools.base import Risk
from desktop_copilot.qt.common.core_words import core_text
from desktop_copilot.qt.common.paint_helpers import fill_rounded
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Badge, Theme
from desktop_copilot.qt.transcript.parts.base import CardState, Hotspot, PaintEnv
from desktop_copilot.qt.transcript.parts.documents import new_document

LONG_VALUE_CHARS = 300
LONG_VALUE_LINES = 8
"""A string argument longer than this (characters or lines) is shortened until the user clicks "Show all"."""
BUTTON_GAP = 8
BUTTON_PAD_X = 12
BUTTON_PAD_Y = 6
CHOICES = (
    (Decision.ALLOW_ONCE, QT_TRANSLATE_NOOP("ApprovalCard", "Allow once")),
    (Decision.ALLOW_CONVERSATION, QT_TRANSLATE_NOOP("ApprovalCard", "Allow in this conversation")),
    (Decision.ALLOW_ALWAYS, QT_TRANSLATE_NOOP("ApprovalCard", "Always allow")),
    (Decision.DENY, QT_TRANSLATE_NOOP("ApprovalCard", "Deny…")),
)
"""The decision buttons of a waiting card, in English (translated where laid out)."""
NOT_GRANTABLE = frozenset({"shell"})
"""Built-in tools that cannot be allowed as a whole ("Allow in this conversation", "Always allow"): only calls like
one (a rule with a pattern) can be (the tool class says `grantable = False`, which the card cannot see)."""
LIKE_LABELS = {
    "command": QT_TRANSLATE_NOOP("ApprovalCard", "Always allow commands like `{pattern}`"),
    "write_file": QT_TRANSLATE_NOOP("ApprovalCard", "Always allow writing files like `{pattern}`"),
    "edit_file": QT_TRANSLATE_NOOP("ApprovalCard", "Always allow editing files like `{pattern}`"),
    "path": QT_TRANSLATE_NOOP("ApprovalCard", "Always allow reading files like `{pattern}`"),
    "host": QT_TRANSLATE_NOOP("ApprovalCard", "Always allow fetching from `{pattern}`"),
    "other": QT_TRANSLATE_NOOP("ApprovalCard", "Always allow calls like `{pattern}`"),
}
"""The "always allow calls like this" button, by what the tool's pattern matches."""
LIKE_PROMPTS = {
    "command": QT_TRANSLATE_NOOP("ApprovalCard", "Run commands matching this pattern without asking (* matches anything):"),
    "path": QT_TRANSLATE_NOOP("ApprovalCard", "Allow {tool} without asking for workspace paths matching this pattern "
                              "(* matches anything):"),
    "host": QT_TRANSLATE_NOOP("ApprovalCard", "Fetch from hosts matching this pattern without asking (*.python.org "
                              "matches its subdomains):"),
    "other": QT_TRANSLATE_NOOP("ApprovalCard", "Allow {tool} without asking for calls matching this pattern (* matches "
                               "anything):"),
}
LIKE_PATTERN_CHARS = 28
"""A pattern longer than this is shortened on the button (the prompt shows it whole)."""
REASON_MAX = 2000
"""Characters of a denial reason sent to the model at most."""


def is_waiting(block: ToolCallBlock) -> bool:
    """The call waits for the user's answer (the card shows its buttons)."""
    approval = block.approval
    return block.status is ToolCallStatus.AWAITING_APPROVAL and approval is not None and approval.asked and not approval.decision


def waiting_calls(message: Message, cards: CardState) -> list[ToolCallBlock]:
    """The calls of `message` still waiting whose answer has not been sent yet."""
    return [block for block in message.tool_calls if is_waiting(block) and block.id not in cards.sending]


def shown_name(block: ToolCallBlock) -> str:
    """The tool's own name (an MCP tool's, without the `mcp__server__` prefix the model calls it by)."""
    if block.title:
        return block.title
    if block.source and block.name.startswith("mcp__") and block.name.count("__") >= 2:
        return block.name.split("__", 2)[2] or block.name
    return block.name


def arguments_to_run(block: ToolCallBlock) -> dict[str, Any]:
    """The arguments that run: a before-hook's replacement when there is one, else the model's."""
    if block.approval is not None and block.approval.arguments is not None:
        return block.approval.arguments
    return block.arguments


def arguments_changed(block: ToolCallBlock) -> bool:
    return block.approval is not None and block.approval.arguments is not None and block.approval.arguments != block.arguments


def risk_badge(block: ToolCallBlock, theme: Theme = DEFAULT_THEME) -> Badge | None:
    """The risk pill of a waiting card in `theme`'s colours (an unknown value shows as undeclared effects)."""
    if not is_waiting(block):
        return None
    try:
        risk = Risk(block.approval.risk)
    except ValueError:
        risk = Risk.UNKNOWN
    return theme.risk_badges[risk]


RULE_DECISIONS = (Decision.RULE_ALLOWED, Decision.RULE_DENIED, Decision.ALLOW_LIKE)
"""Decisions whose reason is a rule (`Rule.describe()`)."""


def decision_text(block: ToolCallBlock) -> tuple[str, bool]:
    """The line under a decided card's header saying why it ran or did not ("Denied: …"), and whether it was refused."""
    approval = block.approval
    if approval is None or not approval.decision:
        return "", False
    try:
        decision = Decision(approval.decision)
    except ValueError:
        return approval.decision, False
    text = core_text(decision.label)
    if (not decision.allows or decision in (Decision.RULE_ALLOWED, Decision.ALLOW_LIKE)) and approval.reason.strip():  # which rule, why denied
        reason = " ".join(approval.reason.split())
        if decision in RULE_DECISIONS:  # a rule's pattern in quotes, not the command line's backticks
            reason = re.sub(r"`([^`]*)`", "“\\1”", reason)
        text += ": " + reason
    return text, not decision.allows


def shortened_json(arguments: dict[str, Any], whole: bool = False) -> tuple[str, bool]:
    """Pretty JSON of `arguments`, string values longer than LONG_VALUE_CHARS / LONG_VALUE_LINES cut with a note
    outside the string (unless `whole`); and whether anything was cut."""
    if whole:
        return json.dumps(arguments, ensure_ascii=False, indent=2), False
    token = secrets.token_hex(8)
    cuts: dict[str, str] = {}

    def shorten(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: shorten(item) for key, item in value.items()}
        if isinstance(value, list):
            return [shorten(item) for item in value]
        if isinstance(value, str) and (len(value) > LONG_VALUE_CHARS or value.count("\n") >= LONG_VALUE_LINES):
            kept = "\n".join(value.split("\n")[:LONG_VALUE_LINES])[:LONG_VALUE_CHARS]
            marker = f"\x00{token}:{len(cuts)}"
            cuts[json.dumps(marker)] = json.dumps(kept, ensure_ascii=False)[:-1] + f'…" (+{len(value) - len(kept):,} characters)'
            return marker
        return value

    text = json.dumps(shorten(arguments), ensure_ascii=False, indent=2)
    for marker, shown in cuts.items():
        text = text.replace(marker, shown, 1)
    return text, bool(cuts)


def diff_document(preview: str, width: int, theme: Theme, font: QFont) -> QTextDocument:
    """`preview` as plain text, a unified diff's added lines green, removed lines red, hunk headers muted."""
    document = new_document(theme, font, width)
    cursor = QTextCursor(document)
    colours = {"+": theme.color("diff_added"), "-": theme.color("diff_removed"), "@": theme.color("muted")}
    for n, line in enumerate(preview.split("\n")):
        if n:
            cursor.insertBlock()
        form = QTextCharFormat()
        header = line.startswith(("+++ ", "--- ", "@@"))
        colour = theme.color("muted") if header else colours.get(line[:1])
        if colour is not None:
            form.setForeground(colour)
        cursor.insertText(line, form)
    return document


# --- buttons -------------------------------------------------------------------------------


def button_height(theme: Theme) -> int:
    return QFontMetrics(theme.font("small_bold")).height() + 2 * BUTTON_PAD_Y


def pattern_kind(tool: str) -> str:
    """What a built-in tool's rule pattern matches: "command", "path", "host", or "other"."""
    return "command" if tool in COMMAND_TOOLS else "path" if tool in FILE_TOOLS else "host" if tool in HOST_TOOLS else "other"


def offers_rule(block: ToolCallBlock) -> bool:
    """The card offers "always allow calls like this": a built-in tool's call with a proposed pattern."""
    return not block.source and block.approval is not None and bool(block.approval.proposed_pattern)


def grantable(block: ToolCallBlock) -> bool:
    """The card offers "Allow in this conversation" and "Always allow" (not for the built-in shell)."""
    return bool(block.source) or block.name not in NOT_GRANTABLE


def like_label(block: ToolCallBlock) -> str:
    """The button's words for calls like this one: "Always allow commands like `git status …`" (a long pattern cut)."""
    pattern, kind = block.approval.proposed_pattern, pattern_kind(block.name)
    if kind == "command" and pattern.endswith("*") and not pattern.endswith(" *"):
        pattern = pattern[:-1] + " …"  # `git status*` reads as "git status and anything after"
    if len(pattern) > LIKE_PATTERN_CHARS:
        pattern = pattern[:LIKE_PATTERN_CHARS - 1] + "…"
    key = block.name if block.name in LIKE_LABELS else kind
    return QCoreApplication.translate("ApprovalCard", LIKE_LABELS[key]).format(pattern=pattern)


def choices(block: ToolCallBlock) -> list[tuple[str, str]]:
    """(decision value, label in the interface language) of the buttons a waiting call offers."""
    chosen = []
    for decision, label in CHOICES:
        if decision in (Decision.ALLOW_CONVERSATION, Decision.ALLOW_ALWAYS) and not grantable(block):
            continue
        if decision is Decision.DENY and offers_rule(block):
            chosen.append((Decision.ALLOW_LIKE.value, like_label(block)))
        chosen.append((decision.value, QCoreApplication.translate("ApprovalCard", label)))
    return chosen


def lay_out_buttons(block: ToolCallBlock, message: Message, env: PaintEnv, left: int, top: int, width: int) -> tuple[list[Hotspot], int]:
    """The decision buttons of a waiting card, flowed into rows from (left, top) within `width` (relative to the
    part), and the height they take; "Allow all N" and "Deny all" on a row of their own when several calls wait."""
    metrics, height = QFontMetrics(env.theme.font("small_bold")), button_height(env.theme)
    rows = [[("decide", value, label) for value, label in choices(block)]]
    count = len(waiting_calls(message, env.cards))
    if count > 1:
        rows.append([("decide_all", Decision.ALLOW_ONCE.value, QCoreApplication.translate("ApprovalCard", "Allow all {count}").format(count=count)),
                     ("decide_all", Decision.DENY.value, QCoreApplication.translate("ApprovalCard", "Deny all…"))])
    hotspots: list[Hotspot] = []
    y = top
    for row in rows:
        x = left
        for action, value, label in row:
            button_width = min(width, metrics.horizontalAdvance(label) + 2 * BUTTON_PAD_X)
            if x > left and x + button_width > left + width:
                x, y = left, y + height + BUTTON_GAP
            hotspots.append(Hotspot(QRect(x, y, button_width, height), action, value, label))
            x += button_width + BUTTON_GAP
        y += height + BUTTON_GAP
    return hotspots, y - BUTTON_GAP - top


def draw_button(painter: QPainter, hotspot: Hotspot, rect: QRect, call_id: str, env: PaintEnv) -> None:
    theme, key = env.theme, (call_id, hotspot.action, hotspot.value)
    fill = "button_pressed" if env.cards.pressed == key else "button_hover" if env.cards.hover == key else "button"
    fill_rounded(painter, rect, 6, theme.color(fill), theme.color("button_border"))
    if env.cards.focused == key:
        draw_focus_ring(painter, rect, 6, env)
    painter.setFont(theme.font("small_bold"))
    painter.setPen(theme.color("error_text") if hotspot.value == Decision.DENY.value else theme.color("text"))
    label = QFontMetrics(theme.font("small_bold")).elidedText(hotspot.label, Qt.TextElideMode.ElideRight, rect.width() - 8)
    painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), label)


def draw_focus_ring(painter: QPainter, rect: QRect, radius: int, env: PaintEnv) -> None:
    """The keyboard's focus ring around a card's button or link: two pixels of the accent, a pixel outside its border
    (the accent stands out from the card at 3:1 or more in both themes; the softer focus_border does not)."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(env.theme.color("accent"), 2))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(QRectF(rect).adjusted(-3, -3, 3, 3), radius + 3, radius + 3)
    painter.restore()


def draw_link(painter: QPainter, hotspot: Hotspot, rect: QRect, call_id: str, env: PaintEnv) -> None:
    """A text link such as "Show all", underlined under the pointer."""
    key = (call_id, hotspot.action, hotspot.value)
    font = QFont(env.theme.font("small_bold"))
    font.setUnderline(env.cards.hover == key or env.cards.focused == key)
    if env.cards.focused == key:
        draw_focus_ring(painter, QRect(rect.left(), rect.top(), QFontMetrics(font).horizontalAdvance(hotspot.label), rect.height()), 3, env)
    painter.setFont(font)
    painter.setPen(env.theme.color("accent"))
    painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), hotspot.label)


def card_look(block: ToolCallBlock, message: Message, cards: CardState) -> tuple:
    """What a tool card's layout depends on beyond its segment: approval, server, result parts, and the user's
    clicks on it (the delegate keys its layout cache by this too)."""
    approval = block.approval
    state = () if approval is None else (id(approval), approval.asked, approval.decision, approval.reason, len(approval.preview),
                                         approval.proposed_pattern)
    waiting = len(waiting_calls(message, cards)) if is_waiting(block) else 0
    return block.source, len(block.result_parts), state, block.id in cards.sending, block.id in cards.shown_whole, waiting


def ask_denial_reason(parent: QWidget, title: str) -> str | None:
    """A small modal box for the reason the model is told; None when the user cancels."""
    text, ok = QInputDialog.getText(parent, title, QCoreApplication.translate("ApprovalCard", "Reason for the model (optional):"),
        QLineEdit.EchoMode.Normal, "")
    return " ".join(text.split())[:REASON_MAX] if ok else None


def ask_rule_pattern(parent: QWidget, tool: str, pattern: str) -> str | None:
    """A small modal box to edit the pattern of the allow rule "always allow calls like this" adds, prefilled with the
    proposal; None when the user cancels or empties it (an empty pattern would not be a rule for calls like this)."""
    prompt = QCoreApplication.translate("ApprovalCard", LIKE_PROMPTS[pattern_kind(tool)]).format(tool=tool)
    text, ok = QInputDialog.getText(parent, QCoreApplication.translate("ApprovalCard", "Always allow calls like this"), prompt,
                                    QLineEdit.EchoMode.Normal, pattern)
    return (text.strip() or None) if ok else None
