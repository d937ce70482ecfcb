"""The model picker in the real window: providers grouped and filtered as you type, keys checked off the GUI
thread (a provider without one is greyed and says where to add it), the keyboard, refreshing a list from the
loopback API, and switching to DeepSeek mid-conversation: the next message goes there, and the transcript
says so, also after reopening the conversation. Choosing is refused while a reply streams."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.conversation.models import Role
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.config.settings import CustomProvider, Settings, models_cache_now
from desktop_copilot.qt.settings.entry import open_dialog_of
from tests.support.chat_completions_support import chat_reply, chat_response, openai_error
from tests.support.loopback import anthropic_text_reply, json_response, sse_response

DEEPSEEK_KEY = "sk-deepseek-loopback-test"


def _runtime(settings: Settings | None = None) -> Runtime:
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig.from_environment())
    runtime.settings = settings or Settings()
    return runtime


def _providers(popup) -> list[str]:
    return [row.text for row in popup.rows if row.kind == "provider"]


def _models(popup, provider_id: str, *, enabled: bool | None = None) -> list[str]:
    return [row.text for row in popup.rows if row.kind == "model" and row.provider_id == provider_id
            and (enabled is None or row.enabled is enabled)]


def _type(qtbot, popup, text: str) -> None:
    popup.search.clear()
    qtbot.keyClicks(popup.search, text)


def _open_checked(qtbot, window):
    """The popup, once the keyring thread said which keys are there."""
    picker = window.model_picker
    picker.has_key.clear()
    popup = picker.open_popup()
    qtbot.waitUntil(lambda: bool(picker.has_key), timeout=5000)
    return popup


def _wait_idle(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=15000)


def _use_deepseek(monkeypatch, loopback) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", DEEPSEEK_KEY)
    monkeypatch.setenv("DEEPSEEK_BASE_URL", loopback.url)


def test_providers_are_grouped_and_those_without_a_key_say_where_to_add_one(qtbot, loopback_env, make_window, monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", DEEPSEEK_KEY)
    settings = Settings(
        models_cache=models_cache_now(["claude-opus-4-1", "claude-haiku-4-5"]),
        provider_models={"deepseek": models_cache_now(["deepseek-chat", "deepseek-reasoner"])},
        disabled_providers={"groq"},
        custom_providers=[
            CustomProvider(id="lmstudio", label="LM Studio", base_url="http://127.0.0.1:9/v1", default_model="qwen3-8b"),
            CustomProvider(id="gateway", label="Team gateway", base_url="http://127.0.0.1:9/v1", default_model="gw-1",
                           needs_key=True),
        ],
    )
    window = make_window(_runtime(settings))
    assert window.model_picker.text() == "Anthropic · claude-sonnet-4-6"
    assert window.model_label.text() == window.controller.model_name == "claude-sonnet-4-6"

    popup = _open_checked(qtbot, window)

    assert popup.isVisible() and popup.search.hasFocus()
    assert _providers(popup) == ["Anthropic", "OpenAI", "DeepSeek", "Moonshot (Kimi)", "Zhipu (GLM)", "OpenRouter",
                                 "xAI (Grok)", "Google Gemini", "Ollama", "LM Studio", "llama.cpp", "vLLM", "Team gateway"]  # Groq is off
    assert _models(popup, "anthropic") == ["claude-sonnet-4-6", "claude-opus-4-1", "claude-haiku-4-5"]
    assert _models(popup, "deepseek", enabled=True) == ["deepseek-chat", "deepseek-reasoner"]
    assert _models(popup, "openai", enabled=False) == ["gpt-4.1-mini"]  # no key: shown, greyed
    assert _models(popup, "ollama", enabled=True) == ["llama3.2"] and _models(popup, "lmstudio", enabled=True) == ["qwen3-8b"]
    add_key = {row.provider_id: row.text for row in popup.rows if row.kind == "add_key"}
    assert set(add_key) == {"openai", "moonshot", "zhipu", "openrouter", "xai", "gemini", "gateway"}
    assert add_key["openai"] == "Add a key in Settings ▸ Providers"
    headers = {row.provider_id: row for row in popup.rows if row.kind == "provider"}
    assert headers["openai"].hint == "No key" and not headers["openai"].enabled and headers["deepseek"].enabled
    selected = popup.selected()
    assert (selected.provider_id, selected.text, selected.current) == ("anthropic", "claude-sonnet-4-6", True)
    popup.list.viewport().repaint()  # the rows paint


def test_typing_filters_and_the_keyboard_chooses(qtbot, loopback_env, make_window, monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", DEEPSEEK_KEY)
    settings = Settings(models_cache=models_cache_now(["claude-opus-4-1"]),
                        provider_models={"deepseek": models_cache_now(["deepseek-chat", "deepseek-reasoner"])})
    window = make_window(_runtime(settings))
    popup = _open_checked(qtbot, window)

    _type(qtbot, popup, "SEEK")
    assert _providers(popup) == ["DeepSeek"] and _models(popup, "deepseek") == ["deepseek-chat", "deepseek-reasoner"]
    _type(qtbot, popup, "deepseek reason")
    assert _providers(popup) == ["DeepSeek"] and _models(popup, "deepseek") == ["deepseek-reasoner"]
    _type(qtbot, popup, "opus")
    assert _providers(popup) == ["Anthropic"] and _models(popup, "anthropic") == ["claude-opus-4-1"]
    _type(qtbot, popup, "no such model")
    assert [(row.kind, row.text) for row in popup.rows] == [("note", "Nothing matches “no such model”.")]

    _type(qtbot, popup, "deep")
    assert popup.selected().text == "deepseek-chat"  # the first match
    qtbot.keyClick(popup.search, Qt.Key.Key_Down)
    assert popup.selected().text == "deepseek-reasoner"
    qtbot.keyClick(popup.search, Qt.Key.Key_Down)  # the last one stays selected
    qtbot.keyClick(popup.search, Qt.Key.Key_Up)
    qtbot.keyClick(popup.search, Qt.Key.Key_Down)
    qtbot.keyClick(popup.search, Qt.Key.Key_Return)

    assert not popup.isVisible()
    assert window.model_picker.text() == "DeepSeek · deepseek-reasoner"
    assert window.model_label.text() == window.controller.model_name == "deepseek-reasoner"
    conversation = window.controller.session.conversation
    assert (conversation.provider, conversation.model) == ("deepseek", "deepseek-reasoner")
    assert window.controller.session.store.load_conversation_header(conversation.id) is None  # saved with its first message

    popup = window.model_picker.open_popup()
    assert popup.selected().text == "deepseek-reasoner"  # opens on the current model
    qtbot.keyClick(popup.search, Qt.Key.Key_Escape)
    assert not popup.isVisible() and window.model_picker.text() == "DeepSeek · deepseek-reasoner"
    assert not window.controller.choose_model("no-such-provider", "x") and not window.controller.choose_model("openai", " ")


def test_add_a_key_opens_the_settings(qtbot, loopback_env, make_window):
    window = make_window(_runtime())
    popup = _open_checked(qtbot, window)
    _type(qtbot, popup, "openai")
    assert popup.selected().kind == "add_key"  # its models are greyed: the way to a key is the choice
    qtbot.keyClick(popup.search, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: open_dialog_of(window) is not None, timeout=5000)
    dialog = open_dialog_of(window)
    qtbot.addWidget(dialog)
    assert not popup.isVisible() and window.controller.session.conversation.provider is None
    from desktop_copilot.qt.settings.dialog import PAGES

    assert dialog.nav.currentRow() == list(PAGES).index("providers" if "providers" in PAGES else "keys")
    dialog.reject()


def test_refresh_lists_a_providers_models_and_a_failure_is_said_in_words(qtbot, loopback_env, make_window, monkeypatch):
    loopback = loopback_env
    _use_deepseek(monkeypatch, loopback)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-loopback-test")
    monkeypatch.setenv("OPENAI_BASE_URL", loopback.url)
    models = [{"id": name, "object": "model", "created": 0, "owned_by": "deepseek"} for name in ("deepseek-chat", "deepseek-v4")]
    loopback.enqueue("/models", json_response({"object": "list", "data": models}),
                     openai_error(401, "Incorrect API key provided", code="invalid_api_key"))
    runtime = _runtime()
    window = make_window(runtime)
    popup = _open_checked(qtbot, window)
    _type(qtbot, popup, "deepseek")

    qtbot.keyClick(popup.search, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)

    qtbot.waitUntil(lambda: _models(popup, "deepseek") == ["deepseek-chat", "deepseek-v4"], timeout=10000)
    assert runtime.settings.provider_models["deepseek"].model_ids == ["deepseek-chat", "deepseek-v4"]  # kept
    assert loopback.requests_to("/models")[0].headers["authorization"] == f"Bearer {DEEPSEEK_KEY}"

    _type(qtbot, popup, "openai")
    header = next(n for n, row in enumerate(popup.rows) if row.kind == "provider")
    rect = popup.delegate.hint_rect(popup.list.visualRect(popup.list.model().index(header, 0)), "Refresh")
    qtbot.mouseClick(popup.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())

    qtbot.waitUntil(lambda: any(row.kind == "problem" for row in popup.rows), timeout=10000)
    problem = next(row.text for row in popup.rows if row.kind == "problem")
    assert problem.startswith("Could not list the models:") and "Incorrect API key" in problem and "401" in problem
    assert _models(popup, "openai") == ["gpt-4.1-mini"]  # the list it had


def _kinds(window, message) -> list[str]:
    model = window.controller.model
    return [model.segment_at(row).kind for row in model.rows_of(message.id)]


def _replies(window):
    return [m for m in window.controller.model.messages() if m.role is Role.ASSISTANT]


def test_switching_to_deepseek_mid_conversation_is_sent_there_and_said_in_the_transcript(qtbot, loopback_env, make_window,
                                                                                         monkeypatch):
    loopback = loopback_env
    _use_deepseek(monkeypatch, loopback)
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Hello from Claude.", model="claude-sonnet-4-6")))
    loopback.enqueue("/chat/completions", chat_response(chat_reply("Hello from DeepSeek.", model="deepseek-chat")))
    window = make_window()
    assert window.send("Hi")
    _wait_idle(qtbot, window)
    conversation = window.controller.session.conversation
    store = window.controller.session.store

    popup = _open_checked(qtbot, window)
    _type(qtbot, popup, "deepseek chat")
    qtbot.keyClick(popup.search, Qt.Key.Key_Return)

    assert window.model_picker.text() == "DeepSeek · deepseek-chat"
    stored = store.load_conversation_header(conversation.id)
    assert (stored.provider, stored.model) == ("deepseek", "deepseek-chat")  # a stored conversation keeps it at once
    said = []
    window.statusBar().messageChanged.connect(said.append)
    assert window.send("And who are you?")
    _wait_idle(qtbot, window)
    assert "DeepSeek is replying…" in said

    request = loopback.requests_to("/chat/completions")[0]
    assert request.headers["authorization"] == f"Bearer {DEEPSEEK_KEY}" and request.json()["model"] == "deepseek-chat"
    assert [m["content"] for m in request.json()["messages"] if m["role"] != "system"] == [
        "Hi", "Hello from Claude.", "And who are you?"]
    claude, deepseek = _replies(window)
    assert (claude.provider, deepseek.provider, deepseek.text) == ("anthropic", "deepseek", "Hello from DeepSeek.")
    assert _kinds(window, claude) == ["text"] and _kinds(window, deepseek) == ["switch", "text"]
    model = window.controller.model
    assert model.segment_at(model.row_of(deepseek.id)).state == ("DeepSeek · deepseek-chat",)
    window.view.viewport().repaint()  # the switch row is measured and painted
    assert window.view.rows.measured[model.row_of(deepseek.id)]
    assert store.load_conversation_header(conversation.id).provider == "deepseek"

    assert window.history.new_conversation()  # a new conversation starts from the configured default
    assert window.model_picker.text() == "Anthropic · claude-sonnet-4-6"
    assert window.history.open(conversation.id)
    assert window.model_picker.text() == "DeepSeek · deepseek-chat"
    claude, deepseek = _replies(window)
    assert _kinds(window, claude) == ["text"] and _kinds(window, deepseek) == ["switch", "text"]

    again = make_window()  # a second window on the same store opens the latest conversation
    assert again.controller.session.conversation.id == conversation.id
    assert again.model_picker.text() == "DeepSeek · deepseek-chat"
    claude, deepseek = _replies(again)
    assert _kinds(again, deepseek) == ["switch", "text"]


def test_choosing_is_refused_while_a_reply_streams(qtbot, loopback_env, make_window):
    slow = anthropic_text_reply("word " * 200, pieces=200)
    loopback_env.enqueue("/v1/messages", sse_response(slow, delay=0.05))
    window = make_window()
    assert window.send("Write a long answer")
    qtbot.waitUntil(lambda: bool(_replies(window)) and len(_replies(window)[0].text) > 20, timeout=10000)
    picker = window.model_picker

    assert not picker.isEnabled() and "Stop the reply" in picker.toolTip()
    assert not window.controller.choose_model("deepseek", "deepseek-chat")
    qtbot.mouseClick(picker, Qt.MouseButton.LeftButton)
    assert not picker.popup.isVisible()
    assert window.controller.session.conversation.provider == "anthropic" and picker.text() == "Anthropic · claude-sonnet-4-6"

    window.controller.stop()
    _wait_idle(qtbot, window)
    assert picker.isEnabled()
    qtbot.mouseClick(picker, Qt.MouseButton.LeftButton)
    assert picker.popup.isVisible()
    picker.popup.close()


def test_a_new_conversation_follows_the_default_provider_set_in_the_settings(qtbot, loopback_env, make_window):
    from desktop_copilot.core.bootstrap import apply_settings

    runtime = _runtime()
    window = make_window(runtime)
    assert window.model_picker.text() == "Anthropic · claude-sonnet-4-6"
    assert window.composer.edit.placeholderText() == "Message Claude…"

    apply_settings(runtime, Settings(default_provider="deepseek"))  # as the dialog's OK does: the window hears the change

    assert window.model_picker.text() == "DeepSeek · deepseek-chat"  # at once, not when the window is next activated
    assert window.model_label.text() == window.controller.model_name == "deepseek-chat"
    assert window.composer.edit.placeholderText() == "Message DeepSeek…"
