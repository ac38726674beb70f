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
import json
import re
from array import array
from collections.abc import Callable, Iterable
from typing import Any, cast

from auditor import __version__
from auditor.common.atomic import replaced
from auditor.common.errors import ConfigError, InputError
from auditor.common.structs import dataclass
from auditor.common.text import dumps
from auditor.findings import Finding, normal_path
from auditor.report import Report, Stale
from auditor.sources import os_reason, read_regular

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
class Baseline:
    """A baseline as read back: per entry, what matching needs, in lists (an entry object, or
    the decoded document, would cost ten times the file: issue 37, item 7); the rest of an
    entry is decoded again from the document's text when the entry turns out stale."""

    path: str
    version: int
    fingerprints: list[str] | None
    """None in a version 1 baseline, whose `fingerprint` was the identity."""
    identities: list[str]
    counts: list[int] | None
    """Findings each entry accepts: None when every entry accepts one (version 2)."""
    paths: list[str | None]
    """The log each entry was written for, normalised (`findings.normal_path`)."""
    text: str
    starts: array
    """Where each entry begins in `text`."""

    def __len__(self) -> int:
        return len(self.identities)

    def recorded(self, n: int) -> dict[str, Any]:
        """Entry `n` as written."""
        entry = json.JSONDecoder().raw_decode(self.text, self.starts[n])[0]
        return entry if isinstance(entry, dict) else {}


