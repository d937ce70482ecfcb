"""The first frame's reading of settings.json agrees with the full settings model on every field it reads."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_copilot.core.config.first_frame_settings import FirstFrameSettings, read_first_frame_settings
from desktop_copilot.core.config.settings import SettingsFile

ODD = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=8), st.lists(st.integers(-2, 900), max_size=3))
FIELDS = {
    "language": st.one_of(st.sampled_from(["auto", "en", "zh_CN"]), ODD),
    "theme": st.one_of(st.sampled_from(["auto", "light", "dark", "Dark"]), ODD),
    "window_geometry": st.one_of(st.just("AdnQywADAAAAAAAA"), st.just("  "), ODD),
    "window_splitter_sizes": st.one_of(st.lists(st.integers(0, 2000), max_size=3), ODD),
    "sidebar_visible": st.one_of(st.sampled_from(["yes", "Off", "1", 0, 1, 2, 1.0]), ODD),
}


@settings(max_examples=150, deadline=None)
@given(st.fixed_dictionaries({}, optional=FIELDS))
def test_it_reads_what_the_settings_model_reads(tmp_path_factory, values):
    path = tmp_path_factory.mktemp("ff") / "settings.json"
    path.write_text(json.dumps(values))
    first = read_first_frame_settings(path)
    settings_file = SettingsFile(path)
    full = settings_file.load()
    if settings_file.problem is None:  # a file the model accepts: the same values
        assert first.language == full.language
        assert first.theme == full.theme
        assert first.window_geometry == full.window_geometry
        assert list(first.window_splitter_sizes) == full.window_splitter_sizes
        assert first.sidebar_visible == full.sidebar_visible
    else:  # the model refuses it (and moves it aside): the frame still shows, with sane values
        assert first.theme in ("auto", "light", "dark")
        assert isinstance(first.sidebar_visible, bool)


def test_a_missing_or_damaged_file_gives_the_defaults(tmp_path):
    assert read_first_frame_settings(tmp_path / "missing.json") == FirstFrameSettings()
    for raw in (b"{not json", b"\xff\xfe", b"[1, 2]", b"null"):
        (tmp_path / "settings.json").write_bytes(raw)
        assert read_first_frame_settings(tmp_path / "settings.json") == FirstFrameSettings()
