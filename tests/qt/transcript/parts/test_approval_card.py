"""The approval card in a real transcript view: a waiting call shows its server, risk, full arguments (long values
shortened), a coloured diff and four buttons inside the card (a built-in call also "always allow calls like this",
the shell not as a whole); a decided call says how it was decided; result images
are decoded in memory as thumbnails and hostile ones are refused; links are plain text; structured content is not
shown twice."""

from __future__ import annotations

import base64
import json
import struct
import zlib

from PySide6.QtCore import QBuffer, QIODevice, QRect, Qt, QTimer
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QInputDialog, QWidget

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.approval.decisions import Decision
from desktop_copilot.core.conversation.models import Message, MessageStatus, ToolApproval, ToolCallBlock, ToolCallStatus
from desktop_copilot.core.tools.base import Risk
from desktop_copilot.qt.common.theme import DEFAULT_THEME, RISK_BADGES, TOOL_BADGES
from desktop_copilot.qt.transcript.model import TranscriptModel
from desktop_copilot.qt.transcript.parts import tool_card
from desktop_copilot.qt.transcript.parts.approval import (
    LONG_VALUE_CHARS,
    ask_rule_pattern,
    decision_text,
    diff_document,
    shortened_json,
    shown_name,
)
from tests.qt.transcript.transcript_support import show_view

DIFF = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n keep\n-old line\n+new line\n"


def waiting_reply(*calls: tuple[str, dict], risk: Risk = Risk.DESTRUCTIVE, source: str = "files", preview: str = "") -> Message:
    """A finished reply whose tool calls wait for the user, built through the real events the executor sends."""
    reply = Message.assistant("m")
    reply.blocks = [ToolCallBlock(id=call_id, name=f"mcp__{source}__write_file" if source else "write_file", arguments=arguments)
                    for call_id, arguments in calls]
    reply.status = MessageStatus.COMPLETED
    for call_id, _ in calls:
        accumulate(reply, ev.ToolApprovalChanged(tool_call_id=call_id, approval=ToolApproval(risk=risk.value, asked=True, preview=preview)))
        accumulate(reply, ev.ToolStatus(tool_call_id=call_id, name="write_file", status=ToolCallStatus.AWAITING_APPROVAL, source=source))
    return reply


def decide(model: TranscriptModel, reply: Message, call_id: str, decision: Decision, reason: str = "") -> None:
    """What the executor sends once the user answered: the decision, then the call runs or is cancelled."""
    accumulate(reply, ev.ToolApprovalChanged(tool_call_id=call_id, approval=ToolApproval(risk="destructive", asked=True, decision=decision.value,
                                                                                          reason=reason)))
    status = ToolCallStatus.RUNNING if decision.allows else ToolCallStatus.CANCELLED
    accumulate(reply, ev.ToolStatus(tool_call_id=call_id, name="write_file", status=status,
                                    result=None if decision.allows else f"The user declined. Reason: {reason}", is_error=not decision.allows))
    model.message_changed(reply.id)


def card_geometry(view, row: int = 0):
    """(the card's rect, the layout's part) of `row`, in viewport coordinates."""
    index = view.model().index(row, 0)
    layout = view.delegate.layout(index)
    part = layout.parts[0]
    column = view.delegate.env.column(QRect(0, 0, view.delegate.width, layout.height))
    return layout.part_rect(part, column).translated(view.visualRect(index).topLeft()), part


def hotspot_rect(view, label: str, row: int = 0) -> QRect:
    card, part = card_geometry(view, row)
    for hotspot in part.hotspots:
        if hotspot.label == label:
            return hotspot.rect.translated(card.topLeft())
    raise AssertionError(f"no {label!r} on the card: {[h.label for h in part.hotspots]}")


def colours_in(image: QImage, rect: QRect) -> set[int]:
    return {image.pixel(x, y) for x in range(rect.left(), rect.right() + 1) for y in range(rect.top(), rect.bottom() + 1)}


