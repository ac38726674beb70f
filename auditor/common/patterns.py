"""Regular expressions compiled when first used, not when their module is imported.

The auditor declares some two hundred patterns at module level; compiling them all took about
a third of a second of every start, while a run uses the few its logs need (the approval
patterns only for customer-service logs, a reader's only for its format). `lazy(...)` stands
in for `re.compile(...)`: the first attribute asked of it compiles the pattern and keeps its
methods on the stand-in, so later calls cost what a compiled pattern's do.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]
import re
from collections.abc import Iterable, Iterator
from re import _compiler, _constants, _parser  # type: ignore[attr-defined]
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
        pattern, flags = self._source
        compiled = _compiled(pattern, flags)
        for kept in _KEPT:
            self.__dict__[kept] = getattr(compiled, kept)
        self.__dict__["pattern"] = pattern
        return self.__dict__[name] if name in self.__dict__ else getattr(compiled, name)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Lazy, self._source)

    def __repr__(self) -> str:
        return f"lazy({self._source[0]!r}, {self._source[1]})"


def started(pattern: Any, flags: int = 0) -> Any:
    """`pattern`, led by a look-ahead of the characters every match starts with, where that
    makes `re` faster and changes no match: as `lazy` compiles it (`_compiled`), written out.

    `re` passes over places where a match cannot start at C speed only when a pattern starts
    by taking a literal or a class of characters. One that starts with `\\b`, a look-behind,
    an optional part, a group of alternatives or under `re.I` is tried in full at every
    place: a hundredfold the work where the text holds a few candidates. A look-ahead of the
    first characters (`(?=[$€£\\dueg])` before an amount) fails at most places in one step.
    The class is read from the parsed pattern (`_lead`); nothing is added where a match may
    be empty, may start with any character or a word character, or `re` already skips.
    """
    if not isinstance(pattern, str):
        return pattern
    try:
        tree = _parser.parse(pattern, flags)
    except re.error:
        return pattern
    lead = _lead(tree)
    if lead is None:
        return pattern
    first = f"[{''.join(map(_written, lead))}]"
    head = re.match(r"(?:\(\?[aiLmsux]+\))+", pattern)  # global flags stay first
    at = head.end() if head else 0
    body = pattern[at:] + ("\n" if tree.state.flags & re.X else "")
    return f"{pattern[:at]}(?={first})(?:{body})"


def _compiled(pattern: Any, flags: int) -> re.Pattern[Any]:
    """`re.compile(started(pattern, flags), flags)`, the pattern parsed once: the look-ahead
    is put before the parsed pattern's first node (compiling costs a run what it reads)."""
    flags = int(flags)
    if not isinstance(pattern, str):
        return re.compile(pattern, flags)
    try:
        tree = _parser.parse(pattern, flags)
        first = _lead(tree)
        if first is not None:
            ahead = _parser.SubPattern(tree.state, [(_C.IN, first)])
            tree.data.insert(0, (_C.ASSERT, (1, ahead)))
            tree.width = None
        return _built(pattern, tree, flags)
    except Exception:  # `re` rejects it (and says why below), or its insides moved
        return re.compile(pattern, flags)


def _built(pattern: str, tree: Any, flags: int) -> re.Pattern[Any]:
    """The compiled pattern of `tree`, as `re._compiler.compile` builds it, but with its
    source: a pattern without one has no `.pattern`, cannot be pickled, and `re`'s cache of
    `sub` templates mistakes two such patterns with other group names for one another."""
    state = tree.state
    indexgroup: list[str | None] = [None] * state.groups
    for name, index in state.groupdict.items():
        indexgroup[index] = name
    code = _compiler._code(tree, flags)
    built = _sre.compile(
        pattern, flags | state.flags, code, state.groups - 1, state.groupdict, tuple(indexgroup)
    )
    return cast("re.Pattern[Any]", built)


def _lead(tree: Any) -> list[tuple[Any, Any]] | None:
    """The class every match of the parsed pattern starts with (the items of an `IN`); None
    where a look-ahead of it would not pay or cannot be told."""
    items: list[tuple[Any, Any]] = []
    if _sequence(tree.data, items) is not False or not items or _skipped(tree):
        return None
    folds = tree.state.flags & re.I
    if folds and any(v[-1] > 0xFFFF for op, v in _ranges(items)):
        return None  # `re` folds a character past U+FFFF in a class other than in a literal
    ranges = [v for _, v in _ranges(items)]
    letters = sum(
        any(lo <= ord(c) <= hi or (folds and lo <= ord(c.upper()) <= hi) for lo, hi in ranges)
        for c in _LOWER
    )
    if letters > _LETTERS:
        return None  # most places of a text start with one of them: no step saved
    return list(dict.fromkeys(items))


