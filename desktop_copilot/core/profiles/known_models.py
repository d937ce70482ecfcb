"""The shipped table of model families: ordered patterns over model ids, most specific first, each with the figures
its maker documents (taken TAKEN). It covers the cloud families and the open families people run locally, and holds
the image rules attachment_limits.py used to guess (names that say "vision", text-only families)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from desktop_copilot.core.profiles.profile import ModelFacts

TAKEN = "2026-11"
"""When the figures below were read from the makers' pages."""

K = 1024


@dataclass(frozen=True, slots=True)
class Family:
    """Models whose id matches `pattern`, with what `where` documents of them. A family's `thinking` is how the
    model itself thinks ("think_tags": it writes `<think>` into its text); resolve.py says how a wire carries it."""

    name: str
    pattern: re.Pattern[str]
    facts: ModelFacts
    where: str

    @property
    def note(self) -> str:
        return f"taken {TAKEN} from {self.where}"


def _family(name: str, pattern: str, where: str, **facts: Any) -> Family:
    return Family(name, re.compile(pattern), ModelFacts(name, **facts), where)


ANTHROPIC = "Anthropic's model pages"
OPENAI = "OpenAI's model pages"
GOOGLE = "Google's Gemini API model pages"
GEMMA = "Google's Gemma model cards"
DEEPSEEK = "DeepSeek's API docs"
MOONSHOT = "Moonshot's platform docs"
ZAI = "Z.ai's model docs"
XAI = "xAI's model docs"
QWEN = "Qwen's model cards"
META = "Meta's Llama model cards"
MISTRAL = "Mistral's model docs"
PHI = "Microsoft's Phi model cards"
MINIMAX = "MiniMax's model docs"
NAMES = "the model's name"

_CLAUDE: dict[str, Any] = {"thinking": "anthropic", "echo_thinking": True, "tools": "native", "images": True, "pdfs": True}
_CLAUDE_PLAIN: dict[str, Any] = {"thinking": "none", "echo_thinking": False, "tools": "native", "images": True}
_GPT: dict[str, Any] = {"thinking": "none", "echo_thinking": False, "tools": "native", "images": True}
_REASONS: dict[str, Any] = {"thinking": "reasoning_field", "tools": "native"}
_TAGS: dict[str, Any] = {"thinking": "think_tags", "echo_thinking": False}
_TEXT: dict[str, Any] = {"images": False, "pdfs": False}
_S = r"[-.]"  # Anthropic and OpenRouter spell versions "4-5" and "4.5"

