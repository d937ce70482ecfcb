"""Shared by the link tests: what a rendered QTextDocument holds (anchors, image formats) and a recorder of
every loadResource call made by the transcript's documents."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocument

from desktop_copilot.qt.transcript.parts.documents import DocumentStack, Documents, InertDocument


def flat(documents: Documents) -> list[QTextDocument]:
    return [d for item in documents for d in (item.documents if isinstance(item, DocumentStack) else [item])]


def fragments(document: QTextDocument):
    block = document.begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            yield iterator.fragment()
            iterator += 1
        block = block.next()


def anchors(document: QTextDocument) -> list[str]:
    """Every distinct clickable target, in order (neighbouring fragments of one link count once)."""
    found: list[str] = []
    previous = ""
    for fragment in fragments(document):
        format_ = fragment.charFormat()
        href = format_.anchorHref() if format_.isAnchor() else ""
        if href and href != previous:
            found.append(href)
        previous = href
    return found


def image_names(document: QTextDocument) -> list[str]:
    return [f.charFormat().toImageFormat().name() for f in fragments(document) if f.charFormat().isImageFormat()]


@pytest.fixture
def load_calls(monkeypatch) -> list[tuple[int, str, object]]:
    """(resource type, URL, what was returned) for every InertDocument.loadResource call during the test."""
    calls: list[tuple[int, str, object]] = []
    original = InertDocument.loadResource

    def record(self, kind, url):
        result = original(self, kind, url)
        calls.append((int(kind), url.toString(), result))
        return result

    monkeypatch.setattr(InertDocument, "loadResource", record)
    return calls
