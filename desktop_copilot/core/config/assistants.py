"""Assistants: named presets of system prompt, provider and model, thinking, tools and generation options
(temperature, top-p) that a new conversation starts from. A few are built in; the user's own are kept in assistants.json in the config folder.

A conversation started from an assistant takes a copy of its settings (`Assistant.new_conversation`) and
records the assistant's id (`Conversation.assistant_id`); editing or deleting the assistant later leaves the
conversations made from it as they are."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_serializer, field_validator

from desktop_copilot.core.config.atomic_file import move_aside, write_atomically
from desktop_copilot.core.config.app_config import DEFAULT_THINKING_BUDGET, MIN_THINKING_BUDGET
from desktop_copilot.core.conversation.generation import GENERATION_FIELDS, Temperature, TopP
from desktop_copilot.core.conversation.models import Conversation, new_id
from desktop_copilot.core.words import tr

log = logging.getLogger(__name__)

ALL_TOOLS = "all"
"""An assistant's `tools` when it offers every tool switched on in Settings ▸ Tools."""
ASSISTANTS_FILE = "assistants.json"
MAX_NAME_CHARS = 80
MAX_SYSTEM_CHARS = 100_000
MAX_THINKING_BUDGET = 64_000
FILE_VERSION = 1


class AssistantError(ValueError):
    """An assistant cannot be changed or saved as asked; the message says why and what to do."""


