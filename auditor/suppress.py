"""Suppressions: findings a team judged acceptable, each entry with its reason.

`[[tool.auditor.suppress]]` entries (`[[suppress]]` in `.auditor.toml`; `auditor.config`
reads them) match a finding by its `fingerprint`, or by `path` (a glob, matched as
`per-file-ignores` globs are) narrowed by `conversation`, `turns` and `code`; every key an
entry gives must match. A suppressed finding is not dropped: it leaves `Report.findings` (so
it fails no run and no terminal output lists it) for `Report.suppressed`, which the JSON and
SARIF reports write with the entry's reason. An entry that matched nothing in a run is stale,
unless its `path` matches no file the run read (pre-commit names only the changed files).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from auditor.common.structs import dataclass
from auditor.findings import Finding
from auditor.report import Report, Suppressed, Tally
from auditor.sources import Exclude


@dataclass(frozen=True)
class Suppression:
    """One entry of the configuration, validated."""

    entry: int
    """Its place among the file's entries, from 1: how every message names it."""
    reason: str
    fingerprint: str | None = None
    path: str | None = None
    """A glob, relative to `root` when it holds a `/`, else a file name at any depth."""
    conversation: str | None = None
    turns: tuple[int, int] | None = None
    """First and last turn, both included."""
    code: tuple[str, ...] = ()
    """The selectors as written (`LP`, `FB00`, `EX001`)."""
    codes: frozenset[str] = frozenset()
    """The rule codes `code` names; empty when it names none (any rule)."""
    root: str = "."
    """The configuration file's directory."""

    def criteria(self) -> dict[str, object]:
        """What the entry matches on, as written in the file (`turns` as `"3-8"` or `5`)."""
        turns: object = None
        if self.turns is not None:
            first, last = self.turns
            turns = first if first == last else f"{first}-{last}"
        values = {
            "fingerprint": self.fingerprint,
            "path": self.path,
            "conversation": self.conversation,
            "turns": turns,
            "code": (self.code[0] if len(self.code) == 1 else list(self.code)) or None,
        }
        return {key: value for key, value in values.items() if value is not None}

    def describe(self) -> str:
        """`entry 2 (path "logs/**", code "LP")`: how stderr names the entry."""
        from auditor.common.text import dumps

        shown = ", ".join(f"{key} {dumps(value)}" for key, value in self.criteria().items())
        return f"entry {self.entry} ({shown})"


def _matcher(entry: Suppression) -> Exclude | None:
    return Exclude([entry.path], entry.root) if entry.path is not None else None


def _matches(entry: Suppression, f: Finding, path: Exclude | None) -> bool:
    if entry.fingerprint is not None and f.fingerprint != entry.fingerprint:
        return False
    if entry.codes and f.code not in entry.codes:
        return False
    if entry.conversation is not None and f.conversation != entry.conversation:
        return False
    if entry.turns is not None:
        first, last = entry.turns
        if f.turn is None or not first <= f.turn <= last:
            return False
    return path is None or path(f.path)


def apply(report: Report, entries: Sequence[Suppression]) -> Report:
    """The report with the findings an entry matches moved to `suppressed` (the first entry
    that matches a finding takes it), and each entry's count in `suppressions`."""
    if not entries:
        return report
    matchers = [_matcher(e) for e in entries]
    counts = [0] * len(entries)
    kept: list[Finding] = []
    suppressed: list[Suppressed] = []
    for f in report.findings:
        for i, entry in enumerate(entries):
            if _matches(entry, f, matchers[i]):
                counts[i] += 1
                suppressed.append(Suppressed(f, entry.entry, entry.reason))
                break
        else:
            kept.append(f)
    read = [f.path for f in report.files]
    tallies = tuple(
        Tally(
            e.entry,
            e.reason,
            e.criteria(),
            e.describe(),
            n,
            judged=bool(n) or match is None or any(match(p) for p in read),
        )
        for e, n, match in zip(entries, counts, matchers, strict=True)
    )
    return dataclasses.replace(
        report,
        findings=tuple(kept),
        suppressed=report.suppressed + tuple(suppressed),
        suppressions=tallies,
    )
