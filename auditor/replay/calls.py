"""What replay pairs: a call and what became of it, an assistant turn, an orphan result.

A leaf of the replay package: the approvals read these types and nothing above them.
"""

from __future__ import annotations

import re

from auditor.common.patterns import lazy
from auditor.common.structs import dataclass
from auditor.model import Message, ToolCall, ToolResult


# Built for every call and every assistant message: plain slotted dataclasses, read and never
# changed, as the model's own (see `auditor.model`).
@dataclass(slots=True, unsafe_hash=True)
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


def failed(result: ToolResult | None) -> bool:
    """The result is an error: flagged by the log or, when the log has no flag, worded so."""
    if result is None:
        return False
    if result.is_error is not None:
        return result.is_error
    return looks_like_error(result.text)


# Logs without an error flag (tau-bench, SWE-agent) say it in the text: "Error: payment amount
# does not add up…", "Traceback (most recent call last):".
_ERROR_TEXT = lazy(
    r"\s*(?:error\b|exception\b|traceback \(most recent call last\)"
    r"|an? (?:unexpected |unknown |internal )?error (?:has )?occurred\b"
    r"|internal (?:server )?error\b)",
    re.I,
)


def looks_like_error(text: str) -> bool:
    """A tool result that reads as an error when the log has no flag for it."""
    return _ERROR_TEXT.match(text) is not None


@dataclass(slots=True, unsafe_hash=True)
class Turn:
    """An assistant message, with what was known when it was written."""

    message: Message
    exchanges: tuple[Exchange, ...]
    """The calls this message makes."""
    first_exchange: int
    """Index in `Replay.exchanges` of this turn's first call: the history is everything before."""


@dataclass(slots=True, unsafe_hash=True)
class Orphan:
    """A tool result that answers no earlier call."""

    message: Message
    result: ToolResult
    answered_turn: int | None = None
    """When the id names an earlier call that already had its result: that call's turn."""
