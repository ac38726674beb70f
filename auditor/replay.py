"""One walk per conversation that pairs calls with results, once, for every rule (SPEC §4).

A call is paired with the first later result that carries its id; a result without an id
answers the oldest open call. A call is *passed* when the role that made it speaks again
before its result arrives: the caller moved on without the tool's output. Approvals are then
paired with the calls they gate (`auditor.approvals`). Rules read the pairing from here and
never pair anything themselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from auditor.approvals import Approval, ApprovalOptions, pair
from auditor.model import Conversation, Message, ToolCall, ToolResult


@dataclass(frozen=True, slots=True)
class Exchange:
    """A tool call and what became of it."""

    call: ToolCall
    turn: int
    """Index of the message that made the call."""
    caller: str
    """Role of that message: normally `assistant`; tau2's simulated user calls tools too."""
    result: ToolResult | None
    result_turn: int | None
    passed_at: int | None
    """The caller's next message when it came before the result: the caller moved on without it."""
    failed: bool = False
    """The result is an error: flagged by the log or, when the log has no flag, worded so."""

    @property
    def answered(self) -> bool:
        """A result arrived before the caller's next turn."""
        return self.result is not None and self.passed_at is None


def _failed(result: ToolResult | None) -> bool:
    if result is None:
        return False
    if result.is_error is not None:
        return result.is_error
    return looks_like_error(result.text)


# Logs without an error flag (tau-bench, SWE-agent) say it in the text: "Error: payment amount
# does not add up…", "Traceback (most recent call last):".
_ERROR_TEXT = re.compile(
    r"\s*(?:error\b|exception\b|traceback \(most recent call last\)"
    r"|an? (?:unexpected |unknown |internal )?error (?:has )?occurred\b"
    r"|internal (?:server )?error\b)",
    re.I,
)


def looks_like_error(text: str) -> bool:
    """A tool result that reads as an error when the log has no flag for it."""
    return _ERROR_TEXT.match(text) is not None


@dataclass(frozen=True, slots=True)
class Turn:
    """An assistant message, with what was known when it was written."""

    message: Message
    exchanges: tuple[Exchange, ...]
    """The calls this message makes."""
    pending: tuple[Exchange, ...]
    """The assistant's earlier calls that had no result yet when this message was written."""
    first_exchange: int
    """Index in `Replay.exchanges` of this turn's first call: the history is everything before."""


@dataclass(frozen=True, slots=True)
class Orphan:
    """A tool result that answers no earlier call."""

    message: Message
    result: ToolResult
    answered_turn: int | None = None
    """When the id names an earlier call that already had its result: that call's turn."""


@dataclass(frozen=True, slots=True)
class Replay:
    """A conversation with its calls, results and turns paired."""

    conversation: Conversation
    turns: tuple[Turn, ...]
    exchanges: tuple[Exchange, ...]
    """Every call in the order it was made."""
    orphans: tuple[Orphan, ...]
    approvals: tuple[Approval, ...] = ()
    """Every approval asked, decided or required, with the call that ran under it."""

    def history(self, turn: Turn) -> tuple[Exchange, ...]:
        """The calls made before `turn`, with their outcomes."""
        return self.exchanges[: turn.first_exchange]


class _Open:
    """An exchange while the walk is still looking for its result."""

    __slots__ = ("call", "caller", "passed_at", "result", "result_turn", "turn")

    def __init__(self, call: ToolCall, turn: int, caller: str) -> None:
        self.call = call
        self.turn = turn
        self.caller = caller
        self.result: ToolResult | None = None
        self.result_turn: int | None = None
        self.passed_at: int | None = None

    def freeze(self) -> Exchange:
        return Exchange(
            self.call,
            self.turn,
            self.caller,
            self.result,
            self.result_turn,
            self.passed_at,
            _failed(self.result),
        )


def replay(conversation: Conversation, approvals: ApprovalOptions | None = None) -> Replay:
    """Walk the conversation once and pair everything.

    `approvals` says how to find approvals in chat logs (the CF rules' options); defaults apply
    when it is None.
    """
    made: list[_Open] = []
    waiting: list[_Open] = []  # calls without a result, oldest first
    orphans: list[Orphan] = []
    closed: dict[str, int] = {}  # call id -> turn, for calls already answered
    turn_parts: list[tuple[Message, int, int, list[_Open]]] = []
    for message in conversation.messages:
        if message.result is not None:
            match = _take(waiting, message.result.call_id)
            if match is None:
                call_id = message.result.call_id
                earlier = closed.get(call_id) if call_id is not None else None
                orphans.append(Orphan(message, message.result, earlier))
            else:
                match.result = message.result
                match.result_turn = message.index
                if match.call.id is not None:
                    closed[match.call.id] = match.turn
        if message.role != "tool":
            pending = [w for w in waiting if w.caller == message.role] if waiting else []
            for w in pending:
                if w.passed_at is None:
                    w.passed_at = message.index
            first = len(made)
            for call in message.tool_calls:
                opened = _Open(call, message.index, message.role)
                made.append(opened)
                waiting.append(opened)
            if message.role == "assistant":
                turn_parts.append((message, first, len(made), pending))
    frozen = [m.freeze() for m in made]
    by_identity = {id(m): e for m, e in zip(made, frozen, strict=True)}
    turns = tuple(
        Turn(
            message,
            tuple(frozen[first:end]),
            tuple([by_identity[id(p)] for p in pending]) if pending else (),
            first,
        )
        for message, first, end, pending in turn_parts
    )
    exchanges = tuple(frozen)
    found = pair(conversation, exchanges, approvals or ApprovalOptions())
    return Replay(conversation, turns, exchanges, tuple(orphans), found)


def _take(waiting: list[_Open], call_id: str | None) -> _Open | None:
    """Remove and return the open call a result answers."""
    for i, w in enumerate(waiting):
        if call_id is None or w.call.id == call_id:
            return waiting.pop(i)
    return None
