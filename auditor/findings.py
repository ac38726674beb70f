"""Severity, the Violation a rule yields, and the Finding the engine makes of it."""

from __future__ import annotations

import enum
import os
import posixpath
from typing import Any

import orjson

from auditor.common.patterns import lazy
from auditor.common.structs import dataclass
from auditor.common.text import cut
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

DEFAULT_FAIL_ON = Severity.WARNING
"""The lowest severity that fails a run when neither `--fail-on` nor `fail-on` names one."""

EVIDENCE_LIMIT = 160


def excerpt(text: str, limit: int = EVIDENCE_LIMIT) -> str:
    """A short one-line excerpt of log text: whitespace runs collapsed, long text cut with `…`."""
    return cut(" ".join(text[: limit * 4].split()), limit)


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
    """Unique in the report; stable across runs, line shifts and moves of the conversation in
    its file (what baselines match; `fingerprint()`)."""
    identity: str
    """The fingerprint without the path and occurrence (`identity()`): the same for a finding
    in a log that was moved or renamed, so baselines can follow the log. Baselines record
    it; the reports do not."""
    index: int | None = None
    """The message's place in the conversation as read (`Message.index`, what the HTML
    timeline marks); `turn` is its place in the file (`model.turn_of`). Not reported."""

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


_VOLATILE = lazy(r"\d+")


def identity(code: str, conversation_key: str, turn: int | None, evidence: str) -> str:
    """What a finding is wherever its log lies: code + conversation identity + turn +
    normalised evidence, hashed.

    Digits in the evidence are masked so that a finding keeps its identity when only a
    counter or a timestamp in the excerpt changes; the path and line are left out so that
    lines inserted above, or a log moved or renamed, leave it the same. Two findings that read
    the same in two logs (conversations of the same id, or without one that start alike)
    share it: `fingerprint` tells them apart.
    """
    normalised = _VOLATILE.sub("0", " ".join(evidence.split()).lower())
    key = "\x1f".join((code, conversation_key, "" if turn is None else str(turn), normalised))
    return _digest(key)


def fingerprint(identity: str, path: str) -> str:
    """The finding in its log: its `identity` and the log's path (normalised: `logs//a` and
    `./logs/a` are `logs/a`), hashed, so that findings that read the same in two logs differ.
    Findings that are alike within one log too (a conversation without an id logged twice)
    are told apart by `occurrence` once the run's findings are sorted.
    """
    return _digest(f"{identity}\x1f{normal_path(path)}")


def occurrence(fingerprint: str, n: int) -> str:
    """The fingerprint of the `n`-th (from 0) finding of a run sharing `fingerprint`, in
    report order (the order of the log): the first keeps it, so lines inserted above leave
    every one its own, and a new copy after the others is the new one."""
    return fingerprint if n == 0 else _digest(f"{fingerprint}#{n}")


def normal_path(path: str) -> str:
    """`path` as fingerprints and baselines compare it: `/`-separated, without `.` or `//`."""
    return posixpath.normpath(path.replace(os.sep, "/")) if path else path


def _digest(key: str) -> str:
    import hashlib  # here: starting OpenSSL is ~4% of an empty file's audit

    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:20]
