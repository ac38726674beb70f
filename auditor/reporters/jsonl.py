"""One finding per line, each a JSON object with the same fields as in `-f json`.

Nothing but findings goes to the output, so that `jq`, `wc -l` and line-by-line consumers see
findings only (a suppressed one with its `suppressed` object, as in `-f json`). What a stream
of findings cannot say (coverage gaps, findings the baseline hid or suppressions matched) goes
to stderr as `audit: …` lines instead; `-f json` carries it as data in `coverage`.
"""

from __future__ import annotations

from typing import TextIO

from auditor.common.text import dumps
from auditor.report import Context, Report
from auditor.reporters.json import findings


def write(report: Report, out: TextIO, context: Context) -> None:
    import jsonlines  # here: its import (attrs) costs a tenth of every other run's start

    with jsonlines.Writer(out, dumps=dumps, flush=False) as writer:
        writer.write_all(findings(report))
    write_notes(report, context)


def write_notes(report: Report, context: Context) -> None:
    """Coverage and baseline notes on the side channel (stderr), unless quiet."""
    if context.notes is None or context.quiet:
        return
    for note in report.notes(verbose=context.whole):
        context.notes.write(f"audit: {note}\n")
