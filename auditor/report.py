"""What a run produced, as every reporter sees it: findings, summary, coverage and errors."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from auditor.findings import Finding, Severity
from auditor.rules import FAMILIES, Rule


@dataclass(frozen=True)
class Counts:
    """What was read."""

    files: int = 0
    records: int = 0
    """Non-blank JSON Lines lines plus whole documents and text files, readable or not."""
    conversations: int = 0
    assistant_turns: int = 0
    skipped_files: int = 0
    """Files found by walking a directory that hold no transcript (a `.txt` of prose)."""
    excluded: int = 0
    """Paths (files or whole directories) left unread by the configuration's `exclude`."""
    tools_declared: int = 0
    """Conversations whose log declares their tools."""
    tools_given: int = 0
    """Conversations whose tools came from `--tools` / `[tool.auditor] tools`."""
    tools_inferred: int = 0
    """Conversations whose tools are inferred from the calls in their input file (or run)."""

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.files + other.files,
            self.records + other.records,
            self.conversations + other.conversations,
            self.assistant_turns + other.assistant_turns,
            self.skipped_files + other.skipped_files,
            self.excluded + other.excluded,
            self.tools_declared + other.tools_declared,
            self.tools_given + other.tools_given,
            self.tools_inferred + other.tools_inferred,
        )


@dataclass(frozen=True)
class Gap:
    """Rules of one family that could not examine some conversations, and why."""

    family: str
    reason: str
    rules: tuple[str, ...]
    conversations: int


@dataclass(frozen=True)
class RunError:
    """Something that stopped part of the run: an unreadable path or a crash inside the auditor."""

    kind: str
    """`path`, `format` or `rule`."""
    message: str
    path: str | None = None
    code: str | None = None


@dataclass(frozen=True)
class Context:
    """What a reporter may want to know besides the report."""

    elapsed: float | None = None
    """Seconds the run took; the table shows it only on a terminal, so files stay reproducible."""
    quiet: bool = False
    """Findings only: no summary, no coverage."""
    notes: TextIO | None = None
    """Where a format that has no room for coverage (jsonl) writes it instead: stderr."""


@dataclass(frozen=True)
class Report:
    """The whole result of a run, sorted and ready to write."""

    findings: tuple[Finding, ...]
    counts: Counts
    rules: tuple[Rule, ...]
    """The rules that ran."""
    gaps: tuple[Gap, ...] = ()
    errors: tuple[RunError, ...] = ()
    severity: Mapping[str, Severity] = field(default_factory=dict)
    """The configuration's severity overrides, by code."""
    baselined: int = 0
    """Findings left out because the baseline holds them."""

    def by_severity(self) -> dict[str, int]:
        counts = Counter(f.severity for f in self.findings)
        return {s.value: counts.get(s, 0) for s in Severity}

    def by_rule(self) -> dict[str, int]:
        return dict(sorted(Counter(f.code for f in self.findings).items()))

    def summary(self) -> dict[str, Any]:
        c = self.counts
        return {
            "files": c.files,
            "records": c.records,
            "conversations": c.conversations,
            "assistant_turns": c.assistant_turns,
            "skipped_files": c.skipped_files,
            "excluded": c.excluded,
            "findings": len(self.findings),
            "baselined": self.baselined,
            "by_severity": self.by_severity(),
            "by_rule": self.by_rule(),
            "errors": len(self.errors),
        }

    def statistics(self) -> list[dict[str, Any]]:
        """Findings per rule, most frequent first, also per 100 conversations read."""
        counts = Counter(f.code for f in self.findings)
        first = {}
        for f in self.findings:
            first.setdefault(f.code, f)
        conversations = self.counts.conversations
        return [
            {
                "code": code,
                "name": first[code].name,
                "severity": first[code].severity.value,
                "count": n,
                "per_100_conversations": (
                    round(100 * n / conversations, 1) if conversations else None
                ),
            }
            for code, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        ]

    def notes(self) -> list[str]:
        """What the findings alone do not say: how many the baseline hid, and coverage gaps."""
        hidden = (
            [
                f"{self.baselined:,} finding{'' if self.baselined == 1 else 's'} in the baseline "
                "not shown"
            ]
            if self.baselined
            else []
        )
        return hidden + [f"coverage: {note}" for note in self.coverage_notes()]

    def coverage_notes(self) -> list[str]:
        """Coverage in words, one line per gap: what could not be examined, and why; and, when
        a rule that reads tools ran, where the tool sets came from if not all from the logs."""
        total = self.counts.conversations
        notes = [
            f"{', '.join(gap.rules)} could not examine {gap.conversations:,} of {total:,} "
            f"conversations: {gap.reason}"
            for gap in self.gaps
        ]
        sets = self.tool_sets()
        uses = any("tools" in r.requires or r.resolve is not None for r in self.rules)
        if uses and (sets["file"] or sets["inferred"]):
            notes.append(
                f"tool sets: {sets['declared']:,} declared by the log, {sets['file']:,} from "
                f"--tools, {sets['inferred']:,} inferred from the calls in their file or run "
                "(enough for FB003, not for EX005/EX007)"
            )
        return notes

    def tool_sets(self) -> dict[str, int]:
        """Conversations by where their tool set came from."""
        c = self.counts
        return {"declared": c.tools_declared, "file": c.tools_given, "inferred": c.tools_inferred}

    def coverage(self) -> dict[str, Any]:
        """Per rule family: the rules that ran, and the conversations some could not examine."""
        families: dict[str, Any] = {}
        for rule in self.rules:
            entry = families.setdefault(
                rule.family,
                {"name": FAMILIES.get(rule.family, rule.family), "rules": [], "not_examined": []},
            )
            entry["rules"].append(rule.code)
        for gap in self.gaps:
            if gap.family in families:
                families[gap.family]["not_examined"].append(
                    {
                        "reason": gap.reason,
                        "rules": list(gap.rules),
                        "conversations": gap.conversations,
                    }
                )
        return {
            "conversations": self.counts.conversations,
            "tool_sets": self.tool_sets(),
            "families": families,
        }
