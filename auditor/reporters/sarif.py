"""SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

Rules come from the rule docs (as ruff does); each result names the log file and line, the
conversation and turn as a logical location, and carries the auditor's own stable key in
`partialFingerprints` (the same key baselines use). `primaryLocationLineHash` is left to
GitHub, and no message starts with the rule id (sarif-tools would cut it off).
"""

from __future__ import annotations

import os
from typing import Any, TextIO
from urllib.parse import quote

import orjson

from auditor import __version__
from auditor.findings import Finding
from auditor.report import Context, Report
from auditor.rules import FAMILIES, RULES, Rule

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
FINGERPRINT_KEY = "auditor/v1"


def artifact_uri(path: str) -> str:
    """A URI reference for a path: relative paths stay relative, with `:` and spaces escaped."""
    if path == "-":
        return "stdin"
    if os.path.isabs(path):
        return "file://" + quote(path.replace(os.sep, "/"), safe="/")
    return quote(path.replace(os.sep, "/"), safe="/")


def descriptor(rule: Rule) -> dict[str, Any]:
    help_text = f"{rule.summary}\n\n{rule.doc}"
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.sections.get("What it does", rule.summary)},
        "help": {"text": help_text, "markdown": help_text},
        "defaultConfiguration": {"level": rule.severity.value},
        "properties": {"tags": [FAMILIES.get(rule.family, rule.family), "agent-transcript"]},
    }


def _result(f: Finding, index: dict[str, int]) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(f.path)}}
    if f.line is not None:
        physical["region"] = {"startLine": f.line}
    location: dict[str, Any] = {"physicalLocation": physical}
    if f.conversation is not None:
        turn = f"turn {f.turn}" if f.turn is not None else "conversation"
        location["logicalLocations"] = [
            {"name": turn, "fullyQualifiedName": f"{f.conversation}/{turn}", "kind": "object"}
        ]
    properties: dict[str, Any] = {"pointer": f.pointer}
    for key in ("conversation", "turn", "tool", "call_id", "evidence"):
        value = getattr(f, key)
        if value not in (None, ""):
            properties[key] = value
    return {
        "ruleId": f.code,
        "ruleIndex": index[f.code],
        "level": f.severity.value,
        "message": {"text": f.message},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
        "properties": properties,
    }


def document(report: Report) -> dict[str, Any]:
    # Every rule is described, not only those that fired, so a viewer can explain any code.
    index = {rule.code: i for i, rule in enumerate(RULES)}
    notifications = [
        {
            "level": "error",
            "message": {"text": e.message},
            **(
                {"associatedRule": {"id": e.code, "index": index[e.code]}}
                if e.code in index
                else {}
            ),
        }
        for e in report.errors
    ]
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "auditor",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": [descriptor(rule) for rule in RULES],
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": not report.errors,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "columnKind": "unicodeCodePoints",
                "results": [_result(f, index) for f in report.findings],
                "properties": {
                    "summary": report.summary(),
                    "coverage": report.coverage(),
                },
            }
        ],
    }


def write(report: Report, out: TextIO, context: Context) -> None:
    out.write(orjson.dumps(document(report), option=orjson.OPT_INDENT_2).decode())
    out.write("\n")
