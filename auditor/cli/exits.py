"""How a command ends: its exit status, and an error as one line on stderr.

Both raise SystemExit, which typer's command lets through as it is and which a run read
without typer (`cli/fast.py`) ends with alike."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from typing import NoReturn

from auditor.common.errors import AuditorError, Terminated


def exit_with(act: Callable[[], int], debug: bool) -> NoReturn:
    """Run a command and exit with its status; an error is one line on stderr (exit 2)."""
    from auditor.commands import run

    signal.signal(signal.SIGTERM, _terminated)
    try:
        status = act()
    except AuditorError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        _stderr("audit: interrupted")
        raise SystemExit(130) from None
    except Terminated:
        _stderr("audit: terminated")
        raise SystemExit(143) from None
    except BrokenPipeError:
        run.silence_stdout()
        raise SystemExit(1) from None
    except Exception as exc:
        if debug:
            raise
        fail(f"internal error: {type(exc).__name__}: {exc} (run with --debug for a traceback)")
    raise SystemExit(status)


def _terminated(signum: int, frame: object) -> NoReturn:
    """SIGTERM: unwind as SIGINT does, so that worker processes are ended on the way out."""
    raise Terminated


def _stderr(line: str) -> None:
    from auditor.common.text import safe

    print(safe(line), file=sys.stderr)


def fail(message: str) -> NoReturn:
    _stderr(f"audit: error: {message}")
    raise SystemExit(2)
