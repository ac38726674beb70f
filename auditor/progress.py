"""The progress line on stderr while a run reads its inputs (rich, only on a terminal).

stdout is never redirected (SPEC §9): rich's Progress would otherwise send everything printed
while it lives to stderr, and `audit … | jq` would see nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable


class Progress:
    """A context manager yielding the engine's per-file callback, or None when disabled."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._progress = None
        self._task = None

    def __enter__(self) -> Callable[[str], None] | None:
        if not self.enabled:
            return None
        from rich.console import Console
        from rich.progress import Progress as Bar
        from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn

        self._progress = Bar(
            SpinnerColumn(),
            TextColumn("{task.description}", markup=False),
            TimeElapsedColumn(),
            console=Console(stderr=True, highlight=False, markup=False),
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._progress.start()
        self._task = self._progress.add_task("auditing", total=None)

        def on_file(path: str) -> None:
            from auditor.reporters._escape import safe

            self._progress.update(self._task, description=f"auditing {safe(path)}")  # type: ignore[union-attr]

        return on_file

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
