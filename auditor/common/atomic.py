"""Outputs written whole or not at all: a report (`-o`) or a baseline (`--write-baseline`) is
written to a temporary file beside its target and renamed over it, so a full disk or a killed
run leaves the previous complete file, never a truncated one.

A target that exists and is not a regular file (`/dev/stdout`, a FIFO) is written in place:
renaming over it would replace the device, not write to it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from typing import IO, Any


@contextlib.contextmanager
def replaced(path: str, mode: str = "w") -> Iterator[IO[Any]]:
    """A file to write `path`'s new content to; it replaces `path` only when the block ends
    without an exception. Raises OSError as `open` does."""
    try:
        existing = os.stat(path)
    except FileNotFoundError:
        existing = None
    text = "b" not in mode
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        with open(path, mode, **_text(text)) as out:
            yield out
        return
    target = os.path.realpath(path)  # through a link: the file it names is replaced
    directory, name = os.path.split(target)
    fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory or ".")
    try:
        with os.fdopen(fd, mode, **_text(text)) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, _mode(existing))
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _text(text: bool) -> dict[str, Any]:
    return {"encoding": "utf-8", "newline": "\n"} if text else {}


def _mode(existing: os.stat_result | None) -> int:
    """The previous file's permissions, else what `open` would have given (0o666 less umask)."""
    if existing is not None:
        return stat.S_IMODE(existing.st_mode)
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
