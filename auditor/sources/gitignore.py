""".gitignore files, read with git's own rules, for the directory walk (gitignore(5)).

A pattern without a `/` (but for a trailing one) matches a name at any depth below its file's
directory; one with a `/` at the start or in the middle is anchored there. `*` and `?` never
match `/`; `**/`, `/**/` and a trailing `/**` cross directories; a trailing `/` matches
directories only; `!` re-includes; `\\` escapes. Within a file the last matching pattern wins,
and a file deeper in the tree wins over those above it, then `.git/info/exclude`. As in git
(and ripgrep, ruff), a directory that is ignored is not entered, so nothing below it can be
re-included, and each path is matched as the walk meets it: a directory the user names is
read even when a parent's .gitignore lists it.

stdlib `fnmatch` is not enough: its `*` crosses `/` and it knows no anchoring, `**` or `!`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from typing import Any

from auditor.common.structs import dataclass
from auditor.sources.files import read_regular
from auditor.sources.kinds import os_reason

FILE = ".gitignore"


@dataclass(frozen=True, slots=True)
class Pattern:
    """One line of a .gitignore."""

    glob: Glob
    negated: bool
    directories_only: bool
    anchored: bool
    """Matched against the path relative to the file's directory, else against the name."""


def parse(text: str) -> list[Pattern]:
    """The patterns of a .gitignore's text; blank lines and comments give none."""
    patterns = []
    for line in text.splitlines():
        pattern = _pattern(line)
        if pattern is not None:
            patterns.append(pattern)
    return patterns


def _pattern(line: str) -> Pattern | None:
    line = _strip_trailing_spaces(line.removesuffix("\r"))
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    directories_only = line.endswith("/") and not line.endswith("\\/")
    line = line.rstrip("/") if directories_only else line
    if not line:
        return None
    anchored = "/" in line
    line = line.removeprefix("/")
    try:
        glob = Glob(line)
    except re.error:
        return None  # git ignores a pattern it cannot read; so do we
    return Pattern(glob, negated, directories_only, anchored)


def _strip_trailing_spaces(line: str) -> str:
    """Trailing spaces go, unless escaped with a backslash (`foo\\ `)."""
    stripped = line.rstrip(" ")
    if stripped != line and stripped.endswith("\\") and not stripped.endswith("\\\\"):
        return stripped + " "
    return stripped


_STAR: Any = object()
_ANY: Any = object()
_DIRS: Any = object()
"""A whole `**` segment: any number of directories (at least one when it ends the pattern)."""
_SEPARATOR: Any = object()
Token = Any
"""A character to match, `_STAR`, `_ANY`, or a compiled one-character `[…]` class."""
"""A character to match, `_STAR`, `_ANY`, or a compiled one-character `[…]` class."""


class Glob:
    """git's wildmatch (with WM_PATHNAME) on `/`-separated paths, in time linear in the path
    times the pattern, whatever the pattern: `*a*a*a*a*a*a*a*a*b` cannot backtrack.

    The pattern is cut into segments at `/`; a segment matches one name of the path, by the
    classic one-star-remembered scan (`*` any run of characters, `?` one, `[…]` one of a
    class, none of them `/`), and the segments match the names by the same scan one level up,
    a whole `**` segment being the star there. Raises re.error for a class that is not one.
    """

    __slots__ = ("segments",)

    def __init__(self, pattern: str) -> None:
        segments: list[list[Token]] = [[]]
        for token in _tokens(pattern):
            if token is _SEPARATOR:
                segments.append([])
            else:
                segments[-1].append(token)
        parts: list[Any] = []
        for i, segment in enumerate(segments):
            if len(segment) >= 2 and all(t is _STAR for t in segment):
                if i == len(segments) - 1:
                    parts.append([_STAR])  # `a/**`: one name at least, then any depth
                parts.append(_DIRS)
            else:
                parts.append(segment)
        self.segments = tuple(parts)

    def match(self, path: str) -> bool:
        """The whole path (names separated by `/`) matches."""
        return _scan(self.segments, path.split("/"), _DIRS, _segment)


def _segment(tokens: list[Token], name: str) -> bool:
    return _scan(tokens, name, _STAR, _char)


def _char(token: Token, char: str) -> bool:
    if token is _ANY:
        return True
    if isinstance(token, str):
        return token == char
    return token.fullmatch(char) is not None


def _scan(pattern: Sequence[Any], text: Sequence[Any], star: Any, one: Any) -> bool:
    """Wildcard matching remembering only the last star: O(len(pattern) * len(text))."""
    p = t = 0
    back_p = back_t = -1
    while t < len(text):
        if p < len(pattern) and pattern[p] is star:
            back_p, back_t = p, t
            p += 1
        elif p < len(pattern) and one(pattern[p], text[t]):
            p += 1
            t += 1
        elif back_p >= 0:
            back_t += 1
            p, t = back_p + 1, back_t
        else:
            return False
    while p < len(pattern) and pattern[p] is star:
        p += 1
    return p == len(pattern)


