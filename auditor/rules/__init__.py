"""The rule registry: one module per rule, listed here by hand.

A rule module holds `CODE`, `NAME`, `SEVERITY`, optionally `REQUIRES` (what a conversation
must have for the rule to examine it) and `Options` (a frozen dataclass of its settings), a
`check(replay, options)` generator of Violations, and a docstring under fixed headings that is
its documentation everywhere: `--explain`, the README rule table and SARIF `rules[]`. The IN
rules have no `check`: the engine reports them while reading. A rule whose findings depend on
the tools inferred from a whole input file also has `resolve(deferred, tools, where)`: its
Violations carry `deferred`, and the engine decides them (a message, or None to drop) after
the run.

A rule may also have `screen(replay, options)`: False when `check` certainly yields nothing on
that replay, decided by a cheap test of what would have to be there for it to fire (a marker in
the text, a call key repeated often enough). The engine then skips the check, so most
conversations of a log cost a few screens, not every check. A screen is built from the same
helpers and constants as its check (a prefilter the check itself starts with), so the two
cannot drift apart; a rule without a screen is checked on every conversation it can examine.
`tests/rules/test_screens.py` holds them to it: every fixture audited with and without screens gives
the same report, and on generated conversations a screen that says no means no finding.

A rule with `PREVIEW = True` is in preview, as in ruff: `ALL`, the default selection and code
prefixes leave it out; only its own code or name selects it. A rule stays there until the
ecosystem check (which audits with every preview rule selected) has judged enough of its
findings on real logs to show it is precise.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import Any

from auditor.errors import ConfigError
from auditor.findings import Severity, Violation
from auditor.patterns import lazy
from auditor.replay import Replay
from auditor.rules import (
    answer_with_pending_action,
    approved_arguments_changed,
    approved_arguments_reformatted,
    argument_schema_violation,
    claim_contradicts_call,
    claimed_action_without_call,
    confirmation_loop,
    cyclic_tool_calls,
    fabricated_observation,
    invalid_record,
    leaked_control_tokens,
    malformed_arguments,
    orphan_tool_result,
    placeholder_argument,
    repeated_assistant_message,
    repeated_tool_call,
    repeated_tool_error,
    simulated_data,
    tool_call_in_text,
    unanswered_tool_call,
    unapproved_execution,
    ungrounded_answer_fact,
    ungrounded_argument,
    uninformative_tool_error,
    unknown_tool,
    unrecognized_record,
)
from auditor.rules._language import english

_MODULES: tuple[ModuleType, ...] = (
    invalid_record,
    unrecognized_record,
    fabricated_observation,
    answer_with_pending_action,
    claimed_action_without_call,
    ungrounded_argument,
    placeholder_argument,
    simulated_data,
    claim_contradicts_call,
    ungrounded_answer_fact,
    unanswered_tool_call,
    orphan_tool_result,
    tool_call_in_text,
    leaked_control_tokens,
    unknown_tool,
    malformed_arguments,
    argument_schema_violation,
    approved_arguments_changed,
    approved_arguments_reformatted,
    unapproved_execution,
    confirmation_loop,
    repeated_tool_call,
    repeated_tool_error,
    cyclic_tool_calls,
    repeated_assistant_message,
    uninformative_tool_error,
)

FAMILIES = {
    "IN": "input",
    "FB": "fabrication",
    "EX": "execution",
    "CF": "approvals",
    "LP": "loops",
}


@cache
def _installed(module: str) -> bool:
    """An optional dependency is importable (looked up once, not imported)."""
    return importlib.util.find_spec(module) is not None


# What a rule may require of a conversation, and how coverage reports its absence.
REQUIREMENTS: dict[str, tuple[Callable[[Replay], bool], str]] = {
    "tools": (
        lambda r: r.conversation.tools is not None,
        "no tools declared or given with --tools",
    ),
    "calls": (lambda r: bool(r.exchanges), "no tool calls"),
    "approvals": (lambda r: bool(r.approvals), "no approvals seen"),
    "jsonschema": (lambda r: _installed("jsonschema"), "jsonschema is not installed"),
    "english": (english, "not in English (its claims are read in English words)"),
}


# What a user can do about each reason, most useful first: the order of the coverage notes.
# Reasons without a hint (a log without tool calls gives the call rules nothing to read) are
# facts of the log, shown with -v.
UNTOOLED = "no tools declared, given with --tools, or inferred from the calls of its logs"
"""Why a rule that decides on the tools of a file or run (FB003) could not examine a log."""
COVERAGE_HINTS: dict[str, str] = {
    "no tools declared or given with --tools": "--tools FILE declares them",
    UNTOOLED: "--tools FILE declares them",
    "jsonschema is not installed": "pip install jsonschema",
    "no approvals seen": "require-approval in [tool.auditor.approvals] names the tools that "
    "need one",
    "no tool calls": "",
}


SECTIONS = ("What it does", "Why is this bad?", "Example")
CLOSING_SECTIONS = ("Does not fire on", "Use instead")
_HEADING = lazy(r"^## (.+)$", re.MULTILINE)


@dataclass(frozen=True)
class Rule:
    """A rule's identity, documentation and check, read from its module."""

    code: str
    name: str
    severity: Severity
    summary: str
    """The first line of the docstring: what the rule reports, in one sentence."""
    doc: str
    """The rest of the docstring: markdown under the fixed headings."""
    check: Callable[[Replay, Any], Iterable[Violation]] | None
    requires: tuple[str, ...] = ()
    options: type | None = None
    sections: dict[str, str] = field(default_factory=dict)
    resolve: Callable[[Any, frozenset[str], str], tuple[str, str | None] | None] | None = None
    """Decides a deferred finding with inferred tools and where they were called: (message,
    tool), or None to drop it."""
    screen: Callable[[Replay, Any], bool] | None = None
    """False when `check` certainly yields nothing on the replay; None: always checked."""
    preview: bool = False
    """Selected only by its own code or name, not by `ALL`, the default or a prefix."""

    @classmethod
    def from_module(cls, module: ModuleType) -> Rule:
        summary, _, doc = (module.__doc__ or "").strip().partition("\n")
        doc = doc.strip()
        return cls(
            code=module.CODE,
            name=module.NAME,
            severity=module.SEVERITY,
            summary=summary.strip(),
            doc=doc,
            check=getattr(module, "check", None),
            requires=tuple(getattr(module, "REQUIRES", ())),
            options=getattr(module, "Options", None),
            sections=_sections(doc),
            resolve=getattr(module, "resolve", None),
            screen=getattr(module, "screen", None),
            preview=getattr(module, "PREVIEW", False),
        )

    @property
    def family(self) -> str:
        return self.code[:2]

    def default_options(self) -> Any:
        return self.options() if self.options is not None else None


