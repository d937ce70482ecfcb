"""The output limit a request may ask for: the limit as set, or an older model's lower maximum."""

from __future__ import annotations

import pytest

from desktop_copilot.core.config.app_config import AppConfig, model_output_cap, parse_max_tokens


@pytest.mark.parametrize(("model", "expected"), [
    ("claude-3-haiku-20240307", 4096),
    ("claude-3-opus-latest", 4096),
    ("claude-3-5-haiku-20241022", 8192),
    ("claude-3-5-sonnet-20241022", 8192),
    ("claude-opus-4-20250514", 32_000),
    ("claude-opus-4-1-20250805", 32_000),
    ("claude-opus-4-5", 50_000),
    ("claude-opus-4-6", 50_000),
    ("claude-sonnet-4-6", 50_000),
    ("anthropic/claude-3-5-haiku-20241022", 8192),
    ("some-gateway-model", 50_000),
])
def test_requests_are_clamped_to_a_known_lower_maximum(model, expected):
    assert AppConfig(max_tokens=50_000).output_limit(model) == expected


def test_a_limit_below_the_maximum_is_kept_and_the_config_model_is_the_default():
    assert AppConfig(model="claude-3-5-haiku-20241022", max_tokens=2000).output_limit() == 2000
    assert AppConfig(model="claude-3-5-haiku-20241022").output_limit() == 8192
    assert AppConfig().output_limit() == 32_000


def test_newer_models_are_not_capped_by_an_older_family_with_the_same_prefix():
    assert model_output_cap("claude-opus-4-6") is None
    assert model_output_cap("claude-sonnet-4-6-20260217") is None
    assert model_output_cap(None) is None


def test_the_limit_reached_is_what_the_reply_reports_when_that_is_more():
    config = AppConfig(max_tokens=32_000)
    assert config.limit_reached("claude-sonnet-4-6", 12) == 32_000
    assert config.limit_reached("claude-sonnet-4-6", 36_096) == 36_096  # thinking raised the request's limit


@pytest.mark.parametrize("text", ["", "0", "-1", "ten", "1.5", "32k"])
def test_parse_max_tokens_refuses_what_is_not_a_positive_whole_number(text):
    with pytest.raises(ValueError, match="positive whole number"):
        parse_max_tokens(text)


def test_parse_max_tokens():
    assert parse_max_tokens(" 64000 ") == parse_max_tokens("64_000") == 64_000


def test_request_limits_leave_room_for_the_answer_and_stay_under_the_model_maximum():
    config = AppConfig(max_tokens=32_000, thinking_budget=30_000)
    assert config.request_limits("claude-sonnet-4-6") == (34_096, 30_000)  # raised so the answer fits
    assert config.request_limits("claude-opus-4-1-20250805") == (32_000, 27_904)  # capped: the budget shrinks
    assert AppConfig(max_tokens=32_000).request_limits("claude-3-5-haiku-20241022") == (8192, None)
    assert AppConfig(max_tokens=32_000, thinking_budget=4096).request_limits("claude-3-haiku-20240307") == (4096, None)
