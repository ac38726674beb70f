"""`[tool.auditor.approvals]`: which tools need approval, and how a tool result asks for one.

`pending-patterns` are regular expressions a user writes and every tool result is tested
against, so each must run in linear time on hostile text. Only the first `PENDING_SCAN`
characters of a result are read, and a pattern is refused unless it is safe for Python's
backtracking engine: no backreference, no quantifier over a group that itself repeats or
alternates (`(a+)+`, `(a|ab)*`: exponential), and repeats whose widths, multiplied, cost no
more than one unbounded repeat over the text read (`.*.*x` is cubic). When google-re2 is
installed (`pip install google-re2`), a pattern Python would run slowly is run by RE2 instead,
whose automaton is linear for every pattern it accepts.
"""

from __future__ import annotations

import fnmatch
import importlib
import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from auditor.common.errors import ConfigError
from auditor.common.patterns import lazy
from auditor.common.structs import dataclass

PENDING_SCAN = 300
"""Characters of a tool result read for a request for confirmation: its opening, not deep
inside data (a list of pull requests "awaiting approval" is not a request for one)."""

DEFAULT_PENDING_PATTERNS = (
    r"confirmation_required",
    r"awaiting (user )?approval",
    r"requires? (user )?confirmation",
)


@dataclass(frozen=True, slots=True)
class ApprovalOptions:
    """What replay needs to find approvals in chat logs: `[tool.auditor.approvals]`."""

    require_approval: tuple[str, ...] = ()
    """Glob patterns (`book_*`) of tools that must be approved before they run; none by default."""
    pending_patterns: tuple[str, ...] = DEFAULT_PENDING_PATTERNS
    """Regular expressions (case-insensitive) a tool result matches when it asks for approval."""

    def __post_init__(self) -> None:
        for name in ("require_approval", "pending_patterns"):
            value = getattr(self, name)
            object.__setattr__(self, name, (value,) if isinstance(value, str) else tuple(value))
        for pattern in self.pending_patterns:
            _check(pattern)
        _check_together(self.pending_patterns)

    @classmethod
    def merge(cls, options: Iterable[Any]) -> ApprovalOptions:
        """One set of options from those of the enabled rules (the CF rules share theirs)."""
        found = [o for o in options if isinstance(o, ApprovalOptions)]
        if not found:
            return cls()
        return cls(
            tuple(dict.fromkeys(p for o in found for p in o.require_approval)),
            tuple(dict.fromkeys(p for o in found for p in o.pending_patterns)),
        )

    def requires(self, tool: str) -> bool:
        """The tool matches one of `require_approval`."""
        return any(fnmatch.fnmatchcase(tool, p) for p in self.require_approval)

    def reason(self, tool: str) -> str:
        """Why the options require approval before `tool` runs; empty when they do not."""
        pattern = next((p for p in self.require_approval if fnmatch.fnmatchcase(tool, p)), None)
        return "" if pattern is None else f"`require-approval` names it (`{pattern}`)"


@lru_cache(maxsize=32)
def pending_test(patterns: tuple[str, ...]) -> Callable[[str], bool] | None:
    """A test for "this tool result asks for approval", case-insensitive.

    Every tool result is tested, and `re.IGNORECASE` makes a search five times slower: patterns
    with no capital letter (escapes like `\\S` aside) are matched against the lowercased text
    instead, which is the same test.
    """
    if not patterns:
        return None
    joined = "|".join(f"(?:{p})" for p in patterns)
    if any(hazard(p) for p in patterns):
        slow = _re2().compile("(?i)" + joined)  # only reached when google-re2 is installed
        return lambda text: slow.search(text) is not None
    bare = _CLASS_ESCAPES.sub("", joined)
    if "\\" not in bare and bare == bare.lower():
        lowered = re.compile(joined)
        return lambda text: lowered.search(text.lower()) is not None
    folded = re.compile(joined, re.I)
    return lambda text: folded.search(text) is not None


# Escapes that mean the same on lowercased text; any other (`\x41`, `\N{…}`) keeps re.I.
_CLASS_ESCAPES = lazy(r"\\[sSdDwWbB.\\\-()\[\]{}|?*+^$ /_:'\"]")