def _sections(doc: str) -> dict[str, str]:
    parts = _HEADING.split(doc)
    return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


RULES: tuple[Rule, ...] = tuple(Rule.from_module(m) for m in _MODULES)
BY_CODE: dict[str, Rule] = {r.code: r for r in RULES}
BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}


def lookup(selector: str) -> Rule | None:
    """A rule by its code or name, case-insensitively."""
    selector = selector.strip()
    return BY_CODE.get(selector.upper()) or BY_NAME.get(selector.lower())


def did_you_mean(selector: str) -> str:
    """` (did you mean `EX001`?)` for a mistyped code or name, or an empty string."""
    import difflib

    token = selector.strip()
    code = any(c.isdigit() for c in token)
    candidates = list(BY_CODE) if code else list(BY_NAME)
    query = token.upper() if code else token.lower()
    match = difflib.get_close_matches(query, candidates, n=1, cutoff=0.6)
    return f" (did you mean `{match[0]}`?)" if match else ""


def matching(selector: str, preview: bool = False) -> list[Rule]:
    """The rules a selector names: `ALL`, a code, a code prefix (`EX`, `CF00`) or a name. Rules
    in preview only by their code or name, unless `preview` (an ignore names them all)."""
    token = selector.strip()
    if not token:
        # A blank selector would select nothing and silently turn every rule off.
        raise ConfigError(
            'blank rule selector "": use a code (EX001), a prefix (EX), a name '
            "(unanswered-tool-call) or ALL"
        )
    if token.upper() == "ALL":
        return [r for r in RULES if preview or not r.preview]
    rule = lookup(token)
    if rule is not None:
        return [rule]
    prefix = token.upper()
    found = [r for r in RULES if r.code.startswith(prefix)]
    if not found:
        raise ConfigError(
            f"unknown rule selector `{token}`{did_you_mean(token)}: use a code (EX001), a prefix "
            "(EX) or a name (unanswered-tool-call); `audit --rules` lists them"
        )
    return [r for r in found if preview or not r.preview]


ALWAYS = (invalid_record.CODE,)
"""Rules no selection turns off: a record that could not be read is why the other rules saw
nothing, so it is always reported (its severity can still be lowered)."""


def select(selectors: Iterable[str], ignores: Iterable[str] = ()) -> tuple[Rule, ...]:
    """The rules enabled by `select` minus `ignore`, in registry order, and those in ALWAYS."""
    chosen = {r.code for s in selectors for r in matching(s)}
    ignored = {r.code for s in ignores for r in matching(s, preview=True)}
    for code in ALWAYS:
        chosen.add(code)
        ignored.discard(code)
    return tuple(r for r in RULES if r.code in chosen and r.code not in ignored)


def check_ignorable(selector: str) -> None:
    """Naming a rule of ALWAYS itself in an ignore list is an error: it would do nothing."""
    rule = lookup(selector)
    if rule is not None and rule.code in ALWAYS:
        raise ConfigError(
            f"{rule.code} ({rule.name}) cannot be ignored: an unreadable record is why the other "
            f'rules saw nothing; set its severity instead (severity = {{ {rule.code} = "note" }})'
        )
