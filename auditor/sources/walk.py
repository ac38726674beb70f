"""Discovery: the paths a user names, walked into the sources to read (`discover`).

A directory is walked recursively in sorted order; what a walk leaves out (hidden names,
installed software, `exclude` globs, `.gitignore`) is reported, never dropped silently.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from auditor.sources.files import in_system, inside, special
from auditor.sources.kinds import (
    ENVIRONMENT_MARKERS,
    PACKAGE_DIRECTORIES,
    Excluded,
    Found,
    Ignored,
    Linked,
    PathError,
    Skipped,
    Source,
    is_url,
    kind_of,
    os_reason,
)

if TYPE_CHECKING:
    from auditor.sources.gitignore import Ignore


class Exclude:
    """The `exclude` globs of a configuration, matched as ruff matches its own.

    A glob without `/` (`*.tmp.jsonl`, `archive`) matches a file or directory of that name at
    any depth; a glob with `/` (`logs/archive/**`, `logs/*.json`) matches the path relative to
    `root`, the directory of the configuration file (paths outside it are matched as given).
    A directory that matches is not entered. `*` also crosses `/`, as in fnmatch; a leading
    `**/` may match nothing. `extend` adds globs relative to another root (`--exclude`, to
    the working directory).
    """

    def __init__(self, patterns: Iterable[str], root: str = ".") -> None:
        self.groups: list[tuple[str, list[str], list[str]]] = []
        self.extend(patterns, root)

    def extend(self, patterns: Iterable[str], root: str) -> Exclude:
        names: list[str] = []
        paths: list[str] = []
        for pattern in patterns:
            pattern = pattern.replace(os.sep, "/").removeprefix("./").rstrip("/")
            if not pattern:
                continue
            if "/" in pattern:
                paths.append(pattern)
                if pattern.startswith("**/"):
                    paths.append(pattern[3:])
                if pattern.endswith("/**"):
                    paths.append(pattern[:-3])  # the directory itself: not even entered
            else:
                names.append(pattern)
        if names or paths:
            self.groups.append((os.path.abspath(root), names, paths))
        return self

    def __bool__(self) -> bool:
        return bool(self.groups)

    def __call__(self, path: str) -> bool:
        if path == "-" or not self:
            return False
        return any(_excluded(path, *group) for group in self.groups)


def _excluded(path: str, root: str, names: list[str], paths: list[str]) -> bool:
    relative = os.path.relpath(os.path.abspath(path), root)
    if relative == ".." or relative.startswith(".." + os.sep):
        relative = os.path.normpath(path)
    parts = [p for p in relative.replace(os.sep, "/").split("/") if p not in ("", ".")]
    if any(fnmatchcase(part, name) for part in parts for name in names):
        return True
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    return any(fnmatchcase(p, glob) for p in prefixes for glob in paths)


def _walkable(name: str) -> bool:
    return kind_of(name)[0] != "sniff"


def discover(
    paths: Iterable[str],
    exclude: Exclude | None = None,
    gitignore: bool = True,
    follow_links: bool = False,
) -> Iterator[Found]:
    """Sources for the given paths, directories walked recursively in sorted order.

    A directory reached twice (through a symlink, or a symlink loop) is walked once. Hidden
    files and directories (`.git`, `.venv`), virtualenvs, conda environments and
    `node_modules` are not entered unless named, nor what a .gitignore lists (with
    `gitignore`; see `auditor.sources.gitignore`). Paths that `exclude` matches, named or
    walked, are not read. A walked file whose name promises no log is reported as Skipped.
    A symbolic link met in a walk whose target lies outside the directory named is Linked,
    not followed, unless `follow_links`; one into /proc, /sys or /dev is never followed.
    """
    from auditor.sources.gitignore import Ignore

    seen: set[tuple[int, int]] = set()
    exclude = exclude or Exclude(())
    for path in paths:
        if path == "-":
            yield Source("-", "sniff", False, True)
            continue
        if is_url(path):  # `s3://…`, `memory://…`: read through fsspec
            from auditor.sources import remote

            yield from remote.discover(path, exclude)
            continue
        if exclude(path):
            yield Excluded(path)
            continue
        try:
            st = os.stat(path)
        except OSError as exc:
            yield PathError(path, os_reason(exc))
            continue
        real = os.path.realpath(path)
        if in_system(real) and real != os.path.abspath(path):
            yield PathError(path, f"is a link to {real}: not read")
        elif stat.S_ISDIR(st.st_mode):
            ignore = None
            if gitignore:
                ignore, refused = Ignore.above(path)
                yield from (PathError(where, why) for where, why in refused)
            yield from _walk(path, st, seen, exclude, ignore, None if follow_links else real)
        elif not stat.S_ISREG(st.st_mode):
            # /dev/zero never ends and a FIFO may never open: only files and stdin are read.
            yield PathError(path, f"is {special(st.st_mode)}, not a file (pipe it in: `audit -`)")
        else:
            kind, compressed = kind_of(path)
            yield Source(path, kind, compressed, True, size=st.st_size)


Opened = tuple[str, Iterator[os.DirEntry[str]], "Ignore | None"]
"""A directory being walked: its path, its entries still to visit, the rules in force."""


def _walk(
    top: str,
    st: os.stat_result,
    seen: set[tuple[int, int]],
    exclude: Exclude,
    ignore: Ignore | None,
    root: str | None,
) -> Iterator[Found]:
    """The walk below `top`, depth first in name order, with a stack rather than recursion
    (a tree may be deeper than Python's recursion limit). `root` is where links may lead,
    None to follow every link but those into /proc, /sys and /dev."""
    stack: list[Opened] = []
    yield from _enter(stack, top, st, seen, ignore, named=True)
    while stack:
        directory, entries, ignore = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            continue
        if entry.name.startswith("."):
            continue
        path = os.path.join(directory, entry.name)
        try:
            entry_stat = entry.stat()  # follows symlinks; a dangling link raises
        except OSError as exc:
            if not entry.is_symlink():  # a dangling link inside a tree is not the user's input
                yield PathError(path, os_reason(exc))  # no search permission, ENAMETOOLONG
            continue
        is_dir = stat.S_ISDIR(entry_stat.st_mode)
        if not is_dir and not stat.S_ISREG(entry_stat.st_mode):
            continue  # sockets, FIFOs and devices found in a tree are nobody's logs
        if is_dir and entry.name in PACKAGE_DIRECTORIES:
            continue
        if ignore is not None and ignore(path, is_dir):
            yield Ignored(path)
        elif exclude(path):
            yield Excluded(path)
        elif entry.is_symlink() and _leads_out(path, root):
            yield Linked(path)
        elif is_dir:
            yield from _enter(stack, path, entry_stat, seen, ignore)
        elif _walkable(entry.name):
            kind, compressed = kind_of(entry.name)
            yield Source(path, kind, compressed, False, size=entry_stat.st_size)
        else:
            yield Skipped(path)


def _enter(
    stack: list[Opened],
    directory: str,
    st: os.stat_result,
    seen: set[tuple[int, int]],
    ignore: Ignore | None,
    named: bool = False,
) -> Iterator[Found]:
    """Push `directory` on the walk's stack, unless it was walked already or holds installed
    software; what cannot be read of it is a PathError."""
    if (st.st_dev, st.st_ino) in seen:
        return
    seen.add((st.st_dev, st.st_ino))
    try:
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        yield PathError(directory, os_reason(exc))
        return
    names = {entry.name for entry in entries}
    if not named and names & ENVIRONMENT_MARKERS:
        return
    if ignore is not None:
        ignore, refused = ignore.below(directory, names)
        if refused is not None:
            yield PathError(*refused)
    stack.append((directory, iter(entries), ignore))


def _leads_out(path: str, root: str | None) -> bool:
    """The link at `path` leads into /proc, /sys or /dev, or (with a `root`) out of it."""
    real = os.path.realpath(path)
    return in_system(real) or (root is not None and not inside(real, root))
