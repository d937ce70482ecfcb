"""CPU of a 10,000-delta reply per provider: the app's core, as `desktop-copilot ask` runs it, against the bare
official SDK consuming the same stream from the same loopback server.

A loopback server (tests/support/loopback.py) runs in a child process and answers each provider's streaming
endpoint in its real wire format: Anthropic SSE (`/v1/messages`), Chat Completions SSE (`/v1/chat/completions`),
Gemini `streamGenerateContent?alt=sse`, Ollama NDJSON (`/api/chat`); one HTTP chunk per event. Every
measurement runs in a fresh Python process; the kinds are interleaved over `--rounds` rounds and the medians
are compared.

Two figures per provider:
- stream: process CPU (all threads) from the request to the end of the reply, every import done before. The SDK
  side: create the client, send, iterate to the end (counting the text). The app side: `ask`'s own code
  (`desktop_copilot.app.cli.main(["ask", ...])`) with `ChatSession.send` timed: keys, provider adapter ->
  unified events -> agent loop -> accumulate -> store writing to a real SQLite file -> the terminal printer
  (stdout to /dev/null).
- process: CPU of the whole process, Python start to exit (rusage of the child): `python -m desktop_copilot ask`
  against `python -c <the bare SDK call>`.

Reference SDKs: anthropic (`messages.create(stream=True)`, and `messages.stream()` shown beside it), openai
(`chat.completions.create(stream=True)`), google-genai (`aio.models.generate_content_stream`), ollama
(`AsyncClient.chat(stream=True)`). Run: `python bench/provider_cpu.py [--rounds 5] [--providers anthropic,gemini]
[--deltas 10000] [--json PATH] [--profile DIR]`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROVIDERS = ("anthropic", "openai", "gemini", "ollama")
MODELS = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-4.1-mini", "gemini": "gemini-2.5-flash", "ollama": "llama3.2"}
TARGET = "<= 1.0x the bare SDK"

_WORDS = ("The stream carries", "**bold** text,", "`code`,", "a [link](https://example.com),", "中文的句子，",
          "emoji 🌍,", "and a list:\n- one\n- two\n", "```python\nprint('x')\n```\n", "| a | b |\n|---|---|\n")


def pieces(count: int, size: int = 160) -> list[str]:
    """`count` text deltas of about `size` characters: Markdown-ish, some CJK and emoji."""
    out = []
    for i in range(count):
        text, k = f"{i} ", i
        while len(text) < size:
            text += _WORDS[k % len(_WORDS)] + " "
            k += 3
        out.append(text[:size])
    return out


# --- the loopback server (child process) ---------------------------------------------------------------


def serve(deltas: int) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.support.chat_completions_support import chat_chunk, chat_response
    from tests.support.gemini_support import gemini_sse, text_reply
    from tests.support.loopback import LoopbackServer, anthropic_sse, sse_response
    from tests.support.ollama_support import done_line, ndjson_response, text_lines

    texts = pieces(deltas)
    start = {"type": "message_start", "message": {
        "id": "msg_bench", "type": "message", "role": "assistant", "model": MODELS["anthropic"], "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}}
    anthropic = anthropic_sse([
        start,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}} for t in texts),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
         "usage": {"output_tokens": deltas}},
        {"type": "message_stop"},
    ])
    chat = [chat_chunk({"role": "assistant", "content": ""}), *(chat_chunk({"content": t}) for t in texts),
            chat_chunk({}, finish_reason="stop"),
            chat_chunk(None, usage={"prompt_tokens": 10, "completion_tokens": deltas, "total_tokens": deltas + 10})]
    gemini = text_reply(*texts, model=MODELS["gemini"])
    ollama = [*text_lines(*texts, model=MODELS["ollama"]), done_line(eval_count=deltas, model=MODELS["ollama"])]

    server = LoopbackServer()
    server.set_handler("/v1/messages", lambda request: sse_response(anthropic))
    server.set_handler("/v1/chat/completions", lambda request: chat_response(chat))
    server.set_handler("/v1beta/models/", lambda request: gemini_sse(gemini))
    server.set_handler("/api/chat", lambda request: ndjson_response(ollama))
    server.start()
    print(server.url, flush=True)
    sys.stdin.read()  # until the parent closes stdin
    server.stop()


# --- the bare SDKs (each run as `python -c`) ------------------------------------------------------------

PRELOAD = {
    "common": ("anyio._backends._asyncio", "anyio.streams.tls", "anyio.streams.memory", "anyio.streams.stapled",
               "anyio.to_thread", "sniffio", "h11", "queue", "concurrent.futures.thread", "importlib.readers",
               "email.policy", "email.headerregistry", "certifi", "truststore", "importlib_metadata._adapters"),
    "anthropic": ("anthropic", "httpx2", "httpcore2", "opentelemetry.propagate",
                  "opentelemetry.trace.propagation.tracecontext"),
    "openai": ("openai", "httpx2", "httpcore2", "jiter", "openai.resources.chat.chat",
               "openai.resources.chat.completions.completions", "openai.lib.streaming.chat"),
    "gemini": ("httpx", "httpcore", "httpcore2", "google.auth.aio.credentials"),
    "ollama": ("httpx", "httpcore"),
}
"""Modules the first request imports (HTTP transports, TLS, lazily loaded SDK parts), per provider: imported
before the timing on both sides, so the stream figure leaves imports out, and only those the run imports anyway
(another SDK's modules would make the process's heap, and every step of the stream, bigger)."""

_PRELOADER = """
import importlib
for _name in PRELOAD:
    try:
        importlib.import_module(_name)
    except ImportError:
        pass
