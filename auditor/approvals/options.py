"""`[tool.auditor.approvals]`: which tools need approval, and how a tool result asks for one."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from auditor.errors import ConfigError

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
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ConfigError(f"invalid pending-patterns entry `{pattern}`: {exc}") from exc

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
    bare = _CLASS_ESCAPES.sub("", joined)
    if "\\" not in bare and bare == bare.lower():
        lowered = re.compile(joined)
        return lambda text: lowered.search(text.lower()) is not None
    folded = re.compile(joined, re.I)
    return lambda text: folded.search(text) is not None


# Escapes that mean the same on lowercased text; any other (`\x41`, `\N{…}`) keeps re.I.
_CLASS_ESCAPES = re.compile(r"\\[sSdDwWbB.\\\-()\[\]{}|?*+^$ /_:'\"]")
