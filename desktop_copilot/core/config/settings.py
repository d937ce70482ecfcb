"""User settings without secrets, kept in settings.json: loaded forgivingly and saved atomically."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_serializer, field_validator, model_validator

from desktop_copilot.core.config.atomic_file import move_aside, write_atomically
from desktop_copilot.core.config.app_config import DEFAULT_MAX_TOKENS, DEFAULT_TOOL_RESULT_LIMIT, DEFAULT_MAX_TOOL_ROUNDS, DEFAULT_THINKING_BUDGET
from desktop_copilot.core.config.app_config import DEFAULT_COMPACT_AT, DEFAULT_KEEP_TURNS
from desktop_copilot.core.empty_lists import new_list
from desktop_copilot.core.usage.rates import ModelPrice
from desktop_copilot.core.providers.deadlines import StreamDeadlines
from desktop_copilot.core.profiles.profile import ToolProtocol
from desktop_copilot.core.profiles.stored import ModelOverride, ReportedFacts, valid_entries, valid_learned
from desktop_copilot.core.words import tr

log = logging.getLogger(__name__)

ANTHROPIC = "anthropic"
LEGACY_URL, LEGACY_MODELS = "anthropic_base_url", "models_cache"
"""Where files written before Anthropic was an ordinary provider kept its base URL and model list."""
COMPACT_AT_RANGE = (0.5, 0.95)
ZOOM_RANGE = (0.5, 2.5)


class ModelsCache(BaseModel):
    """The model ids the API listed, and when."""

    model_config = ConfigDict(extra="ignore")

    model_ids: list[str] = Field(default_factory=new_list)
    fetched_at: datetime


def http_base_url(value: str) -> str:
    """A base URL without its trailing slash; ValueError unless it is http(s)."""
    value = value.strip().rstrip("/")
    if not value.startswith(("http://", "https://")):
        raise ValueError("must start with http:// or https://")
    return value


class CustomProvider(BaseModel):
    """A Chat Completions endpoint the user added (LM Studio, llama.cpp server, vLLM, a gateway). Its key, if
    any, is in the keyring under its id; `headers` hold no secrets."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,39}$")
    label: str = Field(min_length=1)
    base_url: str
    default_model: str = ""
    needs_key: bool = False
    headers: dict[str, str] = Field(default_factory=dict)

    _http_url = field_validator("base_url")(http_base_url)


