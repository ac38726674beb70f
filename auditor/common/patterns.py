"""Regular expressions compiled when first used, not when their module is imported.

The auditor declares some two hundred patterns at module level; compiling them all took about
a third of a second of every start, while a run uses the few its logs need (the approval
patterns only for customer-service logs, a reader's only for its format). `lazy(...)` stands
in for `re.compile(...)`: the first attribute asked of it compiles the pattern and keeps its
methods on the stand-in, so later calls cost what a compiled pattern's do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, Protocol, cast, overload

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


def one_of(words: Iterable[str]) -> str:
    """A group matching exactly `words`, written as a trie: `jan(?:uary)?` for `jan|january`.

    The same strings match as with `a|b|c` sorted longest first, tried in the same order (a
    longer word before its prefixes; words that are not prefixes of one another never both
    match at one place), but a place whose first letters no word has is passed over at once:
    Python's `re` tries every alternative of a plain alternation at every place, which for a
    hundred month names under `re.I` is most of the time of reading dates. Under `re.I`, give
    the words in one case (`may`, not `May` and `may`: two branches, tried in letter order).
    """
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return "(?:" + _trie(trie) + ")"


def _trie(node: dict[str, Any]) -> str:
    branches = [re.escape(char) + _trie(child) for char, child in sorted(node.items()) if char]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in node else body


class Finds(Protocol):
    """What reads the matches of a pattern in a text: a compiled pattern, or a `Folded` one."""

    def finditer(self, text: str, /) -> Iterator[re.Match[str]]: ...


class Folded:
    """A case-insensitive pattern, read case-sensitively over the lowered text when the text is
    ASCII (where `re.I` is plain ASCII case folding, so the matches are the same): Python's `re`
    folds the case of every character it compares under `re.I`, which makes an alternation of
    words two to three times slower. Other text is read with `re.I` as written.

    The matches are of the lowered text when it is ASCII: read their places (`start`, `end`,
    `span`) and slice the original, and their groups only where case does not matter.
    """

    def __init__(self, pattern: str) -> None:
        if upper := _UPPER.search(pattern):
            raise ValueError(f"a folded pattern is written in lowercase: {upper[0]!r}")
        self.pattern = pattern
        self._lowered = lazy(pattern)
        self._folding = lazy(pattern, re.I)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        if text.isascii():
            return self._lowered.finditer(text.lower())
        return self._folding.finditer(text)

    def search(self, text: str) -> re.Match[str] | None:
        if text.isascii():
            return self._lowered.search(text.lower())
        return self._folding.search(text)


_UPPER = lazy(r"(?<!\\)(?<!\(\?)[A-Z]")
"""A capital letter that is a literal: not an escape (`\\W`, `\\B`) or a named group (`(?P<`)."""


def folded(pattern: str) -> Folded:
    """`re.compile(pattern, re.I)` for `finditer` and `search`, faster on ASCII text (`Folded`);
    `pattern` written in lowercase."""
    return Folded(pattern)
