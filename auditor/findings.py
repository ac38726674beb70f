"""Severity, the Violation a rule yields, and the Finding the engine makes of it."""

from __future__ import annotations

import enum
import hashlib
import re
from dataclasses import dataclass
from typing import Any

import orjson

from auditor.model import Location, ToolCall


class Severity(enum.StrEnum):
    """How bad a finding is; the values are SARIF levels."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        """Higher is worse: `--fail-on` compares ranks."""
        return _RANKS[self]


_RANKS = {Severity.NOTE: 1, Severity.WARNING: 2, Severity.ERROR: 3}

EVIDENCE_LIMIT = 160


def excerpt(text: str, limit: int = EVIDENCE_LIMIT) -> str:
    """A short one-line excerpt of log text: whitespace runs collapsed, long text cut with `…`."""
    text = " ".join(text[: limit * 4].split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_call(call: ToolCall) -> str:
    """`name(arguments)` as logged, as a short excerpt."""
    if call.raw_arguments is not None:
        arguments = call.raw_arguments
    else:
        try:
            arguments = orjson.dumps(call.arguments).decode()
        except TypeError:
            arguments = repr(call.arguments)
    return excerpt(f"{call.name}({arguments})")


def on_call(
    message: str,
    call: ToolCall,
    turn: int,
    fallback: Location,
    severity: Severity | None = None,
) -> Violation:
    """A violation about one call: placed on the call (else on `fallback`), the call as evidence."""
    return Violation(
        message,
        turn,
        call.location or fallback,
        tool=call.name,
        call_id=call.id,
        evidence=describe_call(call),
        severity=severity,
    )


@dataclass(frozen=True, slots=True)
class Violation:
    """What a rule yields: the problem and where it is. The engine adds the rule's code."""

    message: str
    turn: int
    """Index of the message the problem is in."""
    location: Location
    tool: str | None = None
    call_id: str | None = None
    evidence: str = ""
    """A short excerpt of the log that shows the problem (use `excerpt`)."""
    severity: Severity | None = None
    """A severity other than the rule's default for this finding (LP001 escalates long loops);
    a severity configured for the rule still wins."""
    deferred: Any = None
    """Set when the finding holds only if the tools inferred from the whole input file agree:
    what the rule's `resolve(deferred, tools)` needs to decide it once every conversation of
    the file was read (picklable: a worker process may yield it)."""
    not_examined: bool = False
    """Not a finding: the rule could not examine part of the conversation, and `message` says
    why; the engine counts it in the coverage notes (`Report.gaps`), once per conversation."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One reported problem, as every reporter sees it."""

    code: str
    name: str
    severity: Severity
    message: str
    path: str
    line: int | None
    pointer: str
    conversation: str | None
    """The conversation id; None for a record that never became a conversation."""
    turn: int | None
    tool: str | None
    call_id: str | None
    evidence: str
    fingerprint: str
    """Stable across runs, line shifts and moves of the conversation in its file (baselines)."""

    def sort_key(self) -> tuple[Any, ...]:
        return (
            self.path,
            self.line if self.line is not None else 0,
            self.pointer,
            self.turn if self.turn is not None else -1,
            self.code,
            self.message,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "pointer": self.pointer,
            "conversation": self.conversation,
            "turn": self.turn,
            "tool": self.tool,
            "call_id": self.call_id,
            "evidence": self.evidence,
            "fingerprint": self.fingerprint,
        }


_VOLATILE = re.compile(r"\d+")


def fingerprint(code: str, conversation_key: str, turn: int | None, evidence: str) -> str:
    """code + conversation identity + turn + normalised evidence, hashed (SPEC §6).

    Digits in the evidence are masked so that a finding keeps its fingerprint when only a
    counter or a timestamp in the excerpt changes; the path and line are left out so that a
    file rename or lines inserted above do not make old findings look new.
    """
    normalised = _VOLATILE.sub("0", " ".join(evidence.split()).lower())
    key = "\x1f".join((code, conversation_key, "" if turn is None else str(turn), normalised))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:20]
