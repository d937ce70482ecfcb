"""Token estimates: text of each kind near what real tokenizers make of it (counts taken with the cl100k and o200k
encodings), CJK at about a token a character, attachments as the providers bill them, tool results as sent, and the
per-provider calibration learned from reported usage."""

from __future__ import annotations

import base64
import json
import random

import pytest

from desktop_copilot.core.context.tokens import (
    IMAGE_TOKENS,
    PDF_PAGE_TOKENS,
    calibrate,
    estimate_tokens,
    factor,
    forget_calibration,
    image_tokens,
    message_tokens,
    message_weight,
)
from desktop_copilot.core.conversation.models import (
    DocumentBlock,
    ImageBlock,
    Message,
    Role,
    TextBlock,
    TextFileBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallStatus,
)

SCHEMA = {"type": "object", "properties": {"query": {"type": "string", "description": "What to search for"},
                                          "max_results": {"type": "integer", "minimum": 1, "maximum": 20}}, "required": ["query"]}
REFERENCE = {  # text: (cl100k tokens, o200k tokens)
    "prose": (("Nothing counts a conversation against its model's context window. With up to ten tool rounds a reply and "
               "tool results up to 100,000 characters each, a few long turns make every later request fail, and the "
               "conversation can only be abandoned. Ollama fails silently instead: its default window cuts off the start of "
               "the conversation, the tools' description included. Every tool round resends the whole history at full "
               "price, so the meter shows what the next request would send, and the older turns are summarised when it "
               "nears the limit."), (110, 109)),
    "python": (('def title_from(text: str) -> str:\n    line = " ".join(text.split())\n    return line if len(line) <= '
                'TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"\n\n\nclass NothingToDoError(ValueError):\n'
                '    """The requested operation does not apply."""\n'), (59, 63)),
    "json": (json.dumps(SCHEMA), (55, 56)),
    "log": ("".join(f"2026-11-25 12:{i:02d}:{(i * 7) % 60:02d} INFO worker {i} done in {i * 13} ms\n" for i in range(12)),
            (264, 264)),
    "chinese": ("流式渲染必须保持界面流畅，每个增量的开销不应随回复长度增长。长对话不应该撞墙：上下文计量、保留每个字的压缩、溢出恢复和提示缓存。",
                (75, 55)),
    "japanese": ("吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。", (39, 32)),
    "emoji": ("Great job 🎉🎉 let's ship it 🚀 ✅ 👍", (19, 13)),
    "base64": (base64.b64encode(random.Random(7).randbytes(600)).decode(), (562, 537)),
}


@pytest.fixture(autouse=True)
def _no_calibration():
    forget_calibration()
    yield
    forget_calibration()


@pytest.mark.parametrize("kind", list(REFERENCE))
def test_each_kind_of_text_is_within_a_quarter_of_real_tokenizers(kind):
    text, counts = REFERENCE[kind]
    real = sum(counts) / 2
    assert abs(estimate_tokens(text) - real) <= 0.25 * real, (kind, estimate_tokens(text), counts)


@pytest.mark.parametrize("kind", ["log", "chinese", "japanese", "emoji", "base64"])
def test_where_four_characters_a_token_is_far_off_the_estimate_is_not(kind):
    text, counts = REFERENCE[kind]
    real = sum(counts) / 2
    assert abs(len(text) / 4 - real) > 0.4 * real  # the rule of thumb fails here …
    assert abs(estimate_tokens(text) - real) <= 0.25 * real  # … the estimate holds


def test_cjk_counts_about_one_token_a_character_and_mixed_text_adds_both():
    chinese = "上下文窗口" * 40  # 200 characters
    assert 180 <= estimate_tokens(chinese) <= 220
    english = "the context window of this model " * 10
    assert estimate_tokens(chinese + english) == pytest.approx(estimate_tokens(chinese) + estimate_tokens(english), abs=2)
    assert 160 <= estimate_tokens("안녕하세요 " * 40) <= 260  # Hangul is wide too


def test_empty_text_is_nothing_and_any_text_is_at_least_one_token():
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens(" ") == 1


def test_images_by_their_size_documents_by_their_pages_text_files_by_their_text():
    assert image_tokens(1092, 1092) == pytest.approx(1590, abs=5)
    assert image_tokens(200, 100) == 85  # the least an image costs
    assert image_tokens(4000, 3000) == IMAGE_TOKENS  # resized by the provider: the most
    assert image_tokens() == IMAGE_TOKENS  # size not known
    text = "def main():\n    return 42\n" * 50
    message = Message.user("see these", [ImageBlock(media_type="image/png", data="", width=1092, height=1092),
                                         DocumentBlock(data="", pages=3),
                                         DocumentBlock(data="", size=300_000),  # pages not counted: by its size
                                         TextFileBlock(name="main.py", text=text)])
    weight = message_weight(message)
    assert weight.fixed == image_tokens(1092, 1092) + 3 * PDF_PAGE_TOKENS + 5 * PDF_PAGE_TOKENS
    assert message_tokens(message) >= weight.fixed + estimate_tokens(text)


def test_a_tool_call_counts_its_arguments_and_the_result_the_model_gets():
    whole = "line of a long result\n" * 2000
    call = ToolCallBlock(id="t1", name="read_file", arguments={"path": "notes.md"}, status=ToolCallStatus.DONE, result=whole)
    reply = Message(role=Role.ASSISTANT, blocks=[TextBlock(text="Reading it."), call])
    full = message_tokens(reply)
    assert full > estimate_tokens(whole)
    call.model_result = whole[:2000]  # cut to the size cap: the model gets this
    assert message_tokens(reply) < full / 10


def test_thinking_is_weighed_apart_from_the_text():
    reply = Message(role=Role.ASSISTANT, blocks=[ThinkingBlock(thinking="Let me think about it. " * 100), TextBlock(text="Yes.")])
    weight = message_weight(reply)
    assert weight.thinking == pytest.approx(estimate_tokens("Let me think about it. " * 100), rel=0.01)
    assert weight.tokens(with_thinking=False) < 10 < weight.tokens()


def test_calibration_learns_each_providers_ratio_from_what_it_reports():
    text = "the context window of this model " * 300
    before = estimate_tokens(text, "anthropic")
    for _ in range(30):  # each reply's report moves the factor part of the way
        assert calibrate("anthropic", estimate_tokens(text, "anthropic"), round(before * 1.2))
    assert factor("anthropic") == pytest.approx(1.2, abs=0.02)
    assert estimate_tokens(text, "anthropic") == pytest.approx(before * 1.2, rel=0.02)
    assert estimate_tokens(text, "openai") == before  # others keep theirs
    assert estimate_tokens(text) == before


def test_one_report_moves_the_factor_only_part_of_the_way_and_stays_in_range():
    assert calibrate("gemini", 10_000, 15_000)
    assert 1.0 < factor("gemini") < 1.5
    for _ in range(50):
        calibrate("gemini", round(10_000 * factor("gemini")), 29_000)
    assert factor("gemini") <= 2.0


def test_a_report_about_other_text_teaches_nothing():
    assert not calibrate("ollama", 10_000, 500)  # a local server that counted only what was not cached
    assert not calibrate("ollama", 0, 500)
    assert not calibrate("ollama", 500, 0)
    assert factor("ollama") == 1.0
