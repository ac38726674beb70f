"""The reader contract: what a log format's module holds (`Format`), the reader of one file of a
format whose conversations span several records (`Collector`), and the defaults a reader
assigns to the members it has no use for.

A reader states every member, as pre-commit's language modules do: a format that reads each
record on its own writes `Collector = None`, one that knows no text by its first bytes writes
`sniff = contract.no_sniff`. Nothing is looked up by name: mypy holds every built-in reader to
`Format` (`catalog.built_in`), and `tests/formats/test_contract.py` holds each, and every
plugin's, at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Literal, Protocol, runtime_checkable

from auditor.formats._common import Problem
from auditor.model import Conversation
from auditor.sources import Record

RecordKind = Literal["json", "text"]
"""What a record holds (`Record.kind`): a decoded JSON value, or a whole text file."""
JSON: Literal["json"] = "json"
TEXT: Literal["text"] = "text"
"""The values of `KIND`, typed as literals (`KIND = contract.JSON`)."""

Reread = Callable[[], Iterable[object]]
"""Reads a file again from its start (the engine offers one for a large regular file)."""


class Collector(Protocol):
    """The reader of one file of a format whose conversations span several records.

    The class a format names as its `Collector`: made with `reread`, a way to read the file
    again from its start, or None (a collector that looks ahead uses it; the others ignore it).
    The engine keeps one per file, `add`s the file's records of its format in order and calls
    `finish` at the end of the file. A collector class subclasses this one for `inferred`.
    """

    def add(self, record: Record) -> Iterator[Conversation | Problem]:
        """What the record completes: conversations whose last record it was, and problems."""
        ...

    def finish(self) -> Iterator[Conversation | Problem]:
        """Everything still held at the end of the file."""
        ...

    def inferred(self) -> str | None:
        """What reading the file inferred, said in place of the format's name (`-v`); None
        when there is nothing to say."""
        return None


Collects = Callable[[Reread | None], Collector]
"""A `Collector` class: called with `reread` (or None), it makes the reader of one file."""


@runtime_checkable
class Format(Protocol):
    """What a format's module holds. Every member is stated; the defaults below say "none"."""

    @property
    def NAME(self) -> str:
        """How `--input-format` and the reports name the format."""
        ...

    @property
    def KIND(self) -> RecordKind | None:
        """The records the format reads, `JSON` or `TEXT`; None for both. The `FileReader`
        offers a record only to the formats of its kind: `detect` never sees another."""
        ...

    @property
    def DETECT_KEYS(self) -> frozenset[str] | None:
        """Keys one of which every JSON object `detect` takes has, or None (every object is
        offered). The `FileReader` offers an object only to the formats that may take it,
        found once per shape of object (its keys in order): with one message or event a
        line, trying every format before the right one costs as much as reading the line.
        `tests/formats/test_keys.py` holds each claim to `detect`."""
        ...

    @property
    def Collector(self) -> Collects | None:
        """The class that reads a file whose conversations span several records, or None
        when each record is read on its own (`parse`)."""
        ...

    def sniff(self, head: bytes) -> bool:
        """Whether the first bytes of a file (`sources.HEAD_BYTES`) are a log of this format,
        for a walk deciding on a file by its first bytes; `no_sniff` for a format a walk
        finds by its suffix or as JSON."""
        ...

    def detect(self, record: Record) -> bool:
        """Whether the record, of the format's `KIND`, is in this format: cheap (a few key
        lookups), and never raising on any value."""
        ...

    def parse(self, record: Record) -> Iterator[Conversation | Problem]:
        """The conversations the record holds, and a Problem for each part it could not read;
        it may raise, and the `FileReader` turns that into a Problem for the part being read.
        A format with a `Collector` parses with a fresh one: `add`, then `finish`."""
        ...

    def inferred(self, record: Record) -> str | None:
        """What reading this record infers, in words (`--show-files`), or None: a reading by
        shape says where it found roles, calls and ids."""
        ...


MEMBERS = ("NAME", "KIND", "DETECT_KEYS", "Collector", "sniff", "detect", "parse", "inferred")
"""Every member of `Format`, named in a plugin's error when it lacks one."""


def no_sniff(head: bytes) -> bool:
    """`sniff` of a format no file's first bytes tell: a walk finds its files by their suffix,
    or as JSON."""
    return False


def no_inference(record: Record) -> str | None:
    """`inferred` of a format that infers nothing: its name says how it read the record."""
    return None


def collected(collector: Collector, record: Record) -> Iterator[Conversation | Problem]:
    """What a grouped format reads from one record on its own (`parse` without a file)."""
    yield from collector.add(record)
    yield from collector.finish()
