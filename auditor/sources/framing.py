"""Framing: the bytes of one source cut into records, one JSON value (or text) each, with where
it came from (`read`); a large JSON Lines file cut into spans of whole lines for `--jobs`.

Everything is read in binary: one bad UTF-8 byte costs one record, not the file, and a stray
`\\r` cannot shift the line numbers after it.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import IO, cast

import orjson

from auditor.common.patterns import lazy
from auditor.common.text import cut
from auditor.model import Location
from auditor.sources.events import grouped
from auditor.sources.files import read_regular
from auditor.sources.kinds import (
    BINARY_HEAD,
    HEAD_BYTES,
    MAX_RECORD_BYTES,
    InvalidRecord,
    Kind,
    ReadError,
    Record,
    Source,
    Span,
    is_url,
    os_reason,
    why_not_a_log,
)

GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGIC = b"PK\x03\x04"
_BOM = b"\xef\xbb\xbf"
# What a broken or truncated .gz raises part-way through a read.
_STREAM_ERRORS = (OSError, EOFError, zlib.error)
_DRAIN = 1024 * 1024
_BUFFER = 1024 * 1024
"""Read buffer of a file: lines of several KB cost a system call each with the default 8 KB."""


def head(source: Source, size: int = HEAD_BYTES) -> bytes:
    """The first `size` bytes of a file (of a .gz, its content), without a BOM. Raises OSError."""
    with open_binary(source.path) as raw:
        start = raw.read(2)
        if source.compressed or start == GZIP_MAGIC:
            raw.seek(0)
            try:
                data = gzip.GzipFile(fileobj=raw, mode="rb").read(size)
            except _STREAM_ERRORS:
                return b""
        else:
            data = start + raw.read(size - 2)
    return data.removeprefix(_BOM)


def opens_json(head: bytes) -> bool:
    """The first bytes open a JSON value (`{`, `[`), not a log line with a bracketed tag."""
    stripped = head.lstrip()
    if stripped[:1] not in (b"{", b"["):
        return False
    return _TAGGED_LINE.match(stripped.split(b"\n", 1)[0].strip()) is None


def open_binary(path: str) -> io.BufferedReader:
    """A file opened for reading in binary; a URL through fsspec, buffered like a local file."""
    if is_url(path):
        from auditor.sources import remote

        return remote.open_binary(path)
    # open() with a buffer size gives a BufferedReader, which typeshed types as BinaryIO
    return cast(io.BufferedReader, open(path, "rb", buffering=_BUFFER))


def getsize(path: str) -> int:
    """Bytes of a file, local or at a URL. Raises OSError."""
    if is_url(path):
        from auditor.sources import remote

        return remote.size(path)
    return os.path.getsize(path)


def read(
    source: Source,
    opened: Callable[[IO[bytes]], None] | None = None,
    limit: int = MAX_RECORD_BYTES,
) -> Iterator[Record | InvalidRecord]:
    """The records of one source, in order. Raises OSError only when it cannot be opened.

    `opened` is handed the raw file once it is open (the progress bar asks it how far it got).
    A line or document longer than `limit` bytes is an InvalidRecord, skipped without being
    held; reading goes on after it.
    """
    if source.span is not None:
        with open_binary(source.path) as raw:
            if opened is not None:
                opened(raw)
            lines = _span_lines(raw, source.span, limit)
            yield from read_lines(source.path, lines, source.span.first_line)
        return
    if source.kind == "events":
        yield from _read_events(source.path, limit)
        return
    if source.path == "-":
        yield from _read_stream(source, sys.stdin.buffer, source.kind, limit)
        return
    with open_binary(source.path) as raw:
        if opened is not None:
            opened(raw)
        if source.kind == "archive" or (source.kind == "sniff" and raw.peek(4)[:4] == _ZIP_MAGIC):
            yield from _read_archive(source.path, raw, limit)
            return
        yield from _read_stream(source, raw, source.kind, limit)


def _read_events(directory: str, limit: int) -> Iterator[Record | InvalidRecord]:
    """A folder of one event per file: each file's document, in event order."""
    url = is_url(directory)
    if url:
        from auditor.sources import remote

        listed = remote.names(directory)
    else:
        listed = os.listdir(directory)
    for name in grouped(listed):
        if url:
            path = f"{directory.rstrip('/')}/{name}"
            with open_binary(path) as fp:
                yield from _read_whole(path, fp, limit, parse_document)
            continue
        path = os.path.join(directory, name)
        # Each event file passes the check every file opened by name passes, and is never
        # followed through a link (OpenHands writes none): a FIFO named like one would hang
        # the run, a link to /proc/self/environ would put the environment in the report.
        try:
            data = read_regular(path, limit, follow=False)
        except OSError as exc:
            yield InvalidRecord(Location(path), f"event file not read: {os_reason(exc)}")
            continue
        yield from _read_whole(path, io.BytesIO(data), limit, parse_document)


