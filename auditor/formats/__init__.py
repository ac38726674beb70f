"""Log formats: one module each, with `NAME`, `detect(record)` and `parse(record)`.

`parse` yields Conversations, and a Problem (reported as IN002) for each part of the record it
could not read. A format whose conversations span several records (one message per line)
defines `Collector`, with `add(record)` and `finish()` yielding the same items; the engine
keeps one collector per file. Detection tries the formats in registry order, most specific
first, so that adding a format means adding its module and one line here.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

from auditor.formats import (
    anthropic,
    exchange,
    harmony,
    multiagent,
    openai,
    responses,
    sharegpt,
    stream,
    swe_agent,
    tau,
)
from auditor.formats._common import Problem
from auditor.model import Conversation
from auditor.sources import Record

__all__ = ["FORMATS", "FileReader", "Problem"]

# Order matters, most specific first: an exchange holds request bodies in any API's shape; a
# tau-bench entry holds OpenAI messages; Anthropic and Responses conversations would also pass
# for OpenAI ones (`messages`, or a bare list of `{role, content}`); SWE-agent trajectories
# have a `history` like multi-agent chats.
FORMATS: dict[str, ModuleType] = {
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


def detect(record: Record) -> ModuleType | None:
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
    """Reads the records of one file into conversations, holding grouped formats until the end."""

    def __init__(self, forced: str | None = None) -> None:
        self._forced = FORMATS[forced] if forced else None
        self._collectors: dict[str, object] = {}
        self.seen: dict[str, int] = {}
        """Records read per format name, in the order the formats first appeared (`-v`)."""

    def feed(self, record: Record) -> Iterator[Conversation | Problem]:
        fmt = self._forced
        if fmt is None:
            fmt = detect(record)
            if fmt is None:
                yield Problem(record.location, describe(record))
                return
        elif not fmt.detect(record):
            yield Problem(record.location, f"not a {fmt.NAME} record: {describe(record)}")
            return
        self.seen[fmt.NAME] = self.seen.get(fmt.NAME, 0) + 1
        collector_type = getattr(fmt, "Collector", None)
        if collector_type is None:
            yield from fmt.parse(record)
            return
        collector = self._collectors.get(fmt.NAME)
        if collector is None:
            collector = self._collectors[fmt.NAME] = collector_type()
        yield from collector.add(record)  # type: ignore[attr-defined]

    def finish(self) -> Iterator[Conversation | Problem]:
        for collector in self._collectors.values():
            yield from collector.finish()  # type: ignore[attr-defined]
        self._collectors.clear()
