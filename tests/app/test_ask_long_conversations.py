"""Long conversations through `ask -c` against emulators with small context windows (tests/support/small_windows.py):
every turn reads a ~20,000-character file with the workspace `read_file` tool and some attach a text file, so a few
turns fill the window. Every turn must complete, every early word stay in the database, the later requests fit the
window with a summary in them, and `ask` say when it compacted. A compaction whose summary fails (an error, then a
stall) leaves the oldest turns out with a notice and the conversation goes on; Ollama is sent a `num_ctx` that
leaves it nothing to cut. The emulators' overflow answers are checked first, as the app's recogniser reads them."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.support.local_servers import LocalModel
from tests.support.rough_tokens import request_tokens
from tests.support.small_windows import Answer, Fail, Say, Seen, SmallWindow, ollama_truncation, small_local_server

WINDOW = 12_000
"""Tokens of the small models' context: one turn with its ~5,000-token tool result fits, two nearly do not."""
OUTPUT = 1_024
TURNS = 40
SUMMARY = "SUMMARY-K7: the user read big.txt turn after turn and got each time the count of its lines and its first line."
TURN = re.compile(r"^Turn (\d+):", re.MULTILINE)
NOTE = re.compile(r"note: compacted (\d+) messages \((\d+) → (\d+) tokens\)")
FILE_LINES = 250


def big_text() -> str:
    """~20,000 characters: 250 numbered lines of 80."""
    return "".join(f"Line {i:04d} of big.txt: the quick brown fox jumps over the lazy dog, again and again.\n"[:79] + "\n"
                   for i in range(1, FILE_LINES + 1))


def prompt(turn: int) -> str:
    return f"Turn {turn:02d}: read big.txt and tell me what it holds."


def answer(turn: int) -> str:
    return f"Turn {turn:02d} answer: big.txt has {FILE_LINES} lines; the first reads 'Line 0001 of big.txt'."


class ToolRoundModel:
    """The model behind every emulator: a question gets a `read_file` call, a tool result gets the answer, and a
    request without tools (a compaction's summary request) gets SUMMARY, or fails as `failures` say: one entry per
    compaction, all of its tries answered alike."""

    def __init__(self, failures: tuple[str, ...] = ()) -> None:
        self.failures = list(failures)
        self._failing: str | None = None
        self.summaries: list[Seen] = []
        self.turn_requests: list[Seen] = []

    def __call__(self, seen: Seen) -> Answer:
        if not seen.tools:
            self.summaries.append(seen)
            if self._failing is None and self.failures:
                self._failing = self.failures.pop(0)
            return Fail(self._failing) if self._failing else Say(SUMMARY)  # type: ignore[arg-type]
        self._failing = None
        self.turn_requests.append(seen)
        turn = next((int(found[-1]) for kind, text in reversed(seen.turns) if kind == "user" and (found := TURN.findall(text))), 0)
        if seen.last_kind == "tool_result":
            return Say(answer(turn))
        return Say(calls=((f"call_{turn:02d}", "read_file", {"path": "big.txt"}),))


@pytest.fixture
def workspace(tmp_path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    (folder / "big.txt").write_text(big_text(), encoding="utf-8")
    return folder


def write_settings(workspace: Path, overrides: dict[str, dict], **fields) -> None:
    path = Path(os.environ["DESKTOP_COPILOT_HOME"]) / "config" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"workspace_folder": str(workspace), "model_overrides": overrides, **fields}), encoding="utf-8")


def small_model(key: str) -> dict[str, dict]:
    return {key: {"context_window": WINDOW, "output_limit": OUTPUT}}


def run_ask(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "desktop_copilot", "ask", *args], env={**os.environ, "PYTHONIOENCODING": "utf-8", **env},
                          capture_output=True, text=True, encoding="utf-8", timeout=60, check=False)


def converse(env: dict[str, str], first: list[str], turns: int, attach_dir: Path, *, attach_every: int = 4) -> list[str]:
    """`turns` turns, the first started with `first`, the others with `-c`; every `attach_every`-th attaches a text
    file. Each must exit 0; their stderr, in order."""
    errors = []
    for turn in range(1, turns + 1):
        args = list(first) if turn == 1 else ["-c"]
        if turn % attach_every == 0:
            note = attach_dir / f"notes_{turn:02d}.txt"
            note.write_text(f"NOTE-{turn:02d}: " + "the attached notes of this turn, a paragraph long. " * 30, encoding="utf-8")
            args += ["--attach", str(note)]
        result = run_ask(env, *args, prompt(turn))
        assert result.returncode == 0, f"turn {turn} exited {result.returncode}:\n{result.stderr}"
        assert answer(turn) in result.stdout, f"turn {turn}: {result.stdout!r}\n{result.stderr}"
        errors.append(result.stderr)
    return errors


