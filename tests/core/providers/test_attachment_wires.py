"""Attachments round trip per provider: an image, a PDF and a text file sent by the real providers (anthropic and
openai SDKs, httpx for Gemini and Ollama) to loopback servers reach each in its own format; a conversation with
attachments stored in a real SQLite file reloads and is sent again identically; limits are refused before any
request is made."""

from __future__ import annotations

import base64
import re

import pytest

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.content.attachments import AttachmentError, attachment_from_bytes
from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, TextBlock
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.providers.anthropic_provider import AnthropicProvider
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.chat_completions_provider import ChatCompletionsProvider
from desktop_copilot.core.providers.gemini_provider import GeminiProvider
from desktop_copilot.core.providers.ollama_provider import OllamaProvider
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.keys.secrets import EnvironmentKeys, KeyLookup, Secret
from desktop_copilot.core.storage.store import Store
from tests.support import gemini_support, ollama_support
from tests.support.anthropic_rules import history_problems
from tests.support.attachment_files import JPEG_40x30, pdf, png
from tests.support.chat_completions_support import CHAT, chat_reply, chat_response
from tests.support.loopback import anthropic_text_reply, sse_response

KEY = "sk-attach-test-7d1e4b2a9c"
CODE = "def area(r):\n    return 3.14159 * r * r\n"
PNG = png(64, 48)
PDF = pdf(3, "Quarterly figures")


def attachments():
    return [attachment_from_bytes(PNG, "chart.png"), attachment_from_bytes(PDF, "report.pdf"),
            attachment_from_bytes(CODE.encode(), "area.py")]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


FILE_TEXT = f'<attached_file name="area.py">\n{CODE}\n</attached_file>'


async def stream(provider, request: ProviderRequest) -> list[ev.Event]:
    events = [e async for e in provider.stream(request)]
    assert isinstance(events[-1], ev.Done), events[-1]
    return events


# --- each provider's format --------------------------------------------------------------------


@pytest.mark.asyncio
async def test_anthropic_gets_image_document_and_named_text(loopback, providers):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("A chart, a report and a function.")))
    provider = providers(AnthropicProvider(Secret(KEY), loopback.url, max_retries=0, timeout=10.0))
    await stream(provider, ProviderRequest(model="claude-sonnet-4-6", messages=[Message.user("What are these?", attachments())]))
    (sent,) = loopback.requests_to("/v1/messages")
    messages = sent.json()["messages"]
    assert messages == [{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(PNG)}},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": b64(PDF)}, "title": "report.pdf"},
        {"type": "text", "text": FILE_TEXT},
        {"type": "text", "text": "What are these?", "cache_control": {"type": "ephemeral"}},  # a 3-page PDF: worth caching
    ]}]
    assert history_problems(messages) == []


@pytest.mark.asyncio
async def test_openai_gets_image_url_and_file_parts(loopback, providers):
    loopback.enqueue(CHAT, chat_response(chat_reply("Seen.")))
    provider = providers(ChatCompletionsProvider(Secret(KEY), loopback.url + "/v1", vendor="openai", max_retries=0, timeout=10.0))
    await stream(provider, ProviderRequest(model="gpt-4.1-mini", provider="openai", messages=[Message.user("What are these?", attachments())]))
    (sent,) = loopback.requests_to(CHAT)
    assert sent.json()["messages"] == [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64(PNG)}"}},
        {"type": "file", "file": {"filename": "report.pdf", "file_data": f"data:application/pdf;base64,{b64(PDF)}"}},
        {"type": "text", "text": FILE_TEXT},
        {"type": "text", "text": "What are these?"},
    ]}]


@pytest.mark.asyncio
async def test_a_vendor_without_pdfs_gets_a_note_for_an_earlier_pdf_and_keeps_plain_text_turns(loopback, providers):
    """A conversation moved to DeepSeek: the PDF (and the image, for a text-only model) sent earlier to another
    provider become notes; a turn without attachments stays a plain string."""
    loopback.enqueue(CHAT, chat_response(chat_reply("ok")))
    provider = providers(ChatCompletionsProvider(Secret(KEY), loopback.url + "/v1", vendor="deepseek", max_retries=0, timeout=10.0))
    earlier = Message.user("Summarise", attachments())
    reply = Message.assistant("claude-sonnet-4-6", "anthropic")
    reply.blocks.append(TextBlock(text="Summary."))
    reply.status = MessageStatus.COMPLETED
    history = [earlier, reply, Message.user("Thanks, and now?")]
    await stream(provider, ProviderRequest(model="deepseek-chat", provider="deepseek", messages=history))
    sent = loopback.requests_to(CHAT)[0].json()["messages"]
    first = sent[0]["content"]
    assert [part["type"] for part in first] == ["text", "text", "text", "text"]
    assert first[0]["text"].startswith("[The user attached an image here (chart.png); it is left out because deepseek-chat")
    assert first[1]["text"].startswith("[The user attached a PDF here (report.pdf)")
    assert first[2:] == [{"type": "text", "text": FILE_TEXT}, {"type": "text", "text": "Summarise"}]
    assert sent[1:] == [{"role": "assistant", "content": "Summary."}, {"role": "user", "content": "Thanks, and now?"}]


