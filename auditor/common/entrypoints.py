"""Entry points of installed packages (plugins), looked for without importing
`importlib.metadata` where no installed package can declare any: it costs a sixth of a run's
start, and most installs have no plugin.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Any


def may_declare(group: str) -> bool:
    """Whether an installed package may declare entry points of `group`, looked for as
    importlib.metadata finds them (the `entry_points.txt` of each `*.dist-info` or `*.egg-info`
    folder on sys.path) without importing it. A zip or an egg on sys.path, or a finder of
    distributions besides the standard one, may: importlib decides."""
    return _scan(tuple(sys.path), tuple(map(id, sys.meta_path)))(group)


@functools.lru_cache(maxsize=4)
def _scan(path: tuple[str, ...], finders: tuple[int, ...]) -> Any:
    """The groups the installed packages' `entry_points.txt` name, read once for a `sys.path`:
    a function of a group, true when some file names it (or importlib must decide)."""
    from importlib.machinery import PathFinder

    if any(
        getattr(finder, "find_distributions", None) is not None and finder is not PathFinder
        for finder in sys.meta_path
    ):
        return lambda group: True
    texts: list[bytes] = []
    for entry in path:
        try:
            names = os.listdir(entry or ".")
        except NotADirectoryError:
            return lambda group: True  # a zip file
        except OSError:
            continue
        if entry.endswith(".egg"):
            return lambda group: True
        for name in names:
            if name.lower().endswith((".dist-info", ".egg-info")):
                try:
                    with open(os.path.join(entry or ".", name, "entry_points.txt"), "rb") as f:
                        texts.append(f.read())
                except OSError:
                    continue
    every = b"\n".join(texts)
    return lambda group: group.encode() in every


def points(group: str) -> list[Any]:
    """The entry points of `group` (none, and no import, where none can be declared)."""
    if not may_declare(group):
        return []
    from importlib.metadata import entry_points

    return list(entry_points(group=group))
