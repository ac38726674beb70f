"""`--statistics`: how often each rule fired, instead of the findings (as `ruff --statistics`).

One row per rule that fired, most frequent first, with its count per 100 conversations read,
so that runs of different sizes compare. As text (the default), as one JSON document (the
`-f json` document with `statistics` in place of `findings`), or one row per line (`-f jsonl`).
Coverage and the baseline count come along in each, as in the findings' own outputs.
"""

from __future__ import annotations

from typing import Any, TextIO

from auditor.common.text import dumps, plural
from auditor.report import Context, Report
from auditor.reporters import REPORTERS
from auditor.reporters import json as json_reporter
from auditor.reporters import jsonl as jsonl_reporter

FORMATS = tuple(name for name, reporter in REPORTERS.items() if reporter.statistics == name)
"""The formats `--statistics` prints in; the others print as one of these (`concise` as a table)."""
HEADINGS = ("count", "code", "name", "severity", "per 100 conversations")


def write(report: Report, out: TextIO, context: Context, output_format: str) -> None:
    rows = report.statistics()
    if output_format == "json":
        doc = {
            ("statistics" if key == "findings" else key): (rows if key == "findings" else value)
            for key, value in json_reporter.document(report).items()
        }
        out.write(dumps(doc, indent=True) + "\n")
    elif output_format == "jsonl":
        out.writelines(dumps(row) + "\n" for row in rows)
        jsonl_reporter.write_notes(report, context)
    else:
        out.writelines(line + "\n" for line in table(report, rows, context))


def table(report: Report, rows: list[dict[str, Any]], context: Context) -> list[str]:
    """Aligned columns; every cell comes from the rule registry or a number, never a log."""
    cells = [
        (
            f"{row['count']:,}",
            row["code"],
            row["name"],
            row["severity"],
            "" if row["per_100_conversations"] is None else f"{row['per_100_conversations']:.1f}",
        )
        for row in rows
    ]
    widths = [max(len(c[i]) for c in [HEADINGS, *cells]) for i in range(len(HEADINGS))]
    numeric = (True, False, False, False, True)
    lines = [
        "  ".join(
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, right in zip(row, widths, numeric, strict=True)
        ).rstrip()
        for row in [HEADINGS, *cells]
    ]
    if context.quiet:
        return lines[1:]
    conversations = report.counts.conversations
    total = sum(row["count"] for row in rows)
    lines.append(f"{plural(total, 'finding')} in {plural(conversations, 'conversation')}")
    lines.extend(note[0].upper() + note[1:] for note in report.notes())
    return lines
