"""Reporters: one module per output format, each with `write(report, out, context)`, and the
one registry that says what each needs.

Reporters see the Report (findings, counts, coverage, errors) and the rule docs, never the
conversations: a reporter whose descriptor asks for `timelines` also gets the bounded
timelines the engine builds of the conversations with findings (`auditor.timeline`), and
nothing more of them. The command line's `--format` choices and help, and every other list of
output formats (the repository root for relative URIs, `--statistics`, `--rules` as JSON), are
read from `REPORTERS`: adding an output format is its module and one entry here.

The registry names modules rather than importing them, and this module imports nothing of the
auditor at run time, so that `audit --help` does not pay for rich's table code or the rules.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from auditor.common.structs import dataclass

if TYPE_CHECKING:
    from auditor.report import Context, Report

__all__ = ["REPORTERS", "Reporter", "Writer", "help_text", "writer"]

Writer = Callable[["Report", TextIO, "Context"], "str | None"]
"""`write(report, out, context)`; it may return one line for stderr saying what it left out
(SARIF past GitHub's limit on results)."""


@dataclass(frozen=True)
class Reporter:
    """An output format: where its `write` lives and what the run must give it."""

    module: str
    """The module whose `write(report, out, context)` writes the format."""
    note: str = ""
    """Said after the name in `--format`'s help."""
    timelines: bool = False
    """It shows what happened around each finding: the run builds timelines
    (`Settings.timelines`), which it sees instead of the conversations."""
    repository_root: bool = False
    """It writes paths relative to the repository's root (`Context.root`), not to the working
    directory."""
    json: bool = False
    """It is read by machines: listings (`--rules`) print as JSON for it."""
    statistics: str = ""
    """How `--statistics` prints for it (`table`, `json` or `jsonl`); empty: it cannot."""


REPORTERS: dict[str, Reporter] = {
    "table": Reporter("auditor.reporters.table", statistics="table"),
    "concise": Reporter("auditor.reporters.concise", statistics="table"),
    "json": Reporter("auditor.reporters.json", json=True, statistics="json"),
    "jsonl": Reporter("auditor.reporters.jsonl", json=True, statistics="jsonl"),
    "sarif": Reporter("auditor.reporters.sarif", repository_root=True),
    "github": Reporter("auditor.reporters.github", repository_root=True),
    "gitlab": Reporter("auditor.reporters.gitlab", repository_root=True),
    "junit": Reporter("auditor.reporters.junit"),
    "html": Reporter("auditor.reporters.html", note="one self-contained page", timelines=True),
}


def help_text() -> str:
    """The formats as `--format`'s help lists them: `table, …, junit or html (one …)`."""
    names = [f"{name} ({r.note})" if r.note else name for name, r in REPORTERS.items()]
    return ", ".join(names[:-1]) + " or " + names[-1]


def writer(name: str) -> Writer:
    """The `write` function of the reporter called `name`."""
    write: Writer = importlib.import_module(REPORTERS[name].module).write
    return write