def _tokens(pattern: str) -> Iterator[Token]:
    """The pattern's characters as tokens; a `/` inside a class is no separator."""
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "*":
            yield _STAR
        elif char == "?":
            yield _ANY
        elif char == "[":
            end = _bracket_end(pattern, i)
            if end is not None:
                yield _bracket(pattern, i, end)
                i = end + 1
                continue
            yield "["  # a `[` that never closes is a literal
        elif char == "\\" and i + 1 < n:
            i += 1
            yield pattern[i]
        elif char == "/":
            yield _SEPARATOR
        else:
            yield char
        i += 1


def _bracket_end(pattern: str, start: int) -> int | None:
    """Where the `[…]` class opened at `start` closes (`]` first is literal), or None."""
    j = start + 1
    if j < len(pattern) and pattern[j] in "!^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j if j < len(pattern) else None


def _bracket(pattern: str, start: int, end: int) -> re.Pattern[str]:
    """A `[…]` class (`[!…]` or `[^…]` negated) as a one-character regular expression, which
    cannot backtrack; it never matches `/`."""
    j = start + 1
    negated = pattern[j] in "!^"
    if negated:
        j += 1
    members = []
    while j < end:
        char = pattern[j]
        if char == "\\" and j + 1 < end:
            members.append(re.escape(pattern[j + 1]))
            j += 2
            continue
        members.append(char if char == "-" else re.escape(char))
        j += 1
    body = "".join(members)
    return re.compile(f"[^/{body}]" if negated else f"[{body}]", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Rules:
    """The patterns of one .gitignore (or `info/exclude`) and the directory they apply to."""

    directory: str
    patterns: tuple[Pattern, ...]

    def decide(self, path: str, is_dir: bool) -> bool | None:
        """True when the last matching pattern ignores `path`, False when it re-includes it,
        None when none matches. `path` is absolute and lies below `directory`."""
        relative = path[len(self.directory) :].lstrip(os.sep).replace(os.sep, "/")
        name = relative.rsplit("/", 1)[-1]
        for pattern in reversed(self.patterns):
            if pattern.directories_only and not is_dir:
                continue
            if pattern.glob.match(relative if pattern.anchored else name):
                return not pattern.negated
        return None


MAX_BYTES = 256 * 1024
"""A .gitignore larger than this is not read: the largest in common use hold a few KB, and every
path of the walk is matched against every pattern in force."""


def read(directory: str, name: str = FILE) -> Rules | None:
    """The rules of `directory/name`, or None when it does not exist or holds none. Raises
    OSError (its `strerror` the reason) when it is there but not read: a symbolic link (git
    reads none either), a FIFO, a device, or a file past `MAX_BYTES`."""
    try:
        data = read_regular(os.path.join(directory, name), MAX_BYTES, follow=False)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None
    patterns = parse(data.decode("utf-8", "replace"))
    return Rules(directory, tuple(patterns)) if patterns else None


Refusal = tuple[str, str]
"""An ignore file that was there but not read: its path, and why."""


class Ignore:
    """The rules in force in one directory: its own .gitignore and those above it (within the
    repository), deepest first, then the repository's `.git/info/exclude`."""

    def __init__(self, stack: tuple[Rules, ...] = ()) -> None:
        self.stack = stack
        """Deepest first."""

    @classmethod
    def above(cls, directory: str) -> tuple[Ignore, list[Refusal]]:
        """The rules a walk that starts at `directory` inherits: the .gitignore files from the
        root of its git repository down to the directory's parent, and `info/exclude`.
        Outside a repository, none (the directory's own .gitignore is read by `below`). With
        them, the ignore files that were there but not read."""
        start = os.path.abspath(directory)
        root = repository_root(start)
        if root is None:
            return cls(), []
        places = []
        here = start
        while here != root:
            here = os.path.dirname(here)
            places.append((here, FILE))
        places.append((os.path.join(root, ".git", "info"), "exclude"))
        stack, refused = [], []
        for place, name in places:
            try:
                rules = read(place, name)
            except OSError as exc:
                refused.append((os.path.join(place, name), _reason(exc)))
                continue
            if rules is not None:
                stack.append(Rules(root, rules.patterns) if name == "exclude" else rules)
        return cls(tuple(stack)), refused

    def below(self, directory: str, names: set[str]) -> tuple[Ignore, Refusal | None]:
        """The rules inside `directory`, whose entries are `names`; and its .gitignore when it
        is there but not read."""
        if FILE not in names:
            return self, None
        try:
            rules = read(os.path.abspath(directory))
        except OSError as exc:
            return self, (os.path.join(directory, FILE), _reason(exc))
        return (self if rules is None else Ignore((rules, *self.stack))), None

    def __call__(self, path: str, is_dir: bool) -> bool:
        absolute = os.path.abspath(path)
        for rules in self.stack:
            decided = rules.decide(absolute, is_dir)
            if decided is not None:
                return decided
        return False


def _reason(exc: OSError) -> str:
    return f"{os_reason(exc)}: its ignore rules do not apply"


def repository_root(directory: str) -> str | None:
    """The nearest directory at or above `directory` that holds `.git` (a directory, or the
    file a worktree or submodule has), or None."""
    here = os.path.abspath(directory)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent
