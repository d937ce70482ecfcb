"""Stored conversations for the benchmarks: one conversation of N mixed messages written straight into a SQLite store."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CJK = "流式渲染必须保持界面流畅，每个增量的开销不应随回复长度增长。"


def message_blocks(seq: int) -> tuple[str, list[dict], str]:
    """(role, blocks as stored, status) of message `seq`: questions, and replies mixing Markdown, code,
    tables, CJK, thinking and tool calls; every 500th reply is ~60 KB, every 97th question a pasted log."""
    if seq % 2 == 0:
        text = f"Question {seq}: how would you handle case {seq}?"
        if seq % 97 == 0:
            text += "\n" + "".join(f"2026-11-25 12:{i % 60:02d} INFO worker {i} done\n" for i in range(80))
        return "user", [{"type": "text", "text": text}], "completed"
    blocks: list[dict] = []
    if seq % 3 == 0:
        blocks.append({"type": "thinking", "thinking": "Let me think about the options here. " * 12,
                       "signature": "sig" * 100, "started_at": 1.0, "ended_at": 4.5})
    if seq % 5 == 0:
        blocks.append({"type": "tool_call", "id": f"toolu_{seq}", "name": "tavily_search", "arguments": {"query": f"case {seq}"},
                       "status": "done", "result": "[1] A result\nURL: https://example.com\n" * 20, "started_at": 5.0, "ended_at": 6.1})
    paragraphs = 1 + seq % 6 if seq % 500 != 1 else 400
    text = "".join(
        f"## Step {n}\n\nSome **bold** prose with `code`, a [link](https://example.com/{n}) and {CJK}\n\n"
        + ("```python\n" + "".join(f"value_{i} = compute({i}, {n})\n" for i in range(6)) + "```\n\n" if n % 2 else "")
        + ("| a | b |\n|---|---|\n| 1 | 2 |\n\n" if n % 3 == 0 else "")
        for n in range(paragraphs)
    )
    blocks.append({"type": "text", "text": text})
    return "assistant", blocks, "completed"


def seed(path: Path, count: int) -> str:
    """A store at `path` with one conversation of `count` messages (written directly, not indexed for search);
    returns the conversation's id."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from desktop_copilot.core.conversation.models import Conversation
    from desktop_copilot.core.storage.store import Store

    store = Store(path)
    conversation = Conversation(title=f"{count} messages", model="claude-bench")
    store.save_conversation(conversation)
    now = time.time()
    rows = []
    for seq in range(count):
        role, blocks, status = message_blocks(seq)
        rows.append((f"msg_{seq:06d}_{count}", conversation.id, seq, role, status, None, None, None, json.dumps(
            {"input_tokens": 10, "output_tokens": 20}), json.dumps(blocks, ensure_ascii=False), now, now))
    with store.transaction() as db:
        db.executemany("INSERT INTO messages (id, conversation_id, seq, role, status, stop_reason, error, model, usage, blocks,"
                       " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    store.close()
    return conversation.id
