"""The transcript's document cache is bounded by the bytes its laid-out documents hold (estimated per document, checked
against the process's RSS), least recently used first; plain text carries no style sheet and looks as it did."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage, QPainter, QTextDocument

from desktop_copilot.qt.common.theme import DEFAULT_THEME
from desktop_copilot.qt.transcript.parts.documents import (
    DOCUMENT_BYTES,
    STYLE_SHEET_BYTES,
    DocumentCache,
    DocumentStack,
    LivePlainText,
    document_bytes,
    markdown_document,
    new_document,
    plain_document,
)

FONT = DEFAULT_THEME.font("body")
PLAIN = "First line of a tool's output\n\n  indented <b>not bold</b> & **not bold either**\nlast line 流式渲染"


def _paint(document: QTextDocument) -> QImage:
    image = QImage(int(document.textWidth()) + 10, int(document.size().height()) + 10, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    document.drawContents(painter)
    painter.end()
    return image


def test_plain_text_has_no_style_sheet_and_looks_as_with_one(qapp):
    plain = plain_document(PLAIN, 300, DEFAULT_THEME, FONT)
    styled = new_document(DEFAULT_THEME, FONT, 300)  # as plain documents were made before
    styled.setPlainText(PLAIN)
    assert plain.defaultStyleSheet() == "" and styled.defaultStyleSheet() != ""
    assert plain.toPlainText() == PLAIN and plain.size() == styled.size()
    assert _paint(plain) == _paint(styled)

    live = LivePlainText(DEFAULT_THEME, FONT)
    live.update(PLAIN[:20], 300)
    finished = live.finish(PLAIN, 300)
    assert finished.defaultStyleSheet() == "" and _paint(finished) == _paint(plain)
    assert markdown_document("**bold**", 300, DEFAULT_THEME).defaultStyleSheet() != ""  # HTML still styled


def test_the_estimate_counts_blocks_characters_and_the_style_sheet(qapp):
    empty_plain, empty_markdown = plain_document("", 300, DEFAULT_THEME, FONT), markdown_document("", 300, DEFAULT_THEME)
    assert document_bytes(empty_markdown) - document_bytes(empty_plain) == STYLE_SHEET_BYTES
    one, many = plain_document("x" * 400, 300, DEFAULT_THEME, FONT), plain_document("x\n" * 200, 300, DEFAULT_THEME, FONT)
    assert document_bytes(empty_plain) < document_bytes(one) < document_bytes(many)  # 201 blocks cost more than one
    stack = DocumentStack()
    stack.append(one)
    stack.append(empty_markdown)
    assert document_bytes(stack) == document_bytes(one) + document_bytes(empty_markdown)


MEASURE = """
import ctypes, gc, os, sys
from PySide6.QtWidgets import QApplication
app = QApplication([])
from desktop_copilot.qt.common.theme import DEFAULT_THEME
from desktop_copilot.qt.transcript.parts.documents import document_bytes, markdown_document, plain_document

def rss():
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

font = DEFAULT_THEME.font("body")
texts = [f"Reply {n}: " + "some words that wrap across the column " * (n % 12) + ("\\n\\n- a list item\\n- another" if n % 3 else "")
         for n in range(120)]
build = lambda n: plain_document(texts[n], 500, DEFAULT_THEME, font) if n % 2 else markdown_document(texts[n], 500, DEFAULT_THEME)
for n in range(20):  # fonts, the style sheet's parser and the heap warmed up
    build(n).size()
before = rss()
kept = [build(n) for n in range(120)]
for document in kept:
    document.size()  # laid out, as painting does
print(sum(document_bytes(document) for document in kept), rss() - before)
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads Linux's /proc")
def test_the_estimate_is_near_what_the_documents_really_hold():
    """In a process of its own: in the test run's, documents reuse the heap earlier tests freed and RSS hardly moves."""
    root = Path(__file__).resolve().parents[4]
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(root))
    done = subprocess.run([sys.executable, "-c", MEASURE], cwd=root, env=env, capture_output=True, text=True, timeout=120, check=True)
    estimated, held = (int(x) for x in done.stdout.split()[-2:])
    assert 0.6 < estimated / held < 1.6, f"estimated {estimated:,} bytes, RSS grew {held:,}"


def test_the_cache_keeps_a_byte_budget_least_recently_used_first(qapp):
    cache = DocumentCache(budget_mb=0.5)
    built: list[str] = []

    def document(key: str, text: str):
        def build():
            built.append(key)
            return plain_document(text, 300, DEFAULT_THEME, FONT)
        return cache.get(key, build)

    for n in range(40):
        document(f"d{n}", f"document {n}")
        if n >= 2:
            document("d0", "document 0")  # used all along: kept
    assert cache.bytes <= cache.budget == 2**19
    assert len(cache) == cache.budget // document_bytes(plain_document("document 10", 300, DEFAULT_THEME, FONT)) < 40
    assert cache.bytes == sum(size for _document, size in cache._documents.values())
    before = len(built)
    document("d0", "document 0"), document("d39", "document 39")
    assert len(built) == before  # held
    document("d1", "document 1")
    assert built[-1] == "d1"  # the least recently used went first

    huge = "line\n" * 400  # ~0.8 MB by the estimate: more than the budget, kept alone while it is the newest
    document("huge", huge)
    assert len(cache) == 1 and cache.bytes > cache.budget
    cache.clear()
    assert len(cache) == 0 and cache.bytes == 0
    assert DOCUMENT_BYTES < document_bytes(plain_document(huge, 300, DEFAULT_THEME, FONT))
