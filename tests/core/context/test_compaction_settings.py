"""The compaction settings load forgivingly: a threshold out of range is brought within it, a nonsense value is the
default, and the file itself is kept."""

from __future__ import annotations

import json

from desktop_copilot.core.config.settings import Settings, SettingsFile
from desktop_copilot.core.context_keeper import CompactionSettings


def test_defaults_and_values_brought_within_range(tmp_path):
    assert CompactionSettings.of(None) == CompactionSettings(0.8, 4, None, None)
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"compact_at": 3, "keep_turns": 0, "summariser_provider": " ", "summariser_model": "m",
                                "max_tool_rounds": 7}))
    file = SettingsFile(path)
    settings = file.load()
    assert file.problem is None and settings.max_tool_rounds == 7  # the rest of the file is kept
    assert CompactionSettings.of(settings) == CompactionSettings(0.95, 1, None, "m")
    assert (Settings(compact_at=0.1).compact_at, Settings(compact_at="most").compact_at) == (0.5, 0.8)
    assert (Settings(keep_turns="two").keep_turns, Settings(keep_turns=6).keep_turns) == (4, 6)
    assert Settings.model_validate_json('{"compact_at": NaN}').compact_at == 0.8