def _read_archive(path: str, fp: IO[bytes], limit: int) -> Iterator[Record | InvalidRecord]:
    from auditor.sources.archives import read_eval  # zipfile only for the files that need it

    for location, value, reason in read_eval(path, fp, limit):
        if reason is None:
            yield Record(location, value)
        else:
            yield InvalidRecord(location, reason)


def read_only(source: Source, lines: list[int]) -> Iterator[Record | InvalidRecord]:
    """The records on the given lines (ascending) of an uncompressed JSON Lines file.

    For `--jobs`: a worker defers the lines it must not read alone, and the parent reads them
    here, once every span of the file is done.
    """
    wanted = iter(lines)
    target = next(wanted, None)
    with open_binary(source.path) as fp:
        for number, line in enumerate(fp, 1):
            if target is None:
                return
            if number != target:
                continue
            target = next(wanted, None)
            yield from read_lines(source.path, [line.removeprefix(_BOM)], number)


def _read_stream(
    source: Source, raw: IO[bytes], kind: Kind, limit: int
) -> Iterator[Record | InvalidRecord]:
    head = raw.peek(2)[:2] if hasattr(raw, "peek") else b""
    fp: IO[bytes] = raw
    if source.compressed or head == GZIP_MAGIC:
        fp = gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[assignment]
    try:
        why = peek_why_not_a_log(fp)
    except _STREAM_ERRORS as exc:  # a .gz that breaks off before its first bytes
        yield _corrupt(source.name, 1, exc)
        return
    if why is not None:
        yield InvalidRecord(Location(source.name, 1), why)
        return
    if kind == "sniff":
        yield from _read_sniffed(source.name, fp, limit)
    elif kind == "jsonl":
        yield from read_lines(source.name, bounded_lines(fp, limit))
    elif kind == "document":
        yield from _read_whole(source.name, fp, limit, parse_document)
    else:
        yield from _read_whole(source.name, fp, limit, _text)


def peek_why_not_a_log(fp: IO[bytes]) -> str | None:
    """Why a file is no log at all, from its first bytes (`kinds.why_not_a_log`), peeked at
    without being read, or None; raises."""
    return why_not_a_log(fp.peek(BINARY_HEAD)[:BINARY_HEAD])  # type: ignore[attr-defined]


class Overlong(bytes):
    """Stands for a line longer than the limit, which was skipped, not read."""

    size: int
    limit: int


def _overlong(size: int, limit: int) -> Overlong:
    marker = Overlong(b"\n")
    marker.size = size
    marker.limit = limit
    return marker


def bounded_lines(fp: IO[bytes], limit: int = MAX_RECORD_BYTES) -> Iterator[bytes]:
    """The lines of a binary file; one longer than `limit` is drained and given as Overlong."""
    while True:
        line = fp.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit or line.endswith(b"\n"):
            yield line
            continue
        yield _overlong(_drained(fp, len(line), line=True), limit)


def _drained(fp: IO[bytes], size: int, line: bool = False) -> int:
    """`size` plus the bytes left of the file (or, with `line`, of the current line), read and
    dropped in bounded chunks: what a record past the size limit measures, never held."""
    read = fp.readline if line else fp.read
    while chunk := read(_DRAIN):
        size += len(chunk)
        if line and chunk.endswith(b"\n"):
            break
    return size


def _span_lines(fp: IO[bytes], span: Span, limit: int) -> Iterator[bytes]:
    fp.seek(span.start)
    position = span.start
    for line in bounded_lines(fp, limit):
        if position >= span.end:
            return
        position += line.size if isinstance(line, Overlong) else len(line)
        yield line


