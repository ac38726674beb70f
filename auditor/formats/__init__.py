"""Log formats: one reader each, the contract they keep, and the registry that orders them.

The contract (`contract.Format`, `contract.Collector`; vector documents its decoders the same
way): the framing (`auditor.sources.framing`) has already cut the bytes into records (a JSON
Lines line, a whole JSON document or a text), so a reader sees one decoded `Record` at a time
and never a file. Every reader states every member, defaults assigned: `KIND` (the records it
is offered: JSON, text or both), `DETECT_KEYS`, `sniff`, `detect`, `parse`, `Collector` and
`inferred`. `detect(record)` says whether the record is in the format; it is cheap (a few key
lookups) and never raises on any value. `parse(record)` yields the Conversations the record
holds and a Problem (reported as IN002) for each part it could not read; it may raise, and the
`FileReader` (`boundary`, the record boundary) turns that into a Problem for the part being
read. A format whose conversations span several records (one message per line) names a
`Collector`: the engine keeps one per file, `add`s its records in order and calls `finish` at
the end of the file; its `parse` is `add` then `finish` on a fresh collector. Detection tries
the formats in registry order (`catalog.built_in`), most specific first, so that adding a
format means adding its module and its line there.

Outsiders add formats two ways, both tried before the built-in ones: a JSON shape mapped in
the configuration with JMESPath (`[tool.auditor.formats.NAME]`, see `_mapped`), and a reader
a package ships under the `auditor.formats` entry point group (`plugins`).
"""

from __future__ import annotations

from auditor import sources
from auditor.formats import _companions
from auditor.formats._common import Problem, tool_specs, unreadable
from auditor.formats._mapped import MappedFormat, MappingMatchesNothing, declare
from auditor.formats.boundary import HEADER, FileReader, Found, describe
from auditor.formats.catalog import ENTRY_POINTS, FORMATS, by_name, detect, plugins, registry
from auditor.formats.contract import Collector, Format
from auditor.sources import Record

__all__ = [
    "ENTRY_POINTS",
    "FORMATS",
    "HEADER",
    "Collector",
    "FileReader",
    "Format",
    "Found",
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


def companion(record: Record) -> tuple[str, str] | None:
    """(what such files are, what this one is) for a record of a file agent frameworks write
    beside their transcripts that holds none (a run summary, a results file): see
    `_companions`."""
    return _companions.known(record)


def header(record: Record) -> bool:
    """The record heads or closes a log and holds no message (`_companions.header`)."""
    return _companions.header(record)


def claims(head: bytes) -> bool:
    """The first bytes of a file may be a log: they open JSON, or a text format knows them.

    A walk reads no more of a file it decides on by its first bytes (`sources.walked_kind`)
    when this is false, so a repository's README.md costs its first 16 KB, not a parse."""
    if sources.opens_json(head):
        return True
    return any(fmt.sniff(head) for fmt in registry())
