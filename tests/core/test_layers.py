"""The core stays Qt-free and light: importing it loads neither PySide6 nor the provider SDK nor httpx."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import desktop_copilot.core.chat, desktop_copilot.core.runtime, desktop_copilot.core.agent.loop
import desktop_copilot.core.storage.store, desktop_copilot.core.providers.anthropic_provider
import desktop_copilot.app.ask, desktop_copilot.core.bootstrap
print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'qasync', 'anthropic', 'httpx')}))
"""


def test_core_and_ask_import_neither_qt_nor_the_sdk_nor_httpx():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
