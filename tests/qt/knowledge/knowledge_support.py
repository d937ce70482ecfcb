"""Helpers for the knowledge UI tests: a folder of notes on disk, a runtime on the test's data folder, and a cited
passage built from what the index holds (as search_knowledge records it)."""

from __future__ import annotations

from pathlib import Path

from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.conversation.models import Message, MessageStatus, TextBlock, ToolCallBlock, ToolCallStatus
from desktop_copilot.core.knowledge.citing import CitedPassage
from desktop_copilot.core.knowledge.library import PassageRow
from desktop_copilot.core.runtime import Runtime

SECTIONS = ("Install", "Usage", "Troubleshooting", "Upgrading")


def guide_text() -> str:
    """A Markdown guide of four sections, each long enough to be a passage of its own."""
    body = []
    for section in SECTIONS:
        sentence = f"The {section.lower()} step needs care. "
        body.append(f"## {section}\n\n" + sentence * 24 + f"\n\nRemember the {section.lower()}-marker.\n")
    return "# Guide\n\n" + "\n".join(body)


def write_notes(root: Path, *, left_out: bool = False) -> Path:
    (root / "deep").mkdir(parents=True)
    (root / "guide.md").write_text(guide_text(), encoding="utf-8")
    (root / "todo.txt").write_text("Buy flour.\n\nBake the bread at 230 degrees.\n", encoding="utf-8")
    (root / "deep" / "more.md").write_text("# More\n\nSourdough needs a starter.\n", encoding="utf-8")
    if left_out:
        (root / "broken.pdf").write_bytes(b"%PDF-1.7 this is not really a PDF \x00\x01\x02 garbage")
        (root / ".env").write_text("API_KEY=do-not-index\n")
    return root


def make_runtime() -> Runtime:
    """A runtime on the test's DESKTOP_COPILOT_HOME (set by tests/conftest.py)."""
    return Runtime(AppPaths.resolve().ensure(), AppConfig.from_environment())


def close_library(runtime: Runtime) -> None:
    if (runtime.paths.data_dir / "knowledge.sqlite3").exists():
        runtime.knowledge_library().close()


def passage_part(row: PassageRow, number: int) -> dict:
    """The result part search_knowledge keeps for a passage it returned (core/tools/knowledge.py)."""
    return {"type": "knowledge_passage", "number": number, "source": row.source, "path": row.path, "file": str(row.file),
            "location": row.location, "kind": row.kind, "ordinal": row.ordinal, "start_line": row.start_line,
            "end_line": row.end_line, "page": row.page, "heading": row.heading, "text": row.text, "score": 1.0}


def cited(row: PassageRow, number: int = 1) -> CitedPassage:
    return CitedPassage.from_part(passage_part(row, number))


def reply_citing(rows: list[PassageRow], answer: str) -> list[Message]:
    """A question and a finished reply of two rounds: a search_knowledge call that found `rows` (numbered from 1),
    then the answer `answer`."""
    question = Message.user("What does my guide say?")
    searching = Message.assistant()
    searching.blocks = [TextBlock(text="Let me look in your notes."),
                        ToolCallBlock(id="c1", name="search_knowledge", arguments={"query": "guide"}, status=ToolCallStatus.DONE,
                                      result="…", result_parts=[passage_part(row, n) for n, row in enumerate(rows, 1)])]
    searching.status = MessageStatus.COMPLETED
    answering = Message.assistant()
    answering.blocks = [TextBlock(text=answer)]
    answering.status = MessageStatus.COMPLETED
    return [question, searching, answering]
