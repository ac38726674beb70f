"""Log formats: one reader each, the contract they keep, and the registry that orders them.

The contract (`Format`, `Collector`; vector documents its decoders the same way): the framing
(`auditor.sources.framing`) has already cut the bytes into records (a JSON Lines line, a whole
JSON document or a text), so a reader sees one decoded `Record` at a time and never a file.
`detect(record)` says whether the record is in the format; it is cheap (a few key lookups) and
never raises on any value. `parse(record)` yields the Conversations the record holds and a
Problem (reported as IN002) for each part it could not read; it may raise, and the
`FileReader` turns that into a Problem for the part being read. A format whose conversations
span several records (one message per line) also defines `Collector`: the engine keeps one per
file, `add`s its records in order and calls `finish` at the end of the file; its `parse` is
`add` then `finish` on a fresh collector. Detection tries the formats in registry order, most
specific first, so that adding a format means adding its module and one line here.

Outsiders add formats two ways, both tried before the built-in ones: a JSON shape mapped in
the configuration with JMESPath (`[tool.auditor.formats.NAME]`, see `_mapped`), and a reader
a package ships under the `auditor.formats` entry point group (`plugins`).
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from auditor import sources
from auditor.errors import ConfigError
from auditor.formats import _companions
from auditor.formats._common import Problem, tool_specs, unreadable
from auditor.formats._mapped import MappedFormat, MappingMatchesNothing, declare
from auditor.model import Conversation, Location
from auditor.sources import Record

__all__ = [
    "FORMATS",
    "Collector",
    "FileReader",
    "Format",
    "MappedFormat",
    "MappingMatchesNothing",
    "Problem",
    "by_name",
    "claims",
    "companion",
    "declare",
    "describe",
    "detect",
    "header",
    "plugins",
    "registry",
    "tool_specs",
    "unreadable",
]


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


# Order matters, most specific first: an exchange holds request bodies in any API's shape; a
# tau-bench entry holds OpenAI messages; Anthropic and Responses conversations would also pass
# for OpenAI ones (`messages`, or a bare list of `{role, content}`); SWE-agent trajectories
# have a `history` like multi-agent chats. An agent-SDK event (`kind: …Event`) and a bare message
# (no container key, no session key) are no other format's: they come first, since their
# formats hold one event or message a line and detection runs on every line.
_BUILT_IN = (
    "openhands",
    # Gemini CLI's event lines (`type: message` with a `role`) would pass for bare messages.
    "gemini-cli",
    "message-lines",
    # Agent frameworks' own files, each recognised by keys no other format has; Letta's and
    # AutoGen's `messages` would pass for OpenAI's, smolagents' `thread_id` for a stream's.
    "browser-result",
    "browser-use",
    "letta",
    "autogen",
    "cline",
    "smolagents",
    "chatdev",
    "aider",
    "otel",
    "inspect-ai",
    "openai-agents",
    "mcp",
    "mini-swe-agent",
    "medagentbench",
    "litellm",
    "openhands-v0",
    "exchange",
    "tau",
    "anthropic",
    "responses",
    "sharegpt",
    "swe-agent",
    "multiagent",
    "openai",
    "stream",
    "harmony",
    # Last: any JSON holding a list of message-like objects no reader above took.
    "structural",
)


class _Readers(Mapping[str, Format]):
    """The built-in formats by name, in detection order: a reader's module (named by the
    format, `-` written `_`) is imported when it is first asked for, so that a run imports
    the readers its records need, and none for a file of no record."""

    def __init__(self, names: Sequence[str]) -> None:
        self._names = tuple(names)
        self._known = frozenset(names)
        self._loaded: dict[str, Format] = {}

    def __getitem__(self, name: str) -> Format:
        reader = self._loaded.get(name)
        if reader is None:
            if name not in self._known:
                raise KeyError(name)
            module = f"{__name__}.{name.replace('-', '_')}"
            reader = self._loaded[name] = importlib.import_module(module)
        return reader

    def __contains__(self, name: object) -> bool:
        return name in self._known

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


FORMATS: Mapping[str, Format] = _Readers(_BUILT_IN)


def detect(record: Record, declared: Sequence[Format] = ()) -> Format | None:
    """The first format that recognises the record, or None: formats declared in the
    configuration first, then those plugins add, then the built-in ones."""
    for fmt in registry(declared):
        if fmt.detect(record):
            return fmt
    return None


def registry(declared: Sequence[Any] = ()) -> tuple[Any, ...]:
    """Every format, in the order records are offered to them: the `declared` ones (mapped in
    `[tool.auditor.formats.NAME]`, most specific: the user wrote them for their logs), the
    plugins' (`auditor.formats` entry points), the built-in ones."""
    if not declared:
        return _builtin_and_plugins()
    return (*declared, *_builtin_and_plugins())


