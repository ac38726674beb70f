"""Baselines: accept today's findings so that CI fails only on new ones.

`audit logs/ --write-baseline .audit-baseline.json` records every finding's fingerprint;
`audit logs/ --baseline .audit-baseline.json` then leaves out the findings it records and
reports the rest. A fingerprint (`findings.fingerprint`) is unique in a run and holds the
log's path but no line, so findings keep matching when lines are inserted above them; two
findings that read the same in two logs never hide each other. Each entry also records the
finding's `identity` (the fingerprint without the path): a log this run read that the
baseline does not know matches, by identity, the entries of logs this run did not read, so
moving or renaming a log leaves its findings baselined.

The file is JSON, sorted by code, path, conversation and turn for reviewable diffs:

    {"version": 2, "tool": {"name": "auditor", "version": "0.1.0"},
     "findings": [{"fingerprint": "…", "identity": "…", "code": "EX001",
                   "path": "logs/a.jsonl", "conversation": "run-7", "turn": 3, "message": "…"}]}

Only `fingerprint`, `identity` and `path` are read back; the rest is there for the reviewer.
A version 1 baseline (fingerprints without the path, with a `count` each) is still read and
matched on identity alone, as it was written; `--write-baseline` rewrites it as version 2.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict, deque
from collections.abc import Iterable
from typing import Any

import orjson

from auditor import __version__
from auditor.atomic import replaced
from auditor.errors import ConfigError, InputError
from auditor.findings import Finding, normal_path
from auditor.report import Report, Stale
from auditor.sources import os_reason, read_regular
from auditor.structs import dataclass
from auditor.text import dumps

VERSION = 2
READS = (1, 2)
MAX_BYTES = 1024 * 1024 * 1024
"""A baseline larger than this is not read: about three million entries."""


def document(findings: Iterable[Finding]) -> dict[str, Any]:
    """The baseline of these findings: one entry per finding."""
    entries = [
        {
            "fingerprint": f.fingerprint,
            "identity": f.identity,
            "code": f.code,
            "path": f.path,
            "conversation": f.conversation,
            "turn": f.turn,
            "message": f.message,
        }
        for f in findings
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
class Entry:
    """One entry of a baseline as read back."""

    fingerprint: str | None
    """None in a version 1 baseline, whose `fingerprint` was the identity."""
    identity: str
    count: int
    """Findings it accepts: 1, or a version 1 entry's `count`."""
    path: str | None
    """The log it was written for, normalised (`findings.normal_path`)."""
    recorded: dict[str, Any]


@dataclass(frozen=True)
class Baseline:
    """A baseline as read back."""

    path: str
    version: int
    entries: tuple[Entry, ...]


def load(path: str) -> Baseline:
    """The baseline at `path`."""
    try:
        doc = orjson.loads(read_regular(path, MAX_BYTES))
    except OSError as exc:
        raise InputError(f"cannot read baseline {path}: {os_reason(exc)}") from exc
    except orjson.JSONDecodeError as exc:
        raise ConfigError(f"invalid baseline {path}: not valid JSON: {exc}") from exc
    version = doc.get("version") if isinstance(doc, dict) else None
    if version not in READS or isinstance(version, bool):
        raise ConfigError(
            f"invalid baseline {path}: expected a version {VERSION} baseline written by "
            f"`audit --write-baseline`, got version {version!r}"
        )
    entries = doc.get("findings")
    if not isinstance(entries, list):
        raise ConfigError(f"invalid baseline {path}: `findings` must be a list")
    read = _entry_v1 if version == 1 else _entry
    out = []
    for i, entry in enumerate(entries):
        got = read(entry) if isinstance(entry, dict) else None
        if got is None:
            needs = "a `count` >= 1" if version == 1 else "a string `identity`"
            raise ConfigError(
                f"invalid baseline {path}: findings[{i}] needs a string `fingerprint` and {needs}"
            )
        out.append(got)
    return Baseline(path, version, tuple(out))


def _entry(entry: dict[str, Any]) -> Entry | None:
    fp, same = entry.get("fingerprint"), entry.get("identity")
    if not isinstance(fp, str) or not isinstance(same, str):
        return None
    return Entry(fp, same, 1, _path(entry), entry)


def _entry_v1(entry: dict[str, Any]) -> Entry | None:
    fp, n = entry.get("fingerprint"), entry.get("count", 1)
    if not isinstance(fp, str) or not isinstance(n, int) or isinstance(n, bool) or n < 1:
        return None
    return Entry(None, fp, n, _path(entry), entry)


def _path(entry: dict[str, Any]) -> str | None:
    value = entry.get("path")
    return normal_path(value) if isinstance(value, str) else None


def apply(report: Report, baseline: Baseline) -> Report:
    """The report without the findings the baseline accepts (kept aside as `accepted`), and
    with the entries that matched nothing in the files this run read (`stale`).

    A finding matches the entry of its fingerprint. A finding in a log the baseline does not
    know (moved or renamed) matches, by identity, an entry of a log this run did not read;
    every entry of a version 1 baseline matches by identity, as it did. Findings are matched
    in report order, so when more findings share an identity than entries allow, the later
    ones are the new ones. An entry of a file this run did not read (pre-commit names only
    the changed files) is not judged stale.
    """
    read = {normal_path(f.path) for f in report.files}
    known = {e.path for e in baseline.entries}
    left = [e.count for e in baseline.entries]
    exact: dict[str, int] = {}
    moved: dict[str, deque[int]] = defaultdict(deque)  # identity -> entries, in file order
    for n, e in enumerate(baseline.entries):
        if e.fingerprint is not None and e.path in read:
            exact[e.fingerprint] = n
        else:
            moved[e.identity].append(n)
    kept: list[Finding] = []
    accepted: list[Finding] = []
    for f in report.findings:
        i: int | None = exact.get(f.fingerprint)
        if i is None and (baseline.version == 1 or normal_path(f.path) not in known):
            i = _take(moved.get(f.identity), left)
        if i is not None and left[i] > 0:
            left[i] -= 1
            accepted.append(f)
        else:
            kept.append(f)
    stale = [
        _stale(e, left[i]) for i, e in enumerate(baseline.entries) if left[i] > 0 and e.path in read
    ]
    return dataclasses.replace(
        report,
        findings=tuple(kept),
        accepted=report.accepted + tuple(accepted),
        baseline=baseline.path,
        stale=tuple(stale),
    )


def _take(entries: deque[int] | None, left: list[int]) -> int | None:
    """The first of `entries` that still accepts a finding (spent ones dropped)."""
    while entries:
        if left[entries[0]] > 0:
            return entries[0]
        entries.popleft()
    return None


def _stale(entry: Entry, count: int) -> Stale:
    recorded = entry.recorded

    def text(key: str) -> str | None:
        value = recorded.get(key)
        return value if isinstance(value, str) else None

    turn = recorded.get("turn")
    return Stale(
        entry.fingerprint or entry.identity,
        count,
        code=text("code"),
        path=text("path"),
        conversation=text("conversation"),
        turn=turn if isinstance(turn, int) and not isinstance(turn, bool) else None,
        message=text("message"),
    )
