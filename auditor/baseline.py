"""Baselines: accept today's findings so that CI fails only on new ones.

`audit logs/ --write-baseline .audit-baseline.json` records every finding's fingerprint with
how often it occurs; `audit logs/ --baseline .audit-baseline.json` then leaves out up to that
many findings per fingerprint and reports the rest. The fingerprint (`findings.fingerprint`)
holds no path and no line, so findings keep matching when lines are inserted above them or
the log is moved; a finding that occurs once more than recorded is new.

The file is JSON, sorted by code, path, conversation and turn for reviewable diffs:

    {"version": 1, "tool": {"name": "auditor", "version": "0.1.0"},
     "findings": [{"fingerprint": "…", "count": 1, "code": "EX001", "path": "logs/a.jsonl",
                   "conversation": "run-7", "turn": 3, "message": "…"}]}

Only `fingerprint` and `count` are read back; the rest is there for the reviewer.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from auditor import __version__
from auditor.atomic import replaced
from auditor.errors import ConfigError, InputError
from auditor.findings import Finding
from auditor.report import Report, Stale
from auditor.reporters._escape import dumps
from auditor.sources import os_reason, read_regular

VERSION = 1
MAX_BYTES = 1024 * 1024 * 1024
"""A baseline larger than this is not read: about three million entries."""


def document(findings: Iterable[Finding]) -> dict[str, Any]:
    """The baseline of these findings: one entry per fingerprint, with its count."""
    counts: Counter[str] = Counter()
    first: dict[str, Finding] = {}
    for f in findings:
        counts[f.fingerprint] += 1
        first.setdefault(f.fingerprint, f)
    entries = [
        {
            "fingerprint": fp,
            "count": counts[fp],
            "code": f.code,
            "path": f.path,
            "conversation": f.conversation,
            "turn": f.turn,
            "message": f.message,
        }
        for fp, f in first.items()
    ]
    entries.sort(
        key=lambda e: (
            e["code"],
            e["path"],
            e["conversation"] or "",
            -1 if e["turn"] is None else e["turn"],
            e["fingerprint"],
        )
    )
    return {
        "version": VERSION,
        "tool": {"name": "auditor", "version": __version__},
        "findings": entries,
    }


def write(path: str, findings: Iterable[Finding]) -> dict[str, Any]:
    """Write the baseline of `findings` to `path`; returns what was written."""
    doc = document(findings)
    try:
        with replaced(path, "wb") as out:
            out.write(dumps(doc, indent=True).encode() + b"\n")
    except OSError as exc:
        reason = (exc.strerror or str(exc)).lower()
        raise InputError(f"cannot write baseline {path}: {reason}") from exc
    return doc


@dataclass(frozen=True)
class Baseline:
    """A baseline as read back: how many findings each fingerprint accepts, and what each
    entry recorded (to name the entries that no longer match)."""

    path: str
    counts: Counter[str]
    entries: dict[str, dict[str, Any]]


def load(path: str) -> Baseline:
    """The baseline at `path`."""
    try:
        doc = orjson.loads(read_regular(path, MAX_BYTES))
    except OSError as exc:
        raise InputError(f"cannot read baseline {path}: {os_reason(exc)}") from exc
    except orjson.JSONDecodeError as exc:
        raise ConfigError(f"invalid baseline {path}: not valid JSON: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("version") != VERSION:
        found = doc.get("version") if isinstance(doc, dict) else None
        raise ConfigError(
            f"invalid baseline {path}: expected a version {VERSION} baseline written by "
            f"`audit --write-baseline`, got version {found!r}"
        )
    entries = doc.get("findings")
    if not isinstance(entries, list):
        raise ConfigError(f"invalid baseline {path}: `findings` must be a list")
    counts: Counter[str] = Counter()
    recorded: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(entries):
        fp = entry.get("fingerprint") if isinstance(entry, dict) else None
        n = entry.get("count", 1) if isinstance(entry, dict) else None
        if not isinstance(fp, str) or not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ConfigError(
                f"invalid baseline {path}: findings[{i}] needs a string `fingerprint` and a "
                "`count` >= 1"
            )
        counts[fp] += n
        recorded.setdefault(fp, entry)
    return Baseline(path, counts, recorded)


def apply(report: Report, baseline: Baseline) -> Report:
    """The report without the findings the baseline accepts (kept aside as `accepted`), and
    with the entries that matched nothing in the files this run read (`stale`).

    Findings are matched in report order, so when a fingerprint occurs more often than the
    baseline allows, the later occurrences are the new ones. An entry of a file this run did
    not read (pre-commit names only the changed files) is not judged stale.
    """
    left = Counter(baseline.counts)
    kept: list[Finding] = []
    accepted: list[Finding] = []
    for f in report.findings:
        if left[f.fingerprint] > 0:
            left[f.fingerprint] -= 1
            accepted.append(f)
        else:
            kept.append(f)
    read = {f.path for f in report.files}
    stale = []
    for fp, n in left.items():
        entry = baseline.entries.get(fp, {})
        if n > 0 and entry.get("path") in read:
            stale.append(_stale(fp, n, entry))
    return dataclasses.replace(
        report,
        findings=tuple(kept),
        accepted=report.accepted + tuple(accepted),
        baseline=baseline.path,
        stale=tuple(stale),
    )


def _stale(fingerprint: str, count: int, entry: dict[str, Any]) -> Stale:
    def text(key: str) -> str | None:
        value = entry.get(key)
        return value if isinstance(value, str) else None

    turn = entry.get("turn")
    return Stale(
        fingerprint,
        count,
        code=text("code"),
        path=text("path"),
        conversation=text("conversation"),
        turn=turn if isinstance(turn, int) and not isinstance(turn, bool) else None,
        message=text("message"),
    )
