"""Logs named by URL (`s3://bucket/logs/**/*.jsonl`, `gs://…`, `memory://…`), read through fsspec.

`auditor.sources` hands every path that looks like a URL to this module: `discover` turns it into
sources (a glob expanded by fsspec, a directory walked as a local one is), `open_binary` opens
one for reading, and the rest of `sources` reads it exactly as it reads a local file. So a
remote file keeps every record boundary guarantee of a local one: a line or document past
`max-record-mb` is IN001 without being held, a bad line is IN001 and reading goes on, `.gz` is
decompressed as it streams, an Inspect `.eval` is read member by member (the zip's directory
and each member fetched by range), and a JSON Lines file can be read by byte range (`Span`).
To cut a large one into spans, its newlines are counted stretch by stretch where it lies (on
the Dask workers, `cuts`), not by reading it whole here.

fsspec comes with the `dask` extra (`pip install 'transcript-auditor[dask]'`); the driver for a
store is the user's to install (`s3fs`, `gcsfs`, `adlfs`), with its credentials from the
environment as that driver reads them. Nothing here runs unless a URL is named: a run over
local paths never imports fsspec.

What goes wrong while a file is read (a server that stops answering, refuses a byte range)
is a `ReadError`, which `framing` reports as IN001 where reading stopped: the records before
stay read, and the other sources are still audited. Over HTTP(S), a server that sends nothing
for `read-timeout` seconds (`configure`) is given up on, and a redirect to another URL is
refused unless `--follow-links` allows it (the URL named is what the findings name).
`file://` URLs get the local walk's guards: devices and FIFOs are refused, and links out of
the directory named (or into /proc, /sys, /dev) are not followed.

Not supported: chained URLs (`simplecache::s3://…`) and per-URL storage options, a
`.gitignore` in a bucket (exclude globs do apply), and standard input is never remote.
"""

from __future__ import annotations

import contextlib
import errno
import io
import itertools
import os
import stat
from collections.abc import Callable, Iterator
from typing import Any

from auditor import DISTRIBUTION
from auditor.sources.events import EVENT_FILE
from auditor.sources.files import in_system, inside, special
from auditor.sources.kinds import (
    PACKAGE_DIRECTORIES,
    Excluded,
    Found,
    Linked,
    PathError,
    ReadError,
    Skipped,
    Source,
    kind_of,
    walked_kind,
)

Exclude = Callable[[str], bool]
"""Whether a path is left out (`auditor.sources.walk.Exclude`)."""

INSTALL = f"pip install '{DISTRIBUTION}[dask]'"
BLOCK = 2 * 1024 * 1024
"""Bytes fsspec fetches per request while a file is read: enough to stream faster than one
core audits (≈10 MB/s), and little to read the first line of a span or a small member of an
archive (s3fs's default, 50 MiB, would fetch that much for it)."""
_BUFFER = 64 * 1024
_SCAN = 16 * 1024 * 1024
"""Bytes read at once when only newlines are counted."""
_MAGIC = frozenset("*?[")
READ_TIMEOUT = 60.0
"""Seconds an HTTP(S) server may stay silent (connecting, or mid-file) before it is given up
on (`read-timeout`); aiohttp's own default waits five minutes for a whole request."""
_read_timeout = READ_TIMEOUT
_follow = False


def configure(read_timeout: float, follow: bool) -> None:
    """How this process reads URLs: the settings' `read-timeout`, and whether redirects to
    another URL are followed (`--follow-links`). Called where sources are discovered or
    audited (here, in a worker, on a Dask worker), as the settings reach each."""
    global _read_timeout, _follow
    _read_timeout, _follow = read_timeout, follow


def discover(url: str, exclude: Exclude) -> Iterator[Found]:
    """The sources a URL names: a file, the files a glob matches, or a directory's files
    (walked as `walk.discover` walks one: sorted, hidden names and package directories
    left out, files whose name promises no log reported as Skipped)."""
    if exclude(url):
        yield Excluded(url)
        return
    try:
        fs, root = _filesystem(url)
        if _MAGIC.intersection(root):
            found = fs.glob(root, detail=True)
            if not found:
                yield PathError(url, "no file matches this pattern")
                return
            for name, info in sorted(found.items(), key=lambda item: _order(item[0])):
                if info.get("type") == "directory":
                    yield from _walk(fs, name, exclude)
                else:
                    yield _source(fs.unstrip_protocol(name), info, explicit=True)
            return
        info = fs.info(root)
    except Exception as exc:  # a driver's own errors too: one line for this path, not the run
        yield PathError(url, reason(exc))
        return
    refused = _refused(fs, root, info, None)
    if refused is not None:
        yield PathError(url, refused)
    elif info.get("type") == "directory":
        yield from _walk(fs, root, exclude)
    else:
        yield _source(url, info, explicit=True)


