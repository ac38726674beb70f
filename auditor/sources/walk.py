"""Discovery: the paths a user names, walked into the sources to read (`discover`).

A directory is walked recursively in sorted order; what a walk leaves out (hidden directories,
installed software, `exclude` globs, `.gitignore`) is reported, never dropped silently, but for
version control, environments and caches (`TOOL_DIRECTORIES`) and hidden files that are no log
(`.gitignore`, `.env`). Files whose name promises nothing (`.log`, `.md`, no suffix) are sniffed
by their first bytes when read (`auditor.engine.source`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from auditor.sources.events import grouped
from auditor.sources.kinds import (
    ENVIRONMENT_MARKERS,
    PACKAGE_DIRECTORIES,
    TOOL_DIRECTORIES,
    Excluded,
    Found,
    Ignored,
    PathError,
    Skipped,
    Source,
    is_url,
    kind_of,
    os_reason,
    walked_kind,
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


def discover(
    paths: Iterable[str], exclude: Exclude | None = None, gitignore: bool = True
) -> Iterator[Found]:
    """Sources for the given paths, directories walked recursively in sorted order.

    A directory reached twice (through a symlink, or a symlink loop) is walked once. Hidden
    directories (`.git`, `.pr`), virtualenvs, conda environments and `node_modules` are not
    entered unless named, nor what a .gitignore lists (with `gitignore`; see
    `auditor.sources.gitignore`); a hidden file is read when its suffix names a log
    (`.aider.chat.history.md`). Paths that `exclude` matches, named or walked, are not read.
    A walked file whose name promises no log is reported as Skipped, and so is a hidden
    directory other than the tools' own (`TOOL_DIRECTORIES`).
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
        if stat.S_ISDIR(st.st_mode):
            ignore = Ignore.above(path) if gitignore else None
            yield from _walk(path, st, seen, exclude, ignore, named=True)
        elif not stat.S_ISREG(st.st_mode):
            # /dev/zero never ends and a FIFO may never open: only files and stdin are read.
            yield PathError(path, f"is {_special(st.st_mode)}, not a file (pipe it in: `audit -`)")
        else:
            kind, compressed = kind_of(path)
            yield Source(path, kind, compressed, True, size=st.st_size)


def _walk(
    directory: str,
    st: os.stat_result,
    seen: set[tuple[int, int]],
    exclude: Exclude,
    ignore: Ignore | None,
    named: bool = False,
) -> Iterator[Found]:
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
        ignore = ignore.below(directory, names)
    events = set(grouped(names))  # one conversation, an event a file: one source
    first = min(events, default=None)
    for entry in entries:
        if entry.name in events:
            if entry.name == first:  # the folder, where its first event file sorts
                size = sum(e.stat().st_size for e in entries if e.name in events)
                yield Source(directory, "events", False, named, size=size)
            continue
        hidden = entry.name.startswith(".")
        if hidden and entry.name in TOOL_DIRECTORIES:
            continue
        path = os.path.join(directory, entry.name)
        try:
            entry_stat = entry.stat()  # follows symlinks; a dangling link raises
            is_dir = stat.S_ISDIR(entry_stat.st_mode)
        except OSError:
            if entry.is_symlink():
                continue  # a dangling link inside a tree is not the user's input
            raise
        if not is_dir and not stat.S_ISREG(entry_stat.st_mode):
            continue  # sockets, FIFOs and devices found in a tree are nobody's logs
        if is_dir and entry.name in PACKAGE_DIRECTORIES:
            continue
        if ignore is not None and ignore(path, is_dir):
            yield Ignored(path)
        elif exclude(path):
            yield Excluded(path)
        elif is_dir and hidden:
            yield Skipped(path, "hidden")
        elif is_dir:
            yield from _walk(path, entry_stat, seen, exclude, ignore)
        elif (found := walked_kind(entry.name)) is not None:
            yield Source(path, *found, False, size=entry_stat.st_size)
        elif not hidden:
            yield Skipped(path)


def _special(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"
