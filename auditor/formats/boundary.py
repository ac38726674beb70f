"""The record boundary: `FileReader` reads the records of one file into conversations, and
whatever a record holds, reading it never raises."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import Any

from auditor.common.errors import ConfigError
from auditor.formats import _companions
from auditor.formats._common import Problem, unreadable
from auditor.formats.catalog import by_name, registry
from auditor.formats.contract import JSON, TEXT, Collector, Format, Reread
from auditor.model import Conversation, Location
from auditor.sources import Record


class FileReader:
    """Reads the records of one file into conversations, holding grouped formats until the end.

    This is the record boundary: whatever a record holds, reading it yields Conversations and
    Problems and never raises. A reader that breaks on a record (a `type` that is a list, values
    nested a thousand deep) costs the part of the record it was reading, reported as a Problem
    with its location; the next record, and the next unit of the same document
    (`_common.read_each`), are read as usual.
    """

    def __init__(
        self,
        forced: str | None = None,
        reread: Reread | None = None,
        declared: Sequence[Format] = (),
    ) -> None:
        """`reread` reads the file again from its start, for collectors that look ahead;
        `declared` are the formats the configuration maps (`Settings.formats`)."""
        self._declared = tuple(declared)
        self._forced = by_name(forced, self._declared) if forced else None
        self._shapes: dict[tuple[Any, ...], tuple[Format, ...]] = {}
        """The formats offered a JSON object, by its keys in order (`DETECT_KEYS`)."""
        self._reread = reread
        self._collectors: dict[str, Collector] = {}
        self.seen: dict[str, int] = {}
        """Records read per format name, in the order the formats first appeared (`-v`)."""
        self._path: str | None = None

    @functools.cached_property
    def _kinds(self) -> dict[str, tuple[Format, ...]]:
        """The formats offered a record, in order (`registry`), by the record's kind (`KIND`):
        looked up once per file, when its first record comes."""
        formats = registry(self._declared)
        return {kind: tuple(f for f in formats if f.KIND in (None, kind)) for kind in KINDS}

    @property
    def forced(self) -> Format | None:
        """The format `--input-format` names, or None."""
        return self._forced

    def format_of(self, record: Record) -> Found:
        """What reads the record: the forced format if it takes it, else the first format of
        the record's kind that detects it; a Problem saying why none does (or why the forced
        one does not, or what detecting raised); None for a header, which holds no message.
        Never raises, but for a configuration error."""
        try:
            fmt = self._forced
            if fmt is None:  # `catalog.detect`, inlined: it runs for every record of every file
                value = record.value
                if type(value) is dict and record.kind == "json":
                    shape = tuple(value)
                    offered = self._shapes.get(shape) or self._offered(shape)  # never empty
                else:
                    offered = self._kinds[record.kind]
                for fmt in offered:
                    if fmt.detect(record):
                        return fmt
                if _companions.header(record):
                    return None
                return Problem(record.location, describe(record))
            if fmt.KIND not in (None, record.kind) or not fmt.detect(record):
                return Problem(record.location, f"not a {fmt.NAME} record: {describe(record)}")
            return fmt
        except ConfigError:
            raise
        except Exception as exc:
            return Problem(record.location, unreadable(exc))

    def grouped(self, found: Found) -> bool:
        """A record `format_of` said this of belongs to conversations that span records: its
        format (the forced one, whatever it said of the record) has a `Collector`."""
        fmt = self._forced or found
        return fmt is not None and not isinstance(fmt, Problem) and fmt.Collector is not None

    def feed(self, record: Record) -> Iterator[Conversation | Problem]:
        """What the record holds: `read` with what `format_of` says of it."""
        return self.read(record, self.format_of(record))

    def read(self, record: Record, found: Found) -> Iterator[Conversation | Problem]:
        """What the record holds, read as `format_of` found (so that a record is detected once,
        whoever asks first): the conversations it completes, and problems."""
        self._path = record.location.path
        if found is None:
            self.seen[HEADER] = self.seen.get(HEADER, 0) + 1
            return
        if isinstance(found, Problem):
            yield found
            return
        fmt = found
        name = fmt.NAME
        seen = self.seen
        seen[name] = seen.get(name, 0) + 1
        collector = self._collectors.get(name)
        if collector is None:
            collector_type = fmt.Collector
            if collector_type is None:
                yield from _guarded(fmt.parse(record), record.location)
                return
            collector = self._collectors[name] = collector_type(self._reread)
        try:  # `_guarded`, inlined: most records of one-message-a-line files pass here
            yield from collector.add(record)
        except ConfigError:
            raise
        except Exception as exc:
            yield Problem(record.location, unreadable(exc))

    def _offered(self, shape: tuple[Any, ...]) -> tuple[Format, ...]:
        """The formats that may take a JSON object with these keys, in registry order; every
        JSON format once a file has shown more shapes than are worth keeping."""
        formats = self._kinds[JSON]
        if len(self._shapes) >= _SHAPES_KEPT:
            return formats
        offered = self._shapes[shape] = tuple(
            fmt
            for fmt in formats
            if (keys := fmt.DETECT_KEYS) is None or not keys.isdisjoint(shape)
        )
        return offered

    def finish(self) -> Iterator[Conversation | Problem]:
        collectors, self._collectors = self._collectors, {}
        for collector in collectors.values():
            # Collectors guard each conversation they close; this catches what they miss.
            where = Location(self._path or "")
            yield from _guarded(collector.finish(), where)
        for name, collector in collectors.items():
            said = collector.inferred()
            if said is not None and name in self.seen:
                # A reading by shape says how it read the file where the format's name goes.
                self.seen = {(said if k == name else k): n for k, n in self.seen.items()}


Found = Format | Problem | None
"""What `FileReader.format_of` says of a record: its format, why none reads it, or None for a
header."""

HEADER = "header"
"""What `FileReader.seen` counts a header record as (`_companions.header`): `-v` lists it
beside the formats that read the file's other records."""

KINDS = (JSON, TEXT)

_SHAPES_KEPT = 64
"""Shapes of object remembered per file: a log's records come in a few; keys that are ids
would make each one new."""


def describe(record: Record) -> str:
    """Why a record matched no format, in words that help to find it."""
    value = record.value
    companion = _companions.known(record)
    if companion is not None:
        return f"not a transcript: {companion[1]}"
    if record.kind == "text":
        return "text in no known transcript format"
    if isinstance(value, dict):
        keys = ", ".join(sorted(map(str, value))[:6]) or "no keys"
        more = ", …" if len(value) > 6 else ""
        return f"JSON object of no known log format (keys: {keys}{more})"
    if isinstance(value, list):
        return f"JSON array of no known log format ({len(value)} items)"
    kind = _JSON_TYPES.get(type(value), type(value).__name__)
    return f"JSON {kind} where a conversation was expected"


_JSON_TYPES = {type(None): "null", str: "string", int: "number", float: "number", bool: "boolean"}


def _guarded(
    items: Iterator[Conversation | Problem], location: Location
) -> Iterator[Conversation | Problem]:
    """The items, then a Problem in place of the rest if reading them raised; a configuration
    error (a declared format that matches nothing) ends the run instead."""
    try:
        yield from items
    except ConfigError:
        raise
    except Exception as exc:
        yield Problem(location, unreadable(exc))