def read_lines(
    path: str, lines: Iterable[bytes], first_line: int = 1
) -> Iterator[Record | InvalidRecord]:
    """JSON Lines: one record per non-blank line, each with its 1-based line number.

    Each line is handed to orjson as bytes first: the fast path for the well-formed lines that
    are nearly all of any log (decoding each one to a `str` and stripping it, as jsonlines
    does, costs more than parsing it). A line orjson rejects -- blank, invalid JSON or UTF-8,
    a record separator or BOM in front, whitespace JSON does not allow -- goes to jsonlines,
    which stays the library for what such a line is (`_rejected`). A stream that breaks off
    (a truncated .gz, a failed remote read) ends the records with one saying so: what was read
    before stays read.
    """
    number = first_line - 1
    loads = orjson.loads
    it = iter(lines)
    while True:
        try:
            line = next(it)
        except StopIteration:
            return
        except _STREAM_ERRORS as exc:
            yield _corrupt(path, number + 1, exc)
            return
        number += 1
        try:
            value = loads(line)
        except orjson.JSONDecodeError:
            yield from _rejected(path, line, number, number == first_line)
            continue
        yield Record(Location(path, number), value)


def _rejected(path: str, line: bytes, number: int, first: bool) -> Iterator[Record | InvalidRecord]:
    """A line orjson would not parse as it is: nothing (blank), a record, or why not.

    jsonlines decides, as when every line went through it: it skips a blank line, drops a
    record separator or BOM in front, and says why a line is not JSON (the excerpt is its
    decoded line). An over-long line is reported without being read.
    """
    if isinstance(line, Overlong):
        yield too_large(Location(path, number), line.size, "line", line.limit)
        return
    if first and line.startswith(_BOM):  # jsonlines drops a BOM only after the blank test
        line = line[len(_BOM) :]
    import jsonlines  # here, at a rejected line: most runs never meet one and skip its 30 ms

    try:
        value = jsonlines.Reader((line,), loads=orjson.loads).read(skip_empty=True, allow_none=True)
    except EOFError:  # a blank line
        return
    except jsonlines.InvalidLineError as exc:
        yield InvalidRecord(
            Location(path, number), _reason(exc.__cause__, in_line=True), _excerpt(exc.line)
        )
        return
    yield Record(Location(path, number), value)


def _corrupt(path: str, line: int, error: BaseException) -> InvalidRecord:
    """A .gz that broke off, or a remote read that failed: what was read before stays read."""
    if isinstance(error, ReadError):
        return InvalidRecord(Location(path, line), f"reading stopped here: {error.strerror}")
    return InvalidRecord(
        Location(path, line),
        f"compressed stream is corrupt or truncated: {str(error) or type(error).__name__}",
    )


def too_large(location: Location, size: int, what: str, limit: int) -> InvalidRecord:
    """A record past the size bound, skipped unread."""
    return InvalidRecord(
        location,
        f"{what} of {_size(size)} is larger than the limit of {_size(limit)}: not read "
        "(`max-record-mb` raises the limit)",
    )


def _size(size: int) -> str:
    return f"{size / (1024 * 1024):,.0f} MiB" if size >= 10 * 1024 * 1024 else f"{size:,} bytes"


def _read_whole(
    path: str,
    fp: IO[bytes],
    limit: int,
    parse: Callable[[str, bytes], Iterator[Record | InvalidRecord]],
) -> Iterator[Record | InvalidRecord]:
    """A whole document or text file, unless it is larger than `limit`."""
    try:
        data = fp.read(limit + 1)
        if len(data) > limit:
            size = len(data)
            del data
            yield too_large(Location(path, 1), _drained(fp, size), "document", limit)
            return
    except _STREAM_ERRORS as exc:
        yield _corrupt(path, 1, exc)
        return
    yield from parse(path, data)


def parse_document(path: str, data: bytes) -> Iterator[Record | InvalidRecord]:
    """One JSON document; a file that turns out to be JSON Lines is read as such."""
    data = data.removeprefix(_BOM)
    if not data.strip():
        return
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if exc.msg == "unexpected content after document" and _is_json(data.split(b"\n", 1)[0]):
            yield from read_lines(path, data.splitlines(keepends=True))
            return
        yield InvalidRecord(
            Location(path, exc.lineno),
            _reason(exc),
            _excerpt(_line_at(data, exc.lineno)),
        )
        return
    yield Record(Location(path), value, document=data)


def _text(path: str, data: bytes) -> Iterator[Record | InvalidRecord]:
    """A whole text file as one record (a transcript in a text format)."""
    data = data.removeprefix(_BOM)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        yield InvalidRecord(
            Location(path, line),
            f"not valid UTF-8: byte 0x{data[exc.start]:02x} at column {column}",
        )
        return
    yield Record(Location(path), text, kind="text")


