"""The rule registry: one module per rule, listed here by hand with its code, name, severity
and preview, so that selecting rules imports none of them; a rule's module is imported the
first time its check, screen, options or docs are asked for.

A rule's identity (code, name, default severity, preview) is written here and nowhere else;
its module is found by its name (`-` written `_`). The module holds the rest: optionally
`REQUIRES` (what a conversation must have for the rule to examine it) and `Options` (a frozen
dataclass of its settings), a `check(replay, options)` generator of Violations, and a
docstring under fixed headings that is its documentation everywhere: `--explain`, the README
rule table and SARIF `rules[]`. The IN rules have no `check`: the engine reports them while
reading, and their modules hold their documentation only. A rule whose findings depend on
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

A rule registered with preview True is in preview, as in ruff: `ALL`, the default selection
and code prefixes leave it out; only its own code or name selects it. A rule stays there until
the ecosystem check (which audits with every preview rule selected) has judged enough of its
findings on real logs to show it is precise.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from collections.abc import Callable, Iterable
from dataclasses import field
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

from auditor.common.errors import ConfigError
from auditor.common.patterns import lazy
from auditor.common.structs import dataclass
from auditor.findings import Severity
from auditor.languages import NAMES
from auditor.rules._language import languages

if TYPE_CHECKING:
    from auditor.findings import Violation
    from auditor.replay import Replay

ERROR, WARNING = Severity.ERROR, Severity.WARNING

# Each rule's code, name (its module's, `-` written `_`), default severity and whether it is in
# preview, written once: enough to select rules, validate a configuration and list them, so a
# run imports a rule's module only when it checks a conversation or documents the rule.
_REGISTERED: tuple[tuple[str, str, Severity, bool], ...] = (
    ("IN001", "invalid-record", ERROR, False),
    ("IN002", "unrecognized-record", WARNING, False),
    ("FB001", "fabricated-observation", ERROR, False),
    ("FB002", "answer-with-pending-action", ERROR, False),
    ("FB003", "claimed-action-without-call", WARNING, False),
    ("FB004", "ungrounded-argument", WARNING, False),
    ("FB005", "placeholder-argument", ERROR, False),
    ("FB006", "simulated-data", WARNING, False),
    ("FB007", "claim-contradicts-call", ERROR, False),
    ("FB008", "ungrounded-answer-fact", WARNING, True),
    ("EX001", "unanswered-tool-call", ERROR, False),
    ("EX002", "orphan-tool-result", WARNING, False),
    ("EX003", "tool-call-in-text", ERROR, False),
    ("EX004", "leaked-control-tokens", ERROR, False),
    ("EX005", "unknown-tool", ERROR, False),
    ("EX006", "malformed-arguments", ERROR, False),
    ("EX007", "argument-schema-violation", ERROR, False),
    ("CF001", "approved-arguments-changed", ERROR, False),
    ("CF002", "approved-arguments-reformatted", WARNING, False),
    ("CF003", "unapproved-execution", ERROR, False),
    ("CF004", "confirmation-loop", WARNING, False),
    ("LP001", "repeated-tool-call", WARNING, False),
    ("LP002", "repeated-tool-error", WARNING, False),
    ("LP003", "cyclic-tool-calls", WARNING, False),
    ("LP004", "repeated-assistant-message", WARNING, False),
    ("LP005", "uninformative-tool-error", WARNING, False),
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
    "lexicon": (
        lambda r: bool(languages(r)),
        f"in a language with no lexicon (claims are read in English, {NAMES})",
    ),
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


SECTIONS = ("What it does", "Why is this bad?", "Example", "How to fix")
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
    changes: str = ""
    """When a finding of the rule takes another severity than `severity`, in words (`error
    from 5 repeats`): the module's `SEVERITY_CHANGES`. Shown in the rule table and page."""

    @property
    def family(self) -> str:
        """The code's letters: `FB` of FB003, `AIR` of a configuration's own AIR001."""
        return self.code.rstrip("0123456789")

    def default_options(self) -> Any:
        return self.options() if self.options is not None else None


_FROM_MODULE = (
    "summary",
    "doc",
    "check",
    "requires",
    "options",
    "sections",
    "resolve",
    "screen",
    "changes",
)


def _read(module: ModuleType) -> dict[str, Any]:
    """What a rule's module says: all but its identity, which the registry holds."""
    summary, _, doc = (module.__doc__ or "").strip().partition("\n")
    doc = doc.strip()
    return {
        "summary": summary.strip(),
        "doc": doc,
        "check": getattr(module, "check", None),
        "requires": tuple(getattr(module, "REQUIRES", ())),
        "options": getattr(module, "Options", None),
        "sections": sections(doc),
        "resolve": getattr(module, "resolve", None),
        "screen": getattr(module, "screen", None),
        "changes": getattr(module, "SEVERITY_CHANGES", ""),
    }


