"""A compact, bounded summary of a conversation that has findings, for reporters that show it.

Reporters never see conversations (they get findings and counts, whatever a log holds). The HTML
report still has to show what happened around each finding, so when a reporter asks for it
(`Settings.timelines`) the engine turns each conversation that got at least one finding into a
`Timeline`: per message its turn, role, author, a text excerpt, its calls (name, id, an excerpt of
the arguments), its result (excerpt and error flag) and its approval request or decision. Everything
is plain, picklable data, so `--jobs` workers return timelines with their findings.

It stays bounded whatever the log: messages near a finding (within `NEAR` turns of it, and the
first and last messages) keep longer excerpts than the quiet ones between; a conversation keeps
at most `MAX_ENTRIES` messages (those near findings always, then the quiet ones closest to a
finding), and says how many it left out.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Collection, Iterable
from typing import Any

import orjson

from auditor.common.structs import dataclass
from auditor.common.text import cut
from auditor.model import Conversation, Message, ToolCall
from auditor.replay.calls import looks_like_error

NEAR = 3
"""Messages within this many turns of a finding are kept with long excerpts."""
MAX_ENTRIES = 300
"""Messages kept per conversation; past it, quiet messages are counted, not kept."""
MAX_TOOLS = 40
"""Declared tool names kept per conversation."""

# (text, arguments, result, reasoning) excerpt lengths, near a finding and elsewhere.
_NEAR_LIMITS = (2000, 600, 1200, 600)
_QUIET_LIMITS = (240, 120, 240, 120)


@dataclass(frozen=True, slots=True)
class CallEntry:
    """A tool call as the timeline shows it."""

    name: str
    id: str | None
    arguments: str
    """An excerpt of the arguments as logged (a JSON string stays as written)."""
    in_text: bool = False
    """The format recovered the call from the message text (origin `text`)."""


@dataclass(frozen=True, slots=True)
class ResultEntry:
    """A tool result as the timeline shows it."""

    call_id: str | None
    text: str
    is_error: bool | None
    """As the log says; None when it says nothing."""
    reads_as_error: bool = False
    """The log has no flag but the text reads as an error (as replay judges it)."""


@dataclass(frozen=True, slots=True)
class ApprovalEntry:
    """An approval request, or a person's decision on one."""

    kind: str
    """`request` or `decision`."""
    id: str
    """The request's id (for a decision: the id of the request it answers)."""
    name: str = ""
    call_id: str | None = None
    arguments: str = ""
    """Requested arguments, or the edited arguments of a decision (empty: approved as asked)."""
    approved: bool | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Entry:
    """One message of the conversation."""

    turn: int
    role: str
    name: str | None
    line: int | None
    text: str
    length: int
    """Characters of the whole text: more than `len(text)` when the excerpt is cut."""
    reasoning: str = ""
    calls: tuple[CallEntry, ...] = ()
    result: ResultEntry | None = None
    approvals: tuple[ApprovalEntry, ...] = ()
    near: bool = True
    """Within `NEAR` turns of a finding: excerpts are long. False: a quiet message."""
    omitted_before: int = 0
    """Quiet messages left out just before this one (past `MAX_ENTRIES`)."""
    position: int | None = None
    """The message's place in the file (`Message.position`) where it is not `turn`: what the
    page shows, as the findings report it."""

    @property
    def shown(self) -> int:
        """The turn the page shows: the message's place in the file."""
        return self.turn if self.position is None else self.position


@dataclass(frozen=True, slots=True)
class Timeline:
    """What a reporter may show of one conversation with findings."""

    path: str
    conversation: str
    """The conversation id, as findings name it."""
    format: str
    line: int | None
    pointer: str
    messages: int
    """Messages in the conversation (entries may be fewer)."""
    entries: tuple[Entry, ...]
    omitted_after: int = 0
    """Quiet messages left out after the last entry."""
    tools: tuple[str, ...] | None = None
    """Names of the declared tools (at most `MAX_TOOLS`); None when none are declared."""

    def sort_key(self) -> tuple[Any, ...]:
        return (self.path, self.line or 0, self.pointer, self.conversation)


def build(conversation: Conversation, hits: Iterable[tuple[int | None, str]]) -> Timeline:
    """The timeline of a conversation, given its findings as (turn, evidence) pairs."""
    messages = conversation.messages
    last = len(messages) - 1
    marks: dict[int, list[str]] = {}
    for turn, evidence in hits:
        if turn is not None:
            marks.setdefault(turn, []).append(evidence)
    near = _near(marks, last)
    kept = _quiet_kept(len(messages), near, sorted(marks), max(0, MAX_ENTRIES - len(near)))
    entries: list[Entry] = []
    omitted = 0
    for message in messages:
        close = message.index in near
        if not close and message.index not in kept:
            omitted += 1
            continue
        entries.append(_entry(message, close, marks.get(message.index, ()), omitted))
        omitted = 0
    tools = conversation.tools
    return Timeline(
        path=conversation.location.path,
        conversation=conversation.id,
        format=conversation.format,
        line=conversation.location.line,
        pointer=conversation.location.pointer,
        messages=len(messages),
        entries=tuple(entries),
        omitted_after=omitted,
        tools=None if tools is None else tuple(cut(t.name, 80) for t in tools[:MAX_TOOLS]),
    )


