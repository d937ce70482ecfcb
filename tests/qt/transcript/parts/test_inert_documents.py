"""Transcript documents load nothing (no file, FIFO, /dev/zero, network or data: image), and rendered Markdown
from a hostile corpus has anchors only for http, https and mailto targets; thinking and tool text stay plain."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QImage, QPainter, QTextDocument

from desktop_copilot.core.content.link_safety import is_allowed
from desktop_copilot.core.conversation.models import Message, MessageStatus, ThinkingBlock, ToolCallBlock, ToolCallStatus
from desktop_copilot.qt.transcript.parts.tail_renderer import RenderNow
from desktop_copilot.qt.transcript.parts.documents import InertDocument, LiveMarkdown, markdown_document, plain_document
from desktop_copilot.qt.common.theme import DEFAULT_THEME
from desktop_copilot.qt.transcript.model import TranscriptModel
from tests.qt.transcript.parts import document_probe
from tests.qt.transcript.parts.document_probe import anchors, flat, image_names
from tests.qt.transcript.transcript_support import show_view

CORPUS = Path(__file__).parents[3] / "fixtures" / "hostile_markdown"
EXPECTED = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
load_calls = document_probe.load_calls  # the fixture
RESOURCE_TYPES = [QTextDocument.ResourceType.HtmlResource, QTextDocument.ResourceType.ImageResource,
                  QTextDocument.ResourceType.StyleSheetResource, QTextDocument.ResourceType.MarkdownResource,
                  QTextDocument.ResourceType.UserResource]


def _paint(document: QTextDocument) -> QImage:
    image = QImage(int(document.textWidth()) + 20, int(document.size().height()) + 20, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    document.drawContents(painter)
    painter.end()
    return image


def _red_pixels(image: QImage) -> int:
    return sum(1 for x in range(0, image.width(), 2) for y in range(0, image.height(), 2) if QColor(image.pixel(x, y)).name() == "#ff0000")


@pytest.fixture
def red_png(tmp_path) -> Path:
    path = tmp_path / "red.png"
    image = QImage(60, 40, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    assert image.save(str(path))
    return path


def test_the_corpus_covers_every_fixture():
    assert sorted(EXPECTED) == sorted(p.name for p in CORPUS.glob("*.md")) and len(EXPECTED) >= 9


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hostile_markdown_loads_nothing_and_links_only_web_and_mail(qapp, load_calls, name):
    text = (CORPUS / name).read_text(encoding="utf-8")
    expected = EXPECTED[name]
    document = markdown_document(text, 600, DEFAULT_THEME)
    _paint(document)
    assert isinstance(document, InertDocument)
    assert load_calls == []
    assert image_names(document) == []
    found = anchors(document)
    assert found == expected["links"]
    assert all(is_allowed(href) for href in found)
    shown = document.toPlainText()
    for fragment in expected["shows"]:
        assert fragment in shown


def test_the_load_recorder_sees_calls(qapp, load_calls):
    """The corpus test's "no calls" means something: a resource lookup does reach the recorder (and gets nothing)."""
    document = InertDocument()
    for kind in RESOURCE_TYPES:
        assert document.resource(kind, QUrl("file:///etc/hostname")) is None
    assert [url for _kind, url, _result in load_calls] == ["file:///etc/hostname"] * len(RESOURCE_TYPES)
    assert all(result is None for _kind, _url, result in load_calls)


def test_an_image_tag_that_reaches_a_document_is_not_read(qapp, red_png):
    """Qt's own image handler reads the file (QImage::load) when loadResource gives nothing: ours does not."""
    html = f'<p>a<img src="{red_png}">b<img src="file://{red_png}"></p><table background="{red_png}"><tr><td>c</td></tr></table>'
    plain = QTextDocument()
    plain.setHtml(html)
    plain.setTextWidth(300)
    assert _red_pixels(_paint(plain)) > 100  # the control: a plain document does read it
    inert = InertDocument()
    inert.setHtml(html)
    inert.setTextWidth(300)
    assert _red_pixels(_paint(inert)) == 0
    bare = QTextDocument()
    bare.setHtml(html.replace(f'<img src="{red_png}">', "").replace(f'<img src="file://{red_png}">', ""))
    bare.setTextWidth(300)
    assert inert.size().height() == bare.size().height()  # the images take no room either


