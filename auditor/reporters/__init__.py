"""Reporters: one module per output format, each with `write(report, out, context)`.

Reporters see the Report (findings, counts, coverage, errors) and the rule docs, never the
conversations: a reporter in `TIMELINES` also gets the bounded timelines the engine builds of
the conversations with findings (`auditor.timeline`), and nothing more of them.

The registry names modules rather than importing them, so that `audit --version` and `--help`
do not pay for rich's table code.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TextIO

from auditor.report import Context, Report

__all__ = ["REPORTERS", "TIMELINES", "Context", "Writer", "writer"]

Writer = Callable[[Report, TextIO, Context], None]

REPORTERS: dict[str, str] = {
    "table": "auditor.reporters.table",
    "concise": "auditor.reporters.concise",
    "json": "auditor.reporters.json",
    "jsonl": "auditor.reporters.jsonl",
    "sarif": "auditor.reporters.sarif",
    "github": "auditor.reporters.github",
    "gitlab": "auditor.reporters.gitlab",
    "junit": "auditor.reporters.junit",
    "html": "auditor.reporters.html",
}

TIMELINES = frozenset({"html"})
"""Reporters that show what happened around each finding: the run must build timelines
(`Settings.timelines`), which reporters see instead of the conversations."""


def writer(name: str) -> Writer:
    """The `write` function of the reporter called `name`."""
    return importlib.import_module(REPORTERS[name]).write