def stored() -> tuple[list[str], list[tuple[str, int]]]:
    """The text of every stored message (blocks as JSON text) and the compactions (kind, messages), in order."""
    db = Path(os.environ["DESKTOP_COPILOT_HOME"]) / "data" / "conversations.sqlite3"
    with sqlite3.connect(db) as conn:
        texts = [blocks for (blocks,) in conn.execute("SELECT blocks FROM messages ORDER BY seq")]
        compactions = conn.execute("SELECT kind, messages FROM compactions ORDER BY seq").fetchall()
    conn.close()
    return texts, compactions


def assert_every_word_kept(turns: int) -> None:
    texts, _ = stored()
    everything = "\n".join(texts)
    for turn in range(1, turns + 1):
        assert prompt(turn) in everything and answer(turn) in everything, f"turn {turn} is gone from the database"
        if turn % 4 == 0:
            assert f"NOTE-{turn:02d}" in everything
    assert everything.count("Line 0250 of big.txt") >= turns  # every tool result whole


def assert_later_requests_fit_with_a_summary(model: ToolRoundModel, seen: list[Seen]) -> None:
    overflowed = [s.tokens for s in seen if s.answered == "overflow"]
    assert not overflowed, f"requests over the window of {WINDOW}: {overflowed}"
    first_summary = next(i for i, s in enumerate(model.turn_requests) if SUMMARY in s.text())
    later = model.turn_requests[first_summary:]
    assert len(later) > TURNS, first_summary  # the summary came within the first turns, and stayed
    assert all(SUMMARY in s.text() and s.tokens <= WINDOW for s in later)
    assert prompt(1) not in later[-1].text()
    assert max(s.tokens for s in model.turn_requests) <= WINDOW


def assert_compactions_noted(errors: list[str]) -> None:
    notes = [NOTE.search(text) for text in errors]
    said = [m for m in notes if m]
    assert said, "ask never said it compacted"
    assert all(int(m.group(2)) > int(m.group(3)) for m in said), [m.group(0) for m in said]


# --- the emulators --------------------------------------------------------------------------------------------------


OVERSIZED = "x" * (4 * WINDOW + 400)


def recognised(wire: str, response: httpx.Response) -> bool:
    from desktop_copilot.core.context.overflow import is_context_overflow

    return is_context_overflow(wire, response.status_code, response.content)


@pytest.mark.parametrize("wire, path, body, words", [
    ("anthropic", "/v1/messages", {"model": "claude-small", "max_tokens": OUTPUT, "messages": [{"role": "user", "content": OVERSIZED}]},
     "prompt is too long: 12104 tokens > 12000 maximum"),
    ("openai", "/v1/chat/completions", {"model": "gpt-small", "messages": [{"role": "user", "content": OVERSIZED}]},
     "This model's maximum context length is 12000 tokens. However, your messages resulted in 12104 tokens."),
    ("gemini", "/v1beta/models/gemini-small:streamGenerateContent", {"contents": [{"role": "user", "parts": [{"text": OVERSIZED}]}]},
     "The input token count (12104) exceeds the maximum number of tokens allowed (12000)."),
])
def test_each_vendor_emulator_answers_an_oversized_request_with_its_overflow_error(wire, path, body, words):
    with SmallWindow(wire, WINDOW, ToolRoundModel()) as server:
        response = httpx.post(server.url + path, json=body)
        fits = httpx.post(server.url + path, json={**body, **({"contents": [{"role": "user", "parts": [{"text": "Turn 01: hi"}]}]}
                                                              if wire == "gemini" else {"messages": [{"role": "user", "content": "Turn 01: hi"}]})})
    assert response.status_code == 400 and words in response.text
    assert fits.status_code == 200
    assert recognised("chat_completions" if wire == "openai" else wire, response)


def test_anthropic_refuses_a_prompt_that_fits_only_without_its_max_tokens():
    body = {"model": "claude-small", "max_tokens": 4000, "messages": [{"role": "user", "content": "y" * 4 * 10_000}]}
    with SmallWindow("anthropic", WINDOW, ToolRoundModel()) as server:
        response = httpx.post(server.url + "/v1/messages", json=body)
    assert response.status_code == 400
    assert response.json()["error"] == {"type": "invalid_request_error", "message": "input length and `max_tokens` exceed context limit: "
                                        "10004 + 4000 > 12000, decrease input length or `max_tokens` and try again"}
    assert recognised("anthropic", response)


