"""The provider table: every fact about each provider the app can talk to, one entry each (id, label, wire, key and
its variable, where to get a key, base URL and its variable, local or cloud, what it reads, how it counts cache tokens,
whether its thinking goes back, the models to offer before its list is known). Keys, pricing, attachments, Settings,
the model picker and `ask --help` read it; core/providers/factory.py builds the providers. Data only: it imports
nothing from the rest of the app, so every package may read it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from desktop_copilot.core.words import tr

Wire = Literal["anthropic", "chat_completions", "gemini", "ollama"]


def key_variable(name: str) -> str:
    """The environment variable a key is read from: `<NAME>_API_KEY` (`ANTHROPIC_API_KEY`, `TAVILY_API_KEY`)."""
    return f"{name.upper().replace('-', '_')}_API_KEY"


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    id: str
    label: str
    wire: Wire
    base_url: str
    """The public (or local default) endpoint; for Chat Completions the URL `/chat/completions` is added to."""
    default_model: str
    key_url: str = ""
    """Where a user gets a key ("" for a local server)."""
    key_placeholder: str = ""
    """What a key looks like, shown in the empty key field ("sk-ant-…")."""
    assistant_name: str = ""
    """Who answers, as people call it ("Claude", "Gemini"), where the service names its models so; "": the label."""
    needs_key: bool = True
    """False for a local server: it takes an optional key, sent as Bearer."""
    local: bool = False
    """A model server on the user's machine: free, probed for whether it runs, given longer to load a model."""
    url_variable: str = ""
    """The variable that overrides `base_url`, when it is not `<ID>_BASE_URL` (Ollama's own `OLLAMA_HOST`)."""
    pdfs: bool = False
    """Takes PDFs as documents (others get a note that a PDF was left out)."""
    cache_apart: bool = False
    """Its input count leaves cache reads and writes out (Anthropic); others count them inside it."""
    echoes_reasoning: bool = False
    """Its thinking models answer 400 unless each earlier tool-call turn carries its `reasoning_content`
    (DeepSeek's thinking mode, Kimi's thinking models)."""
    max_tokens_field: str = "max_tokens"
    """The name of the output limit in a Chat Completions request (OpenAI's newer models refuse `max_tokens`)."""
    fallback_models: tuple[str, ...] = ()
    """Models offered besides the default before the provider's own list could be asked (no key yet, offline)."""
    headers: tuple[tuple[str, str], ...] = ()
    """Extra request headers (a custom endpoint's; never a secret)."""
    custom: bool = False
    """An endpoint the user added in Settings."""

    @property
    def key_name(self) -> str | None:
        """The key's name in the key store (`keys set ID`): the provider's id; None for an endpoint the user added
        without a key (a local server of the table takes an optional one)."""
        return None if self.custom and not self.needs_key else self.id

    @property
    def key_env(self) -> str:
        return key_variable(self.id)

    @property
    def key_label(self) -> str:
        return f"{self.label} API key"

    @property
    def base_url_env(self) -> str:
        """The environment variable that overrides the base URL ("" for an endpoint the user added)."""
        return self.url_variable or (f"{self.id.upper().replace('-', '_')}_BASE_URL" if not self.custom else "")


def _cloud(id_: str, label: str, wire: Wire, base_url: str, model: str, key_url: str, **facts) -> ProviderSpec:
    return ProviderSpec(id_, label, wire, base_url, model, key_url, **facts)


def _local(id_: str, label: str, wire: Wire, base_url: str, model: str, **facts) -> ProviderSpec:
    return ProviderSpec(id_, label, wire, base_url, model, needs_key=False, local=True, **facts)


