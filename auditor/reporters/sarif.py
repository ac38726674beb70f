"""SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

Rules come from the rule docs (as ruff does), within GitHub's limits (descriptions of at most
1024 characters); each result names the log file and line, the conversation and turn as a
logical location, and carries the auditor's own stable key in `partialFingerprints` (the same
key baselines use). `primaryLocationLineHash` is left to GitHub, and no message starts with
the rule id (sarif-tools would cut it off). The invocation says what a viewer of the results
alone would miss: rule crashes (errors, and `executionSuccessful: false`), coverage gaps
(notes naming the rule), and rules the configuration disabled or re-levelled
(`ruleConfigurationOverrides`).
"""

from __future__ import annotations

import os
from typing import Any, TextIO
from urllib.parse import quote

from auditor import __version__
from auditor.findings import Finding
from auditor.report import Context, Report
from auditor.reporters._escape import dumps
from auditor.rules import FAMILIES, RULES, Rule

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
FINGERPRINT_KEY = "auditor/v1"
DESCRIPTION_LIMIT = 1024  # GitHub code scanning's limit for short and full descriptions
# GitHub's `problem.severity` for non-security rules, from the SARIF level.
PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "note": "recommendation"}


def artifact_uri(path: str) -> str:
    """A URI reference for a path: relative paths stay relative, with `:` and spaces escaped."""
    if path == "-":
        return "stdin"
    if os.path.isabs(path):
        return "file://" + quote(path.replace(os.sep, "/"), safe="/")
    # `audit .` walks to `./logs/a.jsonl`; the repository file is `logs/a.jsonl`.
    return quote(os.path.normpath(path).replace(os.sep, "/"), safe="/")


def artifact_location(path: str) -> dict[str, Any]:
    """The file of a result; a relative path is relative to the source root, as in CodeQL's."""
    uri = artifact_uri(path)
    if path == "-" or os.path.isabs(path):
        return {"uri": uri}
    return {"uri": uri, "uriBaseId": "%SRCROOT%"}


def message(text: str) -> dict[str, str]:
    """A plain text message (SARIF §3.11.6): `\\`, `[` and `]` escaped with a backslash, so
    that text from a log can never form an embedded link (`[click](1)`, `[x](sarif:/…)`)."""
    escaped = text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return {"text": escaped}


def _limited(text: str) -> str:
    return text if len(text) <= DESCRIPTION_LIMIT else text[: DESCRIPTION_LIMIT - 1] + "…"


def descriptor(rule: Rule) -> dict[str, Any]:
    help_text = f"{rule.summary}\n\n{rule.doc}"
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": _limited(rule.summary)},
        "fullDescription": {"text": _limited(rule.sections.get("What it does", rule.summary))},
        "help": {"text": help_text, "markdown": help_text},
        "defaultConfiguration": {"level": rule.severity.value},
        "properties": {
            "tags": [FAMILIES.get(rule.family, rule.family), "agent-transcript"],
            "problem.severity": PROBLEM_SEVERITY[rule.severity.value],
        },
    }


def _result(f: Finding, index: dict[str, int]) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": artifact_location(f.path)}
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
        "message": message(f.message),
        "locations": [location],
        "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
        "properties": properties,
    }


def _notification(level: str, text: str, code: str | None, index: dict[str, int]) -> dict[str, Any]:
    note: dict[str, Any] = {"level": level, "message": message(text)}
    if code in index:
        note["associatedRule"] = {"id": code, "index": index[code]}
    return note


def _notifications(report: Report, index: dict[str, int]) -> list[dict[str, Any]]:
    """Rule crashes and unreadable paths (errors), then coverage gaps, one note per rule."""
    notes = [_notification("error", e.message, e.code, index) for e in report.errors]
    total = report.counts.conversations
    for gap in report.gaps:
        what = f"could not examine {gap.conversations:,} of {total:,} conversations: {gap.reason}"
        notes.extend(_notification("note", f"{code} {what}", code, index) for code in gap.rules)
    return notes


def _overrides(report: Report, index: dict[str, int]) -> list[dict[str, Any]]:
    """Rules the configuration left out (`enabled: false`) or gave another level."""
    ran = {rule.code for rule in report.rules}
    overrides = []
    for rule in RULES:
        configuration: dict[str, Any] = {}
        if rule.code not in ran:
            configuration["enabled"] = False
        level = report.severity.get(rule.code)
        if level is not None and level != rule.severity:
            configuration["level"] = level.value
        if configuration:
            overrides.append(
                {
                    "descriptor": {"id": rule.code, "index": index[rule.code]},
                    "configuration": configuration,
                }
            )
    return overrides


def document(report: Report) -> dict[str, Any]:
    # Every rule is described, not only those that fired, so a viewer can explain any code.
    index = {rule.code: i for i, rule in enumerate(RULES)}
    invocation: dict[str, Any] = {
        "executionSuccessful": not report.errors,
        "toolExecutionNotifications": _notifications(report, index),
    }
    overrides = _overrides(report, index)
    if overrides:
        invocation["ruleConfigurationOverrides"] = overrides
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
                "invocations": [invocation],
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
    out.write(dumps(document(report), indent=True))
    out.write("\n")