def sections(doc: str) -> dict[str, str]:
    """A rule's documentation by its `## ` headings."""
    parts = _HEADING.split(doc)
    return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


class _FromModule:
    """A field of a registry's rule read from its module the first time it is asked for: the
    module is imported then and every such field kept in the rule, where this descriptor (which
    defines no `__set__`) no longer sees it. A rule built with all its fields never uses it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, rule: Rule | None, owner: type | None = None) -> Any:
        if rule is None:
            return self
        module = importlib.import_module(f"{__name__}.{rule.name.replace('-', '_')}")
        for key, value in _read(module).items():
            rule.__dict__.setdefault(key, value)
        return rule.__dict__[self.name]


for _field in _FROM_MODULE:
    setattr(Rule, _field, _FromModule(_field))


def _registered(code: str, name: str, severity: Severity, preview: bool) -> Rule:
    """A rule of the registry, its module not imported yet."""
    rule = object.__new__(Rule)
    rule.__dict__.update(code=code, name=name, severity=severity, preview=preview)
    return rule


RULES: tuple[Rule, ...] = tuple(_registered(*entry) for entry in _REGISTERED)
BY_CODE: dict[str, Rule] = {r.code: r for r in RULES}
BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}


def lookup(selector: str, extra: tuple[Rule, ...] = ()) -> Rule | None:
    """A rule by its code or name, case-insensitively; `extra`: the configuration's own rules
    (`auditor.policies`), looked up after the built-in ones."""
    selector = selector.strip()
    found = BY_CODE.get(selector.upper()) or BY_NAME.get(selector.lower())
    if found is None and extra:
        code, name = selector.upper(), selector.lower()
        found = next((r for r in extra if r.code == code or r.name == name), None)
    return found


def did_you_mean(selector: str, extra: tuple[Rule, ...] = ()) -> str:
    """` (did you mean `EX001`?)` for a mistyped code or name, or an empty string."""
    import difflib

    token = selector.strip()
    code = any(c.isdigit() for c in token)
    candidates = [r.code for r in (*RULES, *extra)] if code else [r.name for r in (*RULES, *extra)]
    query = token.upper() if code else token.lower()
    match = difflib.get_close_matches(query, candidates, n=1, cutoff=0.6)
    return f" (did you mean `{match[0]}`?)" if match else ""


def matching(selector: str, preview: bool = False, extra: tuple[Rule, ...] = ()) -> list[Rule]:
    """The rules a selector names: `ALL`, a code, a code prefix (`EX`, `CF00`) or a name, among
    the built-in ones and `extra` (the configuration's own). Rules in preview only by their code
    or name, unless `preview` (an ignore names them all)."""
    token = selector.strip()
    if not token:
        # A blank selector would select nothing and silently turn every rule off.
        raise ConfigError(
            'blank rule selector "": use a code (EX001), a prefix (EX), a name '
            "(unanswered-tool-call) or ALL"
        )
    every = (*RULES, *extra)
    if token.upper() == "ALL":
        return [r for r in every if preview or not r.preview]
    rule = lookup(token, extra)
    if rule is not None:
        return [rule]
    prefix = token.upper()
    found = [r for r in every if r.code.startswith(prefix)]
    if not found:
        raise ConfigError(
            f"unknown rule selector `{token}`{did_you_mean(token, extra)}: use a code (EX001), a prefix "
            "(EX) or a name (unanswered-tool-call); `audit --rules` lists them"
        )
    return [r for r in found if preview or not r.preview]


ALWAYS = ("IN001",)
"""Rules no selection turns off: a record that could not be read is why the other rules saw
nothing, so it is always reported (its severity can still be lowered)."""


def select(
    selectors: Iterable[str], ignores: Iterable[str] = (), extra: tuple[Rule, ...] = ()
) -> tuple[Rule, ...]:
    """The rules enabled by `select` minus `ignore`, in registry order (then `extra`'s, the
    configuration's own rules), and those in ALWAYS."""
    chosen = {r.code for s in selectors for r in matching(s, extra=extra)}
    ignored = {r.code for s in ignores for r in matching(s, preview=True, extra=extra)}
    for code in ALWAYS:
        chosen.add(code)
        ignored.discard(code)
    return tuple(r for r in (*RULES, *extra) if r.code in chosen and r.code not in ignored)


def check_ignorable(selector: str) -> None:
    """Naming a rule of ALWAYS itself in an ignore list is an error: it would do nothing."""
    rule = lookup(selector)
    if rule is not None and rule.code in ALWAYS:
        raise ConfigError(
            f"{rule.code} ({rule.name}) cannot be ignored: an unreadable record is why the other "
            f'rules saw nothing; set its severity instead (severity = {{ {rule.code} = "note" }})'
        )
