"""Regular files only: the check every file `audit` opens by name passes, logs and the rest
(configuration, baseline, `--tools`, `.gitignore`, a report to compare) alike.

`/dev/zero` never ends, a FIFO may never open, and a link into `/proc` hands over a process's
secrets (`/proc/self/environ`): each is refused with a reason a person can act on, and what is
read is bounded. A leaf: it imports nothing of auditor.
"""

from __future__ import annotations

import errno
import os
import stat

SYSTEM_ROOTS = ("/proc", "/sys", "/dev")
"""Where no log lies: a file below them is never read through a link."""


def special(mode: int) -> str:
    """What a path that is not a regular file is, for a message: `a FIFO`, `a device`."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


def in_system(real: str) -> bool:
    """The resolved path lies in /proc, /sys or /dev."""
    return any(real == root or real.startswith(root + os.sep) for root in SYSTEM_ROOTS)


def inside(real: str, root: str) -> bool:
    """The resolved path `real` is `root` or lies below it (both resolved)."""
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


class Refused(OSError):
    """A file that is not read: not a regular file, in /proc, or larger than its bound."""

    def __init__(self, reason: str) -> None:
        super().__init__(errno.EINVAL, reason)


def read_regular(path: str | os.PathLike[str], limit: int, follow: bool = True) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them. Raises OSError (its
    `strerror` a reason) when it cannot be opened, is not a regular file (a FIFO, a device,
    a directory), resolves into /proc, /sys or /dev, or holds more than `limit` bytes; with
    `follow` False, also when it is a symbolic link (as git reads `.gitignore`)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)  # a FIFO opens at once
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise Refused("is a symbolic link: not followed") from exc
        raise
    with os.fdopen(fd, "rb", buffering=0) as fp:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused(f"is {special(st.st_mode)}, not a file")
        if in_system(os.path.realpath(path)):
            raise Refused("lies in /proc, /sys or /dev: not read")
        if st.st_size > limit:
            raise Refused(f"is larger than {_size(limit)}: not read")
        os.set_blocking(fd, True)
        chunks, size = [], 0
        while chunk := fp.read(min(_CHUNK, limit + 1 - size)):  # the file may grow meanwhile
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise Refused(f"is larger than {_size(limit)}: not read")
    return b"".join(chunks)


_CHUNK = 1 << 20


def _size(limit: int) -> str:
    if limit >= 1 << 20:
        return f"{limit >> 20} MiB"
    return f"{limit >> 10} KiB" if limit >= 1 << 10 else f"{limit:,} bytes"
