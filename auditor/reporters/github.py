"""GitHub Actions workflow commands: one `::error file=…,line=…,title=…::…` annotation per finding.

The file is named relative to the repository's root, as SARIF and GitLab name it, so that an
annotation attaches to its file from whichever directory `audit` runs.

Values are escaped as the runner expects (`%`, CR and LF in data; also `:` and `,` in
properties), after unsafe characters are made visible, so a log line cannot end the command
early or issue one of its own. Coverage gaps and the count of findings a baseline hid follow as
`::notice` annotations without a file, shown on the run's summary page, so that a run without
annotations is never taken for a clean log when part of it was not examined.
"""

from __future__ import annotations

from typing import TextIO

from auditor.common.text import safe
from auditor.findings import Finding, Severity
from auditor.report import Context, Report
from auditor.reporters._paths import repository_path

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}
SHOWN_PER_STEP = 10  # GitHub shows this many annotations of each kind per step, 50 per job


def _data(text: str) -> str:
    return safe(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(f: Finding, root: str | None = None) -> str:
    # GitHub attaches an annotation to `logs/a.jsonl`, relative to the repository's root,
    # whichever directory `audit` ran in (`audit .` in `logs/` finds `./a.jsonl`).
    props = [f"file={_property(repository_path(f.path, root))}"]
    if f.line is not None:
        props.append(f"line={f.line}")
    props.append(f"title={_property(f'{f.code} {f.name}')}")
    where = []
    if f.conversation is not None:
        where.append(f"conversation {f.conversation}")
    if f.turn is not None:
        where.append(f"turn {f.turn}")
    message = f.message + (f" ({', '.join(where)})" if where else "")
    return f"::{COMMANDS[f.severity]} {','.join(props)}::{_data(message)}\n"


def write(report: Report, out: TextIO, context: Context) -> None:
    for f in report.findings:
        out.write(annotation(f, context.root))
    if context.quiet:
        return
    notes = report.notes()
    counts = report.by_severity()
    if any(n > SHOWN_PER_STEP for n in counts.values()):
        shown = ", ".join(f"{n} {severity}" for severity, n in counts.items() if n)
        notes.insert(
            0,
            f"{len(report.findings)} findings ({shown}): GitHub shows {SHOWN_PER_STEP} "
            "annotations of each kind per step; the step's log lists them all",
        )
    for note in notes:
        out.write(f"::notice title=auditor::{_data(note)}\n")