class KnowledgeEmbedding(BaseModel):
    """The embedding model knowledge searches use beside BM25 (core/knowledge/embeddings.py): its wire, model and
    endpoint; the key, if any, is the keyring's entry `key_name` (a provider's key: "openai", "gemini"; "" for none)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    wire: Literal["openai", "gemini", "ollama"]
    model: str = Field(min_length=1, max_length=200)
    base_url: str
    key_name: str = ""

    _http_url = field_validator("base_url")(http_base_url)


class Settings(BaseModel):
    """What the settings dialog edits. API keys never live here (they go to the keyring)."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    version: int = 1
    default_model: str | None = None
    """None means the app's default model."""
    thinking_enabled: bool = False
    thinking_budget: int = Field(default=DEFAULT_THINKING_BUDGET, ge=1024)
    max_tool_rounds: int = Field(default=DEFAULT_MAX_TOOL_ROUNDS, ge=0)
    max_tokens: int = Field(default=DEFAULT_MAX_TOKENS, ge=1)
    """The output limit of a reply; models with a lower maximum are sent theirs (config.MODEL_OUTPUT_CAPS)."""
    disabled_tools: set[str] = Field(default_factory=set)
    enabled_tools: set[str] = Field(default_factory=set)
    """Tools off until switched on (`Tool.enabled_by_default` False: the shell) that the user switched on."""
    window_geometry: str | None = None
    """Qt's saveGeometry() as base64."""
    window_splitter_sizes: list[int] = Field(default_factory=new_list)
    """The widths of the conversation list and the transcript when the window last closed; empty: the default."""
    sidebar_visible: bool = True
    """Whether the conversation list was shown (View ▸ Show conversation list, Ctrl+B)."""
    open_conversation_id: str | None = None
    """The conversation shown when the window last closed, reopened at the next start while it is still stored."""
    default_provider: str | None = None
    """The provider new conversations talk to; None means Anthropic (or DESKTOP_COPILOT_PROVIDER)."""
    disabled_providers: set[str] = Field(default_factory=set)
    """Providers left out of the model picker."""
    base_urls: dict[str, str] = Field(default_factory=dict)
    """Provider id -> another endpoint than the public one (the environment's <ID>_BASE_URL still wins)."""
    custom_providers: list[CustomProvider] = Field(default_factory=new_list)
    provider_models: dict[str, ModelsCache] = Field(default_factory=dict)
    """Provider id -> the model ids it listed, and when."""
    workspace_folder: str | None = None
    """The folder the workspace file tools may reach; None leaves them off."""
    tool_result_limit: int = Field(default=DEFAULT_TOOL_RESULT_LIMIT, ge=1000)
    """At most this many characters of a tool result go to the model (the card and the database keep the whole)."""
    model_prices: dict[str, ModelPrice] = Field(default_factory=dict)
    """Model id -> the user's price (USD per million tokens), over the shipped table (core/usage/pricing.py)."""
    model_overrides: dict[str, ModelOverride] = Field(default_factory=dict)
    """"provider/model" -> the figures the user set for that model (Settings ▸ Model profiles), over all others (core/profiles/)."""
    model_facts: dict[str, ReportedFacts] = Field(default_factory=dict)
    """"provider/model" -> what the provider's model list reported of that model, and when."""
    learned_tools: dict[str, ToolProtocol] = Field(default_factory=dict)
    """"provider/model" -> the tool protocol its server showed the model takes (it refused native tools): kept apart
    from `model_facts`, which each refresh of the model list replaces (core/runtime.py remembers it)."""
    language: str = "auto"
    """The interface language: "auto" (the system locale), "en" or "zh_CN"; read at start-up (desktop_copilot/i18n)."""
    theme: str = "auto"
    """Light or dark: "auto" (the system's colour scheme), "light" or "dark"; applied live (qt/common/theme_switch.py)."""
    side_by_side_models: list[str] = Field(default_factory=new_list)
    """"provider/model" of each model last asked at once (Ask several models), offered ticked the next time."""
    desktop_notifications: bool = True
    """Whether a reply finishing or waiting for approval in a conversation not on screen shows a desktop notification."""
    first_byte_timeout: float | None = Field(default=None, gt=0)
    """Seconds a provider may take before its response begins, then the reply fails with Retry offered; None: the
    provider's default (core/providers/deadlines.py: 60 s, a local Ollama 300 s)."""
    stream_idle_timeout: float | None = Field(default=None, gt=0)
    """Seconds a reply may stall once begun, then it is kept, marked interrupted, with Continue offered; None: 120 s."""
    compact_at: float = DEFAULT_COMPACT_AT
    """Older turns are compacted when the next request, with its output reserve, would pass this share of the model's
    context window (0.5 to 0.95; core/context_keeper.py)."""
    keep_turns: int = DEFAULT_KEEP_TURNS
    """The last turns always sent whole (at least 1)."""
    summariser_provider: str | None = None
    summariser_model: str | None = None
    """Who writes the summaries of compacted turns; None: the conversation's own provider and model."""
    transcript_zoom: float = 1.0
    """The transcript's text size over the default (View ▸ Zoom in / Zoom out / Actual size), kept between runs."""
    knowledge_embedding: KnowledgeEmbedding | None = None
    """The embedding model of knowledge searches; None: BM25 alone (Settings ▸ Knowledge)."""

    @field_validator("transcript_zoom", mode="before")
    @classmethod
    def _zoom_in_range(cls, value: object) -> object:
        """A zoom out of range (a hand-edited file) is brought into it rather than making the file unusable."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return min(max(float(value), ZOOM_RANGE[0]), ZOOM_RANGE[1])
        return value

    def stream_deadlines(self, default: StreamDeadlines) -> StreamDeadlines:
        """`default` (a provider's deadlines) with what these settings change."""
        return StreamDeadlines(first_byte=self.first_byte_timeout or default.first_byte, idle=self.stream_idle_timeout or default.idle)

    @model_validator(mode="before")
    @classmethod
    def _fold_anthropic_fields(cls, data: Any) -> Any:
        """A file written before Anthropic was an ordinary provider: its `anthropic_base_url` and `models_cache` are
        read into `base_urls` and `provider_models` (where they are saved from then on); a value already there wins."""
        if not isinstance(data, dict) or not {LEGACY_URL, LEGACY_MODELS} & data.keys():
            return data
        data = dict(data)
        url, models = data.pop(LEGACY_URL, None), data.pop(LEGACY_MODELS, None)
        if isinstance(url, str) and url.strip():
            url = url.strip().rstrip("/")
            if not url.startswith(("http://", "https://")):
                raise ValueError(f"{LEGACY_URL} must start with http:// or https://")
            data["base_urls"] = _with_default(data.get("base_urls"), url)
        if models is not None:
            data["provider_models"] = _with_default(data.get("provider_models"), models)
        return data

    @field_validator("theme", mode="before")
    @classmethod
    def _known_theme(cls, value: Any) -> str:
        """An unknown appearance is not worth losing the settings file over: it follows the system."""
        return value if value in ("auto", "light", "dark") else "auto"

    @field_validator("compact_at", mode="before")
    @classmethod
    def _compact_at_in_range(cls, value: Any) -> float:
        """A threshold out of range is brought within it, one that is not a number is the default (the file is kept)."""
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            return DEFAULT_COMPACT_AT
        return min(COMPACT_AT_RANGE[1], max(COMPACT_AT_RANGE[0], float(value)))

    @field_validator("keep_turns", mode="before")
    @classmethod
    def _keep_at_least_one_turn(cls, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            return DEFAULT_KEEP_TURNS
        return int(max(1, min(1000, value)))

    @field_validator("default_model", "window_geometry", "workspace_folder", "summariser_provider", "summariser_model",
                     mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip()
            return value or None
        return value

    @field_validator("window_splitter_sizes", mode="before")
    @classmethod
    def _sizes_or_nothing(cls, value: Any) -> Any:
        """Window state is not worth losing the settings file over: odd sizes are forgotten."""
        if not isinstance(value, list) or not all(isinstance(size, int) and not isinstance(size, bool) and size >= 0 for size in value):
            return []
        return value

    @field_validator("model_prices", mode="before")
    @classmethod
    def _valid_prices_only(cls, value: Any) -> Any:
        """A price the file got wrong (by hand) is dropped with a warning, not the whole settings file."""
        if not isinstance(value, dict):
            return {}
        kept = {}
        for model, price in value.items():
            try:
                kept[str(model)] = ModelPrice.model_validate(price)
            except ValidationError:
                log.warning("settings.json: the price of %r is not valid and is ignored", str(model)[:80])
        return kept

    @field_validator("model_overrides", "model_facts", mode="before")
    @classmethod
    def _valid_model_facts_only(cls, value: Any, info: ValidationInfo) -> Any:
        """A model's facts the file got wrong are dropped with a warning, not the whole settings file."""
        kind = ModelOverride if info.field_name == "model_overrides" else ReportedFacts
        return valid_entries(value, kind, info.field_name)

    @field_validator("learned_tools", mode="before")
    @classmethod
    def _valid_learned_tools_only(cls, value: Any) -> Any:
        return valid_learned(value)

    @field_serializer("disabled_tools", "enabled_tools", "disabled_providers")
    def _sorted(self, value: set[str]) -> list[str]:
        return sorted(value)

    def config_overrides(self) -> dict[str, Any]:
        """The AppConfig fields these settings set (None values are left to the defaults)."""
        return {
            "provider": self.default_provider,
            "model": self.default_model,
            "anthropic_base_url": self.base_urls.get(ANTHROPIC),
            "thinking_budget": self.thinking_budget if self.thinking_enabled else None,
            "max_tool_rounds": self.max_tool_rounds,
            "max_tokens": self.max_tokens,
        }


class SettingsError(Exception):
    """Settings could not be saved; the message says why."""


class SettingsFile:
    """settings.json: `load()` never fails (a damaged file is moved aside and reported), `save()` is atomic."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.problem: str | None = None
        """Set by load() when the file could not be used; show it to the user."""
        self.moved_to: Path | None = None
        self._unsafe_to_overwrite = False

    def load(self) -> Settings:
        self.problem, self.moved_to, self._unsafe_to_overwrite = None, None, False
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return Settings()
        except OSError as exc:
            return self._unusable(tr("it cannot be read ({error})").format(error=exc.strerror or exc))
        try:
            data = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            return self._unusable(tr("it is not UTF-8 text"))
        except json.JSONDecodeError as exc:
            return self._unusable(tr("it is not valid JSON ({error} at line {line}, column {column})").format(
                error=exc.msg, line=exc.lineno, column=exc.colno))
        except RecursionError:
            return self._unusable(tr("its JSON is nested too deeply to read"))
        if not isinstance(data, dict):
            return self._unusable(tr("it does not hold a JSON object"))
        if not _writable(data):
            return self._unusable(tr("it holds an escaped character that is not Unicode text (a lone surrogate such as \\ud800)"))
        try:
            return Settings.model_validate(data)
        except ValidationError as exc:
            return self._unusable(tr("it has invalid values ({details})").format(details=_describe(exc)))

    def save(self, settings: Settings) -> None:
        """Writes a temporary file next to settings.json, syncs it and renames it over the old one."""
        if self._unsafe_to_overwrite:
            raise SettingsError(" ".join([tr("{path} could not be read or moved aside, so it is not overwritten.").format(path=self.path),
                                         self.problem or ""]).strip())
        write_atomically(self.path, settings.model_dump_json(indent=2) + "\n")

    def _unusable(self, reason: str) -> Settings:
        try:
            aside = move_aside(self.path)
        except OSError as exc:
            self._unsafe_to_overwrite = True
            self.problem = tr(
                "The settings file {path} was not used because {reason}, and it could not be moved aside ({error}). "
                "Default settings are used; fix or remove the file to save settings."
            ).format(path=self.path, reason=reason, error=exc.strerror or exc)
        else:
            self.moved_to = aside
            self.problem = tr(
                "The settings file {path} was not used because {reason}. It was kept as {aside}; default settings are used."
            ).format(path=self.path, reason=reason, aside=aside)
        log.warning("%s", self.problem)
        return Settings()


def models_cache_now(model_ids: list[str]) -> ModelsCache:
    """A cache entry for model ids fetched just now (UTC)."""
    return ModelsCache(model_ids=list(model_ids), fetched_at=datetime.now(timezone.utc))


def _with_default(entries: Any, value: Any) -> Any:
    """`entries` (provider id -> value) with Anthropic's `value` unless it has one; what is not a dict is left to fail."""
    return {ANTHROPIC: value, **entries} if isinstance(entries, dict) else entries if entries is not None else {ANTHROPIC: value}


def _writable(data: dict[str, Any]) -> bool:
    """Whether `data` can be written back as UTF-8 JSON (a `\\ud800` escape reads as a string no file can hold)."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors(include_url=False, include_input=False, include_context=False):
        where = ".".join(str(p) for p in item["loc"]) or "(file)"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)
