"""The visible text of an HTML page with its tags stripped (web_fetch's fallback where trafilatura finds nothing; its
html.parser is loaded when a page is read, not with the tools)."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser


class TagStripper(HTMLParser):
    """Visible text of an HTML page, one block per line, without scripts and styles."""

    SKIPPED = frozenset({"script", "style", "noscript", "template", "svg", "head"})
    BLOCKS = frozenset({"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "pre", "blockquote", "table"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title_parts: list[str] = []
        self.skipping = 0
        self.in_title = False

    @classmethod
    def text_of(cls, html: str) -> _Stripped:
        parser = cls()
        parser.feed(html)
        parser.close()
        lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
        return _Stripped(" ".join("".join(parser.title_parts).split()), "\n".join(line for line in lines if line))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self.in_title = True
        elif tag in self.SKIPPED:
            self.skipping += 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        elif tag in self.SKIPPED:
            self.skipping = max(0, self.skipping - 1)
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title_parts.append(data)
        elif not self.skipping:
            self.parts.append(data)


@dataclass(slots=True)
class _Stripped:
    title: str
    text: str
