"""DOCX files read with the standard library (zipfile + ElementTree): paragraphs in order, headings by their style,
table rows as "cell | cell"; a passage's location is its paragraph numbers."""

from __future__ import annotations

import re
import zipfile
import zlib
from xml.etree import ElementTree

from desktop_copilot.core.knowledge.extract_units import HARD, SOFT, HeadingPath, Paragraph, Passage, UnreadableFile, pack, paragraph_units
from desktop_copilot.core.knowledge.reasons import DAMAGED_DOCX
from desktop_copilot.core.words import N_

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_P, _TBL, _TR, _TC, _T, _TAB, _BR, _CR = (_W + n for n in ("p", "tbl", "tr", "tc", "t", "tab", "br", "cr"))
_PPR, _PSTYLE, _OUTLINE, _VAL = _W + "pPr", _W + "pStyle", _W + "outlineLvl", _W + "val"
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_HYPHENS = {_W + "noBreakHyphen": "\u2011", _W + "softHyphen": ""}
_CONTAINERS = frozenset(_W + n for n in ("sdt", "sdtContent", "customXml", "smartTag", "ins", "moveTo"))
_HEADING_NAME = re.compile(r"(?:heading|titre|überschrift|titolo|título|kop|rubrik|nagłówek|заголовок)\s*(\d)", re.IGNORECASE)
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""A password-protected Office file is an OLE compound file, not a zip."""
TITLE = 0
"""The level of the Title style: above Heading 1, so a title and the first heading stay together."""
CHUNK = 1 << 16
MAX_XML_BYTES = 256 * 1024 * 1024
"""A larger word/document.xml is refused (a zip bomb, or not worth indexing)."""

def _heading_levels(archive: zipfile.ZipFile) -> dict[str, int]:
    """Paragraph style id -> heading level (1–6), from the styles' names ("heading 2", "Title") or outline levels."""
    try:
        root = _parse(archive, "word/styles.xml")
    except (KeyError, UnreadableFile):
        return {}
    levels = {}
    for style in root.iter(_W + "style"):
        style_id = style.get(_W + "styleId")
        name_el = style.find(_W + "name")
        name = (name_el.get(_VAL) if name_el is not None else "") or ""
        outline = style.find(f"{_PPR}/{_OUTLINE}")
        if name.lower() == "title":
            levels[style_id] = TITLE
        elif (match := _HEADING_NAME.fullmatch(name.strip())) is not None and 1 <= int(match[1]) <= 9:
            levels[style_id] = min(int(match[1]), 6)
        elif outline is not None and (value := outline.get(_VAL, "")).isdigit() and int(value) < 9:
            levels[style_id] = min(int(value) + 1, 6)
    return levels


def _parse(archive: zipfile.ZipFile, name: str):
    """One XML part of the package, parsed 64 KB at a time (a long parse in one call would hold the GIL for its
    whole length), with no DTD and no more than MAX_XML_BYTES."""
    parser = ElementTree.XMLParser()
    fed = 0
    with archive.open(name) as stream:
        while chunk := stream.read(CHUNK):
            if fed == 0 and (b"<!DOCTYPE" in chunk[:4096] or b"<!ENTITY" in chunk[:4096]):
                raise UnreadableFile(DAMAGED_DOCX.format(why=f"{name} declares entities"))
            fed += len(chunk)
            if fed > MAX_XML_BYTES:
                raise UnreadableFile(f"too large to index ({name} is over {MAX_XML_BYTES // (1024 * 1024)} MB unpacked)")
            try:
                parser.feed(chunk)
            except ElementTree.ParseError as exc:
                raise UnreadableFile(DAMAGED_DOCX.format(why=exc)) from None
    try:
        return parser.close()
    except ElementTree.ParseError as exc:
        raise UnreadableFile(DAMAGED_DOCX.format(why=exc)) from None


def _text(paragraph) -> str:
    """A paragraph's text: its runs' text, tabs and breaks (a shape's fallback copy of the same text left out)."""
    parts = []
    stack = [paragraph]
    while stack:
        el = stack.pop()
        tag = el.tag
        if tag == _T:
            parts.append(el.text or "")
        elif tag == _TAB:
            parts.append("\t")
        elif tag == _BR or tag == _CR:
            parts.append("\n")
        elif tag in _HYPHENS:
            parts.append(_HYPHENS[tag])
        elif tag != _FALLBACK and len(el):
            stack.extend(reversed(el))
    return "".join(parts)


def _level(paragraph, levels: dict[str, int]) -> int | None:
    """The heading level of a paragraph (TITLE, 1–6), or None for body text."""
    ppr = paragraph.find(_PPR)
    if ppr is None:
        return None
    outline = ppr.find(_OUTLINE)
    if outline is not None and (value := outline.get(_VAL, "")).isdigit() and int(value) < 9:
        return min(int(value) + 1, 6)
    style = ppr.find(_PSTYLE)
    return levels.get(style.get(_VAL)) if style is not None else None


class _Reader:
    """Walks the document body in order, numbering its paragraphs and following its headings."""

    def __init__(self, levels: dict[str, int]) -> None:
        self.levels = levels
        self.headings = HeadingPath()
        self.number = 0
        self.paragraphs: list[Paragraph] = []

    def paragraph(self, paragraph) -> None:
        self.number += 1
        text = _text(paragraph).strip()
        if not text:
            return
        if (level := _level(paragraph, self.levels)) is not None:
            path = self.headings.enter(level, " ".join(text.split()))
            self.paragraphs.append(Paragraph(text, self.number, self.number, HARD if level <= 2 else SOFT, path, lead=True))
        else:
            self.paragraphs.append(Paragraph(text, self.number, self.number, heading=self.headings.path))

    def table(self, table) -> None:
        """Each row one paragraph of "cell | cell" (a nested table's text stays in its cell)."""
        tight = False
        for row in table.findall(_TR):
            first = self.number + 1
            cells = []
            for cell in row.findall(_TC):
                texts = []
                for paragraph in cell.iter(_P):
                    self.number += 1
                    if text := _text(paragraph).strip():
                        texts.append(text)
                if texts:
                    cells.append(" ".join(texts))
            if cells:
                self.paragraphs.append(Paragraph(" | ".join(cells), first, max(first, self.number), heading=self.headings.path, tight=tight))
                tight = True

    def walk(self, element) -> None:
        for child in element:
            tag = child.tag
            if tag == _P:
                self.paragraph(child)
            elif tag == _TBL:
                self.table(child)
            elif tag in _CONTAINERS:
                self.walk(child)


def docx_paragraphs(path) -> list[Paragraph]:
    """The paragraphs of a DOCX in order, numbered (every paragraph of the body counts, empty ones and those in
    table cells too); each table row is one paragraph of its own, "cell | cell"."""
    with open(path, "rb") as handle:
        if handle.read(8) == _OLE_MAGIC:
            raise UnreadableFile(N_("encrypted DOCX (or an old Word file renamed .docx)"))
    try:
        with zipfile.ZipFile(path) as archive:
            levels = _heading_levels(archive)
            root = _parse(archive, "word/document.xml")
    except KeyError:
        raise UnreadableFile(DAMAGED_DOCX.format(why="no word/document.xml")) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
        raise UnreadableFile(DAMAGED_DOCX.format(why=exc)) from None
    reader = _Reader(levels)
    body = root.find(_W + "body")
    if body is not None:
        reader.walk(body)
    return reader.paragraphs


def docx_passages(path, max_chars: int) -> list[Passage]:
    units, blocks = paragraph_units(docx_paragraphs(path), max_chars)
    return pack(units, blocks, max_chars)