@functools.cache
def _builtin_and_plugins() -> tuple[Any, ...]:
    return (*plugins().values(), *FORMATS.values())


@functools.cache
def plugins() -> dict[str, Any]:
    """The readers installed packages ship under the `auditor.formats` entry point group, each
    an object with `NAME`, `detect(record)` and `parse(record)` (a module, as the built-in ones
    are). Loaded once per process. Raises ConfigError for one that fails to load, lacks one of
    those, or takes a built-in format's name."""
    found: dict[str, Any] = {}
    if not _may_declare(ENTRY_POINTS):
        return found
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINTS):
        try:
            reader = point.load()
        except Exception as exc:
            raise ConfigError(
                f"the `{ENTRY_POINTS}` plugin `{point.name}` ({point.value}) failed to load: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        name = getattr(reader, "NAME", None)
        missing = [a for a in ("detect", "parse") if not callable(getattr(reader, a, None))]
        if not isinstance(name, str) or missing:
            lacks = "a string NAME" if not isinstance(name, str) else f"`{missing[0]}()`"
            raise ConfigError(f"the `{ENTRY_POINTS}` plugin `{point.name}` has no {lacks}")
        if name in FORMATS or name in found:
            raise ConfigError(
                f"the `{ENTRY_POINTS}` plugin `{point.name}` is named `{name}`, "
                "as another format is: rename it"
            )
        found[name] = reader
    return found


ENTRY_POINTS = "auditor.formats"
"""The entry point group under which packages ship readers."""


def _may_declare(group: str) -> bool:
    """Whether an installed package may declare entry points of `group`, looked for as
    importlib.metadata finds them (the `entry_points.txt` of each `*.dist-info` or `*.egg-info`
    folder on sys.path) without importing it, which costs a sixth of a run's start. A zip or an
    egg on sys.path, or a finder of distributions besides the standard one, may: importlib
    decides."""
    from importlib.machinery import PathFinder

    if any(
        getattr(finder, "find_distributions", None) is not None and finder is not PathFinder
        for finder in sys.meta_path
    ):
        return True
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except NotADirectoryError:
            return True  # a zip file
        except OSError:
            continue
        if entry.endswith(".egg"):
            return True
        for name in names:
            if name.lower().endswith((".dist-info", ".egg-info")):
                try:
                    with open(os.path.join(entry or ".", name, "entry_points.txt"), "rb") as f:
                        if group.encode() in f.read():
                            return True
                except OSError:
                    continue
    return False


def companion(record: Record) -> tuple[str, str] | None:
    """(what such files are, what this one is) for a record of a file agent frameworks write
    beside their transcripts that holds none (a run summary, a results file): see
    `_companions`."""
    return _companions.known(record)


def header(record: Record) -> bool:
    """The record heads or closes a log and holds no message (`_companions.header`)."""
    return _companions.header(record)


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


def claims(head: bytes) -> bool:
    """The first bytes of a file may be a log: they open JSON, or a text format knows them.

    A walk reads no more of a file it decides on by its first bytes (`sources.walked_kind`)
    when this is false, so a repository's README.md costs its first 16 KB, not a parse."""
    if sources.opens_json(head):
        return True
    return any(fmt.sniff(head) for fmt in registry() if hasattr(fmt, "sniff"))


_JSON_TYPES = {type(None): "null", str: "string", int: "number", float: "number", bool: "boolean"}


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
        reread: Callable[[], Iterable[object]] | None = None,
        declared: Sequence[Any] = (),
    ) -> None:
        """`reread` reads the file again from its start, for collectors that look ahead;
        `declared` are the formats the configuration maps (`Settings.formats`)."""
        self._declared = tuple(declared)
        self._forced = by_name(forced, self._declared) if forced else None
        self._shapes: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        """The formats offered a JSON object, by its keys in order (`DETECT_KEYS`)."""
        self._reread = reread
        self._collectors: dict[str, Collector] = {}
        self.seen: dict[str, int] = {}
        """Records read per format name, in the order the formats first appeared (`-v`)."""
        self._path: str | None = None

    @functools.cached_property
    def _formats(self) -> tuple[Any, ...]:
        """The formats offered each record, in order (`registry`): looked up once per file,
        when its first record comes."""
        return registry(self._declared)

    def format_of(self, record: Record) -> Format | None:
        """The format that reads the record: the forced one, or the first that detects it."""
        if self._forced is not None:
            return self._forced
        return detect(record, self._declared)

    def feed(self, record: Record) -> Iterator[Conversation | Problem]:
        self._path = record.location.path
        try:
            fmt = self._forced
            if fmt is None:  # `detect`, inlined: it runs for every record of every file
                value = record.value
                offered = self._formats
                if type(value) is dict and record.kind == "json":
                    shape = tuple(value)
                    offered = self._shapes.get(shape) or self._offered(shape)  # never empty
                for fmt in offered:
                    if fmt.detect(record):
                        break
                else:
                    if _companions.header(record):
                        self.seen[HEADER] = self.seen.get(HEADER, 0) + 1
                    else:
                        yield Problem(record.location, describe(record))
                    return
            elif not fmt.detect(record):
                yield Problem(record.location, f"not a {fmt.NAME} record: {describe(record)}")
                return
        except ConfigError:
            raise
        except Exception as exc:
            yield Problem(record.location, unreadable(exc))
            return
        name = fmt.NAME
        seen = self.seen
        seen[name] = seen.get(name, 0) + 1
        collector = self._collectors.get(name)
        if collector is None:
            collector_type: Callable[..., Collector] | None = getattr(fmt, "Collector", None)
            if collector_type is None:
                yield from _guarded(fmt.parse(record), record.location)
                return
            rereads = getattr(collector_type, "rereads", False) and self._reread is not None
            made = collector_type(self._reread) if rereads else collector_type()
            collector = self._collectors[name] = made
        try:  # `_guarded`, inlined: most records of one-message-a-line files pass here
            yield from collector.add(record)
        except ConfigError:
            raise
        except Exception as exc:
            yield Problem(record.location, unreadable(exc))

    def _offered(self, shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The formats that may take a JSON object with these keys, in registry order; every
        format once a file has shown more shapes than are worth keeping."""
        if len(self._shapes) >= _SHAPES_KEPT:
            return self._formats
        offered = self._shapes[shape] = tuple(
            fmt
            for fmt in self._formats
            if (keys := getattr(fmt, "DETECT_KEYS", None)) is None or not keys.isdisjoint(shape)
        )
        return offered

    def finish(self) -> Iterator[Conversation | Problem]:
        collectors, self._collectors = self._collectors, {}
        for collector in collectors.values():
            # Collectors guard each conversation they close; this catches what they miss.
            where = Location(self._path or "")
            yield from _guarded(collector.finish(), where)
        for name, collector in collectors.items():
            said = getattr(collector, "inferred", None)
            if said is not None and name in self.seen:
                # A reading by shape says how it read the file where the format's name goes.
                self.seen = {(said() if k == name else k): n for k, n in self.seen.items()}


HEADER = "header"
"""What `FileReader.seen` counts a header record as (`_companions.header`): `-v` lists it
beside the formats that read the file's other records."""

_SHAPES_KEPT = 64
"""Shapes of object remembered per file: a log's records come in a few; keys that are ids
would make each one new."""


def by_name(name: str, declared: Sequence[Any] = ()) -> Any:
    """The format of this name: declared, a plugin's or built in. Raises KeyError."""
    for fmt in declared:
        if name == fmt.NAME:
            return fmt
    found = plugins().get(name) or FORMATS.get(name)
    if found is None:
        raise KeyError(name)
    return found


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