def png_base64(width: int, height: int, colour: str) -> str:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor(colour))
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    assert image.save(buffer, "PNG")
    return base64.b64encode(bytes(buffer.data().data())).decode()


def png_header_only(width: int, height: int) -> str:
    """A PNG whose header claims `width` × `height` pixels, with one tiny (wrong) data chunk."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    raw += chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b"")
    return base64.b64encode(raw).decode()


def test_a_waiting_card_paints_its_buttons_inside_the_card(qtbot):
    model = TranscriptModel()
    model.set_messages([waiting_reply(("call_1", {"path": "notes.txt", "content": "new line"}), preview=DIFF)])
    view = show_view(qtbot, model, 800, 700)
    view.viewport().repaint()
    card, part = card_geometry(view)
    assert part.expanded and model.is_expanded(model.message_at(0).id, 0) is False  # open without being asked to
    labels = [hotspot.label for hotspot in part.hotspots]
    assert labels == ["Allow once", "Allow in this conversation", "Always allow", "Deny…"]
    image = view.viewport().grab().toImage()
    background = QColor(DEFAULT_THEME.card).rgb()
    for label in labels:
        rect = hotspot_rect(view, label)
        assert card.contains(rect), f"{label} {rect} is outside the card {card}"
        inside = colours_in(image, rect.adjusted(4, 3, -4, -3))
        assert len(inside) > 2 and inside != {background}, f"{label} painted nothing"
    assert [item.text for item in part.items if item.kind == "label"] == ["ARGUMENTS", "PREVIEW"]


def test_a_card_from_an_mcp_server_names_it(qtbot):
    from_server = Message.assistant("m")
    from_server.blocks = [ToolCallBlock(id="s", name="mcp__files__stat", source="files", arguments={"p": "a"}, status=ToolCallStatus.DONE, result="ok")]
    built_in = Message.assistant("m")
    built_in.blocks = [ToolCallBlock(id="b", name="stat", arguments={"p": "a"}, status=ToolCallStatus.DONE, result="ok")]
    model = TranscriptModel()
    model.set_messages([from_server, built_in])
    view = show_view(qtbot, model, 800, 400)
    view.viewport().repaint()
    image = view.viewport().grab().toImage()
    crops = []
    for row in (0, 1):
        card, _ = card_geometry(view, row)
        crops.append(image.copy(QRect(card.left() + 30, card.top() + 10, card.width() // 2, 16)))
    assert shown_name(from_server.blocks[0]) == shown_name(built_in.blocks[0]) == "stat"
    assert crops[0] != crops[1]  # only "from files" tells them apart


def test_the_risk_pill_and_the_waiting_badge():
    assert TOOL_BADGES[ToolCallStatus.AWAITING_APPROVAL].text == "Needs approval"
    assert RISK_BADGES[Risk.DESTRUCTIVE].background != RISK_BADGES[Risk.WRITES].background == RISK_BADGES[Risk.OPEN_WORLD].background
    assert RISK_BADGES[Risk.DESTRUCTIVE].text == "Destructive"
    reply = waiting_reply(("c", {}), risk=Risk.OPEN_WORLD)
    assert tool_card.approval.risk_badge(reply.blocks[0]) is RISK_BADGES[Risk.OPEN_WORLD]
    assert shown_name(reply.blocks[0]) == "write_file" and reply.blocks[0].source == "files"


def test_long_argument_values_are_shortened_outside_the_string():
    content = "line\n" * 40
    text, cut = shortened_json({"path": "a.txt", "content": content, "nested": [{"blob": "x" * 5000}]})
    assert cut and "(+" in text and "characters)" in text
    assert len(text) < 1200 and text.count("\\n") <= 8
    assert '"path": "a.txt"' in text
    whole, cut_whole = shortened_json({"content": content}, whole=True)
    assert not cut_whole and json.loads(whole) == {"content": content}
    short, cut_short = shortened_json({"q": "y" * LONG_VALUE_CHARS})
    assert not cut_short and json.loads(short) == {"q": "y" * LONG_VALUE_CHARS}


def test_the_arguments_that_run_are_the_hooks(qtbot):
    reply = waiting_reply(("c", {"path": "a.txt"}))
    reply.blocks[0].approval.arguments = {"path": "workspace/a.txt"}
    assert tool_card.arguments_summary(reply.blocks[0]) == '{"path": "workspace/a.txt"}'
    model = TranscriptModel()
    model.set_messages([reply])
    view = show_view(qtbot, model, 800, 600)
    _, part = card_geometry(view)
    assert next(item.text for item in part.items if item.kind == "label") == "ARGUMENTS (CHANGED BY A HOOK)"
    assert "workspace/a.txt" in part.documents[0].toPlainText()


def test_the_preview_diff_is_coloured(qtbot):
    document = diff_document(DIFF, 500, DEFAULT_THEME, DEFAULT_THEME.font("mono"))
    colours = {}
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        if not fragments.atEnd():  # an empty line has no fragment
            brush = fragments.fragment().charFormat().foreground()
            colours[block.text()] = QColor(brush.color()).name()
        block = block.next()
    assert colours["+new line"] == DEFAULT_THEME.diff_added and colours["-old line"] == DEFAULT_THEME.diff_removed
    assert colours["@@ -1,2 +1,2 @@"] == colours["+++ b/notes.txt"] == DEFAULT_THEME.muted


def test_decided_cards_say_how(qtbot):
    reply = waiting_reply(("c1", {"p": 1}), ("c2", {"p": 2}))
    model = TranscriptModel()
    model.set_messages([reply])
    view = show_view(qtbot, model, 800, 900)
    waiting_height = view.delegate.row_height(model.index(0, 0))
    decide(model, reply, "c1", Decision.ALLOW_ONCE)
    decide(model, reply, "c2", Decision.DENY, "not that file")
    assert decision_text(reply.blocks[0]) == ("Allowed once", False)
    assert decision_text(reply.blocks[1]) == ("Denied: not that file", True)
    assert reply.blocks[1].status is ToolCallStatus.CANCELLED
    for row in (0, 1):
        _, part = card_geometry(view, row)
        assert not part.expanded and part.hotspots == []  # back to a collapsed card, no buttons
    collapsed_plain = tool_card.ToolCard()._summary_height(ToolCallBlock(id="x", name="y"), view.delegate.env)
    assert view.delegate.row_height(model.index(0, 0)) < waiting_height
    assert card_geometry(view, 0)[0].height() > collapsed_plain  # room for the decision line
    view.viewport().repaint()
    image = view.viewport().grab().toImage()
    card, _ = card_geometry(view, 1)
    line = QRect(card.left() + 30, card.bottom() - 26, 150, 16)  # the decision line at the bottom of the collapsed card

    def reddish(rect: QRect) -> int:
        return sum(1 for rgb in colours_in(image, rect) if (c := QColor(rgb)).red() > c.green() + 60 and c.red() > c.blue() + 60)
    assert reddish(line) > 5  # "Denied: not that file" in the error colour
    assert reddish(line.translated(0, card_geometry(view, 0)[0].top() - card.top())) == 0  # "Allowed once" is muted
    for decision, words in ((Decision.READ_ONLY, "Read-only: ran without asking"), (Decision.GRANTED, "Allowed by an earlier grant")):
        block = ToolCallBlock(id="r", name="read", approval=ToolApproval(risk="read_only", decision=decision.value))
        assert decision_text(block) == (words, False)


def show_result(qtbot, parts: list[dict]):
    """A finished MCP call with these result parts, expanded in a view: (view, card rect, laid-out part)."""
    reply = Message.assistant("m")
    reply.blocks = [ToolCallBlock(id="img", name="mcp__pics__render", source="pics", status=ToolCallStatus.DONE, result="A red square.",
                                  result_parts=parts)]
    reply.status = MessageStatus.COMPLETED
    model = TranscriptModel()
    model.set_messages([reply])
    model.set_expanded(reply.id, 0, True)
    view = show_view(qtbot, model, 800, 700)
    view.viewport().repaint()
    return view, *card_geometry(view)


def test_a_result_image_is_shown_as_a_thumbnail(qtbot):
    view, card, part = show_result(qtbot, [{"type": "image", "media_type": "image/png", "data": png_base64(900, 300, "#d00000")},
                                           {"type": "resource_link", "uri": "file:///etc/passwd", "name": "pass\u202ewd\nx", "mime_type": "text/plain"}])
    images = [item for item in part.items if item.kind == "image"]
    assert len(images) == 1 and images[0].rect.width() == 360 and images[0].rect.height() == 120
    rect = images[0].rect.translated(card.topLeft()).adjusted(3, 3, -3, -3)
    painted = colours_in(view.viewport().grab().toImage(), rect)
    assert painted == {QColor("#d00000").rgb()}
    links = [document.toPlainText() for document in part.documents if "🔗" in document.toPlainText()]
    assert links == ["🔗 pass wd x — file:///etc/passwd"]  # plain text: no anchor, no bidi override, one line
    assert not any(part.documents[n].toHtml().count("<a ") for n in range(len(part.documents)))


def test_hostile_images_are_refused_without_crashing(qtbot):
    hostile = [
        base64.b64encode(b"\x89PNG garbage " * 50).decode(),
        png_header_only(100_000, 100_000),
        png_header_only(3000, 3000),  # a plausible size whose data is broken
        "not base64 at all !!!",
        "A" * (8 * 1024 * 1024),  # decodes to more than 5 MB
        base64.b64encode(b"<svg xmlns='http://www.w3.org/2000/svg'><image href='file:///etc/passwd'/></svg>").decode(),
    ]
    for data in hostile:
        assert tool_card.decode_thumbnail(data) is None
    _, _, part = show_result(qtbot, [{"type": "image", "media_type": "image/png", "data": data} for data in hostile[:4]])
    assert [item.text for item in part.items if item.kind == "note"] == [tool_card.BROKEN_IMAGE] * 4


def test_structured_content_is_not_repeated():
    data = {"temperature": 21, "unit": "C"}
    same = ToolCallBlock(id="a", name="t", result=json.dumps(data), result_parts=[{"type": "structured", "data": data}])
    other = ToolCallBlock(id="b", name="t", result="It is warm.", result_parts=[{"type": "structured", "data": data}])
    assert tool_card.structured_text(same) == ""
    assert json.loads(tool_card.structured_text(other)) == data


def built_in_waiting(name: str, arguments: dict, pattern: str, risk: Risk = Risk.WRITES) -> Message:
    """A finished reply whose built-in call waits, with the pattern the approval hook proposes for calls like it."""
    reply = Message.assistant("m")
    reply.blocks = [ToolCallBlock(id="call_1", name=name, arguments=arguments)]
    reply.status = MessageStatus.COMPLETED
    accumulate(reply, ev.ToolApprovalChanged(tool_call_id="call_1", approval=ToolApproval(risk=risk.value, asked=True,
                                                                                         proposed_pattern=pattern)))
    accumulate(reply, ev.ToolStatus(tool_call_id="call_1", name=name, status=ToolCallStatus.AWAITING_APPROVAL))
    return reply


def labels_of(qtbot, reply: Message) -> list[str]:
    model = TranscriptModel()
    model.set_messages([reply])
    view = show_view(qtbot, model, 900, 700)
    return [hotspot.label for hotspot in card_geometry(view)[1].hotspots]


def test_a_built_in_call_offers_to_allow_calls_like_it(qtbot):
    assert labels_of(qtbot, built_in_waiting("write_file", {"path": "notes/todo.md", "content": "x"}, "notes/*")) == [
        "Allow once", "Allow in this conversation", "Always allow", "Always allow writing files like `notes/*`", "Deny…"]
    # the shell cannot be allowed as a whole: only commands like this one
    assert labels_of(qtbot, built_in_waiting("shell", {"command": "git status --short"}, "git status*", Risk.DESTRUCTIVE)) == [
        "Allow once", "Always allow commands like `git status …`", "Deny…"]
    fetch = labels_of(qtbot, built_in_waiting("web_fetch", {"url": "https://docs.python.org/3/"}, "docs.python.org", Risk.OPEN_WORLD))
    assert fetch[3] == "Always allow fetching from `docs.python.org`"
    long = labels_of(qtbot, built_in_waiting("write_file", {"path": "a/b"}, "projects/2026/quarterly-report/drafts/*"))
    assert long[3] == "Always allow writing files like `projects/2026/quarterly-rep…`"
    # without a proposal (an MCP tool's card has none), or from a server named like a built-in: no such button
    assert labels_of(qtbot, built_in_waiting("write_file", {"path": "x"}, "")) == [
        "Allow once", "Allow in this conversation", "Always allow", "Deny…"]
    from_server = waiting_reply(("call_1", {"path": "notes/a"}), source="files")
    from_server.blocks[0].approval.proposed_pattern = "notes/*"
    assert labels_of(qtbot, from_server) == ["Allow once", "Allow in this conversation", "Always allow", "Deny…"]


def test_allow_like_asks_for_the_pattern_then_decides(qtbot):
    reply = built_in_waiting("write_file", {"path": "notes/todo.md", "content": "x"}, "notes/*")
    model = TranscriptModel()
    model.set_messages([reply])
    view = show_view(qtbot, model, 900, 700)
    view.viewport().repaint()
    asked, answers, decided = [], [None, "notes/**.md"], []
    view.ask_rule_pattern = lambda parent, tool, pattern: asked.append((parent, tool, pattern)) or answers.pop(0)
    view.sig_tool_decision.connect(lambda *args: decided.append(args))
    label = "Always allow writing files like `notes/*`"
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=hotspot_rect(view, label).center())
    assert asked == [(view, "write_file", "notes/*")] and decided == []  # cancelled: the card still waits
    assert label in [hotspot.label for hotspot in card_geometry(view)[1].hotspots]

    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=hotspot_rect(view, label).center())
    assert decided == [("call_1", "allow_like", "notes/**.md")]
    assert card_geometry(view)[1].hotspots == []  # "Sending…" until the run hears of it

    accumulate(reply, ev.ToolApprovalChanged(tool_call_id="call_1", approval=ToolApproval(
        risk="writes", asked=True, decision=Decision.ALLOW_LIKE.value, reason="allow write_file `notes/**.md`")))
    assert decision_text(reply.blocks[0]) == ("Allowed, with a rule for calls like it: allow write_file “notes/**.md”", False)
    rule_allowed = ToolCallBlock(id="r", name="write_file", approval=ToolApproval(
        risk="writes", decision=Decision.RULE_ALLOWED.value, reason="allow write_file `notes/*`"))
    assert decision_text(rule_allowed) == ("Allowed by a rule: allow write_file “notes/*”", False)


def test_the_rule_prompt_is_prefilled_and_cannot_be_emptied(qtbot, qapp):
    parent = QWidget()
    qtbot.addWidget(parent)
    seen = []

    def answer(text: str | None) -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QInputDialog):
            QTimer.singleShot(20, lambda: answer(text))
            return
        seen.append((dialog.textValue(), dialog.labelText()))
        if text is None:
            dialog.reject()
        else:
            dialog.setTextValue(text)
            dialog.accept()

    for text, expected in (("  git *  ", "git *"), ("   ", None), (None, None)):
        QTimer.singleShot(0, lambda text=text: answer(text))
        assert ask_rule_pattern(parent, "shell", "git status*") == expected
    assert seen[0] == ("git status*", "Run commands matching this pattern without asking (* matches anything):")
