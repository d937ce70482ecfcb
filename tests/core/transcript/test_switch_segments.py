"""The switch row: a reply written by another provider or model than the reply before it starts with a quiet
"switch" row naming the new one; replies of the same model (also as the API reports it, dated) get none."""

from __future__ import annotations

from desktop_copilot.core.conversation.models import Message, MessageStatus, Role, TextBlock
from desktop_copilot.core.provider_table import PROVIDERS
from desktop_copilot.core.transcript.segments import MessageSegmenter, diff_rows, switch_label


def _label(provider_id: str) -> str:
    return PROVIDERS[provider_id].label


def _reply(provider: str | None, model: str | None, text: str = "answer") -> Message:
    return Message(role=Role.ASSISTANT, provider=provider, model=model, blocks=[TextBlock(text=text)],
                   status=MessageStatus.COMPLETED)


def test_another_provider_or_model_is_named():
    claude = _reply("anthropic", "claude-sonnet-4-6")
    assert switch_label(claude, _reply("deepseek", "deepseek-chat"), _label) == "DeepSeek · deepseek-chat"
    assert switch_label(claude, _reply("anthropic", "claude-haiku-4-5"), _label) == "Anthropic · claude-haiku-4-5"
    assert switch_label(_reply("deepseek", "deepseek-chat"), claude, _label) == "Anthropic · claude-sonnet-4-6"


def test_the_same_model_is_no_switch():
    assert switch_label(_reply("deepseek", "deepseek-chat"), _reply("deepseek", "deepseek-chat"), _label) is None
    assert switch_label(_reply(None, "claude-sonnet-4-6"), _reply("anthropic", "claude-sonnet-4-6"), _label) is None
    assert switch_label(_reply("openai", "gpt-4.1-mini-2025-04-14"), _reply("openai", "gpt-4.1-mini"), _label) is None
    assert switch_label(_reply("ollama", "llama3.2:latest"), _reply("ollama", "llama3.2"), _label) is None
    assert switch_label(_reply("anthropic", None), _reply("anthropic", "claude-sonnet-4-6"), _label) is None
    assert switch_label(_reply(None, None), _reply("deepseek", None), _label) == "DeepSeek"


def test_the_switch_row_comes_first_and_a_waiting_reply_still_waits():
    reply = _reply("deepseek", "deepseek-chat", "Hello")
    rows = MessageSegmenter().segments(reply, switched_to="DeepSeek · deepseek-chat")
    assert [(row.kind, row.state) for row in rows] == [("switch", ("DeepSeek · deepseek-chat",)), ("text", ())]
    waiting = Message.assistant("deepseek-chat", "deepseek")
    assert [row.kind for row in MessageSegmenter().segments(waiting, switched_to="DeepSeek · deepseek-chat")] == ["switch", "waiting"]
    assert [row.kind for row in MessageSegmenter().segments(reply)] == ["text"]
    assert [row.kind for row in MessageSegmenter().segments(Message.user("hi"), switched_to="ignored")] == ["user"]


def test_a_switch_row_that_appears_is_one_insert_and_its_neighbour_changes_spacing():
    reply = _reply("deepseek", "deepseek-chat", "Hello")
    old = MessageSegmenter().segments(reply)
    new = MessageSegmenter().segments(reply, switched_to="DeepSeek · deepseek-chat")
    diff = diff_rows(old, new)
    assert (diff.prefix, diff.replaced, diff.delta, diff.suffix) == (0, 0, 1, 1)
    assert diff.changed == ()  # the text row itself looks the same (the model adds its new spacing)
