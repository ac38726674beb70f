"""Transcripts found by their shape, in JSON no dedicated reader takes.

Tried after every other format. A record is read when it holds, at any depth, a list of
message-like objects (`_find`): a role-like key (`role`, `type`, `sender`, `author`, `from`,
…) whose value one synonym table knows (`_vocab.ROLES`), with their text, calls and results
wherever the major APIs and frameworks put them (`_read`). A JSON Lines stream whose lines are
such messages, one a line (typed events: `type: tool_use`, `type: function_call_output`), is
one conversation per session id, or per file. It is conservative: the list must hold a user's
and an assistant's words, or calls and their results; a config file, a results table or a list
of users is not a transcript. A list it can read only in part is one Problem (IN002) naming
its conversation, and no rule runs on it. What it inferred (where the roles, calls and result
ids were) is said once per file: `--show-files` and `-v` print `inferred`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from auditor.formats import contract
from auditor.formats._common import Problem, fallback_id, freeze, tool_specs
from auditor.formats.structural._find import Unit, units
from auditor.formats.structural._read import Reading, first, keys_of, read_items, role
from auditor.model import Conversation, Location
from auditor.sources import Record

NAME = "structural"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff

SESSION_KEYS = ("sessionid", "conversationid", "threadid", "chatid")
"""Keys a line of a stream names its conversation by (folded)."""


def detect(record: Record) -> bool:
    try:
        found = _found(record)
    except Exception:  # detection never raises: a record this breaks is not this format's
        return False
    return bool(found[0]) or found[1]


def parse(record: Record) -> Iterator[Conversation | Problem]:
    collector = Collector()
    yield from collector.add(record)
    yield from collector.finish()


def inferred(record: Record) -> str | None:
    """What reading this record by shape infers, in words (`--show-files`)."""
    try:
        found, line = _found(record)
    except Exception:
        return None
    reading = Reading()
    for unit in found:
        reading.merge(unit.reading)
    if line:
        read_items([(record.value, record.location)], reading)
    return describe(reading)


_SAID = ("position", "tool name", "the call's own result")
"""Ways of pairing said in words, not keys."""


def describe(reading: Reading) -> str:
    roles = ", ".join(f"`{k}`" for k in sorted(reading.roles)) or "nowhere"
    calls = ", ".join(sorted(reading.calls))
    pairing = ", ".join(f"`{k}`" if k not in _SAID else k for k in sorted(reading.pairing))
    said = f"read by shape: roles from {roles}, " + (f"calls from {calls}" if calls else "no calls")
    return f"{said}, results paired by {pairing}" if pairing else said


_last: list[Any] = [(None, None)]
"""The last record read and what it holds, one tuple replaced whole (threads may share it):
`parse` follows `detect` on the same record, which then costs one walk."""


def _found(record: Record) -> tuple[list[Unit], bool]:
    """The conversations a record holds, and whether it is itself one message of a stream."""
    last_record, last_found = _last[0]
    if last_record is record:
        return last_found
    value = record.value
    found: tuple[list[Unit], bool] = ([], False)
    if record.kind == "json" and type(value) in (dict, list):
        held = units(value, record.location)
        found = (held, not held and _message_line(value))
    _last[0] = (record, found)
    return found


def _message_line(value: Any) -> bool:
    """One message or event of a stream: a role the table knows, and something said or done."""
    if type(value) is not dict:
        return False
    found = role(value)
    if found is None:
        return False
    drafts, _ = read_items([(value, Location(""))], Reading())
    return any(d.text.strip() or d.calls or d.result is not None for d in drafts)


class Collector(contract.Collector):
    """The conversations of one file: each record's own, and the messages of its lines."""

    def __init__(self, reread: contract.Reread | None = None) -> None:
        self._lines: dict[str | None, list[tuple[Any, Location]]] = {}
        self._path = ""
        self.reading = Reading()

    def add(self, record: Record) -> Iterator[Conversation | Problem]:
        self._path = record.location.path
        found, line = _found(record)
        if line:
            value = record.value
            keys = keys_of(value)
            session = first(value, keys, SESSION_KEYS)
            key = str(session[1]) if session is not None else None
            self._lines.setdefault(key, []).append((value, record.location))
            return
        single = len(found) == 1
        for k, unit in enumerate(found):
            self.reading.merge(unit.reading)
            cid = unit.own_id or fallback_id(record.location, None if single else k)
            yield from _emit(unit, cid, unit.own_id is not None)

    def finish(self) -> Iterator[Conversation | Problem]:
        lines, self._lines = self._lines, {}
        for session, items in lines.items():
            reading = Reading()
            drafts, _ = read_items(_merged(items), reading)
            self.reading.merge(reading)
            first_line = items[0][1]
            # a whole document read as one line of message shape starts at its first line
            where = Location(first_line.path, first_line.line or 1)
            unit = Unit(drafts, reading, where, None)
            if not unit.transcript():
                yield Problem(
                    unit.location,
                    "lines of message shape that hold no conversation (no user and assistant "
                    "words, no call with its result)",
                    session,
                )
                continue
            cid = session or fallback_id(Location(self._path))
            yield from _emit(unit, cid, session is not None)

    def inferred(self) -> str:
        """What reading the file by shape inferred (`-v`)."""
        return describe(self.reading)


def _merged(items: list[tuple[Any, Location]]) -> list[tuple[Any, Location]]:
    """The lines, streamed pieces of one message (`delta: true`) joined into one."""
    out: list[tuple[Any, Location]] = []
    for item, here in items:
        if type(item) is dict and item.get("delta") is True and out:
            last = out[-1][0]
            same = role(last) is not None and role(last)[:2] == role(item)[:2]  # type: ignore[index]
            if same and type(last.get("content")) is str and type(item.get("content")) is str:
                out[-1] = ({**last, "content": last["content"] + item["content"]}, out[-1][1])
                continue
        out.append((item, here))
    return out


def _emit(unit: Unit, cid: str, own: bool) -> Iterator[Conversation | Problem]:
    reading = unit.reading
    if reading.gaps:
        where, why = reading.gaps[0]
        more = f" (and {len(reading.gaps) - 1} more)" if len(reading.gaps) > 1 else ""
        reason = f"read by shape only in part: {why}{more}; the conversation is not audited"
        yield Problem(where, reason, cid)
        # Counted in the summary and the coverage, with no message for a rule to read.
        yield Conversation(cid, NAME, unit.location, (), own_id=own, unread=reason)
        return
    container = unit.container or {}
    tools = None
    if container:
        keys = keys_of(container)
        declared = first(container, keys, ("tools", "functions", "function", "tooldefinitions"))
        tools = tool_specs(declared[1]) if declared is not None else None
    yield Conversation(cid, NAME, unit.location, freeze(unit.drafts), tools=tools, own_id=own)
