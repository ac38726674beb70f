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
from auditor.sources.files import in_system, inside, special
from auditor.sources.kinds import (
    ENVIRONMENT_MARKERS,
    PACKAGE_DIRECTORIES,
    TOOL_DIRECTORIES,
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


def walked_file(path: str, size: int | None = None) -> Source | Skipped:
    """What a walk makes of a file it reaches (and `--force-exclude` of a file named on the
    command line): a Source to read, not `explicit`, or Skipped when its name promises no log.
    The one place that decides which files a walk audits, so that the pre-commit hook
    follows it."""
    found = walked_kind(os.path.basename(path))
    if found is None:
        return Skipped(path)
    return Source(path, *found, False, size=size)


class _Hidden:
    """Why a walk from the working directory (or from the root, for an absolute path) would
    never reach a file, or None: a hidden directory or installed software on its way
    (Skipped), or a .gitignore that lists it or a directory above it (Ignored, with
    `gitignore`)."""

    def __init__(self, gitignore: bool) -> None:
        self.gitignore = gitignore
        self.environments: dict[str, bool] = {}
        self.ignores: dict[str, Ignore] = {}

    def __call__(self, path: str) -> Skipped | Ignored | None:
        parts = os.path.normpath(path).split(os.sep)[:-1]
        for part in parts:
            if (part.startswith(".") and part not in (".", "..")) or part in PACKAGE_DIRECTORIES:
                return Skipped(path)
        directory = os.path.dirname(os.path.abspath(path))
        if self._environment(directory):
            return Skipped(path)
        if self.gitignore and self._ignored(path, directory):
            return Ignored(path)
        return None

    def _environment(self, directory: str) -> bool:
        """A virtualenv or conda environment at or above `directory`."""
        if directory not in self.environments:
            parent = os.path.dirname(directory)
            marked = any(os.path.exists(os.path.join(directory, m)) for m in ENVIRONMENT_MARKERS)
            self.environments[directory] = marked or (
                parent != directory and self._environment(parent)
            )
        return self.environments[directory]

    def _ignored(self, path: str, directory: str) -> bool:
        from auditor.sources.gitignore import Ignore, repository_root

        if directory not in self.ignores:
            names = (
                {".gitignore"} if os.path.exists(os.path.join(directory, ".gitignore")) else set()
            )
            above, _ = Ignore.above(directory)
            self.ignores[directory], _ = above.below(directory, names)
        ignore = self.ignores[directory]
        root = repository_root(directory)
        if ignore(path, False):
            return True
        here = directory
        while root is not None and here != root and len(here) > len(root):
            if ignore(here, True):
                return True
            here = os.path.dirname(here)
        return False


def discover(
    paths: Iterable[str],
    exclude: Exclude | None = None,
    gitignore: bool = True,
    force_exclude: bool = False,
    follow_links: bool = False,
) -> Iterator[Found]:
    """Sources for the given paths, directories walked recursively in sorted order.

    A directory reached twice (through a symlink, or a symlink loop) is walked once. Hidden
    directories (`.git`, `.pr`), virtualenvs, conda environments and `node_modules` are not
    entered unless named, nor what a .gitignore lists (with `gitignore`; see
    `auditor.sources.gitignore`); a hidden file is read when its suffix names a log
    (`.aider.chat.history.md`). Paths that `exclude` matches, named or walked, are not read.
    A walked file whose name promises no log is reported as Skipped, and so is a hidden
    directory other than the tools' own (`TOOL_DIRECTORIES`).

    With `force_exclude` (`--force-exclude`, which the pre-commit hook passes), a file named
    on the command line is taken as a walk would take it: read only when a walk of the
    directories above it would read it (`walked_file`), and then as a walked file
    (`Source.explicit` False: judged by its content, skipped when it holds no log).

    A symbolic link met in a walk whose target lies outside the directory named is Linked,
    not followed, unless `follow_links`; one into /proc, /sys or /dev is never followed.
    """
    seen: set[tuple[int, int]] = set()
    exclude = exclude or Exclude(())
    hidden = _Hidden(gitignore)
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
                from auditor.sources.gitignore import Ignore  # here: a named file needs none

                ignore, refused = Ignore.above(path)
                yield from (PathError(where, why) for where, why in refused)
            yield from _walk(path, st, seen, exclude, ignore, None if follow_links else real)
        elif not stat.S_ISREG(st.st_mode):
            # /dev/zero never ends and a FIFO may never open: only files and stdin are read.
            yield PathError(path, f"is {special(st.st_mode)}, not a file (pipe it in: `audit -`)")
        elif force_exclude:
            yield hidden(path) or walked_file(path, st.st_size)
        else:
            kind, compressed = kind_of(path)
            yield Source(path, kind, compressed, True, size=st.st_size)


Opened = tuple[str, Iterator[os.DirEntry[str]], "Ignore | None", "_Folder | None"]
"""A directory being walked: its path, its entries still to visit, the rules in force, and
the conversation its event files make, if they make one."""
_Folder = tuple[frozenset[str], str, Source]
"""The names of a directory's event files, the first of them, and the one source they make."""


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
        directory, entries, ignore, folder = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
        elif folder is not None and entry.name in folder[0]:
            if entry.name == folder[1]:  # the folder, where its first event file sorts
                yield folder[2]
        else:
            yield from _visit(stack, directory, entry, seen, exclude, ignore, root)


def _visit(
    stack: list[Opened],
    directory: str,
    entry: os.DirEntry[str],
    seen: set[tuple[int, int]],
    exclude: Exclude,
    ignore: Ignore | None,
    root: str | None,
) -> Iterator[Found]:
    """What one entry of a directory being walked is: a source, a directory pushed on the
    stack, or why it is not read."""
    hidden = entry.name.startswith(".")
    if hidden and entry.name in TOOL_DIRECTORIES:
        return
    path = os.path.join(directory, entry.name)
    try:
        entry_stat = entry.stat()  # follows symlinks; a dangling link raises
    except OSError as exc:
        if not entry.is_symlink():  # a dangling link inside a tree is not the user's input
            yield PathError(path, os_reason(exc))  # no search permission, ENAMETOOLONG
        return
    is_dir = stat.S_ISDIR(entry_stat.st_mode)
    if not is_dir and not stat.S_ISREG(entry_stat.st_mode):
        return  # sockets, FIFOs and devices found in a tree are nobody's logs
    if is_dir and entry.name in PACKAGE_DIRECTORIES:
        return
    if ignore is not None and ignore(path, is_dir):
        yield Ignored(path)
    elif exclude(path):
        yield Excluded(path)
    elif entry.is_symlink() and _leads_out(path, root):
        yield Linked(path)
    elif is_dir and hidden:
        yield Skipped(path, "hidden")
    elif is_dir:
        yield from _enter(stack, path, entry_stat, seen, ignore)
    elif (found := walked_kind(entry.name)) is not None:
        yield Source(path, *found, False, size=entry_stat.st_size)
    elif not hidden:
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
    software; what cannot be read of it is a PathError. The event files of one conversation
    in it (`auditor.sources.events`) are one source, yielded where the first of them sorts."""
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
    events = frozenset(grouped(names))  # one conversation, an event a file: one source
    folder = None
    if events:
        # not through links: a dangling one, or a loop, is reported when the folder is read
        size = sum(e.stat(follow_symlinks=False).st_size for e in entries if e.name in events)
        folder = (events, min(events), Source(directory, "events", False, named, size=size))
    stack.append((directory, iter(entries), ignore, folder))


def _leads_out(path: str, root: str | None) -> bool:
    """The link at `path` leads into /proc, /sys or /dev, or (with a `root`) out of it."""
    real = os.path.realpath(path)
    return in_system(real) or (root is not None and not inside(real, root))