def load(path: str) -> Baseline:
    """The baseline at `path`, read an entry at a time: its memory is the file's text and
    what matching keeps of each entry (a fingerprint, an identity and a path)."""
    try:
        data = read_regular(path, MAX_BYTES)
    except OSError as exc:
        raise InputError(f"cannot read baseline {path}: {os_reason(exc)}") from exc
    try:
        text = data.decode("utf-8")
        del data
        version, read = _document(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        reason = "values nested too deep" if isinstance(exc, RecursionError) else exc
        raise ConfigError(f"invalid baseline {path}: not valid JSON: {reason}") from exc
    if version not in READS or isinstance(version, bool):
        raise ConfigError(
            f"invalid baseline {path}: expected a version {VERSION} baseline written by "
            f"`audit --write-baseline`, got version {version!r}"
        )
    if read is None:
        raise ConfigError(f"invalid baseline {path}: `findings` must be a list")
    bad = read.bad_v1 if version == 1 else read.bad_v2
    if bad is not None:
        needs = "a `count` >= 1" if version == 1 else "a string `identity`"
        raise ConfigError(
            f"invalid baseline {path}: findings[{bad}] needs a string `fingerprint` and {needs}"
        )
    # every entry has the strings its version needs (`bad` is None)
    fingerprints = cast("list[str]", read.fingerprints)
    if version == 1:
        return Baseline(path, 1, None, fingerprints, read.counts, read.paths, text, read.starts)
    identities = cast("list[str]", read.identities)
    return Baseline(path, 2, fingerprints, identities, None, read.paths, text, read.starts)


class _Entries:
    """The findings of a baseline as they are decoded, one at a time: per entry, what
    matching needs under either version, and the first entry each version refuses."""

    def __init__(self) -> None:
        self.fingerprints: list[str | None] = []
        self.identities: list[str | None] = []
        self.counts: list[int] = []
        self.paths: list[str | None] = []
        self.starts = array("q")
        self.bad_v1: int | None = None
        self.bad_v2: int | None = None
        self._normal: dict[str, str] = {}

    def add(self, entry: Any, start: int) -> None:
        n = len(self.identities)
        entry = entry if isinstance(entry, dict) else {}
        fp, same, count = entry.get("fingerprint"), entry.get("identity"), entry.get("count", 1)
        fp = fp if isinstance(fp, str) else None
        same = same if isinstance(same, str) else None
        if fp is None or same is None:
            self.bad_v2 = n if self.bad_v2 is None else self.bad_v2
        if fp is None or not isinstance(count, int) or isinstance(count, bool) or count < 1:
            self.bad_v1 = n if self.bad_v1 is None else self.bad_v1
            count = 1
        self.fingerprints.append(fp)
        self.identities.append(same)
        self.counts.append(count)
        value = entry.get("path")
        if isinstance(value, str):
            value = self._normal.get(value) or self._normal.setdefault(value, normal_path(value))
        self.paths.append(value if isinstance(value, str) else None)
        self.starts.append(start)


_SPACE = re.compile(r"[ \t\n\r]*")


def _document(text: str) -> tuple[Any, _Entries | None]:
    """The `version` of a baseline's text and its `findings` (None when not a list), read
    without decoding the document whole: the object's keys one by one, the findings one entry
    at a time. Raises ValueError (JSONDecodeError) where the text is not JSON."""
    decoder = json.JSONDecoder()

    def space(at: int) -> int:
        return _SPACE.match(text, at).end()  # type: ignore[union-attr]

    def expect(char: str, at: int) -> int:
        if not text.startswith(char, at):
            raise json.JSONDecodeError(f"Expecting '{char}'", text, at)
        return space(at + 1)

    at = space(0)
    if not text.startswith("{", at):  # not an object: decoded whole, it has no version
        _, at = decoder.raw_decode(text, at)
        if space(at) != len(text):
            raise json.JSONDecodeError("Extra data", text, space(at))
        return None, None
    version: Any = None
    found: _Entries | None = None
    at = space(at + 1)
    closed = text.startswith("}", at)
    while not closed:
        key, at = decoder.raw_decode(text, at)
        if not isinstance(key, str):
            raise json.JSONDecodeError("Expecting property name", text, at)
        at = expect(":", space(at))
        if key == "findings" and text.startswith("[", at):
            found, at = _entries(text, at, decoder, space)
        else:
            value, at = decoder.raw_decode(text, at)
            if key == "findings":
                found = None
            elif key == "version":
                version = value
        at = space(at)
        closed = text.startswith("}", at)
        if not closed:
            at = expect(",", at)
    if space(at + 1) != len(text):
        raise json.JSONDecodeError("Extra data", text, space(at + 1))
    return version, found


def _entries(
    text: str, at: int, decoder: json.JSONDecoder, space: Callable[[int], int]
) -> tuple[_Entries, int]:
    """The list of findings that opens at `at`, and where it ends."""
    found = _Entries()
    at = space(at + 1)
    if text.startswith("]", at):
        return found, at + 1
    while True:
        entry, end = decoder.raw_decode(text, at)
        found.add(entry, at)
        at = space(end)
        if text.startswith("]", at):
            return found, at + 1
        if not text.startswith(",", at):
            raise json.JSONDecodeError("Expecting ',' delimiter", text, at)
        at = space(at + 1)


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
    known = set(baseline.paths)
    left = list(baseline.counts) if baseline.counts is not None else [1] * len(baseline)
    exact: dict[str, int] = {}
    moved = _Chains(len(baseline))  # identity -> its entries, in file order
    fingerprints = baseline.fingerprints
    for n, (same, where) in enumerate(zip(baseline.identities, baseline.paths, strict=True)):
        if fingerprints is not None and where in read:
            exact[fingerprints[n]] = n
        else:
            moved.add(same, n)
    kept: list[Finding] = []
    accepted: list[Finding] = []
    for f in report.findings:
        i: int | None = exact.get(f.fingerprint)
        if i is None and (baseline.version == 1 or normal_path(f.path) not in known):
            i = moved.take(f.identity, left)
        if i is not None and left[i] > 0:
            left[i] -= 1
            accepted.append(f)
        else:
            kept.append(f)
    stale = [
        _stale(baseline, i, left[i])
        for i, where in enumerate(baseline.paths)
        if left[i] > 0 and where in read
    ]
    return dataclasses.replace(
        report,
        findings=tuple(kept),
        accepted=report.accepted + tuple(accepted),
        baseline=baseline.path,
        stale=tuple(stale),
    )


class _Chains:
    """Entries by identity, in file order, as one chain per identity through an array (a
    queue per identity would cost a baseline of a million entries a gigabyte)."""

    def __init__(self, size: int) -> None:
        self.first: dict[str, int] = {}
        self.last: dict[str, int] = {}
        self.after = array("q", [-1]) * size

    def add(self, identity: str, n: int) -> None:
        if identity in self.last:
            self.after[self.last[identity]] = n
        else:
            self.first[identity] = n
        self.last[identity] = n

    def take(self, identity: str, left: list[int]) -> int | None:
        """The first entry of `identity` that still accepts a finding (spent ones dropped)."""
        n = self.first.get(identity, -1)
        while n >= 0 and left[n] <= 0:
            n = self.after[n]
        if identity in self.first:
            self.first[identity] = n
        return n if n >= 0 else None


def _stale(baseline: Baseline, n: int, count: int) -> Stale:
    recorded = baseline.recorded(n)
    fingerprints = baseline.fingerprints
    shown = fingerprints[n] if fingerprints is not None else baseline.identities[n]

    def text(key: str) -> str | None:
        value = recorded.get(key)
        return value if isinstance(value, str) else None

    turn = recorded.get("turn")
    return Stale(
        shown,
        count,
        code=text("code"),
        path=text("path"),
        conversation=text("conversation"),
        turn=turn if isinstance(turn, int) and not isinstance(turn, bool) else None,
        message=text("message"),
    )
