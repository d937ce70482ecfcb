"""DOCX files read with the standard library (zipfile + ElementTree): paragraphs in order, headings by their style,
table rows as "cell | cell"; a passage's location is its paragraph numbers."""

from __future__ import annotations

import re
import zipfile
import zlib
from xml.etree import ElementTree

from desktop_copilot.core.knowledge.extract_units import CONTINUE, HARD, SOFT, HeadingPath, Passage, UnreadableFile, pack, paragraph_units

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_P, _TBL, _TR, _TC, _T, _TAB, _BR, _CR = (_W + n for n in ("p", "tbl", "tr", "tc", "t", "tab", "br", "cr"))
_PPR, _PSTYLE, _OUTLINE, _VAL = _W + "pPr", _W + "pStyle", _W + "outlineLvl", _W + "val"
_HYPHENS = {_W + "noBreakHyphen": "\u2011", _W + "softHyphen": ""}
_CONTAINERS = frozenset(_W + n for n in ("sdt", "sdtContent", "customXml", "smartTag", "ins", "moveTo"))
_HEADING_NAME = re.compile(r"(?:heading|titre|überschrift|titolo|título|kop|rubrik|nagłówek|заголовок)\s*(\d)", re.I)
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""A password-protected Office file is an OLE compound file, not a zip."""
MAX_XML_BYTES = 256 * 1024 * 1024
"""A larger word/document.xml is refused (a zip bomb, or not worth indexing)."""

Paragraph = tuple[str, int, int, int, str, bool]


def _heading_levels(archive: zipfile.ZipFile) -> dict[str, int]:
    """Paragraph style id -> heading level (1–6), from the styles' names ("heading 2", "Title") or outline levels."""
    try:
        root = ElementTree.fromstring(_read(archive, "word/styles.xml"))
    except (KeyError, ElementTree.ParseError):
        return {}
    levels = {}
    for style in root.iter(_W + "style"):
        style_id = style.get(_W + "styleId")
        name_el = style.find(_W + "name")
        name = (name_el.get(_VAL) if name_el is not None else "") or ""
        outline = style.find(f"{_PPR}/{_OUTLINE}")
        if name.lower() == "title":
            levels[style_id] = 1
        elif (match := _HEADING_NAME.fullmatch(name.strip())) is not None and 1 <= int(match[1]) <= 9:
            levels[style_id] = min(int(match[1]), 6)
        elif outline is not None and (value := outline.get(_VAL, "")).isdigit() and int(value) < 9:
            levels[style_id] = min(int(value) + 1, 6)
    return levels


def _read(archive: zipfile.ZipFile, name: str) -> bytes:
    info = archive.getinfo(name)
    if info.file_size > MAX_XML_BYTES:
        raise UnreadableFile(f"too large to index ({name} is {info.file_size // (1024 * 1024)} MB unpacked)")
    return archive.read(info)


def _text(paragraph) -> str:
    parts = []
    for el in paragraph.iter():
        tag = el.tag
        if tag == _T:
            parts.append(el.text or "")
        elif tag == _TAB:
            parts.append("\t")
        elif tag == _BR or tag == _CR:
            parts.append("\n")
        elif tag in _HYPHENS:
            parts.append(_HYPHENS[tag])
    return "".join(parts)


def _level(paragraph, levels: dict[str, int]) -> int:
    ppr = paragraph.find(_PPR)
    if ppr is None:
        return 0
    outline = ppr.find(_OUTLINE)
    if outline is not None and (value := outline.get(_VAL, "")).isdigit() and int(value) < 9:
        return min(int(value) + 1, 6)
    style = ppr.find(_PSTYLE)
    return levels.get(style.get(_VAL), 0) if style is not None else 0


class _Reader:
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
        if level := _level(paragraph, self.levels):
            path = self.headings.enter(level, " ".join(text.split()))
            self.paragraphs.append((text, self.number, self.number, HARD if level <= 2 else SOFT, path, True))
        else:
            self.paragraphs.append((text, self.number, self.number, CONTINUE, self.headings.path, False))

    def table(self, table) -> None:
        """Each row one paragraph of "cell | cell" (a nested table's text stays in its cell)."""
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
                self.paragraphs.append((" | ".join(cells), first, max(first, self.number), CONTINUE, self.headings.path, False))

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
    """The paragraphs of a DOCX: (text, first paragraph number, last, brk, heading path, lead) each."""
    with open(path, "rb") as handle:
        if handle.read(8) == _OLE_MAGIC:
            raise UnreadableFile("encrypted DOCX (or an old Word file renamed .docx)")
    try:
        with zipfile.ZipFile(path) as archive:
            levels = _heading_levels(archive)
            data = _read(archive, "word/document.xml")
    except KeyError:
        raise UnreadableFile("damaged DOCX: no word/document.xml") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
        raise UnreadableFile(f"damaged DOCX: {exc}") from None
    if b"<!DOCTYPE" in data[:4096] or b"<!ENTITY" in data[:4096]:
        raise UnreadableFile("damaged DOCX: document.xml declares entities")
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise UnreadableFile(f"damaged DOCX: {exc}") from None
    reader = _Reader(levels)
    body = root.find(_W + "body")
    if body is not None:
        reader.walk(body)
    return reader.paragraphs


def docx_passages(path, max_chars: int) -> list[Passage]:
    units, blocks = paragraph_units(docx_paragraphs(path), max_chars)
    return pack(units, blocks, max_chars)
