"""The log file: where it lives, its level, rotation, and that no key ever reaches a line of it."""

from __future__ import annotations

import logging
import os
import secrets
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from desktop_copilot.core.logs import logging_setup as logs
from desktop_copilot.core.keys.redaction import redact
from desktop_copilot.core.keys.secrets import Secret, known_secret_values
from tests.support.log_support import logging_to_profile, read_log

ROOT = Path(__file__).resolve().parents[3]
log = logging.getLogger("desktop_copilot.tests.logs")


def fresh_key(prefix: str = "sk-ant-api03-") -> str:
    return prefix + secrets.token_hex(20)


def test_the_file_is_in_the_profile_log_folder_at_info_by_default():
    with logging_to_profile() as path:
        log.info("info line %d", 1)
        log.debug("debug line")
        text = read_log(path)
    assert path == Path(os.environ["DESKTOP_COPILOT_HOME"]) / "logs" / "desktop-copilot.log"
    assert "INFO" in text and "desktop_copilot.tests.logs: info line 1" in text
    assert "debug line" not in text


def test_debug_from_the_environment(monkeypatch):
    monkeypatch.setenv("DESKTOP_COPILOT_LOG", "debug")
    with logging_to_profile() as path:
        log.debug("debug line")
        assert "debug line" in read_log(path)
    assert logs.level_from(environ={"DESKTOP_COPILOT_LOG": "nonsense"}) == logging.INFO
    assert logs.level_from(environ={"DESKTOP_COPILOT_LOG": "warning"}) == logging.WARNING
    assert logs.level_from(debug=True, environ={}) == logging.DEBUG


def test_sdk_debug_lines_stay_out_even_at_debug_but_its_retries_are_in():
    """The SDK's DEBUG lines carry the request body, i.e. the user's words."""
    with logging_to_profile(logging.DEBUG) as path:
        logging.getLogger("anthropic._base_client").debug("Request options: {'json_data': 'my private question'}")
        logging.getLogger("anthropic._base_client").info("Retrying request to %s in %f seconds", "/v1/messages", 0.5)
        text = read_log(path)
    assert "my private question" not in text
    assert "Retrying request to /v1/messages in 0.500000 seconds" in text


def test_rotation_is_configured_and_rotates():
    with logging_to_profile() as path:
        handler = next(h for h in logging.getLogger().handlers if isinstance(h, logs._LogFile))
        assert (handler.max_bytes, handler.backups, handler.encoding) == (2 * 1024 * 1024, 3, "utf-8")
        handler.max_bytes = 2000
        for n in range(100):
            log.info("line %03d %s ünïcode", n, "x" * 60)
        read_log(path)
    files = sorted(path.parent.iterdir())
    assert [f.name for f in files] == [
        "desktop-copilot.log", "desktop-copilot.log.1", "desktop-copilot.log.2", "desktop-copilot.log.3"]
    assert all(f.stat().st_size < 2000 + 200 for f in files)
    newest, older = path.read_text(encoding="utf-8"), (path.parent / "desktop-copilot.log.1").read_text(encoding="utf-8")
    assert "line 099" in newest and "line 099" not in older and older.rstrip().endswith("ünïcode")
    assert "line 000" not in "".join(f.read_text(encoding="utf-8") for f in files)  # the oldest were dropped


def test_a_key_in_the_message_the_arguments_or_an_exception_is_masked():
    value = fresh_key()
    Secret(value)  # as the keyring or the environment lookup makes one
    with logging_to_profile() as path:
        log.info(f"in the message {value}")
        log.info("in the arguments %s and %r", value, {"key": value})
        try:
            raise ValueError(f"the server said: bad key {value}")
        except ValueError:
            log.exception("with an exception")
        try:
            try:
                {}[value]
            except KeyError as cause:
                raise RuntimeError("lookup failed") from cause
        except RuntimeError:
            log.exception("a traceback whose text holds the key in its cause")
        text = read_log(path)
    assert value not in text
    assert text.count(f"[redacted …{value[-4:]}]") >= 5
    assert "ValueError: the server said: bad key [redacted" in text and "Traceback (most recent call last)" in text
    assert "KeyError: '[redacted" in text and "RuntimeError: lookup failed" in text


