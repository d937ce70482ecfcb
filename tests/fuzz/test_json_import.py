"""Property tests of the JSON import into a real SQLite store: any text either imports or is refused with an
ExportFormatError saying why (nothing else escapes, nothing half-imported); what imports can be loaded, listed and
exported again; a valid export round-trips exactly."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from desktop_copilot.core.storage.export import ExportFormatError, import_json, parse_json, to_json, to_markdown
from desktop_copilot.core.conversation.models import (
    Conversation,
    Message,
    MessageStatus,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallStatus,
)
from desktop_copilot.core.storage.store import Store
from tests.fuzz.support import fuzz_settings, json_values, mutate, ran, wire_garbage

DEEP = "[" * 100_000 + "]" * 100_000

texts = st.text(max_size=30)
finite = st.floats(allow_nan=False, allow_infinity=False, min_value=0, max_value=4e9)


@st.composite
def conversations(draw: st.DrawFn) -> Conversation:
    """A conversation as the app stores them: user turns and replies with text, thinking, tool calls, raw blocks."""
    messages = []
    for _ in range(draw(st.integers(0, 4))):
        messages.append(Message.user(draw(texts)))
        reply = Message.assistant(draw(st.none() | texts), draw(st.sampled_from([None, "anthropic", "openai", "gemini"])))
        reply.status = draw(st.sampled_from([MessageStatus.COMPLETED, MessageStatus.INTERRUPTED, MessageStatus.FAILED]))
        for _ in range(draw(st.integers(0, 3))):
            reply.blocks.append(draw(st.one_of(
                texts.map(lambda t: TextBlock(text=t)),
                st.builds(ThinkingBlock, thinking=texts, signature=texts),
                st.builds(ToolCallBlock, id=texts, name=texts, arguments=st.dictionaries(texts, texts, max_size=3),
                          status=st.sampled_from(ToolCallStatus), result=st.none() | texts),
                st.dictionaries(texts, texts, max_size=3).map(lambda d: RawBlock(data={"type": "server_tool_use", **d})),
            )))
        messages.append(reply)
    return Conversation(title=draw(texts), model=draw(st.none() | texts), messages=messages,
                        created_at=draw(finite), updated_at=draw(finite))


def export_words(document: dict) -> tuple[str, ...]:
    """Field names and ids of the export (ids among the garbage make duplicates across conversations likely)."""
    words = {"format", "version", "conversations", "messages", "blocks", "id", "role", "type", "text", "status",
             "user", "assistant", "tool_call", "thinking", "raw", "created_at", "updated_at", "arguments"}
    for conversation in document["conversations"]:
        words.add(conversation["id"])
        words.update(message["id"] for message in conversation["messages"])
    return tuple(sorted(words))


@st.composite
def hostile_exports(draw: st.DrawFn) -> str:
    """A valid export with a few things changed, or any JSON, or any text."""
    document = json.loads(to_json(draw(st.lists(conversations(), min_size=1, max_size=2))))
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.text(max_size=50) | st.sampled_from([DEEP, "", "NaN", '{"format": "desktop-copilot/conversations"}']))
    if kind == 1:
        return json.dumps(draw(json_values("format", "version", "conversations", "desktop-copilot/conversations")))
    garbage = wire_garbage(*export_words(document))
    for _ in range(draw(st.integers(1, 4))):
        document = mutate(draw, document, garbage)
    return json.dumps(document)


def with_store(check) -> None:
    with tempfile.TemporaryDirectory(prefix="fuzz-import-") as folder:
        store = Store(Path(folder) / "import.sqlite3")
        try:
            check(store)
        finally:
            store.close()


UNSTABLE = {"id": True, "updated_at": True, "created_at": True, "messages": {"__all__": {"id", "created_at"}}}
"""Left out of comparisons: the import sets `updated_at`, and an id or time the file leaves out is made when it is
read (so two readings differ)."""


def comparable(conversation: Conversation, exclude: dict = UNSTABLE) -> str:
    return json.dumps(conversation.model_dump(mode="json", exclude=exclude), sort_keys=True)


def stored(store: Store, exclude: dict = UNSTABLE) -> list[str]:
    return sorted(comparable(store.load_conversation(c.id), exclude) for c in store.list_conversations())


@fuzz_settings("json_import", 40)
@given(hostile_exports())
@example(DEEP)
@example('{"format": "desktop-copilot/conversations", "version": "1"}')
@example('{"format": "desktop-copilot/conversations", "version": 1, "conversations": 5}')
@example('{"format": "desktop-copilot/conversations", "conversations": [{"created_at": NaN}]}')
@example('{"format": "desktop-copilot/conversations", "conversations": [{"title": "\\ud800"}]}')
def test_any_text_imports_or_is_refused_clearly(text):
    ran("json_import")

    def check(store: Store) -> None:
        try:
            parsed = parse_json(text)
        except ExportFormatError as exc:
            assert str(exc).startswith(("The ", "This ")) and str(exc).endswith(".")  # a sentence for the user
            try:
                import_json(store, text)
            except ExportFormatError:
                assert store.list_conversations() == []  # nothing half-imported
                return
            raise AssertionError("import_json took what parse_json refused")
        imported, skipped = import_json(store, text)
        assert imported + skipped == len(parsed) and imported == len({c.id for c in parsed})
        conversations = store.list_conversations()
        assert len(conversations) == imported
        for conversation in conversations:  # what was imported can be opened and exported again
            loaded = store.load_conversation(conversation.id)
            to_markdown(loaded)
        first = {}
        for conversation in parsed:
            first.setdefault(conversation.id, conversation)
        assert stored(store) == sorted(comparable(c) for c in first.values())
        json.loads(to_json([store.load_conversation(c.id) for c in conversations]))

    with_store(check)


@fuzz_settings("json_import", 15)
@given(st.lists(conversations(), max_size=3))
def test_a_valid_export_round_trips(originals):
    ran("json_import")

    def check(store: Store) -> None:
        text = to_json(originals)
        assert import_json(store, text) == (len(originals), 0)
        assert import_json(store, text) == (0, len(originals))
        exact = {"updated_at": True}  # set by the import
        assert stored(store, exact) == sorted(comparable(c, exact) for c in originals)

    with_store(check)