def _local(fs: Any) -> bool:
    protocol = fs.protocol
    return "file" in (protocol if isinstance(protocol, tuple | list) else (protocol,))


def _refused(fs: Any, name: str, info: dict[str, Any], root: str | None) -> str | None:
    """Why a `file://` path is not read, as the local walk refuses them: a device, a FIFO, a
    link into /proc, /sys or /dev; in a walk below `root`, a link out of it (`"link"`: not
    followed without `--follow-links`) or to a directory (fsspec's walk does not enter one).
    None to read it."""
    if not _local(fs):
        return None
    real = os.path.realpath(name)
    linked = os.path.islink(name) or real != os.path.abspath(name)
    if in_system(real) and linked:
        return "link" if root is not None else f"is a link to {real}: not read"
    try:
        mode = os.stat(real).st_mode
    except OSError as exc:
        return (exc.strerror or str(exc)).lower()
    if root is not None and os.path.islink(name):
        out = not _follow and not inside(real, os.path.realpath(root))
        if out or stat.S_ISDIR(mode):
            return "link"
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return f"is {special(mode)}, not a file"
    return None


def _walk(fs: Any, root: str, exclude: Exclude) -> Iterator[Found]:
    try:
        found = fs.find(root, detail=True)
    except Exception as exc:
        yield PathError(fs.unstrip_protocol(root), reason(exc))
        return
    base = root.rstrip("/") + "/"
    folders: set[str] = set()  # folders of event files, each one source (`sources.events`)
    for name, info in sorted(found.items(), key=lambda item: _order(item[0])):
        parts = name[len(base) :].split("/") if name.startswith(base) else [name]
        if any(p.startswith(".") or p in PACKAGE_DIRECTORIES for p in parts):
            continue
        url = fs.unstrip_protocol(name)
        refused = _refused(fs, name, info, root)
        folder, _, leaf = name.rpartition("/")
        if refused is None and EVENT_FILE.fullmatch(leaf):
            if folder not in folders and not exclude(fs.unstrip_protocol(folder)):
                folders.add(folder)
                yield Source(fs.unstrip_protocol(folder), "events", False, False)
            continue
        if exclude(url):
            yield Excluded(url)
        elif refused is not None:
            yield Linked(url) if refused == "link" else PathError(url, refused)
        elif walked_kind(name) is None:
            yield Skipped(url)
        else:
            yield _source(url, info, explicit=False)


def _order(name: str) -> list[str]:
    """The order a local walk gives: a directory's entries by name, `a/x` before `a.jsonl`."""
    return name.split("/")


def _source(url: str, info: dict[str, Any], explicit: bool) -> Source:
    kind, compressed = kind_of(url)
    size = info.get("size")
    return Source(url, kind, compressed, explicit, size=size if size else None)


def open_binary(url: str) -> io.BufferedReader:
    """The file at `url`, buffered (so it can be peeked at and read line by line). Raises
    OSError, with a reason a person can read, when it cannot be opened."""
    try:
        fs, path = _filesystem(url)
        raw = fs.open(path, "rb", block_size=BLOCK)
    except OSError as exc:
        raise _os_error(exc) from exc
    except Exception as exc:
        raise OSError(errno.EIO, reason(exc)) from exc
    return io.BufferedReader(_Guarded(raw), buffer_size=_BUFFER)


