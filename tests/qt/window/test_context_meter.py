"""The context meter in the real window: "used / window" by the composer with a thin bar, amber from 70 % and red
from 90 % (in the dark theme too), a tooltip split by part that names where the window's figure came from; it follows
the typing, a finished reply, the model, attachments and compactions, and keeps the composer as narrow as it was."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QImage, QPalette

from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.context.tokens import MESSAGE_OVERHEAD, estimate_tokens, image_tokens
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import Compaction, Conversation, Message
from desktop_copilot.core.profiles.stored import ModelOverride, facts_key
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.qt.common.theme import DARK_THEME, DEFAULT_THEME
from desktop_copilot.qt.window.composer import Composer
from desktop_copilot.qt.window.context_meter import STREAMING_MS, TYPING_MS, level_of, short_tokens
from tests.qt.conftest import send_and_wait
from tests.support.loopback import anthropic_text_reply, sse_response

PROSE = "The meter counts what the next request sends against the model's window. "  # 14 tokens or so


def small_window_runtime(window_tokens: int = 10_000, output_limit: int = 1_000) -> Runtime:
    """The default provider's default model with a context window and output limit set by the user."""
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig.from_environment())
    key = facts_key(runtime.provider_id(), runtime.config.model)
    runtime.settings = Settings(model_overrides={key: ModelOverride(context_window=window_tokens, output_limit=output_limit)})
    return runtime


def meter_of(qtbot, window):
    meter = window.context_meter
    qtbot.waitUntil(lambda: meter.breakdown is not None, timeout=3000)
    return meter


def label_colour(meter) -> str:
    return meter.label.palette().color(QPalette.ColorRole.WindowText).name()


def type_into(qtbot, window, text: str) -> None:
    window.composer.edit.setFocus()
    qtbot.keyClicks(window.composer.edit, text)


def test_the_meter_shows_the_next_request_against_the_window_by_the_composer(qtbot, make_window):
    window = make_window(small_window_runtime())
    meter = meter_of(qtbot, window)
    assert meter.isVisible() and window.composer.isAncestorOf(meter)
    assert meter.text() == "1k / 10k"  # an empty conversation: the output reserve
    assert meter.breakdown.output_reserve == 1_000 and meter.breakdown.window == 10_000
    assert meter.level == "normal" and meter.bar.fraction == pytest.approx(0.1, abs=0.01)
    tip = meter.toolTip()
    for part in ("System prompt and tools:", "History: 0", "Your message: 0", "Attachments: 0", "Reserved for the reply: 1,000",
                 "Context window of", "10,000 tokens\n    set by you", "All estimated"):
        assert part in tip, part


def test_it_follows_the_typing_and_turns_amber_then_red(qtbot, make_window):
    window = make_window(small_window_runtime())
    meter = meter_of(qtbot, window)
    assert label_colour(meter) == DEFAULT_THEME.muted
    type_into(qtbot, window, "Hello there")
    qtbot.waitUntil(lambda: meter.breakdown.draft == estimate_tokens("Hello there") + MESSAGE_OVERHEAD, timeout=3000)
    assert f"Your message: {estimate_tokens('Hello there') + MESSAGE_OVERHEAD}" in meter.toolTip()

    long_draft = PROSE * 400  # about 5,800 tokens: with the reserve, past 70 %
    window.composer.set_text(long_draft)
    qtbot.waitUntil(lambda: meter.level == "warn", timeout=3000)
    assert 0.7 <= meter.breakdown.fraction < 0.9
    assert meter.text() == f"{short_tokens(meter.breakdown.total)} / 10k"
    assert label_colour(meter) == DEFAULT_THEME.warn_text
    assert meter.bar.fill_colour().name() == DEFAULT_THEME.meter_warn

    type_into(qtbot, window, " " + PROSE * 5)  # the keys still reach the box at once; the meter follows
    window.composer.set_text(window.composer.text() + PROSE * 120)
    qtbot.waitUntil(lambda: meter.level == "full", timeout=3000)
    assert meter.breakdown.fraction >= 0.9
    assert label_colour(meter) == DEFAULT_THEME.error_text and meter.bar.fill_colour().name() == DEFAULT_THEME.meter_full

    window.composer.edit.clear()
    qtbot.waitUntil(lambda: meter.level == "normal" and meter.breakdown.draft == 0, timeout=3000)
    assert label_colour(meter) == DEFAULT_THEME.muted