FIFO_SCRIPT = r"""
import sys
from PySide6.QtGui import QGuiApplication, QImage, QPainter
app = QGuiApplication([])
from desktop_copilot.qt.transcript.parts.documents import InertDocument, markdown_document
from desktop_copilot.qt.common.theme import DEFAULT_THEME
fifo = sys.argv[1]
documents = [markdown_document(f"![x]({fifo}) ![z](/dev/zero) <img src={fifo}>", 400, DEFAULT_THEME)]
raw = InertDocument()
raw.setHtml(f'<img src="{fifo}"><img src="/dev/zero"><img src="file://{fifo}">')
raw.setTextWidth(400)
documents.append(raw)
for document in documents:
    image = QImage(420, 200, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    document.drawContents(painter)
    painter.end()
print("rendered")
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_or_dev_zero_image_renders_promptly(tmp_path):
    """A FIFO with no writer blocks whoever opens it: rendered in a child process, so a regression fails here
    (killed after the timeout) instead of hanging the test run."""
    fifo = tmp_path / "chart.png"
    os.mkfifo(fifo)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-c", FIFO_SCRIPT, str(fifo)], capture_output=True, text=True, timeout=60, check=False,
                            env=env, cwd=Path(__file__).parents[4])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "rendered"
    assert time.monotonic() - started < 30


def test_a_100_kb_url_renders_promptly_as_text(qapp, load_calls):
    url = "https://example.com/?q=" + "a" * 100_000
    started = time.monotonic()
    document = markdown_document(f"[long]({url}) ![img]({url}) <{url}>", 600, DEFAULT_THEME)
    _paint(document)
    assert time.monotonic() - started < 10
    assert anchors(document) == [] and load_calls == [] and image_names(document) == []
    assert "🖼 img (unusable address, not shown)" in document.toPlainText()


def test_streaming_markdown_pieces_are_inert(qapp, load_calls):
    live = LiveMarkdown(DEFAULT_THEME, clock=iter(range(0, 100_000, 1)).__next__, tails=RenderNow())
    text = ""
    for delta in ["![x](/dev/zero) [a](file:///etc/passwd)", " [b](https://example.com/b)\n\n", "<img src=/etc/passwd>"]:
        text += delta
        documents = live.update(text, 500)
    documents = [live.finish(text, 500)]
    docs = flat(documents)
    assert docs and all(isinstance(d, InertDocument) for d in docs) and isinstance(live.tail, InertDocument)
    assert [href for d in docs for href in anchors(d)] == ["https://example.com/b"]
    assert load_calls == [] and all(image_names(d) == [] for d in docs)


HOSTILE_PLAIN = "[x](https://example.com) ![i](/dev/zero) <img src=/etc/passwd> <a href=file:///etc/passwd>f</a>"


def test_thinking_tool_arguments_and_results_are_plain_inert_text(qtbot, load_calls):
    reply = Message.assistant()
    reply.blocks = [
        ThinkingBlock(thinking=HOSTILE_PLAIN, signature="s", started_at=1.0, ended_at=2.0),
        ToolCallBlock(id="t1", name="fetch", arguments={"url": HOSTILE_PLAIN}, status=ToolCallStatus.DONE, result=HOSTILE_PLAIN),
    ]
    reply.status = MessageStatus.COMPLETED
    model = TranscriptModel()
    model.set_messages([reply])
    model.set_expanded(reply.id, 0, True)
    model.set_expanded(reply.id, 1, True)
    view = show_view(qtbot, model, 800, 900)
    view.viewport().repaint()
    kinds = {}
    for row in range(model.rowCount()):
        for part in view.delegate.layout(model.index(row, 0)).parts:
            kinds.setdefault(part.kind, []).extend(flat(part.documents))
    assert set(kinds) >= {"thinking_body", "tool"}
    documents = kinds["thinking_body"] + kinds["tool"]
    assert len(documents) == 3  # thinking, tool arguments, tool result
    for document in documents:
        assert isinstance(document, InertDocument)
        assert anchors(document) == [] and image_names(document) == []
        assert "<img src=/etc/passwd>" in document.toPlainText()
    assert load_calls == []


def test_plain_documents_show_markup_as_text(qapp, load_calls):
    document = plain_document(HOSTILE_PLAIN, 400, DEFAULT_THEME, DEFAULT_THEME.font("mono"))
    _paint(document)
    assert document.toPlainText() == HOSTILE_PLAIN and anchors(document) == [] and load_calls == []