"""


APP_PRELOAD = ("httpx", "httpcore", "pydantic._internal._dataclasses")
"""Imported by the app's run whatever the provider (the tools' HTTP client is an httpx one)."""


def preload(provider: str, app: bool = False) -> str:
    return f"PRELOAD = {PRELOAD['common'] + PRELOAD[provider] + (APP_PRELOAD if app else ())!r}" + _PRELOADER


_SDK_PRELUDE = """
import asyncio, json, sys, time
url, out = sys.argv[1], sys.argv[2]
"""
_SDK_RUN = """
chars = asyncio.run(go())
with open(out, "w") as f:
    json.dump({"cpu": CPU, "chars": chars, "imported": IMPORTED}, f)
"""

SDK_CODE = {
    "anthropic": """
import anthropic
async def go():
    global CPU, IMPORTED
    modules = set(sys.modules)
    t0 = time.process_time()
    client = anthropic.AsyncAnthropic(api_key="sk-ant-bench", base_url=url)
    stream = await client.messages.create(model="claude-sonnet-4-6", max_tokens=32000, stream=True,
                                          messages=[{"role": "user", "content": "hello"}])
    chars = 0
    async for event in stream:
        if event.type == "content_block_delta" and event.delta.type == "text_delta":
            chars += len(event.delta.text)
    CPU = time.process_time() - t0
    IMPORTED = sorted(set(sys.modules) - modules)
    await client.close()
    return chars
""",
    "anthropic_stream": """
import anthropic
async def go():
    global CPU, IMPORTED
    modules = set(sys.modules)
    t0 = time.process_time()
    client = anthropic.AsyncAnthropic(api_key="sk-ant-bench", base_url=url)
    chars = 0
    async with client.messages.stream(model="claude-sonnet-4-6", max_tokens=32000,
                                      messages=[{"role": "user", "content": "hello"}]) as stream:
        async for text in stream.text_stream:
            chars += len(text)
        await stream.get_final_message()
    CPU = time.process_time() - t0
    IMPORTED = sorted(set(sys.modules) - modules)
    await client.close()
    return chars
""",
    "openai": """
import openai
async def go():
    global CPU, IMPORTED
    modules = set(sys.modules)
    t0 = time.process_time()
    client = openai.AsyncOpenAI(api_key="sk-bench", base_url=url + "/v1")
    stream = await client.chat.completions.create(model="gpt-4.1-mini", stream=True,
                                                  messages=[{"role": "user", "content": "hello"}])
    chars = 0
    async for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            chars += len(chunk.choices[0].delta.content)
    CPU = time.process_time() - t0
    IMPORTED = sorted(set(sys.modules) - modules)
    await client.close()
    return chars
""",
    "gemini": """
from google import genai
from google.genai import types
async def go():
    global CPU, IMPORTED
    modules = set(sys.modules)
    t0 = time.process_time()
    client = genai.Client(api_key="gemini-bench", http_options=types.HttpOptions(base_url=url, api_version="v1beta"))
    chars = 0
    async for chunk in await client.aio.models.generate_content_stream(model="gemini-2.5-flash", contents="hello"):
        chars += len(chunk.text or "")
    CPU = time.process_time() - t0
    IMPORTED = sorted(set(sys.modules) - modules)
    await client.aio.aclose()
    return chars
""",
    "ollama": """
import ollama
async def go():
    global CPU, IMPORTED
    modules = set(sys.modules)
    t0 = time.process_time()
    client = ollama.AsyncClient(host=url)
    chars = 0
    async for part in await client.chat(model="llama3.2", messages=[{"role": "user", "content": "hello"}], stream=True):
        chars += len(part.message.content or "")
    CPU = time.process_time() - t0
    IMPORTED = sorted(set(sys.modules) - modules)
    return chars
