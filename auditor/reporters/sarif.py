"""SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

Rules come from the rule docs (as ruff does), within GitHub code scanning's limits
(descriptions of at most 1024 characters, at most 25,000 results a run); each result names the
log file and line (line 1 for a finding inside an Inspect `.eval` member, which has none: GitHub
requires `region.startLine`; the message then says where in the member), the conversation and
turn as a logical location, and carries the auditor's own stable key, the fingerprint baselines
use, in `partialFingerprints`: as `primaryLocationLineHash`, which code scanning matches alerts
on (left out, upload-sarif would hash the log's line, the same for every finding on one JSON
Lines record), and as `auditor/v2`. No message starts with the rule id (sarif-tools would cut
it off). The invocation says what a viewer of the results alone would miss: rule crashes
(errors, and `executionSuccessful: false`), results left out past the limit, coverage gaps
(notes naming the rule), and rules the configuration disabled or re-levelled
(`ruleConfigurationOverrides`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from auditor import REPOSITORY, __version__, ruledocs
from auditor.common.text import cut, dumps
from auditor.findings import Finding
from auditor.report import Context, Report, Suppressed
from auditor.reporters._paths import below
from auditor.rules import BY_CODE, FAMILIES, Rule
from auditor.sources import STDIN

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
FINGERPRINT_KEY = "auditor/v2"
LINE_HASH_KEY = "primaryLocationLineHash"
DESCRIPTION_LIMIT = 1024  # GitHub code scanning's limit for short and full descriptions
RESULT_LIMIT = 25_000
"""GitHub code scanning rejects a run with more results than this."""
# GitHub's `problem.severity` for non-security rules, from the SARIF level.
PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "note": "recommendation"}


SOURCE_ROOT = "%SRCROOT%"


def artifact_uri(path: str, root: str | None = None) -> str:
    """A URI reference for a path below `root` (default: the working directory), relative to
    it with `:` and spaces escaped; any other path as an absolute `file:` URI. Never `../`."""
    if path == STDIN:
        return quote(STDIN)
    relative = below(path, root)
    if relative is None:
        return Path(os.path.abspath(path)).as_uri()
    return quote(relative, safe="/")


def artifact_location(path: str, root: str | None = None) -> dict[str, Any]:
    """The file of a result: relative to `%SRCROOT%` (the repository's root, as code scanning
    expects) when it lies below it, else an absolute URI; stdin by its name alone."""
    uri = artifact_uri(path, root)
    if path == STDIN or below(path, root) is None:
        return {"uri": uri}
    return {"uri": uri, "uriBaseId": SOURCE_ROOT}


def source_root(root: str | None) -> dict[str, Any]:
    """`originalUriBaseIds`: where `%SRCROOT%` is, so that a viewer can resolve every result."""
    uri = Path(os.path.abspath(root or os.getcwd())).as_uri().rstrip("/") + "/"
    return {SOURCE_ROOT: {"uri": uri}}


def message(text: str) -> dict[str, str]:
    """A plain text message (SARIF §3.11.6): `\\`, `[` and `]` escaped with a backslash, so
    that text from a log can never form an embedded link (`[click](1)`, `[x](sarif:/…)`)."""
    escaped = text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return {"text": escaped}


def _limited(text: str) -> str:
    return cut(text, DESCRIPTION_LIMIT)


def help_uri(code: str) -> str:
    """The rule's page in the repository (`make docs` writes docs/rules/CODE.md)."""
    return f"{REPOSITORY}/blob/main/docs/rules/{code}.md"


def descriptor(rule: Rule) -> dict[str, Any]:
    help_text = f"{rule.summary}\n\n{ruledocs.markdown(rule)}"
    own = rule.code not in BY_CODE  # a configuration's rule has no page of the project's
    return {
        "id": rule.code,
        "name": rule.name,
        **({} if own else {"helpUri": help_uri(rule.code)}),
        "shortDescription": {"text": _limited(rule.summary)},
        "fullDescription": {"text": _limited(rule.sections.get("What it does", rule.summary))},
        "help": {"text": help_text, "markdown": help_text},
        "defaultConfiguration": {"level": rule.severity.value},
        "properties": {
            "tags": [FAMILIES.get(rule.family, rule.family), "agent-transcript"],
            "problem.severity": PROBLEM_SEVERITY[rule.severity.value],
        },
    }


def _result(f: Finding, index: dict[str, int], root: str | None) -> dict[str, Any]:
    physical: dict[str, Any] = {
        "artifactLocation": artifact_location(f.path, root),
        "region": {"startLine": f.line if f.line is not None else 1},
    }
    text = f.message
    if f.line is None and f.pointer:  # a member of an archive: say where in it
        text += f" (at {f.pointer})"
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
        "message": message(text),
        "locations": [location],
        "partialFingerprints": {LINE_HASH_KEY: f.fingerprint, FINGERPRINT_KEY: f.fingerprint},
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
    for rule in report.catalog():
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