def test_key_shaped_tokens_and_auth_headers_are_masked_even_when_unknown():
    anthropic, tavily, bearer = fresh_key(), fresh_key("tvly-dev-"), secrets.token_hex(12)
    with logging_to_profile() as path:
        log.info("headers %s", {"x-api-key": "plain-" + bearer, "authorization": f"Bearer {bearer}"})
        log.info("keys %s %s", anthropic, tavily)
        log.info("HTTP Request: GET https://example.test/v1/models?key=%s&pageSize=50", bearer)
        text = read_log(path)
    assert "models?key=[redacted]&pageSize=50" in text
    assert bearer not in text and anthropic[8:] not in text and tavily[9:] not in text
    assert "'authorization': 'Bearer [redacted]'" in text and "'x-api-key': '[redacted]'" in text


@pytest.mark.parametrize("shape", [
    "AIza" + "x1Y2z3" * 6,  # Gemini
    "gsk_" + "aB3" * 18,  # Groq
    "xai-" + "Qw9" * 27,  # xAI
    "ghp_" + "Zz8" * 12, "github_pat_" + "11AB" * 10,  # GitHub, as MCP servers use them
    "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJkZW1vLXVzZXIifQ.c2lnbmF0dXJlLWJ5dGVz",  # a JWT access token
])
def test_other_vendors_key_shapes_are_masked_even_when_unknown(shape):
    assert redact(f"crashed with {shape}: retry") == "crashed with [redacted]: retry"


def test_a_basic_or_token_authorization_value_is_masked_whole():
    encoded = "dXNlcjpub3Rlcy10b2tlbi0xMjM0NTY3OA=="
    assert redact(f"Authorization: Basic {encoded}") == "Authorization: Basic [redacted]"
    assert redact(f"authorization='Token {encoded}'") == "authorization='Token [redacted]'"
    assert redact("the model grok-4 from xai-org answered") == "the model grok-4 from xai-org answered"


def test_short_values_are_not_registered():
    Secret("abc")
    assert "abc" not in known_secret_values()
    assert redact("abc def") == "abc def"


def test_uncaught_exceptions_in_the_main_and_worker_threads_are_logged_and_reported():
    value = fresh_key()
    Secret(value)
    reported: list[BaseException] = []
    previous = sys.excepthook, threading.excepthook
    with logging_to_profile() as path:
        undo = logs.install_crash_logging(reported.append)
        try:
            try:
                raise LookupError(f"no such thing {value}")
            except LookupError:
                sys.excepthook(*sys.exc_info())

            def work() -> None:
                raise ZeroDivisionError("in a worker")

            worker = threading.Thread(target=work, name="worker-7")
            worker.start()
            worker.join()
        finally:
            undo()
        text = read_log(path)
    assert [type(e) for e in reported] == [LookupError, ZeroDivisionError]
    assert "Uncaught exception\nTraceback" in text and "LookupError: no such thing [redacted" in text
    assert "Uncaught exception in thread worker-7" in text and "ZeroDivisionError: in a worker" in text
    assert value not in text
    assert (sys.excepthook, threading.excepthook) == previous


def test_banner_words_name_the_log_file():
    with logging_to_profile() as path:
        text = logs.unexpected_error_text(ValueError("boom"))
    assert text == f"Something went wrong: ValueError: boom. Details are in the log: {path}"


def test_an_unwritable_log_folder_is_no_reason_to_fail(tmp_path):
    from desktop_copilot.core.config.paths import AppPaths

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert logs.configure_logging(AppPaths(tmp_path, tmp_path, blocker / "logs")) is None


@pytest.mark.parametrize("argv, env, expected", [
    (["--debug", "keys", "list"], {}, "DEBUG"),
    (["keys", "list", "--debug"], {}, "DEBUG"),
    (["keys", "list"], {"DESKTOP_COPILOT_LOG": "debug"}, "DEBUG"),
    (["keys", "list"], {}, "INFO"),
])
def test_the_command_line_logs_start_and_stop_at_the_chosen_level(argv, env, expected):
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring", **env}
    environ.pop("DESKTOP_COPILOT_LOG", None) if not env else None
    done = subprocess.run([sys.executable, "-m", "desktop_copilot", *argv], env=environ, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    text = (Path(os.environ["DESKTOP_COPILOT_HOME"]) / "logs" / "desktop-copilot.log").read_text(encoding="utf-8")
    assert f"starting (keys): Python {sys.version.split()[0]}" in text and f"log level {expected}" in text
    assert "stopping (keys), exit code 0" in text
    assert "starting" not in done.stdout + done.stderr
