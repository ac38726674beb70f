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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Protocol

from auditor.formats import (
    anthropic,
    exchange,
    harmony,
    inspect_ai,
    mcp,
    multiagent,
    openai,
    openai_agents,
    otel,
    responses,
    sharegpt,
    stream,
    swe_agent,
    tau,
)
from auditor.formats._common import Problem, tool_specs, unreadable
from auditor.model import Conversation, Location
from auditor.sources import Record

__all__ = ["FORMATS", "Collector", "FileReader", "Format", "Problem", "tool_specs", "unreadable"]


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


# Order matters, most specific first: an exchange holds request bodies in any API's shape; a
# tau-bench entry holds OpenAI messages; Anthropic and Responses conversations would also pass
# for OpenAI ones (`messages`, or a bare list of `{role, content}`); SWE-agent trajectories
# have a `history` like multi-agent chats.
FORMATS: dict[str, Format] = {
    otel.NAME: otel,
    inspect_ai.NAME: inspect_ai,
    openai_agents.NAME: openai_agents,
    mcp.NAME: mcp,
    exchange.NAME: exchange,
    tau.NAME: tau,
    anthropic.NAME: anthropic,
    responses.NAME: responses,
    sharegpt.NAME: sharegpt,
    swe_agent.NAME: swe_agent,
    multiagent.NAME: multiagent,
    openai.NAME: openai,
    stream.NAME: stream,
    harmony.NAME: harmony,
}


def detect(record: Record) -> Format | None:
    """The first format that recognises the record, or None."""
    for fmt in FORMATS.values():
        if fmt.detect(record):
            return fmt
    return None


def describe(record: Record) -> str:
    """Why a record matched no format, in words that help to find it."""
    value = record.value
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


class FileReader:
    """Reads the records of one file into conversations, holding grouped formats until the end.

    This is the record boundary: whatever a record holds, reading it yields Conversations and
    Problems and never raises. A reader that breaks on a record (a `type` that is a list, values
    nested a thousand deep) costs the part of the record it was reading, reported as a Problem
    with its location; the next record, and the next unit of the same document
    (`_common.read_each`), are read as usual.
    """

    def __init__(
        self, forced: str | None = None, reread: Callable[[], Iterable[object]] | None = None
    ) -> None:
        """`reread` reads the file again from its start, for collectors that look ahead."""
        self._forced = FORMATS[forced] if forced else None
        self._reread = reread
        self._collectors: dict[str, Collector] = {}
        self.seen: dict[str, int] = {}
        """Records read per format name, in the order the formats first appeared (`-v`)."""
        self._path: str | None = None

    def format_of(self, record: Record) -> Format | None:
        """The format that reads the record: the forced one, or the first that detects it."""
        if self._forced is not None:
            return self._forced
        return detect(record)

    def feed(self, record: Record) -> Iterator[Conversation | Problem]:
        self._path = record.location.path
        try:
            fmt = self._forced
            if fmt is None:
                fmt = detect(record)
                if fmt is None:
                    yield Problem(record.location, describe(record))
                    return
            elif not fmt.detect(record):
                yield Problem(record.location, f"not a {fmt.NAME} record: {describe(record)}")
                return
        except Exception as exc:
            yield Problem(record.location, unreadable(exc))
            return
        self.seen[fmt.NAME] = self.seen.get(fmt.NAME, 0) + 1
        collector_type: Callable[..., Collector] | None = getattr(fmt, "Collector", None)
        if collector_type is None:
            yield from _guarded(fmt.parse(record), record.location)
            return
        collector = self._collectors.get(fmt.NAME)
        if collector is None:
            rereads = getattr(collector_type, "rereads", False) and self._reread is not None
            made = collector_type(self._reread) if rereads else collector_type()
            collector = self._collectors[fmt.NAME] = made
        yield from _guarded(collector.add(record), record.location)

    def finish(self) -> Iterator[Conversation | Problem]:
        collectors, self._collectors = self._collectors, {}
        for collector in collectors.values():
            # Collectors guard each conversation they close; this catches what they miss.
            where = Location(self._path or "")
            yield from _guarded(collector.finish(), where)


def _guarded(
    items: Iterator[Conversation | Problem], location: Location
) -> Iterator[Conversation | Problem]:
    """The items, then a Problem in place of the rest if reading them raised."""
    try:
        yield from items
    except Exception as exc:
        yield Problem(location, unreadable(exc))
