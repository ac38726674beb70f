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
from dataclasses import dataclass

FILE = ".gitignore"


@dataclass(frozen=True, slots=True)
class Pattern:
    """One line of a .gitignore."""

    regex: re.Pattern[str]
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
        regex = re.compile(_translate(line), re.DOTALL)
    except re.error:
        return None  # git ignores a pattern it cannot read; so do we
    return Pattern(regex, negated, directories_only, anchored)


def _strip_trailing_spaces(line: str) -> str:
    """Trailing spaces go, unless escaped with a backslash (`foo\\ `)."""
    stripped = line.rstrip(" ")
    if stripped != line and stripped.endswith("\\") and not stripped.endswith("\\\\"):
        return stripped + " "
    return stripped


def _translate(pattern: str) -> str:
    """git's wildmatch (with WM_PATHNAME) as a regular expression matching the whole path."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            whole = (i == 0 or pattern[i - 1] == "/") and (j == n or pattern[j] == "/")
            if j - i >= 2 and whole:
                if j == n:
                    out.append(".*")  # `a/**`: everything inside a
                else:
                    out.append("(?:.*/)?")  # `**/a`, `a/**/b`: zero or more directories
                    j += 1
            else:
                out.append("[^/]*")
            i = j
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            i = _bracket(pattern, i, out)
        elif char == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(char))
            i += 1
    return "^" + "".join(out) + "$"


def _bracket(pattern: str, start: int, out: list[str]) -> int:
    """A `[…]` class (`[!…]` or `[^…]` negated, `]` first is literal); a `[` that never
    closes is a literal `[`. Returns where the class ends."""
    j = start + 1
    negated = j < len(pattern) and pattern[j] in "!^"
    if negated:
        j += 1
    first = j
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    if j >= len(pattern):
        out.append(re.escape("["))
        return start + 1
    members = []
    k = first
    while k < j:
        char = pattern[k]
        if char == "\\" and k + 1 < j:
            members.append(re.escape(pattern[k + 1]))
            k += 2
            continue
        members.append(char if char == "-" else re.escape(char))
        k += 1
    body = "".join(members)
    out.append(f"[^/{body}]" if negated else f"[{body}]")
    return j + 1


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
            if pattern.regex.match(relative if pattern.anchored else name):
                return not pattern.negated
        return None


def read(directory: str, name: str = FILE) -> Rules | None:
    """The rules of `directory/name`, or None when it does not exist or cannot be read."""
    try:
        with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as fp:
            patterns = parse(fp.read())
    except OSError:
        return None
    return Rules(directory, tuple(patterns)) if patterns else None


class Ignore:
    """The rules in force in one directory: its own .gitignore and those above it (within the
    repository), deepest first, then the repository's `.git/info/exclude`."""

    def __init__(self, stack: tuple[Rules, ...] = ()) -> None:
        self.stack = stack
        """Deepest first."""

    @classmethod
    def above(cls, directory: str) -> Ignore:
        """The rules a walk that starts at `directory` inherits: the .gitignore files from the
        root of its git repository down to the directory's parent, and `info/exclude`.
        Outside a repository, none (the directory's own .gitignore is read by `below`)."""
        start = os.path.abspath(directory)
        root = repository_root(start)
        if root is None:
            return cls()
        chain = []
        here = start
        while here != root:
            here = os.path.dirname(here)
            chain.append(here)
        stack = [rules for rules in map(read, chain) if rules is not None]
        exclude = read(os.path.join(root, ".git", "info"), "exclude")
        if exclude is not None:
            stack.append(Rules(root, exclude.patterns))
        return cls(tuple(stack))

    def below(self, directory: str, names: set[str]) -> Ignore:
        """The rules inside `directory`, whose entries are `names`."""
        if FILE not in names:
            return self
        rules = read(os.path.abspath(directory))
        return self if rules is None else Ignore((rules, *self.stack))

    def __call__(self, path: str, is_dir: bool) -> bool:
        absolute = os.path.abspath(path)
        for rules in self.stack:
            decided = rules.decide(absolute, is_dir)
            if decided is not None:
                return decided
        return False


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