""",
}


def sdk_code(kind: str) -> str:
    return _SDK_PRELUDE + preload(kind.removesuffix("_stream")) + SDK_CODE[kind] + _SDK_RUN


# --- the app's `ask`, with ChatSession.send timed (run as `python -c`) --------------------------------------

APP_CODE = """
import json, sys, time
out, provider, profile = sys.argv[1], sys.argv[2], sys.argv[3]
from desktop_copilot.app import cli, ask, ask_approval  # what the run imports on first use: done before the timing
from desktop_copilot.core import bootstrap, chat, context_keeper
from desktop_copilot.core.content import attachments
from desktop_copilot.core.context import budget, summary
from desktop_copilot.core.knowledge import library
from desktop_copilot.core.providers import factory, request_log, stream_reader, streaming
from desktop_copilot.core.tools.builtin import builtin_registry
import importlib, keyring
importlib.import_module("desktop_copilot.core.providers." + {"openai": "chat_completions"}.get(provider, provider) + "_provider")
if provider in ("openai", "ollama"):
    importlib.import_module("desktop_copilot.core.providers.text_protocol.reader")
builtin_registry()
result = {}
send = chat.ChatSession.send
async def timed(self, *args, **kwargs):
    modules = set(sys.modules)
    if profile:
        import cProfile
        prof = cProfile.Profile()
        prof.enable()
    t0 = time.process_time()
    finished = await send(self, *args, **kwargs)
    result["cpu"] = time.process_time() - t0
    if profile:
        prof.disable()
        prof.dump_stats(profile)
    result["outcome"] = finished.outcome
    result["chars"] = len(self.conversation.messages[-1].text)
    result["imported"] = sorted(set(sys.modules) - modules)
    return finished
chat.ChatSession.send = timed
code = cli.main(["ask", "--provider", provider, "hello"])
result["exit"] = code
import desktop_copilot
result["package"] = desktop_copilot.__file__
with open(out, "w") as f:
    json.dump(result, f)
"""


CLEAN_ENV = ("PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE")
"""Left out of the children's environment, as a user's shell has neither: without bytecode caches every import
compiles (`import anthropic` then costs over 2 s of CPU), and unbuffered stdout makes each write a system call."""


def child_env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in CLEAN_ENV}
    env.update(extra)
    return env


def app_env(url: str, home: Path) -> dict[str, str]:
    env = child_env(DESKTOP_COPILOT_HOME=str(home), PYTHONIOENCODING="utf-8",
                    ANTHROPIC_API_KEY="sk-ant-bench", ANTHROPIC_BASE_URL=url, OPENAI_API_KEY="sk-bench",
               OPENAI_BASE_URL=url + "/v1", GEMINI_API_KEY="gemini-bench", GEMINI_BASE_URL=url, OLLAMA_HOST=url)
    for name in ("DESKTOP_COPILOT_PROVIDER", "DESKTOP_COPILOT_MODEL", "DESKTOP_COPILOT_MAX_TOKENS"):
        env.pop(name, None)
    return env


def run_child(argv: list[str], env: dict[str, str], cwd: Path = ROOT) -> tuple[float, int, str]:
    """(CPU seconds of the whole child, user+system, its exit code, its stderr's tail)."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read()[-2000:].decode(errors="replace")
    return usage.ru_utime + usage.ru_stime, proc.returncode, tail


def measure(kind: str, provider: str, url: str, work: Path, profile: Path | None, root: Path = ROOT) -> dict:
    """One fresh process: `sdk` (the bare SDK, stream and whole process), `app` (stream), `ask` (whole process);
    the app's from the checkout `root`."""
    out = work / "result.json"
    out.unlink(missing_ok=True)
    home = Path(tempfile.mkdtemp(dir=work))
    python = sys.executable
    if kind.startswith("sdk"):
        code = sdk_code(provider if kind == "sdk" else f"{provider}_stream")
        cpu, rc, err = run_child([python, "-c", code, url, str(out)], child_env())
    elif kind == "app":
        prof = str(profile / f"{provider}.prof") if profile else ""
        cpu, rc, err = run_child([python, "-c", preload(provider, app=True) + APP_CODE, str(out), provider, prof],
                                 app_env(url, home), root)
    else:
        cpu, rc, err = run_child([python, "-m", "desktop_copilot", "ask", "--provider", provider, "hello"], app_env(url, home), root)
        if rc != 0:
            raise SystemExit(f"ask --provider {provider} failed ({rc}):\n{err}")
        return {"process": cpu}
    if rc != 0 or not out.exists():
        raise SystemExit(f"{kind} {provider} failed ({rc}):\n{err}")
    result = json.loads(out.read_text())
    if kind == "app" and not Path(result["package"]).is_relative_to(root.resolve()):
        raise SystemExit(f"the app was imported from {result['package']}, not from {root}")
    result["process"] = cpu
    return result


def row(measure_: str, value: float, unit: str, reference: str | None, ref_value: float | None, target: str,
        limit: float | None) -> dict:
    ratio = value / ref_value if ref_value else None
    met = ratio is not None and limit is not None and ratio <= limit
    return {"measure": measure_, "value": round(value, 4), "unit": unit, "reference": reference,
            "reference_value": round(ref_value, 4) if ref_value is not None else None,
            "ratio": round(ratio, 3) if ratio is not None else None, "target": target, "met": met}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--deltas", type=int, default=10_000)
    parser.add_argument("--providers", default=",".join(PROVIDERS))
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the rows there")
    parser.add_argument("--profile", type=Path, metavar="DIR", help="cProfile the app's stream (last round) into DIR "
                        "(cProfile's own allocations can make accumulate's in-place string growth copy: read with care)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose app is measured (default: this one)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.deltas)
        return
    providers = [p.strip() for p in args.providers.split(",") if p.strip()]
    print(f"cpu_count={os.cpu_count()} loadavg={os.getloadavg()}")
    print(f"{args.deltas} text deltas of ~160 characters per reply; {args.rounds} rounds, each kind in a fresh process")
    server = subprocess.Popen([sys.executable, __file__, "--serve", "--deltas", str(args.deltas)], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        if not url.startswith("http"):
            raise SystemExit("the loopback server did not start")
        if args.profile:
            args.profile.mkdir(parents=True, exist_ok=True)
        kinds = {p: ["sdk", "app", "ask"] + (["sdk_stream"] if p == "anthropic" else []) for p in providers}
        results: dict[tuple[str, str], list[dict]] = {}
        with tempfile.TemporaryDirectory(prefix="provider-cpu-") as tmp:
            for round_ in range(-1, args.rounds):  # round -1 warms up: bytecode caches written, files in the page cache
                for provider in providers:
                    order = kinds[provider] if round_ % 2 == 0 else kinds[provider][::-1]
                    for kind in order:
                        last = round_ == args.rounds - 1
                        result = measure(kind, provider, url, Path(tmp), args.profile if last and kind == "app" else None,
                                         args.root.resolve())
                        if round_ >= 0:
                            results.setdefault((provider, kind), []).append(result)
                print(f"round {round_ + 1}/{args.rounds} done" if round_ >= 0 else "warm-up done", flush=True)
    finally:
        server.stdin.close()
        server.wait(timeout=10)

    rows = []
    expected = sum(len(t) for t in pieces(args.deltas))
    print(f"\n{'provider':<10} {'figure':<8} {'app s':>8} {'SDK s':>8} {'ratio':>6}  met   (medians; SDK: {TARGET})")
    for provider in providers:
        med = {k: {f: statistics.median(r[f] for r in results[(provider, k)]) for f in ("cpu", "process") if f in results[(provider, k)][0]}
               for k in kinds[provider]}
        apps = results[(provider, "app")]
        bad = [r for r in apps if r.get("outcome") != "completed" or r.get("chars") != expected]
        sdk_bad = [r for k in kinds[provider] if k.startswith("sdk") for r in results[(provider, k)] if r["chars"] != expected]
        if bad or sdk_bad:
            print(f"  !! {provider}: incomplete replies: app {bad[:1]} sdk {sdk_bad[:1]}")
        imported = sorted({m for r in apps for m in r.get("imported", [])})
        reference = f"bare {provider} SDK" if provider != "gemini" else "bare google-genai SDK"
        for figure, value, ref in (("stream", med["app"]["cpu"], med["sdk"]["cpu"]),
                                   ("process", med["ask"]["process"], med["sdk"]["process"])):
            r = row(f"{provider} {figure} CPU", value, "s", reference, ref, TARGET, 1.0)
            rows.append(r)
            print(f"{provider:<10} {figure:<8} {value:8.3f} {ref:8.3f} {r['ratio']:6.2f}  {'yes' if r['met'] else 'NO'}")
        if provider == "anthropic":
            alt = med["sdk_stream"]
            for figure, value, ref in (("stream", med["app"]["cpu"], alt["cpu"]), ("process", med["ask"]["process"], alt["process"])):
                r = row(f"{provider} {figure} CPU vs messages.stream()", value, "s", "bare anthropic SDK, messages.stream()",
                        ref, TARGET, 1.0)
                rows.append(r)
                print(f"{'':<10} {figure:<8} {value:8.3f} {ref:8.3f} {r['ratio']:6.2f}  {'yes' if r['met'] else 'NO'}"
                      "  (SDK: messages.stream())")
        if imported:
            print(f"  note: the app's stream imported {len(imported)} modules: {', '.join(imported[:8])}")
    print(f"\ncpu_count={os.cpu_count()} loadavg={os.getloadavg()}")
    if args.profile:
        print(f"profiles of the app's stream: {args.profile}/<provider>.prof")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
