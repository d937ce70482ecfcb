"""Standing permissions, kept in permissions.json and revocable: the rules the user wrote (core/approval/rules.py) and
the grants given on approval cards ("in this conversation", "always"), which the rules see as allow rules of one tool.
A damaged file is moved aside and reported, as settings.json is."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from desktop_copilot.core.approval.rules import Action, CallSubject, Rule, RuleError, by_specificity, deciding_rule
from desktop_copilot.core.config.atomic_file import move_aside, write_atomically
from desktop_copilot.core.words import tr

log = logging.getLogger(__name__)

ALWAYS = "always"
CONVERSATION = "conversation"


@dataclass(frozen=True, slots=True)
class Grant:
    """Lets `tool` from the source with `identity` run without asking: everywhere, or in one conversation."""

    tool: str
    identity: str
    """The tool source's identity when the grant was given: a changed server asks again."""
    scope: str = ALWAYS
    conversation_id: str = ""
    shown_name: str = ""
    source_label: str = ""
    conversation_title: str = ""
    created_at: float = field(default_factory=time.time)

    rule_tool: str = ""
    """The tool as rules name it (`mcp:SERVER/TOOL`); "" for grants given before rules (then `tool`)."""

    def as_rule(self) -> Rule:
        """The grant as the rules see it: allow the one tool, from the same source, maybe in one conversation."""
        return Rule(tool=self.rule_tool or self.tool, action=Action.ALLOW, identity=self.identity,
                    conversation_id=self.conversation_id if self.scope == CONVERSATION else "", created_at=self.created_at)

    def covers(self, tool: str, identity: str, conversation_id: str) -> bool:
        if self.tool != tool or self.identity != identity:
            return False
        return self.scope == ALWAYS or (self.scope == CONVERSATION and bool(conversation_id) and self.conversation_id == conversation_id)

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.tool, self.identity, self.scope, self.conversation_id)


class GrantStore:
    """The rules and grants in `path` (None: in memory only). Thread-safe; every change is written at once, atomically."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.problem: str | None = None
        self.moved_to: Path | None = None
        self._lock = threading.Lock()
        self._rules: list[Rule] = []
        self._grants: list[Grant] = []
        self._load()
        self._listeners: list[Callable[[], None]] = []

    def _load(self) -> None:
        if self.path is None or not self.path.exists():
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError(tr("it does not hold a JSON object"))
            grants = [Grant(**item) for item in data.get("grants", [])]
            rules = [Rule.from_json(item) for item in data.get("rules", [])]
        except (OSError, ValueError, TypeError, AttributeError, RuleError) as exc:
            self._unusable(str(exc))
            return
        self._grants, self._rules = grants, rules

    def _unusable(self, reason: str) -> None:
        assert self.path is not None
        try:
            self.moved_to = move_aside(self.path)
        except OSError as exc:
            self.problem = tr("{path} could not be read ({reason}) nor moved aside ({error}); no tool is allowed without "
                              "asking and no rule applies until it is fixed or removed.").format(
                path=self.path, reason=reason, error=exc.strerror or exc)
        else:
            self.problem = tr("{path} could not be read ({reason}). It was kept as {moved_to}; no rule or standing "
                              "permission applies until you add them again (Settings ▸ Permissions, or "
                              "`desktop-copilot permissions`).").format(path=self.path, reason=reason, moved_to=self.moved_to)
        log.warning("%s", self.problem)

    def _save(self) -> None:
        if self.path is None or (self.problem and self.moved_to is None):
            return
        data = {"version": 2, "rules": [r.to_json() for r in self._rules], "grants": [asdict(g) for g in self._grants]}
        write_atomically(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def _changed(self) -> None:
        self._save()
        for listener in list(self._listeners):
            listener()

    # --- grants ---------------------------------------------------------------------

    def all(self) -> list[Grant]:
        with self._lock:
            return list(self._grants)

    def covering(self, tool: str, identity: str, conversation_id: str) -> Grant | None:
        with self._lock:
            return next((g for g in self._grants if g.covers(tool, identity, conversation_id)), None)

    def add(self, grant: Grant) -> None:
        with self._lock:
            self._grants = [g for g in self._grants if g.key != grant.key] + [grant]
        self._changed()

    def revoke(self, grant: Grant) -> bool:
        with self._lock:
            kept = [g for g in self._grants if g.key != grant.key]
            removed = len(kept) != len(self._grants)
            self._grants = kept
        if removed:
            self._changed()
        return removed

    def revoke_all(self) -> int:
        with self._lock:
            count, self._grants = len(self._grants), []
        if count:
            self._changed()
        return count

    # --- rules ----------------------------------------------------------------------

    def rules(self) -> list[Rule]:
        with self._lock:
            return list(self._rules)

    def add_rule(self, rule: Rule) -> Rule:
        """Add `rule`, replacing one for the same tool, pattern and scope (the action changes)."""
        same = (rule.tool, rule.pattern, rule.identity, rule.conversation_id)
        with self._lock:
            self._rules = [r for r in self._rules if (r.tool, r.pattern, r.identity, r.conversation_id) != same] + [rule]
        self._changed()
        return rule

    def remove_rule(self, rule: Rule) -> bool:
        with self._lock:
            kept = [r for r in self._rules if r != rule]
            removed = len(kept) != len(self._rules)
            self._rules = kept
        if removed:
            self._changed()
        return removed

    def listed(self) -> list[Rule | Grant]:
        """Every rule and grant, most specific first: the order `permissions list` and Settings number them in."""
        with self._lock:
            pairs = [(rule, rule) for rule in self._rules] + [(grant.as_rule(), grant) for grant in self._grants]
        entry_of = {id(rule): entry for rule, entry in pairs}
        return [entry_of[id(rule)] for rule in by_specificity(rule for rule, _ in pairs)]

    def remove(self, entry: Rule | Grant) -> bool:
        return self.revoke(entry) if isinstance(entry, Grant) else self.remove_rule(entry)

    def reset(self) -> int:
        """Remove every rule and grant; how many there were."""
        with self._lock:
            count = len(self._rules) + len(self._grants)
            self._rules, self._grants = [], []
        if count:
            self._changed()
        return count

    def deciding(self, call: CallSubject, registry_name: str) -> tuple[Rule, Grant | None] | None:
        """The rule that decides `call` of the tool registered as `registry_name`, with the grant it stands for when a
        grant decides; None when none applies (the tool's risk decides)."""
        with self._lock:
            granted = [(_for_call(grant.as_rule(), call), grant) for grant in self._grants
                       if grant.covers(registry_name, call.identity, call.conversation_id)]
            rules = list(self._rules)
        rule = deciding_rule([*rules, *(rule for rule, _ in granted)], call)
        if rule is None:
            return None
        return rule, next((grant for as_rule, grant in granted if as_rule is rule), None)


def _for_call(rule: Rule, call: CallSubject) -> Rule:
    """A grant's rule named as the call's tool (grants given before rules name it by its registered name)."""
    return Rule(tool=call.tool, action=rule.action, identity=rule.identity, conversation_id=rule.conversation_id,
                created_at=rule.created_at)
