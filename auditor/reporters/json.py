"""One JSON document: `{version, tool, summary, coverage, findings, errors}`, made for jq."""

from __future__ import annotations

from typing import Any, TextIO

from auditor import __version__
from auditor.report import Context, Report
from auditor.text import dumps

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
        "findings": [f.to_dict() for f in report.findings],
        "errors": [
            {"kind": e.kind, "message": e.message, "path": e.path, "code": e.code}
            for e in report.errors
        ],
    }


def write(report: Report, out: TextIO, context: Context) -> None:
    out.write(dumps(document(report), indent=True))
    out.write("\n")
