"""`ask` after a tool round the provider refused (the tool ran; the request carrying its result got a 400): the next
`ask -c` must send a history the API takes. Against a Gemini loopback that enforces the API's turn rules, where two
user turns in a row are refused ("Please ensure that multiturn requests alternate between user and model")."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support import gemini_support as gemini
from tests.support.history_rules import gemini_problems
from tests.support.loopback import tavily_results

MODEL = "gemini-2.5-flash"
STREAM = f"/v1beta/models/{MODEL}:streamGenerateContent"


def run_ask(loopback, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONIOENCODING="utf-8", GEMINI_API_KEY="gemini-test-key-4646", GEMINI_BASE_URL=loopback.url,
               TAVILY_API_KEY="tvly-test-4747", TAVILY_BASE_URL=loopback.url)
    return subprocess.run([sys.executable, "-m", "desktop_copilot", "ask", "--provider", "gemini", "--model", MODEL, *args],
                          env=env, capture_output=True, text=True, encoding="utf-8", timeout=90, check=False)


def test_the_next_question_after_a_refused_tool_round_is_taken_by_gemini(loopback):
    replies = gemini.serve_by_the_rules(loopback, STREAM)
    call = {"functionCall": {"name": "tavily_search", "args": {"query": "Hong Kong weather"}}, "thoughtSignature": "c2ln"}
    replies.append(gemini.gemini_sse([gemini.chunk(call, finish="STOP", usage=gemini.usage())]))
    replies.append(gemini.gemini_error(400, "Request contains an invalid argument.", "INVALID_ARGUMENT"))
    loopback.enqueue("/search", tavily_results("Hong Kong weather", [("HKO", "https://www.hko.gov.hk", "Sunny, 24 °C")]))
    first = run_ask(loopback, "Weather in Hong Kong?")
    assert first.returncode == 3, first.stderr  # the search ran; the request with its result was refused
    assert "invalid argument" in first.stderr

    replies.append(gemini.gemini_sse(gemini.text_reply("It was sunny, 24 °C.")))
    again = run_ask(loopback, "-c", "So, was it sunny?")
    assert again.returncode == 0, again.stderr
    assert "It was sunny, 24 °C." in again.stdout
    sent = loopback.requests_to(STREAM)[-1].json()["contents"]
    assert gemini_problems(sent) == []
    assert [c["role"] for c in sent] == ["user", "model", "user"]
    assert "functionResponse" in sent[2]["parts"][0] and sent[2]["parts"][-1] == {"text": "So, was it sunny?"}