def _near(marks: Collection[int], last: int) -> set[int]:
    """Turns kept with long excerpts: around each finding, and the first and last messages."""
    near = {0, 1, last}
    for turn in marks:
        near.update(range(max(0, turn - NEAR), min(last, turn + NEAR) + 1))
    return {t for t in near if 0 <= t <= last}


def _quiet_kept(count: int, near: set[int], marks: list[int], budget: int) -> set[int]:
    """The quiet turns kept within `budget`: those closest to a finding (the earliest when no
    finding has a turn)."""
    quiet = [i for i in range(count) if i not in near]
    if len(quiet) <= budget:
        return set(quiet)

    def distance(turn: int) -> int:
        at = bisect_left(marks, turn)
        around = marks[max(0, at - 1) : at + 1]
        return min((abs(turn - m) for m in around), default=0)

    return set(sorted(quiet, key=lambda turn: (distance(turn), turn))[:budget])


def _entry(message: Message, near: bool, evidence: Iterable[str], omitted: int) -> Entry:
    text_limit, args_limit, result_limit, reasoning_limit = _NEAR_LIMITS if near else _QUIET_LIMITS
    result = message.result
    request, decision = message.approval_request, message.approval_decision
    approvals = []
    if request is not None:
        approvals.append(
            ApprovalEntry(
                "request",
                cut(request.id, 120),
                name=cut(request.name, 120),
                call_id=_clip_id(request.call_id),
                arguments=_arguments(request.arguments, args_limit),
            )
        )
    if decision is not None:
        approvals.append(
            ApprovalEntry(
                "decision",
                cut(decision.request_id, 120),
                arguments=(
                    "" if decision.arguments is None else _arguments(decision.arguments, args_limit)
                ),
                approved=decision.approved,
                reason=cut(decision.reason, 400),
            )
        )
    # A tool message's text is normally its result: shown once, as the result.
    text = "" if result is not None and result.text == message.text else message.text
    return Entry(
        turn=message.index,
        position=message.position,
        role=cut(message.role, 40),
        name=None if message.name is None else cut(message.name, 80),
        line=message.location.line,
        text=_around(text, text_limit, evidence),
        length=len(text),
        reasoning=cut(message.reasoning, reasoning_limit),
        calls=tuple(_call(call, args_limit) for call in message.tool_calls[:50]),
        result=(
            None
            if result is None
            else ResultEntry(
                _clip_id(result.call_id),
                _around(result.text, result_limit, evidence),
                result.is_error,
                reads_as_error=result.is_error is None and looks_like_error(result.text),
            )
        ),
        approvals=tuple(approvals),
        near=near,
        omitted_before=omitted,
    )


def _call(call: ToolCall, limit: int) -> CallEntry:
    raw = call.raw_arguments
    arguments = cut(raw, limit) if raw is not None else _arguments(call.arguments, limit)
    return CallEntry(cut(call.name, 120), _clip_id(call.id), arguments, call.origin == "text")


def _arguments(value: Any, limit: int) -> str:
    if isinstance(value, str):
        return cut(value, limit)
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = repr(value)
    return cut(text, limit)


def _clip_id(value: str | None) -> str | None:
    return None if value is None else cut(value, 120)


_WORDS = 6
"""Leading words of an evidence excerpt looked for in a long text."""


def _around(text: str, limit: int, evidence: Iterable[str]) -> str:
    """`text` cut to about `limit` characters, keeping where the first evidence found in it is.

    Evidence is a whitespace-collapsed excerpt (`findings.excerpt`), so it is looked for by its
    first words with any whitespace between them.
    """
    if len(text) <= limit:
        return text
    for item in evidence:
        found = find(text, item)
        if found is None:
            continue
        if found[1] < limit:
            break  # the plain cut shows it
        head = limit // 4
        start = max(head, found[0] - limit // 4)
        tail = text[start : start + limit - head]
        return text[:head] + " … " + tail + ("…" if start + len(tail) < len(text) else "")
    return cut(text, limit)


def find(text: str, evidence: str, limit: int = _WORDS) -> tuple[int, int] | None:
    """Where the first `limit` words of a (whitespace-collapsed) evidence excerpt are in `text`."""
    words = evidence.rstrip("…").split()[:limit]
    if not words or words[0] not in text:  # cheap test before the regex
        return None
    found = re.search(r"\s+".join(re.escape(w) for w in words), text)
    return None if found is None else (found.start(), found.end())
