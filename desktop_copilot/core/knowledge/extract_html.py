"""HTML files: the visible text only, by headings and block elements, located at the elements' source lines."""

from __future__ import annotations

import codecs
import re

from desktop_copilot.core.knowledge.extract_text import SNIFF_BYTES, decode_text, looks_binary
from desktop_copilot.core.knowledge.extract_units import HARD, SOFT, HeadingPath, Paragraph, Passage, UnreadableFile, pack, paragraph_units

_SKIP = frozenset(("head", "title", "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "embed", "canvas",
                   "select", "datalist", "audio", "video", "map"))
_BLOCKS = frozenset(("html", "body", "p", "div", "li", "ul", "ol", "dl", "dt", "dd", "pre", "blockquote", "table", "thead", "tbody",
                     "tfoot", "tr", "caption", "section", "article", "aside", "header", "footer", "nav", "main", "figure", "figcaption",
                     "address", "details", "summary", "form", "fieldset", "legend", "hr", "center", "hgroup", "menu", "dialog", "search"))
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_CELLS = frozenset(("td", "th"))
_ITEMS = frozenset(("li", "tr", "dt", "dd"))
CHUNK = 1 << 16
LINE_CAP = 65535
"""libxml2 counts lines up to here; further on, lines are estimated from the newlines in the text seen."""
_SPACES = re.compile(r"\s+")
_LINE_SPACES = re.compile(r"[ \t\f\v\r]+")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)""", re.IGNORECASE)
_MARKUP = re.compile(r"<!--.*?(?:-->|$)|<[!?][^>]*>?", re.DOTALL)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")


def decode_html(data: bytes) -> str:
    """An HTML file's text: a BOM, else UTF-8, else the charset its <meta> declares, else Windows-1252."""
    if data.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return decode_text(data)
    if looks_binary(data[:SNIFF_BYTES]):
        raise UnreadableFile("binary file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    encoding = "cp1252"
    if (match := _META_CHARSET.search(data[:4096])) is not None:
        try:
            encoding = codecs.lookup(match[1].decode("ascii")).name
        except LookupError:
            pass
    return data.decode(encoding, "replace")


class _Reader:
    """Collects the text of one block at a time while the tree is walked, with the source lines it spans."""

    def __init__(self) -> None:
        self.paragraphs: list[Paragraph] = []
        self.item = False
        """The last paragraph was a list item or a table row (the next one, if one too, follows on the next line)."""
        self.headings = HeadingPath()
        self.parts: list[str] = []
        self.first: int | None = None
        self.last: int | None = None
        self.cursor = 1
        self.pre = 0

    def add(self, text: str | None, line: int | None) -> None:
        if line is not None and self.cursor <= line < LINE_CAP:
            self.cursor = line
        if not text:
            return
        first = self.cursor
        self.cursor += text.count("\n")
        if self.pre:
            self.parts.append(text)
        else:
            self.parts.append(_SPACES.sub(" ", text))
        if not text.isspace():
            lead = len(text) - len(text.lstrip())
            if self.first is None:
                self.first = first + text.count("\n", 0, lead)
            self.last = first + text.count("\n", 0, len(text.rstrip()))

    def take(self) -> tuple[str, int | None, int | None]:
        """The text collected since the last take (lines trimmed, blank lines dropped outside <pre>) and its lines."""
        text = "".join(self.parts)
        if self.pre:
            text = "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))
        else:
            text = "\n".join(s for line in text.split("\n") if (s := _LINE_SPACES.sub(" ", line).strip()))
        located = (text, self.first, self.last)
        self.parts, self.first, self.last = [], None, None
        return located

    def flush(self, tag: str) -> None:
        """The text so far is a paragraph: `tag` starts or ends here (a list item or a row right after another one
        follows it line by line)."""
        text, first, last = self.take()
        item = tag in _ITEMS
        if text:
            self.paragraphs.append(Paragraph(text, first, last, heading=self.headings.path, tight=item and self.item))
        self.item = item and (self.item or bool(text))

    def heading(self, level: int) -> None:
        text, first, last = self.take()
        if text:
            path = self.headings.enter(level, text.replace("\n", " "))
            self.paragraphs.append(Paragraph(text, first, last, HARD if level <= 2 else SOFT, path, lead=True))
            self.item = False


def _hidden(element) -> bool:
    return element.get("hidden") is not None or "display:none" in (element.get("style") or "").replace(" ", "").lower()


def html_paragraphs(text: str) -> list[Paragraph]:
    """The visible text of an HTML document as paragraphs located at their source lines."""
    from lxml import etree

    parser = etree.HTMLParser(no_network=True, remove_comments=True, remove_pis=True, collect_ids=False, default_doctype=False)
    if (declaration := _XML_DECLARATION.match(text)) is not None:  # lxml refuses str input that declares an encoding
        text = "\n" * declaration[0].count("\n") + text[declaration.end():]
    try:
        for start in range(0, len(text), CHUNK):  # in pieces: one long parse would hold the GIL for its whole length
            parser.feed(text[start:start + CHUNK])
        root = parser.close()
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as exc:
        if not _MARKUP.sub("", text).strip():  # nothing but comments, a doctype or blanks: no element to find
            return []
        raise UnreadableFile(f"damaged HTML: {exc}") from None
    if root is None:
        return []
    reader = _Reader()
    walk = etree.iterwalk(root, events=("start", "end"))
    for event, element in walk:
        tag = element.tag
        if not isinstance(tag, str):
            continue
        tag = tag.lower()
        skipped = tag in _SKIP or _hidden(element)
        if event == "start":
            if skipped:
                walk.skip_subtree()
                reader.add(None, element.sourceline)
                reader.cursor += (element.text or "").count("\n")
                continue
            if tag in _BLOCKS or tag in _HEADINGS:
                reader.flush(tag)
                reader.pre += tag == "pre"
            elif tag in _CELLS and reader.parts and "".join(reader.parts).strip():
                reader.parts.append(" | ")
            elif tag == "br":
                reader.parts.append("\n")
            reader.add(element.text, element.sourceline)
            continue
        if not skipped:
            if tag in _HEADINGS:
                reader.heading(_HEADINGS[tag])
            elif tag in _BLOCKS:
                reader.flush(tag)
                reader.pre -= tag == "pre"
        reader.add(element.tail, None)
    reader.flush("")
    return reader.paragraphs


def html_passages(data: bytes, max_chars: int) -> list[Passage]:
    units, blocks = paragraph_units(html_paragraphs(decode_html(data)), max_chars)
    return pack(units, blocks, max_chars)