FAMILIES: tuple[Family, ...] = (
    # --- Anthropic: Claude from 4.7 on refuses temperature/top-p; with extended thinking every Claude does ---
    _family("Claude Fable / Mythos", r"^claude-(fable|mythos)", ANTHROPIC,
            context_window=1_000_000, output_limit=128_000, sampling=False, **_CLAUDE),
    _family("Claude 5.x", r"^claude-(opus|sonnet|haiku)-5", ANTHROPIC,
            context_window=1_000_000, output_limit=128_000, sampling=False, **_CLAUDE),
    _family("Claude Opus 4.7–4.8", rf"^claude-opus-4{_S}[78]", ANTHROPIC,
            context_window=1_000_000, output_limit=128_000, sampling=False, **_CLAUDE),
    _family("Claude 4.6", rf"^claude-(opus|sonnet)-4{_S}6", ANTHROPIC,
            context_window=1_000_000, output_limit=128_000, sampling=True, **_CLAUDE),
    _family("Claude 4.5", rf"^claude-(opus|sonnet|haiku)-4{_S}5", ANTHROPIC,
            context_window=200_000, output_limit=64_000, sampling=True, **_CLAUDE),
    _family("Claude Opus 4 / 4.1", r"^claude-opus-4", ANTHROPIC,
            context_window=200_000, output_limit=32_000, sampling=True, **_CLAUDE),
    _family("Claude Sonnet 4", r"^claude-sonnet-4", ANTHROPIC,
            context_window=200_000, output_limit=64_000, sampling=True, **_CLAUDE),
    _family("Claude Sonnet 3.7", rf"^claude-(3{_S}7-sonnet|sonnet-3{_S}7)", ANTHROPIC,
            context_window=200_000, output_limit=64_000, sampling=True, **_CLAUDE),
    _family("Claude 3.5", rf"^claude-(3{_S}5-(haiku|sonnet)|(haiku|sonnet)-3{_S}5)", ANTHROPIC,
            context_window=200_000, output_limit=8192, sampling=True, pdfs=True, **_CLAUDE_PLAIN),
    _family("Claude 3", r"^claude-3-(haiku|sonnet|opus)", ANTHROPIC,
            context_window=200_000, output_limit=4096, sampling=True, **_CLAUDE_PLAIN),
    # --- OpenAI: reasoning models (o-series, gpt-5) refuse temperature/top-p and show no thinking in Chat Completions ---
    _family("GPT-5 chat", r"^gpt-5(\.\d+)?-chat", OPENAI, context_window=128_000, output_limit=16_384, sampling=True, **_GPT),
    _family("GPT-5 mini / nano", r"^gpt-5(\.\d+)?-(mini|nano)", OPENAI,
            context_window=400_000, output_limit=128_000, sampling=False, **_GPT),
    _family("GPT-5.4 and later", r"^gpt-5\.([4-9]|[1-9]\d)", OPENAI,
            context_window=1_050_000, output_limit=128_000, sampling=False, **_GPT),
    _family("GPT-5 to 5.3", r"^gpt-5", OPENAI, context_window=400_000, output_limit=128_000, sampling=False, **_GPT),
    _family("o1-mini", r"^o1-mini", OPENAI, context_window=128_000, output_limit=65_536, sampling=False,
            thinking="none", tools="native", **_TEXT),
    _family("o3-mini", r"^o3-mini", OPENAI, context_window=200_000, output_limit=100_000, sampling=False,
            thinking="none", tools="native", **_TEXT),
    _family("o-series", r"^o[134](-|$)", OPENAI, context_window=200_000, output_limit=100_000, sampling=False, **_GPT),
    _family("GPT-4.1", r"^gpt-4\.1", OPENAI, context_window=1_047_576, output_limit=32_768, sampling=True, **_GPT),
    _family("GPT-4o", r"^(chat)?gpt-4o", OPENAI, context_window=128_000, output_limit=16_384, sampling=True, **_GPT),
    _family("GPT-3.5", r"^gpt-3\.5", OPENAI, context_window=16_385, output_limit=4096, sampling=True,
            thinking="none", tools="native", **_TEXT),
    _family("gpt-oss", r"^gpt-oss", OPENAI, context_window=131_072, output_limit=131_072, sampling=True,
            images=False, **_REASONS),
    # --- Google ---
    _family("Gemini 2.5 / 3", r"^gemini-(2\.5|3)", GOOGLE, context_window=1_048_576, output_limit=65_536,
            thinking="gemini", tools="native", images=True, pdfs=True, sampling=True),
    _family("Gemini 2.0 Flash", r"^gemini-2\.0-flash", GOOGLE, context_window=1_048_576, output_limit=8192,
            thinking="none", tools="native", images=True, pdfs=True, sampling=True),
    _family("Gemma 4 small", r"^gemma-?4[-:]?e[24]b", GEMMA, context_window=128 * K, images=True, **_REASONS),
    _family("Gemma 4", r"^gemma-?4", GEMMA, context_window=256 * K, images=True, **_REASONS),
    _family("Gemma 3n", r"^gemma-?3n", GEMMA, context_window=32 * K, tools="text", thinking="none"),
    _family("Gemma 3 1B / 270M", r"^gemma-?3[-:]?(1b|270m)", GEMMA, context_window=32 * K, tools="text",
            thinking="none", **_TEXT),
    _family("Gemma 3", r"^gemma-?3", GEMMA, context_window=128 * K, output_limit=8192, tools="text", thinking="none",
            images=True),
    _family("Gemma 2", r"^gemma-?2", GEMMA, context_window=8192, tools="text", thinking="none", **_TEXT),
    # --- DeepSeek: thinking mode needs each tool-call turn's reasoning_content sent back ---
    _family("DeepSeek V4", r"^deepseek-v4", DEEPSEEK, context_window=1_048_576, output_limit=384_000,
            echo_thinking=True, sampling=True, **_REASONS),
    _family("deepseek-reasoner", r"^deepseek-reasoner", DEEPSEEK, context_window=128 * K, output_limit=64 * K,
            echo_thinking=True, sampling=True, **_REASONS, **_TEXT),
    _family("deepseek-chat", r"^deepseek-chat", DEEPSEEK, context_window=128 * K, output_limit=8 * K,
            thinking="none", tools="native", sampling=True, **_TEXT),
    _family("DeepSeek R1 and its distills", r"^deepseek-r1", DEEPSEEK, context_window=128 * K, **_TAGS, **_TEXT),
    _family("DeepSeek V3.1 / V3.2", rf"^deepseek-v3{_S}[12]", DEEPSEEK, context_window=128 * K, tools="native",
            **_TAGS, **_TEXT),
    _family("DeepSeek V3", r"^deepseek-v3", DEEPSEEK, context_window=128 * K, thinking="none", tools="native", **_TEXT),
    _family("DeepSeek Coder", r"^deepseek-coder", DEEPSEEK, thinking="none", **_TEXT),
    # --- Moonshot: Kimi's thinking models need reasoning_content sent back and fix their own sampling ---
    _family("Kimi K3", r"^kimi-k3", MOONSHOT, context_window=256 * K, echo_thinking=True, sampling=False, **_REASONS),
    _family("Kimi K2.5 / K2.6", r"^kimi-k2\.[56]", MOONSHOT, context_window=256 * K, echo_thinking=True,
            sampling=False, images=True, **_REASONS),
    _family("Kimi K2.x", r"^kimi-k2\.\d", MOONSHOT, context_window=256 * K, echo_thinking=True, sampling=False, **_REASONS),
    _family("Kimi K2 Thinking", r"^kimi-k2-thinking", MOONSHOT, context_window=256 * K, echo_thinking=True,
            **_REASONS, **_TEXT),
    _family("Kimi K2 0711", r"^kimi-k2-0711", MOONSHOT, context_window=128 * K, thinking="none", tools="native", **_TEXT),
    _family("Kimi K2", r"^kimi-k2(-|$)", MOONSHOT, context_window=256 * K, thinking="none", tools="native", **_TEXT),
    *(_family(f"Moonshot v1 {size}k vision", rf"^moonshot-v1-{size}k-vision", MOONSHOT, context_window=size * K,
              thinking="none", tools="native", images=True) for size in (8, 32, 128)),
    *(_family(f"Moonshot v1 {size}k", rf"^moonshot-v1-{size}k", MOONSHOT, context_window=size * K,
              thinking="none", tools="native", **_TEXT) for size in (8, 32, 128)),
    # --- Z.ai (Zhipu) GLM: writes <think> when served raw, reasoning_content from Z.ai's API ---
    _family("GLM-4.6V", r"^glm-4\.6v", ZAI, context_window=128 * K, output_limit=32 * K, images=True, tools="native", **_TAGS),
    _family("GLM-4.5V", r"^glm-4\.5v", ZAI, context_window=64 * K, output_limit=16 * K, images=True, tools="native", **_TAGS),
    _family("GLM vision", r"^glm-\d(\.\d)?v", ZAI, images=True),
    _family("GLM-5.2 and later", r"^glm-5\.[2-9]", ZAI, context_window=1_048_576, output_limit=128 * K, tools="native",
            sampling=True, **_TAGS, **_TEXT),
    _family("GLM-5 / 5.1", r"^glm-5", ZAI, context_window=200 * K, output_limit=128 * K, tools="native", sampling=True,
            **_TAGS, **_TEXT),
    _family("GLM-4.6 / 4.7", r"^glm-4\.[67]", ZAI, context_window=200 * K, output_limit=128 * K, tools="native",
            sampling=True, **_TAGS, **_TEXT),
    _family("GLM-4.5", r"^glm-4\.5", ZAI, context_window=128 * K, output_limit=96 * K, tools="native", sampling=True,
            **_TAGS, **_TEXT),
    _family("GLM-4", r"^glm-?4", ZAI, context_window=128 * K, thinking="none", tools="native", **_TEXT),
    # --- xAI: Grok 4 reasons without showing it; grok-3-mini and grok-code-fast return reasoning_content ---
    _family("Grok Code Fast", r"^grok-code-fast", XAI, context_window=256_000, **_REASONS, **_TEXT),
    _family("Grok 4.5", rf"^grok-4{_S}5", XAI, context_window=500_000, thinking="none", tools="native", images=True),
    _family("Grok 4 Fast", r"^grok-4([.-]1)?-fast", XAI, context_window=2_000_000, thinking="none", tools="native",
            images=True),
    _family("Grok 4", r"^grok-4", XAI, context_window=256_000, thinking="none", tools="native", images=True),
    _family("Grok 3 mini", r"^grok-3-mini", XAI, context_window=128 * K, **_REASONS, **_TEXT),
    _family("Grok 3", r"^grok-3", XAI, context_window=128 * K, thinking="none", tools="native", **_TEXT),
    # --- Meta Llama ---
    _family("Llama 4 Scout", r"^(meta-)?llama-?4.*scout", META, context_window=10_000_000, images=True, tools="native",
            thinking="none"),
    _family("Llama 4 Maverick", r"^(meta-)?llama-?4.*maverick", META, context_window=1_000_000, images=True,
            tools="native", thinking="none"),
    _family("Llama 3.2 Vision", rf"^(meta-)?llama-?3{_S}2.*vision", META, context_window=128 * K, images=True,
            tools="text", thinking="none"),
    _family("Llama 3.1–3.3", rf"^(meta-)?llama-?3{_S}[123]", META, context_window=128 * K, tools="native",
            thinking="none", **_TEXT),
    _family("Llama 3", r"^(meta-)?llama-?3(-|:|$)", META, context_window=8192, tools="text", thinking="none", **_TEXT),
    _family("Llama 2 / Code Llama", r"^(meta-)?(llama-?2|codellama)", META, context_window=4096, tools="text",
            thinking="none", **_TEXT),
    # --- Qwen: Qwen3 and QwQ write <think> when served raw ---
    _family("QwQ", r"^qwq", QWEN, context_window=128 * K, tools="native", **_TAGS, **_TEXT),
    _family("Qwen3-VL", r"^qwen3-?vl", QWEN, context_window=256 * K, images=True, tools="native"),
    _family("Qwen vision / omni", r"^qwen2(\.5)?-?(vl|omni)|^qwen3-?omni", QWEN, images=True),
    _family("Qwen3.5 and later", r"^qwen3\.[5-9]", QWEN, context_window=256 * K, images=True, tools="native", **_TAGS),
    _family("Qwen3 Coder", r"^qwen3-?coder", QWEN, context_window=256 * K, thinking="none", tools="native", **_TEXT),
    _family("Qwen3 thinking 2507", r"^qwen3[-:][^/]*thinking", QWEN, context_window=256 * K, tools="native",
            **_TAGS, **_TEXT),
    _family("Qwen3 2507 / Next", r"^qwen3[-:]([^/]*2507|next)", QWEN, context_window=256 * K, thinking="none",
            tools="native", **_TEXT),
    _family("Qwen3", r"^qwen3(?![.\d])", QWEN, context_window=40_960, tools="native", **_TAGS, **_TEXT),
    _family("Qwen2 / 2.5", r"^qwen2(\.5)?(?!\d)", QWEN, context_window=32 * K, thinking="none", tools="native", **_TEXT),
    # --- Mistral ---
    _family("Magistral", r"^magistral", MISTRAL, context_window=128 * K, tools="native", **_TAGS),
    _family("Devstral", r"^devstral", MISTRAL, context_window=128 * K, thinking="none", tools="native", **_TEXT),
    _family("Pixtral", r"^pixtral", MISTRAL, context_window=128 * K, thinking="none", tools="native", images=True),
    _family("Codestral", r"^codestral", MISTRAL, context_window=256 * K, thinking="none", tools="native", **_TEXT),
    _family("Mistral Small 3.1 / 3.2", r"^mistral-small-?3[.-]?[12]", MISTRAL, context_window=128 * K,
            thinking="none", tools="native", images=True),
    _family("Mistral Small / Medium / Large / Nemo", r"^mistral-(small|medium|large|nemo)", MISTRAL,
            context_window=128 * K, thinking="none", tools="native"),
    _family("Mixtral 8x22B", r"^mixtral[-:]?8x22b", MISTRAL, context_window=64 * K, thinking="none", tools="native", **_TEXT),
    _family("Mixtral", r"^mixtral", MISTRAL, context_window=32 * K, thinking="none", tools="native", **_TEXT),
    _family("Mistral 7B", r"^mistral(-7b|-instruct|:|$)", MISTRAL, context_window=32 * K, thinking="none",
            tools="native", **_TEXT),
    # --- Microsoft Phi ---
    _family("Phi-4 mini reasoning", r"^phi-?4-?mini-?reasoning", PHI, context_window=128 * K, **_TAGS, **_TEXT),
    _family("Phi-4 reasoning", r"^phi-?4-?reasoning", PHI, context_window=32 * K, **_TAGS, **_TEXT),
    _family("Phi-4 multimodal", r"^phi-?4-?multimodal", PHI, context_window=128 * K, images=True, thinking="none"),
    _family("Phi-4 mini", r"^phi-?4-?mini", PHI, context_window=128 * K, tools="native", thinking="none", **_TEXT),
    _family("Phi-4", r"^phi-?4", PHI, context_window=16 * K, tools="text", thinking="none", **_TEXT),
    _family("Phi-3", r"^phi-?3(?!.*vision)", PHI, thinking="none", **_TEXT),
    # --- MiniMax: M2 writes <think> into its text and asks for it back in the history ---
    _family("MiniMax M2", r"^minimax-m2", MINIMAX, context_window=200 * K, output_limit=128 * K, tools="native",
            **_TAGS, **_TEXT),
    # --- last: what a name says (attachment_limits.py's SEES_IMAGES) ---
    _family("named for images", r"vision|(^|[-/:.])vl([-:.]|$)|\dv(-|:|$)|omni|llava|minicpm-v|moondream", NAMES,
            images=True),
)


def model_name(model: str) -> str:
    """What the patterns read: the id lower-cased, without a provider or repository prefix ("anthropic/",
    "hf.co/unsloth/") or a file suffix (".gguf")."""
    return model.strip().lower().rsplit("/", 1)[-1].removesuffix(".gguf")


def known_family(model: str) -> Family | None:
    """The first family whose pattern matches `model` ("claude-sonnet-4-5", "anthropic/claude-sonnet-4.5",
    "qwen3:8b", "Qwen3-8B-Q4_K_M.gguf"), or None."""
    name = model_name(model)
    return next((family for family in FAMILIES if family.pattern.search(name)), None)
