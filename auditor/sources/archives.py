"""Inspect `.eval` archives: a zip whose JSON members are read as records, one per member.

`header.json` (the log without its samples) comes first, then each `samples/*.json` in name
order; the other members (`summaries.json`, `reductions.json`, `_journal/…`) repeat what those
hold and are not read. A member's location is the archive's path with the member's name as the
start of its JSON pointer (`/samples/1_epoch_1.json/messages/3`); there are no line numbers.

What is read from a member is bounded (the `max-record-mb` limit, uncompressed), and so is
what the whole archive decompresses to (`ARCHIVE_MEMBERS` times that limit): past it, the rest
is one invalid record. An archive whose entries overlap (several names for one compressed
stream: a zip bomb's trick, which no zip writer produces) is refused whole. A file that
is not a readable zip is one invalid record; a member that cannot be read (corrupt, too large,
not JSON, compressed with a method this Python lacks) is one invalid record, and the others
are still read.
Inspect writes Zstandard members when `INSPECT_USE_ZSTD` is set: Python 3.14's zipfile reads
them, older ones need the optional `zstandard` package (`pip install 'transcript-auditor[zstd]'`).
"""

from __future__ import annotations

import io
import itertools
import struct
import zipfile
import zlib
from collections.abc import Iterator
from typing import IO, Any

import orjson

from auditor import DISTRIBUTION
from auditor.model import Location, escape_pointer_token

_ZSTD = 93
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
ARCHIVE_MEMBERS = 16
"""What a whole archive may decompress to, in `max-record-mb` limits (2 GiB by default)."""


def read_eval(path: str, fp: IO[bytes], limit: int) -> Iterator[tuple[Location, Any, str | None]]:
    """(location, value, None) for each member read, (location, None, why) for each that is not."""
    try:
        archive = zipfile.ZipFile(fp)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        yield Location(path), None, f"not a readable zip archive (an Inspect .eval): {exc}"
        return
    with archive:
        overlap = _overlap(archive.infolist())
        if overlap is not None:
            yield Location(path), None, overlap
            return
        names = [i for i in archive.infolist() if not i.is_dir()]
        wanted = [i for i in names if i.filename == "header.json"]
        wanted += sorted(
            (
                i
                for i in names
                if i.filename.startswith("samples/") and i.filename.endswith(".json")
            ),
            key=lambda i: i.filename,
        )
        left = limit * ARCHIVE_MEMBERS
        for info in wanted:
            where = Location(path, None, _pointer(info.filename))
            if left <= 0:
                yield where, None, _past_bound(limit)
                return
            data, reason = _member(archive, info, fp, min(limit, left))
            if data is None and left < limit and reason == _too_large(left):
                yield where, None, _past_bound(limit)
                return
            if data is None:
                yield where, None, reason
                continue
            left -= len(data)
            try:
                value = orjson.loads(data)
            except orjson.JSONDecodeError as exc:
                yield where, None, f"not valid JSON: {exc.msg} at line {exc.lineno}"
                continue
            yield where, value, None


def _overlap(infos: list[zipfile.ZipInfo]) -> str | None:
    """Why the entries cannot be read: two of them share bytes of the file (each entry spans
    at least its local header, its name and its compressed data); None when none do."""
    spans = sorted(
        (info.header_offset, info.header_offset + 30 + len(info.orig_filename) + info.compress_size)
        for info in infos
    )
    for (_, end), (start, _) in itertools.pairwise(spans):
        if start < end:
            return (
                "zip entries overlap (several names for the same compressed bytes, as a zip "
                "bomb has): not read"
            )
    return None


def _past_bound(limit: int) -> str:
    whole = limit * ARCHIVE_MEMBERS
    shown = f"{whole >> 20} MiB" if whole >= 1 << 20 else f"{whole:,} bytes"
    return (
        f"the archive decompresses to more than {shown} (`max-record-mb` times "
        f"{ARCHIVE_MEMBERS}): this member and those after it are not read"
    )


def _too_large(limit: int) -> str:
    shown = f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit} bytes"
    return f"zip member larger than {shown} uncompressed (`max-record-mb` raises the limit)"


def _pointer(name: str) -> str:
    return "".join("/" + escape_pointer_token(part) for part in name.split("/"))


def _member(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, fp: IO[bytes], limit: int
) -> tuple[bytes | None, str]:
    if info.file_size > limit:
        return None, _too_large(limit)
    try:
        with archive.open(info) as member:
            data = member.read(limit + 1)
    except NotImplementedError:
        if info.compress_type == _ZSTD:
            return _zstd(info, fp, limit)
        return None, f"zip member compressed with an unsupported method ({info.compress_type})"
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError) as exc:
        return None, f"zip member is corrupt: {exc}"
    if len(data) > limit:
        return None, _too_large(limit)
    return data, ""


def _zstd(info: zipfile.ZipInfo, fp: IO[bytes], limit: int) -> tuple[bytes | None, str]:
    """A Zstandard member, with the optional `zstandard` package (Python < 3.14)."""
    try:
        import zstandard
    except ImportError:
        return None, (
            "zip member compressed with Zstandard (INSPECT_USE_ZSTD): "
            f"install `zstandard` (pip install '{DISTRIBUTION}[zstd]') or use Python 3.14+"
        )
    try:
        fp.seek(info.header_offset)
        header = fp.read(_LOCAL_HEADER.size)
        fields = _LOCAL_HEADER.unpack(header)
        if fields[0] != b"PK\x03\x04":
            return None, "zip member is corrupt: bad local header"
        fp.seek(info.header_offset + _LOCAL_HEADER.size + fields[-2] + fields[-1])
        compressed = fp.read(info.compress_size)
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(compressed)) as reader:
            data = reader.read(limit + 1)
    except (OSError, struct.error, zstandard.ZstdError) as exc:
        return None, f"zip member is corrupt: {exc}"
    if len(data) > limit:
        return None, _too_large(limit)
    if zlib.crc32(data) != info.CRC:
        return None, "zip member is corrupt: CRC check failed"
    return data, ""
