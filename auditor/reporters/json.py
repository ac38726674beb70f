"""One JSON document: `{version, tool, summary, coverage, findings, suppressions, errors}`, made
for jq. A finding a `[[tool.auditor.suppress]]` entry matched is listed with a `suppressed`
object (`{"entry": 2, "reason": "…"}`); `summary.findings` counts only the others."""

from __future__ import annotations

from typing import Any, TextIO

from auditor import __version__
from auditor.common.text import dumps
from auditor.report import Context, Report, Suppressed

SCHEMA_VERSION = 1


def document(report: Report) -> dict[str, Any]:
    return {
        "version": SCHEMA_VERSION,
        "tool": {
            "name": "auditor",
            "version": __version__,
            "configuration": report.config_file,
        },
        "summary": report.summary(),
        "coverage": report.coverage(),
        "findings": findings(report),
        "suppressions": report.suppression_entries(),
        "errors": [
            {"kind": e.kind, "message": e.message, "path": e.path, "code": e.code}
            for e in report.errors
        ],
    }


def findings(report: Report) -> list[dict[str, Any]]:
    """Every finding as a dict, the suppressed ones with their `suppressed` object."""
    return [
        f.to_dict() if s is None else {**f.to_dict(), "suppressed": suppressed(s)}
        for f, s in report.with_suppressed()
    ]


def suppressed(s: Suppressed) -> dict[str, Any]:
    return {"entry": s.entry, "reason": s.reason}


def write(report: Report, out: TextIO, context: Context) -> None:
    out.write(dumps(document(report), indent=True))
    out.write("\n")
