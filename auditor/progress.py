"""The progress bar on stderr while a run reads its inputs (rich, only on a terminal).

It shows bytes read of the total, the rate, the time left, and the conversations and findings so
far, and appears only once a run has taken half a second, so that short runs print nothing but their
report. stdout is never redirected (it holds the report and nothing else): rich's Progress would
otherwise send everything printed while it lives to stderr, and `audit … | jq` would see nothing.
"""

from __future__ import annotations

import sys
import time
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auditor.sources import Source

DELAY = 0.5
"""Seconds a run takes before the bar appears."""
REFRESH = 0.1
"""Seconds between two updates from the reading loop (rich redraws on its own thread)."""


def size_of(source: Source) -> int:
    """The bytes a source (or a span of one) stands for in the total."""
    if source.span is not None:
        return source.span.end - source.span.start
    return source.size or 0


class Bar:
    """The engine's `Progress`, drawn with rich once the run is long enough to need it."""

    def __init__(self, total: int | None, enabled: bool, color: bool) -> None:
        self.total = total or None
        self.enabled = enabled and sys.stderr.isatty()
        self.color = color
        self.started = time.monotonic()
        self.done_bytes = 0
        self.conversations = 0
        self.findings = 0
        self._raw: IO[bytes] | None = None
        self._next = self.started + DELAY
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    # The engine's Progress protocol.

    def opened(self, raw: IO[bytes]) -> None:
        self._raw = raw

    def step(self, conversations: int, findings: int) -> None:
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + REFRESH
        current = 0
        raw = self._raw
        if raw is not None:
            try:
                current = raw.tell()
            except (OSError, ValueError):
                current = 0
        self._update(self.done_bytes + current, conversations, findings)

    def finished(self, source: Source, conversations: int, findings: int) -> None:
        self._raw = None
        self.done_bytes += size_of(source)
        self.conversations += conversations
        self.findings += findings
        self._update(self.done_bytes, 0, 0)

    def _update(self, completed: int, conversations: int, findings: int) -> None:
        if not self.enabled or (self._bar is None and time.monotonic() < self.started + DELAY):
            return
        if self._bar is None:
            self._start()
        self._bar.update(
            self._task,
            completed=min(completed, self.total) if self.total else completed,
            conversations=self.conversations + conversations,
            findings=self.findings + findings,
        )

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        self._bar = Progress(
            TextColumn("auditing"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[conversations]:,} conversations"),
            TextColumn("{task.fields[findings]:,} findings"),
            console=Console(
                stderr=True, highlight=False, markup=False, no_color=not self.color or None
            ),
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._task = self._bar.add_task("auditing", total=self.total, conversations=0, findings=0)
        self._bar.start()
