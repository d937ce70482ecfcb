"""Where the app keeps its files: `DESKTOP_COPILOT_HOME` when set, else the platform directories."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

APP_NAME = "DesktopCopilot"
HOME_ENV = "DESKTOP_COPILOT_HOME"
KNOWLEDGE_FILE = "knowledge.sqlite3"
"""The knowledge sources' database in the data folder (core/knowledge/library.py)."""


@dataclass(frozen=True, slots=True)
class AppPaths:
    config_dir: Path
    data_dir: Path
    log_dir: Path

    @property
    def database(self) -> Path:
        return self.data_dir / "conversations.sqlite3"

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.json"

    @property
    def key_names_file(self) -> Path:
        """Which keys the keyring holds, by name (core/keys/saved_names.py)."""
        return self.config_dir / "key_names.json"

    @property
    def knowledge_database(self) -> Path:
        """The knowledge sources' database (core/knowledge/library.py); it may not exist: nobody added a source yet."""
        return self.data_dir / KNOWLEDGE_FILE

    @property
    def mcp_file(self) -> Path:
        """The MCP servers' configuration (core/mcp/config_file.py)."""
        return self.config_dir / "mcp.json"

    def ensure(self) -> AppPaths:
        """The folders made where they are missing; one that cannot be made (a read-only disk, a file in its place)
        is left to what uses it to report (the conversation store is then kept in memory)."""
        for folder in (self.config_dir, self.data_dir, self.log_dir):
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError:
                pass
        return self

    @classmethod
    def resolve(cls, environ: dict[str, str] | None = None) -> AppPaths:
        env = os.environ if environ is None else environ
        home = env.get(HOME_ENV, "").strip()
        if home:
            root = Path(home).expanduser()
            return cls(root / "config", root / "data", root / "logs")
        import platformdirs

        dirs = platformdirs.PlatformDirs(APP_NAME, appauthor=False)
        return cls(Path(dirs.user_config_dir), Path(dirs.user_data_dir), Path(dirs.user_log_dir))
