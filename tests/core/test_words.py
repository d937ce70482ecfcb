"""core/words.py: the core's marked messages stay English without a translator, and come out in Chinese with the
app's zh_CN translation installed (the committed .qm read by a QTranslator, as qt/i18n installs it), placeholders
filled after translating; labels the core hands over in English are said by label_text."""

from __future__ import annotations

import re

import pytest

from desktop_copilot.core import words
from desktop_copilot.core.approval.decisions import Decision
from desktop_copilot.core.approval.rules import RuleError, make_rule
from desktop_copilot.core.context.compaction import compaction_notice, overflow_words
from desktop_copilot.core.context.overflow import OVERFLOW_WORDS
from desktop_copilot.core.conversation.models import Compaction
from desktop_copilot.core.keys.key_values import KeyValueError, clean_key_value
from desktop_copilot.core.providers.deadlines import StreamTimeout
from desktop_copilot.core.providers.gemini_wire import failure_words, refusal_words
from desktop_copilot.core.tools.risk import Risk

HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def chinese():
    """The zh_CN translation installed in core/words.py for the test, English again afterwards."""
    from PySide6.QtCore import QTranslator

    from desktop_copilot.qt.i18n import qm_path

    translator = QTranslator()
    assert translator.load(str(qm_path("zh_CN")))
    words.install(lambda context, text: translator.translate(context, text) or text)
    yield
    words.install(None)


def _compaction(**fields) -> Compaction:
    return Compaction(first_message_id="m1", last_message_id="m4", messages=4, tokens_before=9000, tokens_after=300, **fields)


def test_without_a_translator_the_messages_are_the_english_written():
    assert StreamTimeout("first_byte", 30).describe("the Anthropic API", started=False) == (
        "The Anthropic API did not answer within 30 s. The server may be overloaded or unreachable; Retry, or check the "
        "connection and the base URL.")
    assert refusal_words("SAFETY", prompt=True) == (
        "Gemini declined to answer: the request was blocked by its safety filters. The request is left out of later "
        "turns of this conversation; rephrase it or start anew.")
    assert compaction_notice(_compaction(kind="summary", summary="…")) == "compacted 4 messages (9000 → 300 tokens)"
    assert words.label_text(Risk.READ_ONLY.label) == "Read-only"
    assert words.label_text("Anthropic API key") == "Anthropic API key"


def test_newly_marked_messages_come_out_in_chinese(chinese):
    timeout = StreamTimeout("idle", 45).describe("the Anthropic API", started=True)
    assert HAN.search(timeout) and "45" in timeout and "the Anthropic API" in timeout, timeout
    refused = refusal_words("SAFETY", "Blocked for safety.", prompt=True)
    assert refused.startswith("Gemini 拒绝回答：请求被其安全过滤器拦截。") and "Blocked for safety." in refused, refused
    failed = failure_words("MALFORMED_FUNCTION_CALL", "bad args")
    assert failed.startswith("Gemini 生成了格式错误的函数调用并停止了（bad args）。"), failed
    notice = compaction_notice(_compaction(kind="dropped", summary="模型拒绝撰写摘要"))
    assert notice.startswith("已压缩 4 条消息（9000 → 300 个 token）") and "模型拒绝撰写摘要" in notice, notice
    with pytest.raises(KeyValueError, match="密钥为空"):
        clean_key_value("  ")
    with pytest.raises(RuleError) as caught:
        make_rule("maybe", "shell")
    assert HAN.search(str(caught.value)) and "'maybe'" in str(caught.value)


def test_the_still_too_long_error_keeps_what_the_provider_answered_in_either_language(chinese):
    said = "the Anthropic API answered 400: prompt is too long: 219898 tokens > 200000 maximum"
    for first in (words.tr(OVERFLOW_WORDS), OVERFLOW_WORDS):  # the wire's sentence as translated, or made before
        text = overflow_words(first.format(said=said), compacted=True)
        assert text.startswith("压缩较早的轮次后，对话仍然超出模型的上下文窗口（" + said + "）。"), text
        assert "立即压缩" in text


def test_labels_the_core_hands_over_are_said_in_chinese(chinese):
    assert words.label_text(Risk.READ_ONLY.label) == "只读"
    assert words.label_text(Decision.RULE_DENIED.label) == "已按规则拒绝"
    assert words.label_text("Anthropic API key") == "Anthropic API 密钥"
    assert words.label_text("'my-server' key") == "'my-server' key"  # an added endpoint's own name: as it is
