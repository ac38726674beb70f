"""What the sources stage hands on: the kinds of input, the records read from them, and what a
walk finds. A leaf: it imports only the model.
"""

from __future__ import annotations

from typing import Any, Literal

from auditor.common.patterns import lazy
from auditor.common.structs import dataclass
from auditor.model import Location

Kind = Literal["jsonl", "document", "text", "sniff", "archive", "events"]
"""`events`: a folder of one event per file, read as one source (`auditor.sources.events`)."""
STDIN = "<stdin>"

JSONL_SUFFIXES = (".jsonl", ".ndjson")
DOCUMENT_SUFFIXES = (".json", ".traj")
TEXT_SUFFIXES = (".txt",)
ARCHIVE_SUFFIXES = (".eval",)
"""Inspect logs: zip archives of JSON members (`auditor.sources.archives`)."""
SNIFF_SUFFIXES = (".log", ".md", ".markdown", ".af", ".out")
"""Names a walk reads by their first bytes (as it does files without a suffix): text logs
(ChatDev `.log`, aider `.md`), agent files (Letta `.af`) and event files. A walk reads only
the first `HEAD_BYTES` of such a file unless they look like a log (`auditor.engine.source`)."""
HEAD_BYTES = 16 * 1024
"""What a walk reads of a file it decides on by its first bytes."""
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


@dataclass(slots=True, unsafe_hash=True)
class Record:
    """One JSON value (or one text file) and where it starts.

    One per JSON Lines line: slotted rather than frozen, as the model's per-message objects
    are (`auditor.model`), since building a frozen one costs as much as parsing a short line.
    """

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
    """A file a directory walk found whose name promises no log (`plot.png`), or a hidden
    directory it did not enter."""

    path: str
    reason: str = "type"
    """`type` (the name promises no log) or `hidden` (a hidden directory: name it to read it)."""


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


def walked_kind(name: str) -> tuple[Kind, bool] | None:
    """The kind a walk reads a file of this name as, or None when its name promises no log.

    Known suffixes keep their kind; `SNIFF_SUFFIXES` and names without a suffix (`LICENSE`,
    an event file) are sniffed; anything else (`plot.png`, `setup.py`) is not read. A hidden
    file is read only when its suffix names a log kind (`.aider.chat.history.md`), never for
    `.gitignore` or `.env`.
    """
    kind, compressed = kind_of(name)
    if kind != "sniff":
        return kind, compressed
    base = name.rsplit("/", 1)[-1].lower().removesuffix(".gz")
    stem, dot, suffix = base.rpartition(".")
    if not dot or not stem:  # no suffix, or a hidden name without one (`.env`)
        return None if base.startswith(".") else (kind, compressed)
    return (kind, compressed) if f".{suffix}" in SNIFF_SUFFIXES else None


# Hidden directories a walk passes over without a word: version control, environments,
# caches and editor settings. Any other hidden directory (`.pr/`, `.openhands/`) is reported
# as skipped: named on the command line, it is read.
TOOL_DIRECTORIES = frozenset(
    {
        ".git", ".hg", ".svn", ".bzr", ".jj",
        ".venv", ".tox", ".nox", ".direnv", ".pyenv", ".conda", ".eggs",
        ".cache", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".pytype", ".ipynb_checkpoints",
        ".idea", ".vscode", ".vs", ".github", ".gitlab", ".circleci", ".devcontainer",
        ".npm", ".yarn", ".pnpm-store", ".next", ".nuxt", ".turbo", ".parcel-cache",
        ".gradle", ".m2", ".cargo", ".rustup", ".terraform", ".serverless", ".docker",
    }
)  # fmt: skip


# Directories that hold installed software, never agent logs: not entered by a walk. A
# virtualenv is recognised by its `pyvenv.cfg` (whatever its name), a conda environment by
# its `conda-meta`; hidden directories (`.venv`, `.git`, `.tox`) are not entered anyway.
ENVIRONMENT_MARKERS = frozenset({"pyvenv.cfg", "conda-meta"})
PACKAGE_DIRECTORIES = frozenset({"node_modules", "site-packages", "__pypackages__"})


BINARY_HEAD = 8000
"""How much of a file's start tells a binary file from a log."""


def why_not_a_log(head: bytes) -> str | None:
    """Why a file whose first bytes are `head` is no log at all, or None: a NUL byte among
    them (as git tells binary files), or a UTF-16 byte order mark (text, but not UTF-8). One
    finding for an image or an archive, instead of one for each of its "lines"."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16 text, not a log: logs are read as UTF-8 (convert it: iconv -f UTF-16)"
    nul = head.find(b"\0")
    if nul >= 0:
        return f"binary file, not a log (a NUL byte at offset {nul:,})"
    return None


def os_reason(exc: OSError) -> str:
    """Why a path cannot be read, in lower case (`no such file or directory`); a reason of
    `files.read_regular` as it is written."""
    from auditor.sources.files import Refused

    if isinstance(exc, Refused):
        return str(exc.strerror)
    return (exc.strerror or str(exc)).lower()


_URL = lazy(r"[A-Za-z][A-Za-z0-9+.-]+://")


def is_url(path: str) -> bool:
    """`s3://bucket/key`, `gs://…`, `memory://…`, `file://…`: read through fsspec (`remote`)."""
    return _URL.match(path) is not None
