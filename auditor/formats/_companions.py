"""Files agent frameworks write beside their transcripts that hold no transcript themselves.

A run summary, a results file with answers only or a run's event log is not a log any reader
could audit; recognising it lets a walk say what it is when it skips it ("benchmark results:
answers only, no steps") instead of "no log shape", and a file named on the command line get
that reason with its IN002. Each shape is listed with the reason given; `README.md` lists them
under what is not read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from auditor.sources import Record


def _smolagents_event(value: Any) -> bool:
    message = value.get("message")
    return (
        {"timestamp", "level"} <= value.keys() and isinstance(message, dict) and "event" in message
    )


def _results_row(value: Any) -> bool:
    return {"question_id", "answer"} <= value.keys() and ("success" in value or "task" in value)


def _evaluation_summary(value: Any) -> bool:
    return "resolved_ids" in value and ("unresolved_ids" in value or "completed_ids" in value)


def _agent_state(value: Any) -> bool:
    return "agent" in value and "execution_status" in value and "events" not in value


SHAPES: tuple[tuple[Callable[[Any], bool], str, str], ...] = (
    (
        _smolagents_event,
        "run event logs",
        "a run's event log (events and message previews; the run's messages.jsonl holds its "
        "transcript)",
    ),
    (_results_row, "results files", "benchmark results: answers only, no steps"),
    (
        _evaluation_summary,
        "evaluation summaries",
        "an evaluation summary: resolved and unresolved task ids, no steps",
    ),
    (
        _agent_state,
        "agent state files",
        "an agent's saved state and configuration (its events are the transcript)",
    ),
)
"""(test on a JSON object, what such files are, what one record is) for each known shape."""


HEADER_KEYS = frozenset(
    (
        *("metadata", "meta", "_meta", "header", "info", "run_info", "config", "configuration"),
        *("settings", "summary", "stats", "statistics"),
    )
)
"""Keys one of which a header record has: what the run was, not what was said in it."""
HEADER_MORE = frozenset(("version", "benchmark", "name", "created_at", "timestamp", "date"))
"""Keys a header record may have besides."""


def header(record: Record) -> bool:
    """A record that heads or closes a log whose other records are transcripts (AgentDojo's
    `{"metadata": {...}}` first line, a run summary line): a JSON object all of whose keys
    say what the run was (`HEADER_KEYS`, `HEADER_MORE`), at least one of them `HEADER_KEYS`.
    It holds no message: it is counted as read, never reported as a record nobody could
    read, and a file of nothing else is still no log (it matches no format)."""
    value = record.value
    if record.kind != "json" or type(value) is not dict or not value.keys() & HEADER_KEYS:
        return False
    return value.keys() <= HEADER_KEYS | HEADER_MORE


def known(record: Record) -> tuple[str, str] | None:
    """(what such files are, what the record is) when a record that holds no transcript is a
    known companion file's."""
    value = record.value
    if record.kind != "json" or not isinstance(value, dict):
        return None
    for test, files, what in SHAPES:
        if test(value):
            return files, what
    return None
