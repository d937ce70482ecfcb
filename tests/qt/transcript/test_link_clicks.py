"""Clicking and hovering links in a real transcript view: the policy is checked again at the click, a link whose
text names another host asks first (showing the real target), an honest one opens at once, a refused one is
not a link at all; hovering shows the target; cited sources appear under the finished text as links."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QMessageBox, QToolTip

from desktop_copilot.core.conversation.models import Message, MessageStatus, TextBlock
from desktop_copilot.qt.transcript.link_opener import LinkOpener, confirm_with_dialog, tooltip_html
from desktop_copilot.qt.transcript.model import TranscriptModel
from tests.qt.transcript.parts.document_probe import anchors, flat
from tests.qt.transcript.transcript_support import show_view

TEXT = ("Log in at [https://bank.com](https://evil.example/login), read [the **docs**](https://example.com/docs), "
        "or open [the share](smb://attacker.example/share) and [the app](myapp://run).")
CITATIONS = [
    {"type": "web_search_result_location", "url": "https://hko.gov.hk/en", "title": "HKO forecast", "cited_text": "Sunny."},
    {"type": "web_search_result_location", "url": "https://hko.gov.hk/en", "title": "HKO forecast", "cited_text": "Again."},
    {"type": "web_search_result_location", "url": "https://evil.example/x", "title": "bank.com", "cited_text": "Log in."},
    {"type": "web_search_result_location", "url": "file:///etc/passwd", "title": "Local", "cited_text": "root"},
    {"type": "char_location", "document_title": "Notes.txt", "cited_text": "The tide turns at six.", "document_index": 0},
]


class Recorder:
    """An injected opener and confirmer: what would have been opened, and what the user was asked."""

    def __init__(self, answer: bool = False) -> None:
        self.opened: list[str] = []
        self.asked: list[tuple[str, str]] = []
        self.answer = answer

    def open_url(self, url) -> bool:
        self.opened.append(url.toString(url.ComponentFormattingOption.FullyEncoded))
        return True

    def confirm(self, parent, url: str, reason: str) -> bool:
        self.asked.append((url, reason))
        return self.answer


def _reply(text: str, citations=()) -> Message:
    reply = Message.assistant()
    reply.blocks = [TextBlock(text=text, citations=list(citations))]
    reply.status = MessageStatus.COMPLETED
    return reply


@pytest.fixture
def clicks(qtbot):
    model = TranscriptModel()
    model.set_messages([_reply(TEXT, CITATIONS)])
    view = show_view(qtbot, model, 760, 500)
    recorder = Recorder()
    view.link_opener = LinkOpener(view, recorder.open_url, recorder.confirm)
    view.viewport().repaint()
    return view, recorder


def _link_spots(view) -> dict[str, tuple[QPoint, str]]:
    """For each link target in row 0: a point on it (view coordinates) and its visible text."""
    index = view.model().index(0, 0)
    rect = view.visualRect(index)
    spots: dict[str, tuple[QPoint, str]] = {}
    for y in range(rect.top(), rect.bottom(), 3):
        for x in range(rect.left(), rect.right(), 3):
            hit = view.delegate.link_hit(index, rect, QPoint(x, y))
            if hit and hit.href not in spots:
                spots[hit.href] = (QPoint(x, y), hit.text)
    return spots


def _click(qtbot, view, pos: QPoint) -> None:
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def test_only_allowed_targets_are_links(clicks):
    view, _recorder = clicks
    spots = _link_spots(view)
    assert set(spots) == {"https://evil.example/login", "https://example.com/docs", "https://hko.gov.hk/en", "https://evil.example/x"}
    assert spots["https://example.com/docs"][1] == "the docs"  # both fragments of the link
    assert spots["https://evil.example/login"][1] == "https://bank.com"
    text = "".join(d.toPlainText() for d in flat(view.delegate.layout(view.model().index(0, 0)).parts[0].documents))
    assert "the share" in text and "the app" in text


def test_a_link_naming_another_host_asks_first_and_shows_the_real_target(qtbot, clicks):
    view, recorder = clicks
    spot, _text = _link_spots(view)["https://evil.example/login"]
    _click(qtbot, view, spot)
    assert recorder.asked and recorder.asked[0][0] == "https://evil.example/login"
    assert "bank.com" in recorder.asked[0][1] and "evil.example" in recorder.asked[0][1]
    assert recorder.opened == []  # the user chose Cancel
    recorder.answer = True
    _click(qtbot, view, spot)
    assert recorder.opened == ["https://evil.example/login"]


def test_an_honest_link_opens_without_asking(qtbot, clicks):
    view, recorder = clicks
    _click(qtbot, view, _link_spots(view)["https://example.com/docs"][0])
    assert recorder.opened == ["https://example.com/docs"] and recorder.asked == []


def test_cited_sources_show_under_the_text_deduplicated_and_checked(qtbot, clicks):
    view, recorder = clicks
    documents = flat(view.delegate.layout(view.model().index(0, 0)).parts[0].documents)
    sources = documents[-1].toPlainText()
    assert "Sources" in sources
    assert "[1] HKO forecast — hko.gov.hk" in sources and sources.count("HKO forecast") == 1
    assert "[2] bank.com — evil.example" in sources
    assert "[3] Local — local file" in sources and "[4] Notes.txt — “The tide turns at six.”" in sources
    assert anchors(documents[-1]) == ["https://hko.gov.hk/en", "https://evil.example/x"]
    spots = _link_spots(view)
    _click(qtbot, view, spots["https://hko.gov.hk/en"][0])
    _click(qtbot, view, spots["https://evil.example/x"][0])  # its title names bank.com: asks, the user cancels
    assert recorder.opened == ["https://hko.gov.hk/en"]
    assert [url for url, _reason in recorder.asked] == ["https://evil.example/x"]


def test_sources_appear_once_the_text_is_finished(qtbot):
    reply = Message.assistant()
    reply.status = MessageStatus.STREAMING
    reply.blocks = [TextBlock(text="Streaming text with a source", citations=CITATIONS[:1])]
    model = TranscriptModel()
    model.set_messages([reply])
    view = show_view(qtbot, model, 700, 400)
    view.viewport().repaint()
    streaming = flat(view.delegate.layout(model.index(0, 0)).parts[0].documents)
    assert "".join(d.toPlainText() for d in streaming).strip() == "Streaming text with a source"  # no sources yet
    reply.status = MessageStatus.COMPLETED
    model.message_changed(reply.id)
    documents = flat(view.delegate.layout(model.index(0, 0)).parts[0].documents)
    assert "[1] HKO forecast" in documents[-1].toPlainText()
    reply.blocks[0].citations.append(CITATIONS[2])  # a citation arriving after the text finished
    model.message_changed(reply.id)
    documents = flat(view.delegate.layout(model.index(0, 0)).parts[0].documents)
    assert "[2] bank.com" in documents[-1].toPlainText()


def test_hovering_a_link_shows_its_full_target(qtbot, clicks):
    view, _recorder = clicks
    spot, _text = _link_spots(view)["https://evil.example/login"]
    tip = view.link_tooltip_at(spot)
    assert "https://evil.example/login" in tip and "evil.example" in tip
    assert view.link_tooltip_at(QPoint(2, 2)) == ""
    event = QHelpEvent(QEvent.Type.ToolTip, spot, view.viewport().mapToGlobal(spot))
    QApplication.sendEvent(view.viewport(), event)
    qtbot.waitUntil(QToolTip.isVisible)
    assert "https://evil.example/login" in QToolTip.text()
    QToolTip.hideText()


def test_tooltips_escape_and_elide_the_target():
    tip = tooltip_html("https://example.com/<b>x</b>\u202e")
    assert "<b>x" not in tip and "&lt;b&gt;x" in tip and "⟨U+202E⟩" in tip
    long = tooltip_html("https://example.com/?q=" + "a" * 5000)
    assert " … " in long and len(long) < 3000
    assert "will not open" in tooltip_html("smb://attacker.example/share")


@pytest.mark.parametrize("href", ["smb://attacker.example/share", "file:///etc/passwd", "javascript:alert(1)",
                                  "search-ms:query=x", "/etc/passwd", "https://bank.com\\@evil.example/", " https://e.com"])
def test_the_opener_never_trusts_the_href(href):
    recorder = Recorder(answer=True)
    assert not LinkOpener(None, recorder.open_url, recorder.confirm).activate(href, "text")
    assert recorder.opened == [] and recorder.asked == []


def test_look_alike_and_direction_tricks_ask_first():
    recorder = Recorder(answer=True)
    opener = LinkOpener(None, recorder.open_url, recorder.confirm)
    assert opener.activate("https://xn--bnk-6cd.com/login", "log in")
    assert opener.activate("https://example.com/%E2%80%AEfdp.exe", "invoice")
    assert opener.activate("https://bank.com@evil.example/", "bank")
    assert [url for url, _reason in recorder.asked] == recorder.opened == [
        "https://xn--bnk-6cd.com/login", "https://example.com/%E2%80%AEfdp.exe", "https://bank.com@evil.example/"]


@pytest.mark.parametrize(("choice", "opens"), [("Open", True), ("Cancel", False)])
def test_the_confirmation_dialog_shows_the_real_target_as_plain_text(qapp, monkeypatch, choice, opens):
    shown = []

    def fake_exec(box):
        shown.append((box.text(), box.textFormat(), box.defaultButton().text()))
        next(button for button in box.buttons() if button.text().replace("&", "") == choice).click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    assert confirm_with_dialog(None, "https://evil.example/<b>login</b>", "The link text shows bank.com.") is opens
    text, text_format, default = shown[0]
    assert "https://evil.example/<b>login</b>" in text and "bank.com" in text
    assert text_format == Qt.TextFormat.PlainText and default.replace("&", "") == "Cancel"