PROVIDERS: dict[str, ProviderSpec] = {
    spec.id: spec
    for spec in (
        _cloud("anthropic", "Anthropic", "anthropic", "https://api.anthropic.com", "claude-sonnet-4-6",
               "https://console.anthropic.com/settings/keys", key_placeholder="sk-ant-…", assistant_name="Claude", pdfs=True, cache_apart=True,
               fallback_models=("claude-opus-4-6", "claude-sonnet-4-5", "claude-haiku-4-5", "claude-sonnet-4-5-20250929",
                                "claude-haiku-4-5-20251001", "claude-opus-4-1-20250805", "claude-sonnet-4-20250514")),
        _cloud("openai", "OpenAI", "chat_completions", "https://api.openai.com/v1", "gpt-4.1-mini",
               "https://platform.openai.com/api-keys", key_placeholder="sk-…", pdfs=True, max_tokens_field="max_completion_tokens"),
        _cloud("deepseek", "DeepSeek", "chat_completions", "https://api.deepseek.com", "deepseek-chat",
               "https://platform.deepseek.com/api_keys", key_placeholder="sk-…", echoes_reasoning=True),
        _cloud("moonshot", "Moonshot (Kimi)", "chat_completions", "https://api.moonshot.ai/v1", "kimi-k2-0905-preview",
               "https://platform.moonshot.ai/console/api-keys", key_placeholder="sk-…", assistant_name="Kimi", echoes_reasoning=True),
        _cloud("zhipu", "Zhipu (GLM)", "chat_completions", "https://open.bigmodel.cn/api/paas/v4", "glm-4.6",
               "https://open.bigmodel.cn/usercenter/apikeys", assistant_name="GLM"),
        _cloud("openrouter", "OpenRouter", "chat_completions", "https://openrouter.ai/api/v1", "openrouter/auto",
               "https://openrouter.ai/settings/keys", key_placeholder="sk-or-…", pdfs=True),
        _cloud("groq", "Groq", "chat_completions", "https://api.groq.com/openai/v1", "llama-3.3-70b-versatile",
               "https://console.groq.com/keys", key_placeholder="gsk_…"),
        _cloud("xai", "xAI (Grok)", "chat_completions", "https://api.x.ai/v1", "grok-4", "https://console.x.ai/",
               key_placeholder="xai-…", assistant_name="Grok"),
        _cloud("gemini", "Google Gemini", "gemini", "https://generativelanguage.googleapis.com", "gemini-2.5-flash",
               "https://aistudio.google.com/app/apikey", key_placeholder="AIza…", assistant_name="Gemini", pdfs=True),
        _local("ollama", "Ollama", "ollama", "http://127.0.0.1:11434", "llama3.2", url_variable="OLLAMA_HOST"),
        _local("lmstudio", "LM Studio", "chat_completions", "http://localhost:1234/v1", ""),  # the model it has loaded
        _local("llamacpp", "llama.cpp", "chat_completions", "http://localhost:8080/v1", ""),
        _local("vllm", "vLLM", "chat_completions", "http://localhost:8000/v1", ""),
    )
}
DEFAULT_PROVIDER = "anthropic"
"""The provider of a conversation stored before providers could be chosen (a reply without a provider is its)."""


@dataclass(frozen=True, slots=True)
class ToolKey:
    """The key a built-in tool needs (a tool declares the names; its entry says what the key is)."""

    name: str
    label: str
    url: str

    @property
    def key_env(self) -> str:
        return key_variable(self.name)


TOOL_KEYS: dict[str, ToolKey] = {"tavily": ToolKey("tavily", "Tavily API key", "https://app.tavily.com/")}


class UnknownProviderError(ValueError):
    """No provider has that id; the message lists the known ones."""


def provider_spec(provider_id: str) -> ProviderSpec:
    spec = PROVIDERS.get(provider_id.strip().lower())
    if spec is None:
        raise UnknownProviderError(tr("unknown provider {provider}; known providers: {known}").format(
            provider=repr(provider_id), known=", ".join(PROVIDERS)))
    return spec


def spec_of(provider_id: str | None) -> ProviderSpec | None:
    """The table's entry for a stored provider id (None: Anthropic, which wrote replies stored before providers could
    be chosen); None for an endpoint the user added."""
    return PROVIDERS.get(provider_id or DEFAULT_PROVIDER)


def base_url(spec: ProviderSpec, environ: Mapping[str, str], configured: str | None = None) -> str:
    """The endpoint: the environment (`<ID>_BASE_URL`, `OLLAMA_HOST`), then the settings, then the default one."""
    url = ((environ.get(spec.base_url_env, "") if spec.base_url_env else "") or configured or spec.base_url).strip().rstrip("/")
    if spec.wire == "ollama":
        url = _ollama_host(url)
    return url


def _ollama_host(value: str) -> str:
    """OLLAMA_HOST as Ollama reads it: "host", "host:port" or a URL; a bare host's port is 11434, and the
    listen-everywhere address 0.0.0.0 is reached at 127.0.0.1."""
    from urllib.parse import urlsplit

    parts = urlsplit(value if "://" in value else f"http://{value}")
    host = parts.hostname or "127.0.0.1"
    host = "127.0.0.1" if host == "0.0.0.0" else host
    host = f"[{host}]" if ":" in host else host
    port = parts.port or (11434 if "://" not in value else None)  # a URL without a port means its scheme's
    netloc = f"{host}:{port}" if port else host
    return f"{parts.scheme}://{netloc}{parts.path.rstrip('/')}"


def custom_spec(provider_id: str, label: str, url: str, default_model: str, *, needs_key: bool,
                headers: Mapping[str, str] | None = None, local: bool = False) -> ProviderSpec:
    """A user-added Chat Completions endpoint; its key (if it needs one) is stored under its id."""
    return ProviderSpec(provider_id, label, "chat_completions", url, default_model, needs_key=needs_key, local=local,
                        headers=tuple((headers or {}).items()), custom=True)
