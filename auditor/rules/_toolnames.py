"""Tool names read as words: `update_reservation_flights`, `WebFetch`, `send-email`."""

from __future__ import annotations

from functools import lru_cache

from auditor.reading.actions import words

__all__ = ["READ_VERBS", "TERMINAL", "ends_run", "reads_only", "words"]

_READ_VERBS = """
    get search list find read fetch lookup calculate compute check view show query describe count
    grep glob ls
"""
READ_VERBS = frozenset(_READ_VERBS.split())
"""First words of tool names that say the tool only looks something up."""


_PREFIXES = frozenset(("browser", "mcp", "web", "page", "file", "fs", "tool", "tools"))
"""Words of a tool family named before the verb (`browser_get_state`, `mcp__fs__read_file`)."""


@lru_cache(maxsize=4096)  # a log calls a handful of tools, many times each
def reads_only(name: str) -> bool:
    """The tool's name starts with a verb that only looks something up (`get_user`, `Grep`),
    maybe after the words of its family (`browser_get_state`, `mcp__fs__read_file`, but not
    `browser_click`)."""
    parts = words(name)
    while len(parts) > 1 and parts[0] in _PREFIXES:
        parts = parts[1:]
    return bool(parts) and parts[0] in READ_VERBS


TERMINAL = frozenset(
    (
        "finish",
        "submit",
        "exit",
        "final_answer",
        "attempt_completion",
        "task_complete",
        "complete_task",
        "done",
    )
)
"""Tools whose call ends the run (OpenHands' `finish`, SWE-agent's `submit`, smolagents'
`final_answer`, Cline's `attempt_completion`, browser-use's `done`): their arguments are the
agent's last word to the user, and the run stopping is their result."""


def ends_run(name: str) -> bool:
    """The tool is one whose call ends the run (`TERMINAL`), whatever its case or dashes."""
    return name.lower().replace("-", "_") in TERMINAL
