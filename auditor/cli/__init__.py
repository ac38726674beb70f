"""The `audit` command: arguments in, exit status out, nothing else.

Exit status: 0 when no finding reaches `--fail-on`, 1 when one does, 2 for a usage
error, an unreadable path or an internal error, each with one line on stderr and never a
traceback (unless `--debug`). A broken pipe (`audit … | head`) ends the run quietly.

`audit compare BASE NEW` is a command of its own (`compare_app`), with the same exit statuses
and error handling; `main` sends the command line to it when its first word is `compare`.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["app", "compare_app", "main"]


def __getattr__(name: str) -> Any:
    """The typer commands, `app` and `compare_app`, imported when asked for: a plain run read
    without typer (`cli/fast.py`) imports this package and must not load typer."""
    if name == "app":
        from auditor.cli.audit import app

        return app
    if name == "compare_app":
        from auditor.cli.compare import compare_app

        return compare_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Console-script entry point: `audit compare …` is a command of its own, the rest is
    `audit PATHS…` (a log file named `compare` is `./compare`)."""
    if sys.argv[1:2] == ["compare"]:
        from auditor.cli.compare import compare_app

        compare_app(prog_name="audit compare", args=sys.argv[2:])
        return
    from auditor.cli.audit import app

    app(prog_name="audit")