@pytest.mark.asyncio
async def test_gemini_gets_inline_data_parts(loopback, providers):
    loopback.enqueue(gemini_support.STREAM, gemini_support.gemini_sse(gemini_support.text_reply("Seen.")))
    provider = providers(GeminiProvider(Secret(KEY), loopback.url, max_retries=0, timeout=10.0))
    await stream(provider, ProviderRequest(model=gemini_support.MODEL, provider="gemini", messages=[Message.user("What are these?", attachments())]))
    (sent,) = loopback.requests_to(gemini_support.STREAM)
    assert sent.json()["contents"] == [{"role": "user", "parts": [
        {"inlineData": {"mimeType": "image/png", "data": b64(PNG)}},
        {"inlineData": {"mimeType": "application/pdf", "data": b64(PDF)}},
        {"text": FILE_TEXT},
        {"text": "What are these?"},
    ]}]


@pytest.mark.asyncio
async def test_ollama_gets_images_beside_the_text_and_a_note_for_a_pdf(loopback, providers):
    loopback.enqueue(ollama_support.CHAT, ollama_support.text_reply("Seen."))
    provider = providers(OllamaProvider(loopback.url, timeout=10.0))
    photo = attachment_from_bytes(JPEG_40x30, "photo.jpg")
    message = Message.user("What are these?", [*attachments(), photo])
    await stream(provider, ProviderRequest(model="llama3.2-vision", provider="ollama", messages=[message]))
    (sent,) = loopback.requests_to(ollama_support.CHAT)
    (turn,) = sent.json()["messages"]
    assert turn["role"] == "user" and turn["images"] == [b64(PNG), b64(JPEG_40x30)]
    notes, file_text, prompt = turn["content"].split("\n\n", 2)[0], FILE_TEXT, "What are these?"
    assert notes.startswith("[The user attached a PDF here (report.pdf); it is left out because llama3.2-vision at Ollama")
    assert turn["content"].endswith(f"{file_text}\n\n{prompt}")


# --- through the session: stored, reloaded, sent again; refused before any request -------------------


def runtime_for(loopback, **environ: str) -> Runtime:
    keys = KeyLookup([EnvironmentKeys({"ANTHROPIC_API_KEY": KEY, "DEEPSEEK_API_KEY": KEY, **environ})])
    return Runtime(AppPaths.resolve().ensure(), AppConfig(anthropic_base_url=loopback.url), keys)


@pytest.mark.asyncio
async def test_a_stored_conversation_with_attachments_reloads_and_is_sent_again_identically(loopback, tmp_path):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("First look.")), sse_response(anthropic_text_reply("Second look.")))
    database = tmp_path / "db.sqlite3"
    store = Store(database)
    session = ChatSession(runtime_for(loopback), Conversation(provider="anthropic", model="claude-sonnet-4-6"), store)
    finished = await session.send("", lambda e: None, attachments=attachments())  # files alone, no text
    await session.runtime.aclose()
    store.close()
    assert finished.outcome == "completed" and session.conversation.title == "chart.png"

    reopened = Store(database)
    loaded = reopened.load_conversation(session.conversation.id)
    assert loaded.messages[0].blocks == attachments()
    again = ChatSession(runtime_for(loopback), loaded, reopened)
    await again.regenerate(lambda e: None)
    await again.runtime.aclose()
    reopened.close()
    first, second = (r.json()["messages"] for r in loopback.requests_to("/v1/messages"))
    assert first == second
    assert [part["type"] for part in first[0]["content"]] == ["image", "document", "text"]


@pytest.mark.asyncio
@pytest.mark.parametrize(("provider", "model", "files", "words"), [
    ("deepseek", "deepseek-chat", [("chart.png", PNG)], "deepseek-chat (DeepSeek) takes no images"),
    ("deepseek", "deepseek-chat", [("report.pdf", PDF)], "DeepSeek cannot read PDFs"),
    ("anthropic", "claude-sonnet-4-6", [("huge.png", png(10, 10, padding=4 * 1024 * 1024))], "Anthropic takes images up to 3.8 MB"),
    ("anthropic", "claude-sonnet-4-6", [("wide.png", png(8200, 2))], "at most 8000 pixels a side"),
    ("anthropic", "claude-sonnet-4-6", [("long.pdf", pdf(101))], "reads at most 100 pages"),
])
async def test_limits_are_refused_before_any_request_and_nothing_is_stored(loopback, tmp_path, monkeypatch, provider, model, files, words):
    monkeypatch.setenv("DEEPSEEK_BASE_URL", loopback.url + "/v1")
    store = Store(tmp_path / "db.sqlite3")
    session = ChatSession(runtime_for(loopback), Conversation(provider=provider, model=model), store)
    events: list[ev.Event] = []
    with pytest.raises(AttachmentError, match=re.escape(words)):
        await session.send("Look", events.append, attachments=[attachment_from_bytes(data, name) for name, data in files])
    await session.runtime.aclose()
    assert loopback.requests == [] and events == []
    assert session.conversation.messages == [] and store.list_conversations() == []
    store.close()


@pytest.mark.asyncio
async def test_editing_a_message_keeps_its_attachments(loopback, tmp_path):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("One.")), sse_response(anthropic_text_reply("Two.")))
    store = Store(tmp_path / "db.sqlite3")
    session = ChatSession(runtime_for(loopback), Conversation(provider="anthropic", model="claude-sonnet-4-6"), store)
    await session.send("What is this?", lambda e: None, attachments=attachments()[:1])
    await session.edit(session.conversation.messages[0].id, "What colour is this?", lambda e: None)
    await session.runtime.aclose()
    store.close()
    first, second = (r.json()["messages"][0]["content"] for r in loopback.requests_to("/v1/messages"))
    assert first[0] == second[0] and first[0]["type"] == "image"
    assert (first[1]["text"], second[1]["text"]) == ("What is this?", "What colour is this?")