@pytest.mark.parametrize("kind, words", [
    ("vllm", "This model's maximum context length is 12000 tokens. However, your request has 12104 input tokens."),
    ("llamacpp", "request (12104 tokens) exceeds the available context size (12000 tokens), try increasing it"),
    ("lmstudio", ("Trying to keep the first 12104 tokens when context the overflows. However, the model is loaded with context "
                  "length of only 12000 tokens")),
])
def test_each_local_server_answers_an_oversized_request_with_its_own_words(kind, words):
    seen: list[Seen] = []
    with small_local_server(kind, WINDOW, ToolRoundModel(), seen) as server:
        model = server.models[0].id
        response = httpx.post(server.base_url + "/chat/completions", json={"model": model, "messages": [{"role": "user", "content": OVERSIZED}]})
        fits = httpx.post(server.base_url + "/chat/completions", json={"model": model, "messages": [{"role": "user", "content": "Turn 01: hi"}]})
    assert response.status_code == 400 and words in response.text
    assert fits.status_code == 200 and [s.answered for s in seen] == ["reply"]
    assert recognised("chat_completions", response)


def test_ollama_cuts_the_start_silently_without_num_ctx_and_nothing_with_enough():
    system = {"role": "system", "content": "You are a careful assistant. " * 20}
    history = [{"role": "user", "content": f"Turn {i:02d}: " + "z" * 4000} for i in range(1, 4)]
    long_result = [{"role": "user", "content": "w" * 20_000}]
    dropped = ollama_truncation({"messages": [system, *history, {"role": "user", "content": "now?"}]}, 2048)
    assert dropped.dropped_messages == 2 and dropped.cut_tokens == 0 and not dropped.system_cut  # old turns go first
    cut = ollama_truncation({"messages": [system, *long_result]}, 2048)
    assert cut.num_ctx == 2048 and cut.sent_num_ctx is None and cut.system_cut and cut.kept_tokens == 2048
    whole = ollama_truncation({"messages": [system, *long_result], "options": {"num_ctx": 8192}}, 2048)
    assert whole.whole and whole.kept_tokens == request_tokens("ollama", {"messages": [system, *long_result]})


# --- conversations -----------------------------------------------------------------------------------------------


@pytest.mark.timeout(240)
def test_forty_turns_with_long_tool_results_against_a_small_anthropic_window(workspace, tmp_path):
    model = ToolRoundModel()
    write_settings(workspace, small_model("anthropic/claude-small"), keep_turns=1)
    with SmallWindow("anthropic", WINDOW, model) as server:
        env = {"ANTHROPIC_API_KEY": "sk-ant-small-4848", "ANTHROPIC_BASE_URL": server.url}
        errors = converse(env, ["--provider", "anthropic", "--model", "claude-small"], TURNS, tmp_path)
    assert_every_word_kept(TURNS)
    assert_later_requests_fit_with_a_summary(model, server.seen)
    assert_compactions_noted(errors)
    assert model.summaries and all(s.answered == "reply" for s in model.summaries)
    assert all(s.max_tokens == OUTPUT for s in model.turn_requests)


@pytest.mark.timeout(240)
def test_forty_turns_with_long_tool_results_against_a_small_vllm_window(workspace, tmp_path):
    model, seen = ToolRoundModel(), []
    write_settings(workspace, small_model("vllm/Qwen/Qwen3-8B"), keep_turns=1)
    with small_local_server("vllm", WINDOW, model, seen, models=[LocalModel("Qwen/Qwen3-8B", context_length=WINDOW)]) as server:
        errors = converse({"VLLM_BASE_URL": server.base_url}, ["--provider", "vllm", "--model", "Qwen/Qwen3-8B"], TURNS, tmp_path)
        sizes = [(request_tokens("chat_completions", r.json()), r.json().get("max_tokens") or 0) for r in server.chat_requests]
    assert not [size for size in sizes if size[0] + size[1] > WINDOW], sizes  # vLLM refuses a prompt that leaves no room
    assert_every_word_kept(TURNS)
    assert_later_requests_fit_with_a_summary(model, seen)
    assert_compactions_noted(errors)