def test_a_burst_of_keys_is_measured_once(qtbot, make_window, monkeypatch):
    from desktop_copilot.qt.window import context_meter

    window = make_window(small_window_runtime())
    meter_of(qtbot, window)
    measured = []
    real = context_meter.measure
    monkeypatch.setattr(context_meter, "measure", lambda *a, **kw: measured.append(kw["draft"]) or real(*a, **kw))
    type_into(qtbot, window, "forty keys typed one after another, fast")  # no event loop turn between the keys
    assert window.composer.text() == "forty keys typed one after another, fast" and measured == []
    qtbot.waitUntil(lambda: measured == ["forty keys typed one after another, fast"], timeout=3000)


def test_thresholds():
    assert [level_of(f) for f in (0.0, 0.69, 0.7, 0.89, 0.9, 1.3)] == ["normal", "normal", "warn", "warn", "full", "full"]
    assert [short_tokens(n) for n in (950, 1_000, 9_540, 38_214, 200_000, 1_048_576)] == ["950", "1k", "9.5k", "38k", "200k", "1M"]


def test_attachments_count_in_the_meter(qtbot, make_window, tmp_path):
    window = make_window(small_window_runtime(window_tokens=200_000))
    meter = meter_of(qtbot, window)
    image = QImage(1092, 1092, QImage.Format.Format_RGB32)
    image.fill(QColor("#336699"))
    notes = tmp_path / "notes.md"
    notes.write_text(PROSE * 50, encoding="utf-8")
    tray = window.composer.tray
    assert tray.add_image(image) and tray.add_files([str(notes)]) == 1
    expected = image_tokens(1092, 1092) + estimate_tokens(PROSE * 50)
    qtbot.waitUntil(lambda: expected <= meter.breakdown.attachments < expected + 30, timeout=3000)
    assert f"Attachments: {meter.breakdown.attachments:,}" in meter.toolTip()
    assert meter.breakdown.draft == MESSAGE_OVERHEAD  # a message goes with them, even without text
    tray.remove(tray.attachments()[0])
    qtbot.waitUntil(lambda: meter.breakdown.attachments < expected - 1_000, timeout=3000)


def test_a_finished_reply_makes_the_history_what_the_provider_reported(qtbot, loopback_env, make_window):
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("Hello, world.", input_tokens=1_234, output_tokens=56)))
    window = make_window()
    meter = meter_of(qtbot, window)
    assert meter.breakdown.exact_tokens == 0
    send_and_wait(qtbot, window, "Hello")
    qtbot.waitUntil(lambda: meter.breakdown.exact_tokens == 1_290, timeout=3000)
    breakdown = meter.breakdown
    assert breakdown.history == 1_290 - breakdown.system_and_tools
    controller = window.controller
    profile = controller.session.runtime.profile(controller.provider_id, controller.model_name)
    assert profile.context_window.source == "table" and breakdown.window == profile.context_window.value
    assert meter.text() == f"{short_tokens(breakdown.total)} / {short_tokens(breakdown.window)}"
    assert breakdown.system_and_tools > 100  # the tools offered, loaded for the run
    assert "Counted by the provider: 1,290" in meter.toolTip() and "taken" in meter.toolTip()  # from the shipped table


def test_a_compaction_and_its_undo_move_the_meter(qtbot, make_window):
    window = make_window(small_window_runtime(window_tokens=200_000))
    meter = meter_of(qtbot, window)
    old = [m for i in range(3) for m in (Message.user(PROSE * 100), Message.user(f"short {i}"))]
    conversation = Conversation(title="Long", messages=old + [Message.user("Latest question?")])
    assert window.controller.set_conversation(conversation)
    qtbot.waitUntil(lambda: meter.breakdown.history > 4_000, timeout=3000)
    whole = meter.breakdown.history
    compaction = Compaction(first_message_id=old[0].id, last_message_id=old[-1].id, summary="Earlier: meters.", messages=6)
    conversation.compactions.append(compaction)
    window.controller.on_event(ev.ContextCompacted(compaction=compaction))
    qtbot.waitUntil(lambda: meter.breakdown.history < 200, timeout=3000)
    compaction.undone = True
    window.controller.on_event(ev.CompactionUndone(compaction_id=compaction.id))
    qtbot.waitUntil(lambda: meter.breakdown.history == whole, timeout=3000)


