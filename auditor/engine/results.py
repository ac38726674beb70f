"""What crosses the engine's stages and processes: the result of auditing one source (what a
worker returns and the merge reduces), the groups unread records are gathered in, and what the
engine tells a progress display. A leaf of the engine package.
"""

from __future__ import annotations

from bisect import insort
from collections import defaultdict
from dataclasses import field, replace
from typing import IO, TYPE_CHECKING, Any, Protocol

from auditor.common.patterns import lazy
from auditor.common.structs import dataclass
from auditor.findings import Finding, fingerprint, identity
from auditor.report import Counts, RunError, Unread
from auditor.sources import Source

if TYPE_CHECKING:
    from auditor import timeline


class Progress(Protocol):
    """What the engine tells a progress display (`auditor.progress.Bar`)."""

    def opened(self, raw: IO[bytes]) -> None:
        """A file being read in this process: how far it got is `raw.tell()`."""

    def step(self, conversations: int, findings: int) -> None:
        """A record of the file being read in this process was audited (counts so far)."""

    def finished(self, source: Source, conversations: int, findings: int) -> None:
        """A source (or a span of one) is done, here or in a worker."""


@dataclass
class SourceResult:
    """What auditing one source produced; merged in source order."""

    findings: list[Finding] = field(default_factory=list)
    counts: Counts = field(default_factory=Counts)
    skipped: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    """(rule code, reason) -> conversations that rule could not examine."""
    errors: list[RunError] = field(default_factory=list)
    unread: list[Unread] = field(default_factory=list)
    """Files a directory walk found and did not audit."""
    formats: dict[str, int] = field(default_factory=dict)
    """Records read per log format."""
    repeats: dict[tuple[str, str], UnreadGroup] = field(default_factory=dict)
    """IN001/IN002 findings by (code, shape): reported one by one up to a limit, then counted."""
    deferred: list[int] = field(default_factory=list)
    """Lines of a span (`--jobs`) holding records of a format whose conversations span lines:
    the parent reads them after every span of the file, so no conversation is cut."""
    tools: dict[str, set[str]] = field(default_factory=dict)
    """Log format -> the tools that answered a call with something other than an error."""
    untooled: dict[str, int] = field(default_factory=dict)
    """Log format -> conversations with neither declared nor given tools."""
    undecided: dict[str, tuple[str, Any]] = field(default_factory=dict)
    """Fingerprint -> (log format, data) of findings a rule decides once the tools inferred
    from the file are known (`Violation.deferred`)."""
    timelines: list[timeline.Timeline] = field(default_factory=list)
    """With `Settings.timelines`: one per conversation that got findings."""


Item = RunError | Counts | Unread | tuple[Source, SourceResult]
"""What a runner hands back, in plan order: each planned item, and each source with what
auditing it returned."""


UNREAD_SHOWN = 20
"""IN findings of one kind listed one by one per file; the rest are counted in one finding."""
UNREAD_SAMPLE = 5
_NUMBERS = lazy(r"0x[0-9a-fA-F]+|\d+")
"""Columns, counts and byte values (`byte 0xbd`): binary noise is one kind, not one a byte."""


def shape(message: str) -> str:
    """What makes two unread records alike: their reason, columns, counts and bytes aside."""
    return _NUMBERS.sub("#", message)


class UnreadGroup:
    """The IN findings of one kind in one file: the first `UNREAD_SHOWN` in file order, and how
    many more there are with the first few of them, so that a megabyte of `{}` lines is one
    screen, not a million findings. Joining two groups gives what one group would have been
    given every finding of both (so spans merge into what a whole-file run reports)."""

    __slots__ = ("more", "sample", "shown")

    def __init__(self) -> None:
        self.shown: list[Finding] = []
        self.sample: list[Finding] = []
        self.more = 0

    def add(self, finding: Finding) -> None:
        shown = self.shown
        if len(shown) < UNREAD_SHOWN:
            insort(shown, finding, key=Finding.sort_key)
        elif Finding.sort_key(finding) >= Finding.sort_key(shown[-1]):
            self._spill(finding)  # the common case: records arrive in file order
        else:
            insort(shown, finding, key=Finding.sort_key)
            self._spill(shown.pop())

    def _spill(self, finding: Finding) -> None:
        self.more += 1
        sample = self.sample
        if len(sample) < UNREAD_SAMPLE:
            insort(sample, finding, key=Finding.sort_key)
        elif Finding.sort_key(finding) < Finding.sort_key(sample[-1]):
            insort(sample, finding, key=Finding.sort_key)
            sample.pop()

    def absorb(self, other: UnreadGroup) -> None:
        for finding in other.shown:
            self.add(finding)
        self.more += other.more - len(other.sample)
        for finding in other.sample:
            self._spill(finding)

    def findings(self) -> list[Finding]:
        if not self.more:
            return list(self.shown)
        sample = self.sample
        first = sample[0]
        lines = ", ".join(str(f.line) for f in sample if f.line is not None)
        where = f" (lines {lines}{', …' if self.more > len(sample) else ''})" if lines else ""
        same = identity(first.code, "unread", None, shape(first.message))
        summary = replace(
            first,
            message=f"{self.more} more like this{where}: {first.message}",
            conversation=None,
            fingerprint=fingerprint(same, first.path),
            identity=same,
        )
        return [*self.shown, summary]