def _check(pattern: str) -> None:
    """Raise ConfigError when `pattern` does not compile or could run in more than linear time."""
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ConfigError(f"invalid pending-patterns entry `{pattern}`: {exc}") from exc
    why = hazard(pattern)
    if why is None:
        return
    engine = _re2()
    if engine is None:
        raise ConfigError(
            f"pending-patterns entry `{pattern}` could take more than linear time on hostile "
            f"text ({why}): rewrite it, or install google-re2, which runs any pattern it accepts "
            "in linear time"
        )
    try:
        engine.compile(pattern)
    except Exception as exc:  # re2.error carries no details
        raise ConfigError(
            f"pending-patterns entry `{pattern}` could take more than linear time ({why}) and "
            f"google-re2 cannot run it either: {exc or 'unsupported syntax'}"
        ) from exc


MAX_PATTERNS = 64
"""Pending patterns one configuration may hold."""


def _check_together(patterns: tuple[str, ...]) -> None:
    """Raise ConfigError when the patterns, each linear, together cost more than one pattern
    may: every tool result is tested against all of them (20 patterns at the bound of one took
    82 ms a tool result)."""
    if len(patterns) > MAX_PATTERNS:
        raise ConfigError(
            f"pending-patterns holds {len(patterns)} patterns: at most {MAX_PATTERNS} (join "
            "alternatives into one pattern with `|`)"
        )
    total = sum(cost(p) for p in patterns if hazard(p) is None)  # RE2 runs the others
    if total > _BUDGET:
        raise ConfigError(
            f"pending-patterns together could take too long on every tool result: their "
            f"repeats multiply to {total:,}, past the {_BUDGET:,} one configuration may spend; "
            "bound the repeats (`.{0,40}`, `\\s{1,4}`) or drop patterns"
        )


def _re2() -> Any:
    """The google-re2 module when installed, else None."""
    try:
        return importlib.import_module("re2")
    except ImportError:
        return None


_REPEATS = ("MAX_REPEAT", "MIN_REPEAT")
_UNBOUNDED = 64
"""A repeat allowing more than this many is read as unbounded."""
_BUDGET = PENDING_SCAN * _UNBOUNDED
"""What the widths of a pattern's repeats may multiply to: one unbounded repeat over the text
read, times a few small bounded ones."""


@lru_cache(maxsize=256)  # options are built per file audited, from the same few patterns
def hazard(pattern: str) -> str | None:
    """Why Python's backtracking engine could take more than linear time on `pattern`; None
    when it cannot. Assumes `pattern` compiles."""
    from re import _parser  # type: ignore[attr-defined]

    widths: list[int] = []
    why = _walk(_parser.parse(pattern), widths)
    if why is not None:
        return why
    if cost(pattern) > _BUDGET:
        return (
            "its repeats multiply: keep one `*`, `+` or `{n,}` and bound the others, "
            "as in `\\s{1,4}` or `.{0,40}`"
        )
    return None


@lru_cache(maxsize=256)
def cost(pattern: str) -> int:
    """What the widths of the pattern's repeats multiply to (1 with none): how many times over
    the text read a search may step, at worst. Assumes `pattern` compiles."""
    from re import _parser  # type: ignore[attr-defined]

    widths: list[int] = []
    _walk(_parser.parse(pattern), widths)
    total = 1
    for width in widths:
        total *= width
    return total


def _walk(items: Any, widths: list[int]) -> str | None:
    for op, value in items:
        name = str(op)
        if name in ("GROUPREF", "GROUPREF_EXISTS"):
            return "a backreference"
        if name in _REPEATS:
            _, high, body = value
            if high > 1:
                if _repeats_or_branches(body):
                    return "a quantifier over a group that repeats or alternates"
                widths.append(PENDING_SCAN if high > _UNBOUNDED else high)
            why = _walk(body, widths)
        elif name == "SUBPATTERN":
            why = _walk(value[-1], widths)
        elif name == "BRANCH":
            why = next((w for b in value[1] if (w := _walk(b, widths)) is not None), None)
        elif name in ("ASSERT", "ASSERT_NOT", "ATOMIC_GROUP", "POSSESSIVE_REPEAT"):
            why = _walk(value[-1], widths)
        else:
            why = None
        if why is not None:
            return why
    return None


def _repeats_or_branches(items: Any) -> bool:
    for op, value in items:
        name = str(op)
        if (name in _REPEATS and value[1] > 1) or name == "BRANCH":
            return True
        if name in ("SUBPATTERN", "ASSERT", "ASSERT_NOT", "ATOMIC_GROUP") and (
            _repeats_or_branches(value[-1])
        ):
            return True
        if name in _REPEATS and _repeats_or_branches(value[2]):
            return True
    return False
