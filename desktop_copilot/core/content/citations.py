"""The numbered sources under a text block: its wire citations de-duplicated, each a title with a URL or a plain description."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from desktop_copilot.core.content.link_safety import display_host, is_allowed

TITLE_CHARS = 200
QUOTE_CHARS = 120


@dataclass(frozen=True, slots=True)
class Source:
    number: int
    title: str
    url: str = ""
    """As the wire gave it; only opened when `openable`."""
    detail: str = ""
    """For a source without a URL: the pages or the start of the cited text."""

    @property
    def openable(self) -> bool:
        return is_allowed(self.url)

    @property
    def host(self) -> str:
        return display_host(self.url) if self.url else ""


def _clean(text: Any, limit: int) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _url(citation: dict[str, Any]) -> str:
    url = citation.get("url") or ""
    source = citation.get("source") or ""  # search_result_location: a URL or any identifier
    if not url and isinstance(source, str) and source.lower().startswith(("http://", "https://")):
        url = source
    return url.strip() if isinstance(url, str) else ""


def _detail(citation: dict[str, Any]) -> str:
    first, last = citation.get("start_page_number"), citation.get("end_page_number")
    if isinstance(first, int):
        pages = f"page {first}" if not isinstance(last, int) or last <= first + 1 else f"pages {first}–{last - 1}"
        return pages
    quote = _clean(citation.get("cited_text"), QUOTE_CHARS)
    return f"“{quote}”" if quote else ""


def cited_sources(citations: list[dict[str, Any]]) -> list[Source]:
    """One numbered source per distinct URL (web citations) or per distinct document passage (the others)."""
    sources: list[Source] = []
    seen: set[tuple[str, str]] = set()
    for citation in citations:
        if not isinstance(citation, dict):
            continue
        url = _url(citation)
        title = _clean(citation.get("title") or citation.get("document_title"), TITLE_CHARS)
        detail = "" if url else _detail(citation)
        key = ("url", url) if url else (title, detail)
        if key in seen:
            continue
        seen.add(key)
        title = title or (_clean(url, TITLE_CHARS) if url else "Document")
        sources.append(Source(len(sources) + 1, title, url, detail))
    return sources