class Assistant(BaseModel):
    """One preset. `thinking` None follows Settings ▸ Models; True thinks with `thinking_budget` tokens; False does not."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str = Field(default_factory=lambda: new_id("asst"), pattern=r"^[A-Za-z0-9_-]{1,64}$")
    name: str
    system: str = Field(default="", max_length=MAX_SYSTEM_CHARS)
    provider: str | None = Field(default=None, pattern=r"^[a-z0-9][a-z0-9_-]{0,39}$")
    """The provider id (None: the default provider of Settings ▸ Providers)."""
    model: str | None = Field(default=None, max_length=200)
    """The model of `provider` (None: that provider's default). Ignored without a provider."""
    thinking: bool | None = None
    thinking_budget: int = Field(default=DEFAULT_THINKING_BUDGET, ge=MIN_THINKING_BUDGET, le=MAX_THINKING_BUDGET)
    tools: frozenset[str] | Literal["all"] = ALL_TOOLS
    """The names of the tools it offers, or "all": those switched on in Settings ▸ Tools."""
    knowledge: frozenset[str] | None = None
    """The knowledge sources its search_knowledge searches, by name (None: every switched-on source)."""
    temperature: Temperature = None
    top_p: TopP = None
    """Generation options (None: the model's default); a value out of range in assistants.json is dropped on load."""
    builtin: bool = Field(default=False, exclude=True)
    """Shipped with the app: it cannot be edited or deleted, only duplicated."""

    @field_validator("name", mode="before")
    @classmethod
    def _clean_name(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        name = " ".join(value.split())  # no line breaks or control whitespace in a menu entry
        if not name:
            raise ValueError("cannot be empty")
        if len(name) > MAX_NAME_CHARS:
            raise ValueError(f"is longer than {MAX_NAME_CHARS} characters")
        if any(not ch.isprintable() for ch in name):
            raise ValueError("has characters that cannot be shown")
        return name

    @field_validator("provider", "model", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        if isinstance(value, str):
            return value.strip() or None
        return value

    @field_serializer("tools")
    def _sorted_tools(self, tools: frozenset[str] | str) -> list[str] | str:
        return tools if isinstance(tools, str) else sorted(tools)

    def offers(self, tool_name: str) -> bool:
        return self.tools == ALL_TOOLS or tool_name in self.tools

    def conversation_thinking(self) -> int | None:
        """`Conversation.thinking_budget` for this assistant: None (as in Settings), 0 (off) or the budget."""
        if self.thinking is None:
            return None
        return self.thinking_budget if self.thinking else 0

    def new_conversation(self) -> Conversation:
        """A new, empty conversation that starts from this assistant (its settings copied, its id recorded)."""
        conversation = Conversation(assistant_id=self.id)
        self.apply_to(conversation)
        return conversation

    def apply_to(self, conversation: Conversation) -> None:
        """Gives `conversation` this assistant's system prompt, provider and model, thinking, tools and generation options."""
        conversation.assistant_id = self.id
        conversation.system = self.system.strip() or None
        conversation.provider = self.provider
        conversation.model = self.model if self.provider else None
        conversation.thinking_budget = self.conversation_thinking()
        conversation.tools = None if self.tools == ALL_TOOLS else sorted(self.tools)
        conversation.temperature, conversation.top_p = self.temperature, self.top_p

    def copy_named(self, name: str) -> Assistant:
        """A user assistant with this one's settings under a new id (how a built-in one is customised)."""
        data = self.model_dump()
        data.pop("id")
        return Assistant.model_validate({**data, "name": name, "builtin": False})


def _builtin(id_: str, name: str, system: str, **settings: object) -> Assistant:
    return Assistant(id=id_, name=name, system=system, builtin=True, **settings)


BUILTIN_ASSISTANTS: tuple[Assistant, ...] = (
    _builtin("default", "Default", ""),
    _builtin(
        "coder", "Coder",
        "You are a senior software engineer. Answer with correct, idiomatic, working code and say briefly why it "
        "works. Ask when the requirement is ambiguous instead of guessing. Prefer small, readable changes; show only "
        "the parts of a file that change, with enough context to find them. Point out bugs, security problems and "
        "missing error handling you notice. Never invent APIs: say when you are not sure a function exists.",
        thinking=True, thinking_budget=8192,
    ),
    _builtin(
        "translator", "Translator 中英互译",
        "You are a translator between Chinese and English. If the text is mainly Chinese, translate it into natural, "
        "idiomatic English; otherwise translate it into natural Simplified Chinese. Keep the meaning, tone, "
        "formatting, Markdown, code and names exactly; do not add explanations, notes or quotation marks. Reply with "
        "the translation only. If the text is a question, translate it; do not answer it.\n\n"
        "你是中英互译助手：中文译成地道的英文，其他语言译成地道的简体中文。保留原意、语气、格式、Markdown、代码和专有名词；"
        "只输出译文，不加解释；如果原文是问题，只翻译，不回答。",
        thinking=False, tools=frozenset(),
    ),
    _builtin(
        "writer", "Writer",
        "You are a careful writing partner. Help plan, draft, edit and shorten text. Write in plain, concrete words "
        "and short sentences; keep the author's voice and the language they write in. When editing, return the "
        "revised text first, then at most three short notes on what changed and why. Ask who the readers are when "
        "it matters and you cannot tell.",
        tools=frozenset({"tavily_search", "web_fetch"}),
    ),
)
BUILTIN_IDS = frozenset(a.id for a in BUILTIN_ASSISTANTS)
DEFAULT_ASSISTANT_ID = "default"


class AssistantLibrary:
    """The built-in assistants and the user's, read from `path` (assistants.json) and saved there atomically
    after every change. A file that cannot be used is moved aside and said in `problem`; the app goes on with
    the built-in assistants (and any entries of it that were valid)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.problem: str | None = None
        self._unsafe_to_overwrite = False
        self.user: list[Assistant] = self._load()

    @classmethod
    def in_folder(cls, config_dir: Path | str) -> AssistantLibrary:
        return cls(Path(config_dir) / ASSISTANTS_FILE)

    # --- reading ---------------------------------------------------------------------

    def all(self) -> list[Assistant]:
        """The built-in assistants, then the user's in the order they were added."""
        return [*BUILTIN_ASSISTANTS, *self.user]

    def get(self, assistant_id: str | None) -> Assistant | None:
        return next((a for a in self.all() if a.id == assistant_id), None) if assistant_id else None

    def of(self, conversation: Conversation) -> Assistant | None:
        """The assistant `conversation` started from, if it still exists."""
        return self.get(conversation.assistant_id)

    # --- changing --------------------------------------------------------------------

    def add(self, assistant: Assistant) -> Assistant:
        """Adds a user assistant (a fresh id if its id is taken) and saves."""
        if assistant.builtin or self.get(assistant.id) is not None:
            assistant = assistant.model_copy(update={"id": new_id("asst"), "builtin": False})
        self.user.append(assistant)
        self._save_or_undo(lambda: self.user.remove(assistant))
        return assistant

    def update(self, assistant: Assistant) -> None:
        """Replaces the user assistant with `assistant.id` and saves."""
        index = self._user_index(assistant.id)
        old = self.user[index]
        self.user[index] = assistant

        def undo() -> None:
            self.user[index] = old

        self._save_or_undo(undo)

    def delete(self, assistant_id: str) -> None:
        index = self._user_index(assistant_id)
        old = self.user.pop(index)
        self._save_or_undo(lambda: self.user.insert(index, old))

    def duplicate(self, assistant_id: str) -> Assistant:
        """A user copy of any assistant, named "<name> (copy)", added and saved."""
        source = self.get(assistant_id)
        if source is None:
            raise AssistantError(tr("That assistant no longer exists."))
        suffix = " (copy)"
        return self.add(source.copy_named(source.name[: MAX_NAME_CHARS - len(suffix)] + suffix))

    def _user_index(self, assistant_id: str) -> int:
        if assistant_id in BUILTIN_IDS:
            raise AssistantError(tr("Built-in assistants cannot be changed. Duplicate one and change the copy."))
        for index, assistant in enumerate(self.user):
            if assistant.id == assistant_id:
                return index
        raise AssistantError(tr("That assistant no longer exists."))

    def _save_or_undo(self, undo) -> None:
        try:
            self.save()
        except BaseException:
            undo()
            raise

    def save(self) -> None:
        """Writes assistants.json atomically (AssistantError, saying where and why, when it cannot)."""
        if self._unsafe_to_overwrite:
            raise AssistantError(" ".join([self.problem or "", tr("Fix or remove the file, then try again.")]).strip())
        document = {"version": FILE_VERSION, "assistants": [a.model_dump(mode="json") for a in self.user]}
        try:
            write_atomically(self.path, json.dumps(document, ensure_ascii=False, indent=2) + "\n")
        except OSError as exc:
            raise AssistantError(tr("The assistants could not be saved to {path} ({error}).").format(
                path=self.path, error=exc.strerror or exc)) from exc

    # --- loading ---------------------------------------------------------------------

    def _load(self) -> list[Assistant]:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            self._unsafe_to_overwrite = True
            self.problem = tr("Your assistants in {path} could not be read ({error}); only the built-in ones are shown.").format(
                path=self.path, error=exc.strerror or exc)
            log.warning("%s", self.problem)
            return []
        try:
            document = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return self._unusable(tr("it is not valid JSON text"), [])
        entries = document.get("assistants") if isinstance(document, dict) else None
        if not isinstance(entries, list):
            return self._unusable(tr("it does not hold a list of assistants"), [])
        kept: list[Assistant] = []
        bad = 0
        reset: list[str] = []
        for entry in entries:
            try:
                assistant, dropped = _read_entry(entry)
            except ValidationError:
                bad += 1
                continue
            if assistant.id in BUILTIN_IDS or any(a.id == assistant.id for a in kept):
                bad += 1
                continue
            kept.append(assistant)
            if dropped:
                reset.append(f"“{assistant.name}”")
        if bad:
            return self._unusable((tr("{count} of its entries is not valid") if bad == 1 else tr("{count} of its entries are not valid")).format(
                count=bad), kept)
        if reset:
            self.problem = tr("In {path}, the temperature or top-p of {names} was not a usable value; the model's default is "
                              "used instead. Set it again here if you want another.").format(path=self.path, names=", ".join(reset))
            log.warning("%s", self.problem)
        return kept

    def _unusable(self, reason: str, kept: list[Assistant]) -> list[Assistant]:
        """Moves the file aside (never deletes it) and says so; `kept` are the entries that could be read."""
        try:
            aside = move_aside(self.path)
        except OSError as exc:
            self._unsafe_to_overwrite = True
            self.problem = tr("Your assistants in {path} were not all used because {reason}, and the file could not be moved "
                              "aside ({error}).").format(path=self.path, reason=reason, error=exc.strerror or exc)
        else:
            self.problem = tr("Your assistants in {path} were not all used because {reason}. The file was kept as {aside}.").format(
                path=self.path, reason=reason, aside=aside)
        log.warning("%s", self.problem)
        return kept


def _read_entry(entry: object) -> tuple[Assistant, bool]:
    """An entry of assistants.json as an assistant, and whether a temperature or top-p it holds was dropped (out of
    range, or not a number: the model's default then). ValidationError for any other problem."""
    try:
        return Assistant.model_validate(entry), False
    except ValidationError as exc:
        wrong = {error["loc"][0] for error in exc.errors() if error["loc"]}
        if not isinstance(entry, dict) or not wrong or not wrong <= set(GENERATION_FIELDS):
            raise
    return Assistant.model_validate({key: value for key, value in entry.items() if key not in wrong}), True
