"""Spans: a large JSON Lines file cut into parts of whole lines, for `--jobs` workers and Dask.

One pass over the file counts its lines (where it lies, for a URL being cut on a cluster:
`remote.cuts`), so each span knows the number of its first line and findings keep the line
numbers a sequential run gives them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import IO

from auditor.sources.framing import GZIP_MAGIC, getsize, open_binary, peek_why_not_a_log
from auditor.sources.kinds import Source, Span, is_url

SPLIT_AT_LEAST = 4 * 1024 * 1024
"""A JSON Lines file is split for `--jobs` only when each part would hold this much."""
_BLOCK = 1024 * 1024
"""Counting lines in blocks of 1 MB: a 16 MB block costs twice as much in fresh memory."""


def cuttable(source: Source) -> bool:
    """A source `split` may cut, when large enough: an uncompressed JSON Lines file, not
    standard input."""
    return source.path != "-" and source.kind == "jsonl" and not source.compressed


def may_split(source: Source, parts: int) -> bool:
    """`split` may cut the file into spans: a `cuttable` file large enough for two, by the size
    the plan found (decided without reading it; `split` may still find it gzip or binary)."""
    if not cuttable(source) or parts < 2:
        return False
    size = source.size
    if size is None:
        try:
            size = getsize(source.path)
        except OSError:
            return False
    return size // SPLIT_AT_LEAST >= 2


def split(source: Source, parts: int) -> list[Source]:
    """An uncompressed JSON Lines file cut into about `parts` spans of whole lines.

    One pass over the file counts its lines, so each span knows the number of its first line
    and findings keep the line numbers a sequential run gives them.
    """
    if not cuttable(source) or parts < 2:
        return [source]
    try:
        size = getsize(source.path)
        parts = min(parts, size // SPLIT_AT_LEAST)
        if parts < 2:
            return [source]
        with open_binary(source.path) as fp:
            if fp.peek(2)[:2] == GZIP_MAGIC or peek_why_not_a_log(fp) is not None:
                return [source]  # compressed after all, or no log: read as one stream
            fp.seek(0)
            targets = [size * k // parts for k in range(1, parts)]
            found = None
            if is_url(source.path):  # counted where it lies when it can be (`remote.cuts`)
                from auditor.sources import remote

                found = remote.cuts(source.path, targets, size)
            starts = found if found is not None else cuts(fp, targets)
    except OSError:
        return [source]  # reading it whole reports the error
    spans = []
    for (start, first_line), (end, _) in zip(starts, [*starts[1:], (size, 0)], strict=True):
        if end > start:
            spans.append(replace(source, span=Span(start, end, first_line)))
    return spans or [source]


def cuts(fp: IO[bytes], targets: list[int]) -> list[tuple[int, int]]:
    """(offset, line number) where each span starts: just after the first newline at or past
    each target offset."""
    cuts = [(0, 1)]
    lines = offset = 0
    for block in iter(lambda: fp.read(_BLOCK), b""):
        while targets:
            at = max(targets[0] - offset, 0)
            newline = block.find(b"\n", at)
            if newline < 0:
                break  # the line goes on in the next block
            end = offset + newline + 1
            cuts.append((end, lines + block.count(b"\n", 0, newline + 1) + 1))
            targets = [t for t in targets if t >= end]
        lines += block.count(b"\n")
        offset += len(block)
    return cuts
