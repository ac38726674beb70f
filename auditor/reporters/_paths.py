"""Paths as the CI formats write them: relative to the repository's root, with `/`."""

from __future__ import annotations

import os

from auditor.sources import STDIN


def below(path: str, root: str | None) -> str | None:
    """`path` relative to `root`, with `/`; None when it lies outside (`../…`)."""
    base = os.path.abspath(root or os.getcwd())
    relative = os.path.relpath(os.path.abspath(path), base)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return None
    return relative.replace(os.sep, "/")


def repository_path(path: str, root: str | None) -> str:
    """`path` relative to `root` (the repository's root, else the working directory) with
    `/`; a path outside it, as given."""
    if path == STDIN:
        return path
    relative = below(path, root)
    return relative if relative is not None else os.path.normpath(path).replace(os.sep, "/")