@pytest.mark.timeout(180)
def test_a_summary_that_fails_or_stalls_leaves_the_oldest_turns_out_and_the_conversation_goes_on(workspace, tmp_path):
    from desktop_copilot.core.conversation.history import DROPPED_NOTE

    turns = 16
    model = ToolRoundModel(failures=("error", "stall"))
    write_settings(workspace, small_model("openai/gpt-small"), keep_turns=1, stream_idle_timeout=2.0, first_byte_timeout=10.0)
    with SmallWindow("openai", WINDOW, model) as server:
        env = {"OPENAI_API_KEY": "sk-small-4949", "OPENAI_BASE_URL": server.url + "/v1"}
        errors = converse(env, ["--provider", "openai", "--model", "gpt-small"], turns, tmp_path)
    answers = [s.answered for s in model.summaries]
    assert "error" in answers and "stall" in answers and answers[-1] == "reply", answers
    _, compactions = stored()
    kinds = [kind for kind, _ in compactions]
    assert kinds[:2] == ["dropped", "dropped"] and "summary" in kinds[2:], compactions
    assert sum("leaving them out of requests" in text for text in errors) >= 2  # the notice, once per failed summary
    left_out = DROPPED_NOTE.split("}", 1)[1][:40]
    after_drop = [s for s in model.turn_requests if left_out in s.text()]
    assert after_drop and all(prompt(1) not in s.text() for s in after_drop)
    assert all(s.answered == "reply" for s in model.turn_requests)
    assert_every_word_kept(turns)


@pytest.mark.timeout(120)
def test_ollama_is_sent_a_num_ctx_that_leaves_it_nothing_to_cut(workspace, tmp_path):
    turns = 5
    model = ToolRoundModel()
    write_settings(workspace, {})
    with SmallWindow("ollama", 131_072, model) as server:
        converse({"OLLAMA_HOST": server.url}, ["--provider", "ollama", "--model", "llama3.2", "--system",
                                               "You answer from the files you read."], turns, tmp_path)
    kept = [s.kept for s in server.seen]
    assert len(kept) == 2 * turns
    assert all(k is not None and k.sent_num_ctx is not None and k.whole for k in kept), kept
    assert all(8192 <= k.num_ctx <= 131_072 for k in kept)
    assert kept[-1].prompt_tokens > 4 * 2048  # what the default window would have cut (the system prompt first)
    assert_every_word_kept(turns)


VENDORS = {"anthropic": ("claude-small", {"ANTHROPIC_API_KEY": "sk-ant-small-5050"}, "ANTHROPIC_BASE_URL", ""),
           "openai": ("gpt-small", {"OPENAI_API_KEY": "sk-small-5151"}, "OPENAI_BASE_URL", "/v1"),
           "gemini": ("gemini-small", {"GEMINI_API_KEY": "gemini-small-5252"}, "GEMINI_BASE_URL", "")}
LOCAL_MODELS = {"vllm": "Qwen/Qwen3-8B", "llamacpp": "Qwen3-8B-Q4_K_M.gguf", "lmstudio": "qwen/qwen3-8b"}


@pytest.mark.timeout(90)
@pytest.mark.parametrize("provider", [*VENDORS, *LOCAL_MODELS])
def test_an_overflow_the_app_did_not_foresee_is_compacted_and_sent_again(provider, workspace, tmp_path):
    """The settings claim a window four times the server's: the app sees no reason to compact, the server refuses the
    second turn's tool round with its own overflow error, and the app compacts and sends it again."""
    model, seen = ToolRoundModel(), []
    if provider in VENDORS:
        name, env, url_variable, suffix = VENDORS[provider]
        server = SmallWindow(provider, WINDOW, model, model=name)  # type: ignore[arg-type]
    else:
        name, env, url_variable, suffix = LOCAL_MODELS[provider], {}, f"{provider.upper()}_BASE_URL", "/v1"
        server = small_local_server(provider, WINDOW, model, seen, models=[LocalModel(name, context_length=4 * WINDOW)])
    write_settings(workspace, {f"{provider}/{name}": {"context_window": 4 * WINDOW, "output_limit": OUTPUT}}, keep_turns=1)
    with server:
        errors = converse({**env, url_variable: server.url + suffix}, ["--provider", provider, "--model", name], 3, tmp_path)
        if provider in LOCAL_MODELS:
            sent = [request_tokens("chat_completions", r.json()) for r in server.chat_requests]
        else:
            sent = [s.tokens for s in server.seen]
            assert [s.answered for s in server.seen].count("overflow") == len([t for t in sent if t > WINDOW])
    assert [tokens for tokens in sent if tokens > WINDOW], sent  # the server refused: the app did not foresee it
    assert any(NOTE.search(text) for text in errors), errors
    assert max(s.tokens for s in model.turn_requests) <= WINDOW  # every request answered fits
    assert_every_word_kept(3)
