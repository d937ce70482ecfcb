"""PDF files read with PDFium (pypdfium2): passages page by page, under the document outline's headings."""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from pathlib import Path

from desktop_copilot.core.knowledge.extract_text import paragraph_blocks, split_lines
from desktop_copilot.core.knowledge.extract_units import HARD, HeadingPath, Passage, UnreadableFile, line_units, pack
from desktop_copilot.core.knowledge.reasons import DAMAGED_PDF
from desktop_copilot.core.words import N_

_PDFIUM = threading.Lock()
"""PDFium is not thread-safe: one document at a time, whichever thread reads it."""
_NOT_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_LOAD_ERRORS = {
    2: N_("the file could not be opened"),
    3: DAMAGED_PDF.format(why=N_("not a readable PDF file")),
    4: N_("encrypted PDF (needs a password)"),
    5: N_("encrypted PDF (unsupported security scheme)"),
}
MAX_OUTLINE = 10_000


def _open(pdfium, path: Path):
    try:
        return pdfium.PdfDocument(Path(path))
    except pdfium.PdfiumError as exc:
        raise UnreadableFile(_LOAD_ERRORS.get(exc.err_code, DAMAGED_PDF.format(why=exc))) from None


def _outline(doc) -> tuple[list[int], list[str]]:
    """The outline (bookmarks) as heading paths by page: (first page indexes sorted, the path from each)."""
    marks: list[tuple[int, str]] = []
    headings = HeadingPath()
    for n, bookmark in enumerate(doc.get_toc()):
        if n >= MAX_OUTLINE:
            break
        path = headings.enter(bookmark.level + 1, " ".join(bookmark.get_title().split()))
        dest = bookmark.get_dest()
        index = dest.get_index() if dest is not None else None
        if index is not None:
            marks.append((index, path))
    marks.sort(key=lambda mark: mark[0])
    return [m[0] for m in marks], [m[1] for m in marks]


def _page_text(doc, index: int) -> str:
    page = doc[index]
    try:
        textpage = page.get_textpage()
        try:
            text = textpage.get_text_bounded()
        finally:
            textpage.close()
    finally:
        page.close()
    return _NOT_TEXT.sub("", text)


def pdf_pages(path: Path) -> list[tuple[str, str]]:
    """(text, outline heading) of each page, in order. Raises UnreadableFile for an encrypted or damaged PDF."""
    try:
        import pypdfium2 as pdfium
    except ImportError:
        raise UnreadableFile(N_("PDF support is not installed (pypdfium2)")) from None

    with _PDFIUM:
        doc = _open(pdfium, path)
        try:
            try:
                starts, paths = _outline(doc)
            except pdfium.PdfiumError:
                starts, paths = [], []
            pages = []
            for index in range(len(doc)):
                where = bisect_right(starts, index) - 1
                pages.append((_page_text(doc, index), paths[where] if where >= 0 else ""))
        except pdfium.PdfiumError as exc:
            raise UnreadableFile(DAMAGED_PDF.format(why=exc)) from None
        finally:
            doc.close()
    return pages


def pdf_passages(path: Path, max_chars: int) -> list[Passage]:
    pages = pdf_pages(path)
    if not any(text.strip() for text, _ in pages):
        raise UnreadableFile(N_("no text layer (scanned PDF?)"))
    passages: list[Passage] = []
    for number, (text, heading) in enumerate(pages, 1):
        units = line_units([line.strip() for line in split_lines(text)], max_chars)
        units.first = units.last = [None] * len(units.text)  # a PDF passage is located by its page only
        blocks = paragraph_blocks(units.text)
        for block in blocks:
            block.heading = heading
        if blocks:
            blocks[0].brk = HARD
        passages += pack(units, blocks, max_chars, page=number)
    return passages
