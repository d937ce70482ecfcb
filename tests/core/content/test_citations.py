"""Cited sources: numbered, de-duplicated by URL, described plainly when they have no URL; exported as a list."""

from __future__ import annotations

from desktop_copilot.core.content.citations import cited_sources
from desktop_copilot.core.storage.export import to_markdown
from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, TextBlock

WEB = {"type": "web_search_result_location", "url": "https://hko.gov.hk/en/wxinfo", "title": "HKO  weather\nreport",
       "cited_text": "Sunny periods.", "encrypted_index": "Eo8BCioIAhgB"}
CITATIONS = [
    WEB,
    {**WEB, "cited_text": "Another passage of the same page."},
    {"type": "web_search_result_location", "url": "javascript:alert(1)", "title": "Evil", "cited_text": "x"},
    {"type": "char_location", "document_title": "Notes.txt", "cited_text": "The tide turns at six.", "document_index": 0,
     "start_char_index": 0, "end_char_index": 22},
    {"type": "page_location", "document_title": "Report.pdf", "cited_text": "…", "start_page_number": 3, "end_page_number": 5},
    {"type": "search_result_location", "source": "https://docs.example/page", "title": "", "cited_text": "y"},
]


def test_sources_are_numbered_deduplicated_and_described():
    sources = cited_sources([*CITATIONS, "not a dict"])  # type: ignore[list-item]
    assert [(s.number, s.title, s.url) for s in sources] == [
        (1, "HKO weather report", "https://hko.gov.hk/en/wxinfo"),
        (2, "Evil", "javascript:alert(1)"),
        (3, "Notes.txt", ""),
        (4, "Report.pdf", ""),
        (5, "https://docs.example/page", "https://docs.example/page"),
    ]
    assert [s.openable for s in sources] == [True, False, False, False, True]
    assert sources[0].host == "hko.gov.hk" and sources[1].host == "javascript: link"
    assert sources[2].detail == "“The tide turns at six.”" and sources[3].detail == "pages 3–4"


def test_markdown_export_lists_sources_after_the_text():
    reply = Message.assistant("claude-test")
    reply.blocks = [TextBlock(text="Sunny today.", citations=CITATIONS), TextBlock(text="No sources here.")]
    reply.status = MessageStatus.COMPLETED
    text = to_markdown(Conversation(title="Weather", messages=[Message.user("Weather?"), reply]))
    sources = text[text.index("Sunny today.") : text.index("No sources here.")]
    assert sources.splitlines()[2:] == [
        "**Sources**",
        "",
        "1. [HKO weather report](https://hko.gov.hk/en/wxinfo) — hko.gov.hk",
        "2. Evil — javascript:alert\\(1\\)",
        "3. Notes.txt — “The tide turns at six.”",
        "4. Report.pdf — pages 3–4",
        "5. [https://docs.example/page](https://docs.example/page) — docs.example",
        "",
    ]
    assert text.count("**Sources**") == 1


def test_exported_titles_and_urls_cannot_inject_markdown():
    citation = {"type": "web_search_result_location", "url": "https://e.example/a(b)<c>", "title": "[x](file:///etc/passwd) *y*"}
    reply = Message.assistant()
    reply.blocks = [TextBlock(text="Text.", citations=[citation])]
    reply.status = MessageStatus.COMPLETED
    text = to_markdown(Conversation(messages=[reply]))
    assert "1. [\\[x\\]\\(file:///etc/passwd\\) \\*y\\*](https://e.example/a%28b%29%3Cc%3E) — e.example" in text
