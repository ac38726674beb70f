"""Regular expressions compiled when first used, not when their module is imported.

The auditor declares some two hundred patterns at module level; compiling them all took about
a third of a second of every start, while a run uses the few its logs need (the approval
patterns only for customer-service logs, a reader's only for its format). `lazy(...)` stands
in for `re.compile(...)`: the first attribute asked of it compiles the pattern and keeps its
methods on the stand-in, so later calls cost what a compiled pattern's do.
"""

from __future__ import annotations

import re
from typing import Any, cast, overload

_KEPT = (
    "search",
    "match",
    "fullmatch",
    "finditer",
    "findall",
    "sub",
    "subn",
    "split",
    "scanner",
    "pattern",
    "flags",
    "groups",
    "groupindex",
)


class _Lazy:
    """A pattern's source until something is asked of it; then its compiled methods."""

    def __init__(self, pattern: Any, flags: int) -> None:
        self._source: tuple[Any, int] = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = re.compile(*self._source)
        for kept in _KEPT:
            self.__dict__[kept] = getattr(compiled, kept)
        return getattr(compiled, name)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Lazy, self._source)

    def __repr__(self) -> str:
        return f"lazy({self._source[0]!r}, {self._source[1]})"


@overload
def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]: ...
@overload
def lazy(pattern: bytes, flags: int = 0) -> re.Pattern[bytes]: ...
def lazy(pattern: str | bytes, flags: int = 0) -> re.Pattern[Any]:
    """`re.compile(pattern, flags)`, compiled on first use."""
    return cast("re.Pattern[Any]", _Lazy(pattern, flags))