def _read_sniffed(path: str, fp: IO[bytes], limit: int) -> Iterator[Record | InvalidRecord]:
    """stdin or an unknown suffix: decide from the first non-blank line.

    JSON Lines if that line is JSON; one document if it opens one (`{` or `[` on a line of its
    own, as pretty-printers write); otherwise text if the whole input is UTF-8 (a transcript),
    and JSON Lines again if it is not, so that binary garbage is reported line by line.
    """
    lines = bounded_lines(fp, limit)
    leading: list[bytes] = []
    try:
        first = next(lines, b"")
        while first and (isinstance(first, Overlong) or not first.strip()):
            leading.append(first)
            first = next(lines, b"")
    except _STREAM_ERRORS as exc:
        yield _corrupt(path, 1, exc)
        return
    stripped = first.removeprefix(_BOM).strip()
    # `[2023-15-10 22:07:03 INFO] …`: a log line that opens with a bracketed tag, not JSON.
    opens_json = stripped[:1] in (b"{", b"[") and _TAGGED_LINE.match(stripped) is None
    if not first or (opens_json and _is_json(stripped)):
        yield from read_lines(path, _chain([*leading, first], lines))
        return
    if any(isinstance(line, Overlong) for line in leading):
        yield from read_lines(path, _chain([*leading, first], lines))  # not one document
        return
    head = b"".join([*leading, first])
    try:
        rest = fp.read(max(limit + 1 - len(head), 0))
        if len(head) + len(rest) > limit:
            size = _drained(fp, len(head) + len(rest))
            yield too_large(Location(path, 1), size, "document", limit)
            return
    except _STREAM_ERRORS as exc:
        yield _corrupt(path, 1, exc)
        return
    data = head + rest
    if opens_json:
        yield from parse_document(path, data)
        return
    try:
        text = data.decode("utf-8")  # decoded once: the text record is this text
    except UnicodeDecodeError:
        yield from read_lines(path, data.splitlines(keepends=True))
        return
    yield Record(Location(path), text.removeprefix("\ufeff"), kind="text")


_TAGGED_LINE = lazy(rb"\[[^\[\]{}\"]*\][ \t]*[^\s,\]}]")


def _is_json(data: bytes) -> bool:
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return True


def _chain(head: list[bytes], rest: Iterable[bytes]) -> Iterator[bytes]:
    yield from head
    yield from rest


def _reason(exc: BaseException | None, in_line: bool = False) -> str:
    """Why a line is not a record, with the column a person can go to.

    Inside one JSON Lines line the column is the character offset (orjson would count the
    line's own newline as the start of a second line); in a document it is orjson's column.
    """
    if isinstance(exc, UnicodeDecodeError):
        bad = exc.object[exc.start : exc.start + 1]
        return f"not valid UTF-8: byte 0x{bad.hex()} at column {exc.start + 1}"
    if isinstance(exc, orjson.JSONDecodeError):
        if exc.msg.startswith("str is not valid UTF-8"):
            return "not valid UTF-8: the text holds an unpaired surrogate"
        column = min(exc.pos, len(exc.doc.rstrip())) + 1 if in_line else exc.colno
        return f"not valid JSON: {_JSON_ERRORS.get(exc.msg, exc.msg)} at column {column}"
    return f"not valid JSON: {exc}"


# orjson's wording where it misleads: `this is not json` "expected 'true'".
_JSON_ERRORS = {
    "unexpected end of data": "the text ends before the JSON value does (truncated?)",
    "unexpected content after document": "more text after the JSON value (two on one line?)",
    "invalid literal, expected 'true'": "unexpected text where a JSON value should start",
    "invalid literal, expected 'false'": "unexpected text where a JSON value should start",
    "invalid literal, expected 'null'": "unexpected text where a JSON value should start",
    "unexpected character, expected a JSON value": (
        "unexpected text where a JSON value should start"
    ),
}


def _line_at(data: bytes, lineno: int) -> bytes:
    lines = data.split(b"\n", lineno)
    return lines[lineno - 1] if len(lines) >= lineno else b""


def _excerpt(line: str | bytes, limit: int = 80) -> str:
    if isinstance(line, bytes):
        line = line.decode("utf-8", "replace")
    return cut(line.strip(), limit)