def _ranges(items: list[tuple[Any, Any]]) -> list[tuple[Any, tuple[int, int]]]:
    """The items that are characters, each as a range of code points."""
    return [(op, v if op is _C.RANGE else (v, v)) for op, v in items if op is not _C.CATEGORY]


def _written(item: tuple[Any, Any]) -> str:
    """An item of a class as a pattern writes it."""
    op, value = item
    if op is _C.CATEGORY:
        return _CATEGORIES[value]
    if op is _C.RANGE:
        return f"{re.escape(chr(value[0]))}-{re.escape(chr(value[1]))}"
    return re.escape(chr(value))


_LOWER = "abcdefghijklmnopqrstuvwxyz"
_LETTERS = 6
"""A look-ahead of more lowercase letters than this costs more than it saves (a hundred month
names start with eleven letters: measured 1.5x slower with one; amounts, with `u`, `e` and `g`
under `re.I`, 2.4x faster)."""


_C = _constants
_CATEGORIES = {
    _C.CATEGORY_DIGIT: r"\d",
    _C.CATEGORY_UNI_DIGIT: r"\d",
    _C.CATEGORY_SPACE: r"\s",
    _C.CATEGORY_UNI_SPACE: r"\s",
}
"""Classes a look-ahead names as written; a word character (most of any text) is not worth one."""


def _skipped(tree: Any) -> bool:
    """`re` already fails fast at a place where no match starts: the pattern starts by taking
    a literal or a class, perhaps after classes repeated (`\\s*exitcode`, `\\d{4,}`), or
    by one of at most three alternatives that each do; or it is anchored at the start of the
    text or of a line. A look-ahead only adds a step there (measured on the fixtures' texts:
    1.1-2x slower); before more alternatives (`error|exception|failed|…`) it saves steps."""
    data = tree.data
    while data and data[0][0] is _C.SUBPATTERN and not data[0][1][1] and not data[0][1][2]:
        data = data[0][1][3].data
    if data and data[0][0] is _C.AT:
        return data[0][1] in (_C.AT_BEGINNING, _C.AT_BEGINNING_STRING)  # `^`, `\\A`
    at = 0
    while at < len(data) and data[at][0] in _REPEATS and _takes(data[at][1][2].data):
        at += 1
    if at == len(data):
        return True
    op, av = data[at]
    if op is _C.BRANCH:
        return len(av[1]) <= 3 and all(_takes(branch.data[:1]) for branch in av[1])
    return op in _TAKES


def _takes(ops: Any) -> bool:
    """`ops` is one literal or class."""
    return len(ops) == 1 and ops[0][0] in _TAKES


_TAKES = (_C.LITERAL, _C.IN)
_REPEATS = (_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT)


def _sequence(ops: Any, items: list[tuple[Any, Any]]) -> bool | None:
    """Whether the sequence `ops` may match nothing (True) or takes a character first (False),
    the classes it may start with added to `items`; None when they cannot be told."""
    for op, av in ops:
        if op in (_C.AT, _C.ASSERT, _C.ASSERT_NOT):
            continue  # zero width: the match starts after it
        if op is _C.LITERAL:
            items.append((op, av))
            return False
        if op is _C.IN:
            return False if _class(av, items) else None
        if op is _C.SUBPATTERN:
            if av[1] or av[2]:
                return None  # flags of its own (`(?i:…)`): the look-ahead would not share them
            empty = _sequence(av[3].data, items)
        elif op is _C.ATOMIC_GROUP:
            empty = _sequence(av.data, items)
        elif op is _C.BRANCH:
            found = [_sequence(branch, items) for branch in av[1]]
            empty = None if None in found else any(found)
        elif op in _REPEATS:
            inner = _sequence(av[2].data if hasattr(av[2], "data") else av[2], items)
            empty = None if inner is None else inner or av[0] == 0
        else:
            return None  # any character, a back reference, a condition
        if empty is not True:
            return empty
    return True


def _class(av: Any, items: list[tuple[Any, Any]]) -> bool:
    """The items of a class `[…]` as a look-ahead writes them; False for a negated class or a
    category not worth one."""
    for op, value in av:
        if op in (_C.LITERAL, _C.RANGE) or (op is _C.CATEGORY and value in _CATEGORIES):
            items.append((op, value))
        else:
            return False
    return True


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


def any_of(strings: Iterable[str]) -> re.Pattern[str]:
    """What tells whether a text holds one of `strings`: `any_of(s).search(text)` is a match
    exactly when `any(x in text for x in s)`. One pass of a trie (`one_of`): several times
    faster than one `in` a string for the long lists of hints a rule screens short texts
    (argument values) with; on long texts and a few strings, `in` is faster."""
    found = sorted(set(strings))
    return lazy(one_of(found) if found else "(?!)")


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
