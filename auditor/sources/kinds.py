"""What the sources stage hands on: the kinds of input, the records read from them, and what a
walk finds. A leaf: it imports only the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from auditor.model import Location

Kind = Literal["jsonl", "document", "text", "sniff", "archive"]
STDIN = "<stdin>"

JSONL_SUFFIXES = (".jsonl", ".ndjson")
DOCUMENT_SUFFIXES = (".json", ".traj")
TEXT_SUFFIXES = (".txt",)
ARCHIVE_SUFFIXES = (".eval",)
"""Inspect logs: zip archives of JSON members (`auditor.sources.archives`)."""
MAX_RECORD_BYTES = 128 * 1024 * 1024
"""The default bound on one line or one document (`max-record-mb`): past it a record is IN001
and is never held in memory, so a 4 MB .gz expanding to one 4 GiB line cannot exhaust it."""


@dataclass(frozen=True, slots=True)
class Source:
    """One input to read."""

    path: str
    """The path as the user wrote it (or found below a directory they named); `-` is stdin."""
    kind: Kind
    compressed: bool
    explicit: bool
    """Named on the command line, not found by walking a directory."""
    span: Span | None = None
    """A part of a JSON Lines file, for `--jobs`; None for the whole source."""
    size: int | None = None
    """Bytes on disk (compressed, for a .gz) when known: what the progress bar counts."""

    @property
    def name(self) -> str:
        """The path as findings name it: `<stdin>` for `-`, in every output format."""
        return STDIN if self.path == "-" else self.path


@dataclass(frozen=True, slots=True)
class Span:
    """Whole lines `start` to `end` (byte offsets) of a file, the first being line `first_line`."""

    start: int
    end: int
    first_line: int


@dataclass(frozen=True, slots=True)
class Record:
    """One JSON value (or one text file) and where it starts."""

    location: Location
    value: Any
    kind: Literal["json", "text"] = "json"
    document: bytes | None = None
    """The bytes of a whole JSON document, kept so pointers can be turned into line numbers."""


@dataclass(frozen=True, slots=True)
class InvalidRecord:
    """A line or document that could not be read as JSON (or text)."""

    location: Location
    reason: str
    excerpt: str = ""


class ReadError(OSError):
    """Reading a source failed after it was opened (a server that stopped answering, refused a
    byte range or redirected): the records before stay read, the rest of the source is not."""


@dataclass(frozen=True, slots=True)
class PathError:
    """A path that cannot be read at all."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class Excluded:
    """A path (file or directory) the configuration's `exclude` globs leave out; not read."""

    path: str


@dataclass(frozen=True, slots=True)
class Ignored:
    """A path (file or directory) a directory walk leaves out because a .gitignore says so."""

    path: str


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file a directory walk found whose name promises no log (`notes.md`, `plot.png`)."""

    path: str


@dataclass(frozen=True, slots=True)
class Linked:
    """A symbolic link a walk met whose target lies outside the directory the user named (or in
    /proc, /sys or /dev): not followed, unless `--follow-links` (never into those three)."""

    path: str


Found = Source | PathError | Excluded | Ignored | Skipped | Linked


def kind_of(path: str) -> tuple[Kind, bool]:
    """The kind of file a name promises, and whether it is gzip-compressed."""
    name = path.lower()
    if name.endswith(ARCHIVE_SUFFIXES):
        return "archive", False
    compressed = name.endswith(".gz")
    if compressed:
        name = name[:-3]
    if name.endswith(JSONL_SUFFIXES):
        return "jsonl", compressed
    if name.endswith(DOCUMENT_SUFFIXES):
        return "document", compressed
    if name.endswith(TEXT_SUFFIXES):
        return "text", compressed
    return "sniff", compressed


# Directories that hold installed software, never agent logs: not entered by a walk. A
# virtualenv is recognised by its `pyvenv.cfg` (whatever its name), a conda environment by
# its `conda-meta`; hidden directories (`.venv`, `.git`, `.tox`) are not entered anyway.
ENVIRONMENT_MARKERS = frozenset({"pyvenv.cfg", "conda-meta"})
PACKAGE_DIRECTORIES = frozenset({"node_modules", "site-packages", "__pypackages__"})


def os_reason(exc: OSError) -> str:
    """Why a path cannot be read, in lower case (`no such file or directory`); a reason of
    `files.read_regular` as it is written."""
    from auditor.sources.files import Refused

    if isinstance(exc, Refused):
        return str(exc.strerror)
    return (exc.strerror or str(exc)).lower()


_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+://")


def is_url(path: str) -> bool:
    """`s3://bucket/key`, `gs://…`, `memory://…`, `file://…`: read through fsspec (`remote`)."""
    return _URL.match(path) is not None
