"""The secret scan repeated with the shell tool switched on: keys and tokens the user exported in the environment (and
the app's own keys) never reach a command, so a model that runs `env` through the shell in the real window sees none;
neither the card, the request sent back to the model, the database nor any file under the profile holds one."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

from PySide6.QtCore import Qt

from desktop_copilot.core.approval.rules import make_rule
from desktop_copilot.core.bootstrap import build_runtime
from desktop_copilot.core.conversation.models import Role
from tests.qt.conftest import loopback_env, make_window, qasync_loop  # noqa: F401 - fixtures are used by name
from tests.support.loopback import anthropic_text_reply, anthropic_tool_reply, sse_response
from tests.support.secret_scan import leaks_in_files, leaks_in_texts


def test_env_through_the_shell_shows_no_key(qtbot, loopback_env, make_window, monkeypatch, tmp_path):  # noqa: F811
    exported = {name: f"{name.lower()}-{secrets.token_urlsafe(24)}" for name in
                ("OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "DEEPSEEK_API_KEY", "MY_SERVICE_PASSWORD")}
    for name, value in exported.items():
        monkeypatch.setenv(name, value)
    found = {**exported, "ANTHROPIC_API_KEY": os.environ["ANTHROPIC_API_KEY"], "TAVILY_API_KEY": os.environ["TAVILY_API_KEY"]}
    home = Path(os.environ["DESKTOP_COPILOT_HOME"])
    workspace = tmp_path / "project"
    workspace.mkdir()
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(json.dumps({"workspace_folder": str(workspace), "enabled_tools": ["shell"]}),
                                          encoding="utf-8")
    runtime = build_runtime(check_keyring=False)
    runtime.grants.add_rule(make_rule("allow", "shell", "env"))
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_tool_reply([("toolu_env", "shell", {"command": "env"})])),
                         sse_response(anthropic_text_reply("Those are your variables.")))
    window = make_window(runtime)
    window.composer.edit.insertPlainText("What is in my environment?")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.controller.busy and len(window.controller.model.messages()) == 3, timeout=20000)

    call = next(m for m in window.controller.model.messages() if m.role is Role.ASSISTANT).tool_calls[0]
    assert call.approval.decision == "rule_allowed" and "exit status 0" in call.result
    assert "PATH=" in call.result and f"PWD={workspace}" in call.result  # the command ran, in the workspace
    sent_back = loopback_env.requests_to("/v1/messages")[1].body.decode()
    assert "PATH=" in sent_back
    window.controller.session.store.wait_for_index(5)
    leaks = (leaks_in_texts(found, {"card": call.result, "request to the model": sent_back})
             + leaks_in_files(found, home))
    assert leaks == [], "\n".join(leaks)