class _Guarded(io.RawIOBase):
    """A driver's file whose every failure while reading is a ReadError with a reason a person
    can read (fsspec raises ValueError for a server without byte ranges, aiohttp its own
    errors for a stalled or redirecting server): a source's IN001, never the run's crash."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self.raw.read(len(buffer))
        except Exception as exc:
            raise ReadError(errno.EIO, reason(exc)) from exc
        buffer[: len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        try:
            return int(self.raw.seek(offset, whence))
        except Exception as exc:
            raise ReadError(errno.EIO, reason(exc)) from exc

    def tell(self) -> int:
        return int(self.raw.tell())

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.raw.close()
        super().close()


def names(url: str) -> list[str]:
    """The names of the files in the folder at `url`. Raises OSError."""
    try:
        fs, path = _filesystem(url)
        return [entry.rstrip("/").rsplit("/", 1)[-1] for entry in fs.ls(path, detail=False)]
    except OSError as exc:
        raise _os_error(exc) from exc
    except Exception as exc:
        raise OSError(errno.EIO, reason(exc)) from exc


def size(url: str) -> int:
    """Bytes of the file at `url`. Raises OSError."""
    try:
        fs, path = _filesystem(url)
        return int(fs.size(path))
    except OSError as exc:
        raise _os_error(exc) from exc
    except Exception as exc:
        raise OSError(errno.EIO, reason(exc)) from exc


Map = Callable[[Callable[..., Any], list[tuple[Any, ...]]], list[Any]]
"""Calls a function on each tuple of arguments, somewhere, and returns the results in order."""
_map: Map | None = None


@contextlib.contextmanager
def counting_with(map_: Map) -> Iterator[None]:
    """While it lasts, `cuts` counts newlines with `map_` (`engine.dask`: on the Dask workers)."""
    global _map
    previous, _map = _map, map_
    try:
        yield
    finally:
        _map = previous


def cuts(url: str, targets: list[int], size: int) -> list[tuple[int, int]] | None:
    """`spans.cuts` for the file at `url`: where each span starts, and its first line's
    number. With a map given (`counting_with`), the stretches between two targets are read
    where the file lies, one task each, so that this process does not read the whole file
    just to number its lines; else None: the caller reads the file itself."""
    if _map is None:
        return None
    bounds = [0, *targets, size]
    counted = _map(count_newlines, [(url, a, b) for a, b in itertools.pairwise(bounds)])
    return joined(counted)


def count_newlines(url: str, start: int, end: int) -> tuple[int, int | None]:
    """The newlines in bytes `start` to `end` of the file, and the offset of the first."""
    count, first = 0, None
    with open_binary(url) as fp:
        fp.seek(start)
        position = start
        while position < end:
            chunk = fp.read(min(_SCAN, end - position))
            if not chunk:
                break
            if first is None and (at := chunk.find(b"\n")) >= 0:
                first = position + at
            count += chunk.count(b"\n")
            position += len(chunk)
    return count, first


def joined(counted: list[tuple[int, int | None]]) -> list[tuple[int, int]]:
    """The cuts `spans.cuts` finds, from what `count_newlines` says of each stretch: a
    stretch starts at a target, and its first newline ends the line that target falls in
    (or, with none, a later stretch's first newline does)."""
    found = [(0, 1)]
    before = 0  # newlines ahead of the stretch
    waiting = False  # a target with no newline at or after it yet
    for k, (count, first) in enumerate(counted):
        waiting = waiting or k > 0
        if waiting and first is not None:
            found.append((first + 1, before + 2))  # line 1 + the newlines up to the cut
            waiting = False
        before += count
    return found


def reason(exc: BaseException) -> str:
    """Why a URL cannot be read, in one line."""
    cause = _cause(exc)
    if type(cause).__name__ == "TooManyRedirects":  # aiohttp's, with redirects refused
        history = getattr(cause, "history", ()) or ()
        target = "another URL"
        if history:
            from urllib.parse import urljoin

            target = urljoin(str(history[-1].url), history[-1].headers.get("Location", ""))
        return f"redirects to {target}: not followed (--follow-links follows redirects)"
    if isinstance(cause, TimeoutError):  # asyncio's and aiohttp's are TimeoutErrors too
        return (
            f"the server sent nothing for {_read_timeout:g} s: given up "
            "(`read-timeout` in the configuration sets the wait)"
        )
    if isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] == "fsspec":
        return f"reading URLs needs fsspec: {INSTALL}"
    if isinstance(exc, ImportError):  # fsspec's own word: "Install s3fs to access S3"
        return f"{str(exc).rstrip('.')} (`pip install` it beside auditor)"
    if isinstance(exc, FileNotFoundError):
        return "no such file or directory"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    said = str(exc).strip().split("\n", 1)[0]
    if said.startswith("The HTTP server doesn't appear to support range requests"):
        return "the HTTP server does not support byte ranges, which reading a large file needs"
    return said or type(exc).__name__  # a bare asyncio error has no words of its own


def _cause(exc: BaseException) -> BaseException:
    """A refused redirect or a timeout inside what fsspec raised for it (`FileNotFoundError`
    from `info`), else `exc` itself."""
    seen: BaseException | None = exc
    for _ in range(8):  # a bounded walk down the chain
        if seen is None:
            break
        if type(seen).__name__ == "TooManyRedirects" or isinstance(seen, TimeoutError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return exc


def _os_error(exc: OSError) -> OSError:
    """fsspec's FileNotFoundError(path) carries no strerror: give it one."""
    if exc.strerror and _cause(exc) is exc:
        return exc
    return type(exc)(exc.errno or errno.EIO, reason(exc))


def _filesystem(url: str) -> tuple[Any, str]:
    from fsspec.core import url_to_fs  # only a run that names a URL pays for it

    return url_to_fs(url, **_options(url))


def _options(url: str) -> dict[str, Any]:
    """HTTP(S): aiohttp waits `read-timeout` for each connection and each read (not for the
    whole file), and refuses any redirect unless `--follow-links`."""
    if not url.lower().startswith(("http://", "https://")):
        return {}
    try:
        import aiohttp
    except ImportError:
        return {}  # fsspec says what to install
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=_read_timeout, sock_read=_read_timeout)
    options: dict[str, Any] = {"client_kwargs": {"timeout": timeout}}
    if not _follow:
        options["max_redirects"] = 1  # raised at the first redirect (0 would be no limit)
    return options
