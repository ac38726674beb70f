"""GitLab Code Quality: the JSON array `artifacts:reports:codequality` takes, one issue a finding.

The fields GitLab reads (its "Code Quality report format"): `description`, `check_name` (the
rule code), `fingerprint`, `severity` (`major` for errors, `minor` for warnings, `info` for
notes) and `location` (`path` relative to the repository's root, `lines.begin`). GitLab shows
findings with the same fingerprint as one entry; the auditor's own, the one baselines use, is
unique in a report. No byte order mark, as GitLab's parser requires.
"""

from __future__ import annotations

from typing import Any, TextIO

from auditor.common.text import dumps
from auditor.findings import Finding, Severity
from auditor.report import Context, Report
from auditor.reporters._paths import repository_path

SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.NOTE: "info"}


def issue(f: Finding, root: str | None) -> dict[str, Any]:
    where = []
    if f.conversation is not None:
        where.append(f"conversation {f.conversation}")
    if f.turn is not None:
        where.append(f"turn {f.turn}")
    return {
        "description": f.message + (f" ({', '.join(where)})" if where else ""),
        "check_name": f.code,
        "fingerprint": f.fingerprint,
        "severity": SEVERITY[f.severity],
        "location": {"path": repository_path(f.path, root), "lines": {"begin": f.line or 1}},
    }


def issues(report: Report, root: str | None) -> list[dict[str, Any]]:
    return [issue(f, root) for f in report.findings]


def write(report: Report, out: TextIO, context: Context) -> None:
    out.write(dumps(issues(report, context.root), indent=True))
    out.write("\n")