def _results(report: Report, index: dict[str, int], root: str | None) -> list[dict[str, Any]]:
    """Every finding (up to `RESULT_LIMIT`); with a baseline, the new ones as `new` and those
    the baseline holds as `unchanged` and suppressed (SARIF §3.27.24, §3.35), so that nothing
    is dropped; those a `[[tool.auditor.suppress]]` entry matched, suppressed with its reason."""
    baselined = {
        "kind": "external",
        "status": "accepted",
        "justification": f"recorded in the baseline {report.baseline}",
    }
    accepted = {id(f) for f in report.accepted} if report.baseline is not None else set()
    results = []
    for f, entry in kept(report):
        result = _result(f, index, root)
        if entry is not None:
            result["suppressions"] = [_suppression(report, entry, root)]
        elif id(f) in accepted:
            result["baselineState"] = "unchanged"
            result["suppressions"] = [baselined]
        elif report.baseline is not None:
            result["baselineState"] = "new"
        results.append(result)
    return results


def _suppression(report: Report, entry: Suppressed, root: str | None) -> dict[str, Any]:
    """An entry of the configuration, persisted outside the log (`external`), its reason the
    justification, the configuration file its location."""
    suppression: dict[str, Any] = {
        "kind": "external",
        "status": "accepted",
        "justification": entry.reason,
        "properties": {"entry": entry.entry},
    }
    if report.config_file:
        location = artifact_location(report.config_file, root)
        suppression["location"] = {"physicalLocation": {"artifactLocation": location}}
    return suppression


def kept(report: Report, limit: int | None = None) -> list[tuple[Finding, Suppressed | None]]:
    """The findings written as results, in report order, each with its suppression (with a
    baseline, the ones it holds too): all of them up to `limit`; past it, the new before
    those the baseline holds or an entry suppressed, then the most severe, then the first."""
    every = report.with_suppressed()
    accepted = report.accepted if report.baseline is not None else ()
    if accepted:
        every = sorted([*every, *((f, None) for f in accepted)], key=lambda r: r[0].sort_key())
    limit = RESULT_LIMIT if limit is None else limit
    if len(every) <= limit:
        return every
    held = {id(f) for f in accepted}

    def rank(i: int) -> tuple[bool, int, int]:
        f, entry = every[i]
        return (entry is not None or id(f) in held, -f.severity.rank, i)

    ranked = sorted(range(len(every)), key=rank)
    return [every[i] for i in sorted(ranked[:limit])]


def omitted_note(report: Report, written: int) -> str | None:
    """What a run past the limit left out, or None."""
    baselined = len(report.accepted) if report.baseline is not None else 0
    total = len(report.findings) + baselined + len(report.suppressed)
    if written == total:
        return None
    held = [
        what
        for what, n in (("the baseline holds", baselined), ("suppressed", len(report.suppressed)))
        if n
    ]
    return (
        f"{written:,} of {total:,} results written: GitHub code scanning accepts at most "
        f"{RESULT_LIMIT:,} a run; the {total - written:,} left out are "
        + (f"those {' or '.join(held)}, then " if held else "")
        + "the least severe; -f json lists every finding"
    )


def _baseline(report: Report) -> dict[str, Any]:
    """The baseline applied and its entries that matched nothing, to prune them."""
    return {
        "file": report.baseline,
        "stale": [
            {
                "fingerprint": s.fingerprint,
                "count": s.count,
                "code": s.code,
                "path": s.path,
                "conversation": s.conversation,
                "turn": s.turn,
                "message": s.message,
            }
            for s in report.stale
        ],
    }


def document(report: Report, root: str | None = None) -> dict[str, Any]:
    # Every rule is described, not only those that fired, so a viewer can explain any code.
    rules = report.catalog()
    index = {rule.code: i for i, rule in enumerate(rules)}
    results = _results(report, index, root)
    notifications = _notifications(report, index)
    omitted = omitted_note(report, len(results))
    if omitted:
        notifications.insert(0, _notification("warning", omitted, None, index))
    invocation: dict[str, Any] = {
        "executionSuccessful": not report.errors,
        "toolExecutionNotifications": notifications,
    }
    if report.config_file:
        invocation["properties"] = {"configurationFile": report.config_file}
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
                        "informationUri": REPOSITORY,
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": [descriptor(rule) for rule in rules],
                    }
                },
                "invocations": [invocation],
                "originalUriBaseIds": source_root(root),
                "columnKind": "unicodeCodePoints",
                "results": results,
                "properties": {
                    "summary": report.summary(),
                    "coverage": report.coverage(),
                    **({"baseline": _baseline(report)} if report.baseline else {}),
                    **(
                        {"suppressions": report.suppression_entries()}
                        if report.suppressions
                        else {}
                    ),
                },
            }
        ],
    }


def write(report: Report, out: TextIO, context: Context) -> str | None:
    doc = document(report, context.root)
    out.write(dumps(doc, indent=True))
    out.write("\n")
    return omitted_note(report, len(doc["runs"][0]["results"]))