def test_another_model_is_measured_against_its_own_window(qtbot, make_window):
    window = make_window(small_window_runtime())
    meter = meter_of(qtbot, window)
    assert meter.breakdown.window == 10_000
    assert window.controller.choose_model("openai", "gpt-4.1")
    qtbot.waitUntil(lambda: meter.breakdown.window not in (0, 10_000), timeout=3000)
    assert meter.text().endswith(f"/ {short_tokens(meter.breakdown.window)}")
    assert "gpt-4.1" in meter.toolTip()


def test_an_unknown_window_shows_a_dash(qtbot, make_window):
    window = make_window(small_window_runtime())
    meter = meter_of(qtbot, window)
    window.controller.session.conversation.provider = "removed-endpoint"  # an endpoint the user removed since
    meter.refresh()
    qtbot.waitUntil(lambda: meter.breakdown.window == 0, timeout=3000)
    assert meter.text().endswith("/ —") and meter.level == "normal" and meter.bar.fraction == 0
    assert "not known" in meter.toolTip()



def test_the_dark_theme_colours_the_meter(qtbot, make_window, dark):
    window = make_window(small_window_runtime())
    meter = meter_of(qtbot, window)
    assert label_colour(meter) == DARK_THEME.muted and meter.bar.theme is DARK_THEME
    window.composer.set_text(PROSE * 700)
    qtbot.waitUntil(lambda: meter.level == "full", timeout=3000)
    assert label_colour(meter) == DARK_THEME.error_text and meter.bar.fill_colour().name() == DARK_THEME.meter_full
    dark.set_setting("light")
    qtbot.waitUntil(lambda: label_colour(meter) == DEFAULT_THEME.error_text, timeout=3000)
    assert meter.bar.fill_colour().name() == DEFAULT_THEME.meter_full


def test_the_composer_stays_as_narrow_as_before(qtbot, make_window):
    window = make_window(small_window_runtime())
    meter = meter_of(qtbot, window)
    bare = Composer()  # without the meter
    qtbot.addWidget(bare)
    assert window.composer.minimumSizeHint().width() <= bare.minimumSizeHint().width()
    window.resize(740, 560)
    window.splitter.setSizes([230, 510])
    qtbot.waitUntil(lambda: window.splitter.sizes()[0] == 230, timeout=2000)
    assert window.width() == 740
    composer = window.composer
    qtbot.waitUntil(lambda: meter.label.width() >= meter.label.sizeHint().width(), timeout=2000)  # "1k / 10k" whole
    assert meter.isVisible() and meter.geometry().right() <= composer.contentsRect().right()
    hint = composer.hint
    assert hint.isVisible() and hint.height() >= hint.heightForWidth(hint.width())  # wrapped, not cut


def test_while_a_reply_streams_the_typing_is_measured_once_a_second(qtbot, loopback_env, make_window):
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("Still writing."), delay=0.2))
    window = make_window()
    meter = meter_of(qtbot, window)
    type_into(qtbot, window, "a")
    assert meter._timer.interval() == TYPING_MS
    qtbot.waitUntil(lambda: not meter._timer.isActive(), timeout=3000)
    assert window.send("Hello")
    qtbot.waitUntil(lambda: window.controller.busy, timeout=3000)
    type_into(qtbot, window, "next question")
    assert meter._timer.interval() == STREAMING_MS  # (each measure weighs the growing reply again)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10_000)
    type_into(qtbot, window, "!")
    qtbot.waitUntil(lambda: meter.breakdown.draft == estimate_tokens("next question!") + MESSAGE_OVERHEAD, timeout=3000)
