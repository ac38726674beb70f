"""The reader contract: what a log format's module holds (`Format`) and the reader of one file
of a format whose conversations span several records (`Collector`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from auditor.formats._common import Problem
from auditor.model import Conversation
from auditor.sources import Record


class Collector(Protocol):
    """The reader of one file of a format whose conversations span several records.

    A class with this interface, named `Collector` in the format's module. Its constructor takes
    no argument, or, when the class sets `rereads = True`, a function that reads the file again
    from its start (for collectors that look ahead)."""

    def add(self, record: Record) -> Iterator[Conversation | Problem]:
        """What the record completes: conversations whose last record it was, and problems."""
        ...

    def finish(self) -> Iterator[Conversation | Problem]:
        """Everything still held at the end of the file."""
        ...


class Format(Protocol):
    """What a format's module holds: `NAME`, `detect` and `parse` (and maybe `Collector`)."""

    NAME: str
    """How `--input-format` and the reports name the format."""

    def detect(self, record: Record) -> bool:
        """Whether the record is in this format: cheap, and never raising."""
        ...

    def parse(self, record: Record) -> Iterator[Conversation | Problem]:
        """The conversations the record holds, and a Problem for each part not read."""
        ...


# A format may also set `DETECT_KEYS`, a frozenset: `detect` is false for a JSON object with
# none of these keys. The `FileReader` then offers an object only to the formats that may take
# it, found once per shape of object (its keys in order): with one message or event a line,
# trying every format before the right one costs as much as reading the line. A format without
# `DETECT_KEYS` is offered every record; `tests/formats/test_keys.py` holds each to `detect`.
