"""What a run produced, as every reporter sees it: findings, summary, coverage and errors."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, TextIO

from auditor.common.structs import dataclass
from auditor.common.text import plural
from auditor.findings import Finding, Severity
from auditor.rules import BY_CODE, COVERAGE_HINTS, FAMILIES, RULES, Rule

if TYPE_CHECKING:
    from auditor.timeline import Timeline


@dataclass(frozen=True)
class Counts:
    """What was read."""

    files: int = 0
    records: int = 0
    """Non-blank JSON Lines lines plus whole documents and text files, readable or not."""
    conversations: int = 0
    assistant_turns: int = 0
    excluded: int = 0
    """Paths (files or whole directories) left unread by `exclude`."""
    gitignored: int = 0
    """Paths (files or whole directories) a directory walk left unread because of a .gitignore."""
    tools_declared: int = 0
    """Conversations whose log declares their tools."""
    tools_given: int = 0
    """Conversations whose tools came from `--tools` / `[tool.auditor] tools`."""
    tools_inferred: int = 0
    """Conversations whose tools are inferred from the calls in their input file (or run)."""
    tool_calls: int = 0
    """Calls read in the conversations audited (structured or recovered from text)."""
    tool_results: int = 0
    """Tool results read in the conversations audited, paired with a call or not."""
    languages: tuple[tuple[str, int], ...] = ()
    """Conversations by the languages they were read in (`en`, `es`, `en+es`; "" for one with
    no lexicon), of those a rule that reads claims or replies looked at."""

    def __add__(self, other: Counts) -> Counts:
        languages = dict(self.languages)
        for code, n in other.languages:
            languages[code] = languages.get(code, 0) + n
        return Counts(
            self.files + other.files,
            self.records + other.records,
            self.conversations + other.conversations,
            self.assistant_turns + other.assistant_turns,
            self.excluded + other.excluded,
            self.gitignored + other.gitignored,
            self.tools_declared + other.tools_declared,
            self.tools_given + other.tools_given,
            self.tools_inferred + other.tools_inferred,
            self.tool_calls + other.tool_calls,
            self.tool_results + other.tool_results,
            tuple(sorted(languages.items())),
        )


LINK_KIND = "symlinked out of the path named"


@dataclass(frozen=True)
class Unread:
    """A file a directory walk found and did not audit."""

    path: str
    reason: str
    """`type` (its name promises no log: `plot.png`), `no log shape` (JSON none of whose
    records is a log: `package.json`), `no transcript` (text of prose: a README), `not a
    transcript` (a framework's file known to hold none: `detail` says which) `hidden` (a
    hidden directory, not entered) or `link` (a symbolic link out of the directory named,
    not followed)."""
    detail: str = ""
    """What the file was found to be, in words (`--show-files` prints it)."""

    @property
    def kind(self) -> str:
        """How a summary groups it: `*.png`, `JSON of no log shape`, `text of no transcript`,
        `results files (no transcript)`, `hidden directories`."""
        if self.reason == "type":
            name = os.path.basename(self.path)
            suffix = os.path.splitext(name)[1].lower()
            return f"*{suffix}" if suffix else name
        if self.reason == "hidden":
            return "hidden directories (name one to read it)"
        if self.reason == "not a transcript":
            return f"{self.detail} (no transcript)"
        if self.reason == "link":
            return LINK_KIND
        return "text of no transcript" if self.reason == "no transcript" else "JSON of no log shape"


@dataclass(frozen=True)
class Stale:
    """A baseline entry no finding matched: what it recorded, and how many are gone."""

    fingerprint: str
    count: int
    code: str | None = None
    path: str | None = None
    conversation: str | None = None
    turn: int | None = None
    message: str | None = None


@dataclass(frozen=True)
class Suppressed:
    """A finding a `[[tool.auditor.suppress]]` entry matched (`auditor.suppress`)."""

    finding: Finding
    entry: int
    """The entry's place among the configuration's entries, from 1."""
    reason: str


@dataclass(frozen=True)
class Tally:
    """One suppression entry of the configuration, and how many findings it matched in a run
    (none: it is stale)."""

    entry: int
    reason: str
    criteria: Mapping[str, Any]
    """What it matches on, as the configuration writes it (`fingerprint`, `path`, ...)."""
    described: str
    """`entry 2 (path "logs/**", code "LP")`, as stderr names it."""
    count: int
    judged: bool = True
    """False for an entry whose `path` matches no file this run read (pre-commit names only
    the changed files): matching nothing, it is not stale."""


@dataclass(frozen=True)
class FileSummary:
    """What one file held (`-v`). Its findings are counted from the report's (`-v` says what
    the summary says): the engine's own count would hold findings later dropped (undecided
    ones whose rule decides against them once the run's tools are known, baselined ones)."""

    path: str
    formats: tuple[tuple[str, int], ...]
    """(format name, records read as that format), in order of first appearance."""
    records: int
    conversations: int


def code_ranges(codes: list[str]) -> str:
    """Rule codes with runs of consecutive ones joined: `CF001-CF004, LP001-LP003, LP005`."""
    parts: list[list[str]] = []
    for code in codes:
        last = parts[-1][-1] if parts else ""
        if (
            last[:2] == code[:2]
            and last[2:].isdigit()
            and code[2:].isdigit()
            and (int(code[2:]) == int(last[2:]) + 1)
        ):
            parts[-1].append(code)
        else:
            parts.append([code])
    return ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 2 else ", ".join(run) for run in parts)


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
    """Where a format that has no room for coverage (jsonl, concise) writes it instead: stderr."""
    color: bool | None = None
    """Colour the output; None: when it goes to a terminal (the `--color` default)."""
    width: int | None = None
    """Columns for the table; None: the terminal's, else COLUMNS, else 120."""
    show_evidence: bool = False
    """The table shows each finding's evidence (`--show-evidence`, `-v`)."""
    whole: bool = False
    """The table shows whole messages instead of at most two lines of each (`-v`)."""
    root: str | None = None
    """The directory relative paths are relative to in SARIF and GitLab reports (the
    repository's root); None: the working directory."""


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
    accepted: tuple[Finding, ...] = ()
    """Findings left out of `findings` because the baseline holds them (SARIF keeps them, as
    `unchanged`)."""
    baseline: str | None = None
    """The baseline file applied, if any."""
    config_file: str | None = None
    """The configuration file the run read, as errors name it; None when it read none."""
    stale: tuple[Stale, ...] = ()
    """Entries of the baseline that no finding matched in the files this run read."""
    suppressed: tuple[Suppressed, ...] = ()
    """Findings left out of `findings` because a suppression entry matched them, in report
    order (JSON and SARIF keep them, with the entry's reason)."""
    suppressions: tuple[Tally, ...] = ()
    """Every suppression entry of the configuration, with the findings it matched."""
    unread: tuple[Unread, ...] = ()
    """Files a directory walk found and did not audit, in walk order."""
    files: tuple[FileSummary, ...] = ()
    """What each file audited held, in input order."""
    timelines: tuple[Timeline, ...] = ()
    """Bounded summaries of the conversations with findings, when the settings asked for them
    (`Settings.timelines`, set for `-f html`); empty otherwise. Sorted by file and place."""

    @property
    def baselined(self) -> int:
        """Findings left out because the baseline holds them."""
        return len(self.accepted)

    def with_suppressed(self) -> list[tuple[Finding, Suppressed | None]]:
        """Every finding in report order, the suppressed ones with their entry, as the JSON
        and SARIF reports list them."""
        rows: list[tuple[Finding, Suppressed | None]] = [(f, None) for f in self.findings]
        if not self.suppressed:
            return rows
        rows.extend((s.finding, s) for s in self.suppressed)
        return sorted(rows, key=lambda row: row[0].sort_key())

    def suppression_entries(self) -> list[dict[str, Any]]:
        """The suppression entries as JSON and SARIF list them: what each matches on, its
        reason, how many findings it suppressed, and whether it is stale."""
        stale = {id(t) for t in self.stale_suppressions()}
        return [
            {
                "entry": t.entry,
                **t.criteria,
                "reason": t.reason,
                "suppressed": t.count,
                "stale": id(t) in stale,
            }
            for t in self.suppressions
        ]

    def by_severity(self) -> dict[str, int]:
        counts = Counter(f.severity for f in self.findings)
        return {s.value: counts.get(s, 0) for s in Severity}

    def by_rule(self) -> dict[str, int]:
        return dict(sorted(Counter(f.code for f in self.findings).items()))

    def catalog(self) -> tuple[Rule, ...]:
        """Every rule a reader may need explained: the built-in ones, then the configuration's
        own that ran (`[[tool.auditor.rule]]`)."""
        return (*RULES, *(r for r in self.rules if r.code not in BY_CODE))

    def summary(self) -> dict[str, Any]:
        c = self.counts
        return {
            "files": c.files,
            "records": c.records,
            "conversations": c.conversations,
            "assistant_turns": c.assistant_turns,
            "tool_calls": c.tool_calls,
            "tool_results": c.tool_results,
            "skipped_files": len(self.unread),
            "excluded": c.excluded,
            "gitignored": c.gitignored,
            "findings": len(self.findings),
            "baselined": self.baselined,
            "stale_baseline_entries": sum(s.count for s in self.stale),
            "suppressed": len(self.suppressed),
            "stale_suppressions": len(self.stale_suppressions()),
            "by_severity": self.by_severity(),
            "by_rule": self.by_rule(),
            "errors": len(self.errors),
        }

    def statistics(self) -> list[dict[str, Any]]:
        """Findings per rule, most frequent first, also per 100 conversations read."""
        counts = Counter(f.code for f in self.findings)
        first: dict[str, Finding] = {}
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

    def notes(self, verbose: bool = True) -> list[str]:
        """What the findings alone do not say: the baseline's work, files skipped, coverage
        (all of it with `verbose`, else what a user can act on)."""
        skipped = self.skipped_note()
        return (
            self.baseline_notes()
            + self.suppression_notes()
            + ([skipped] if skipped else [])
            + [f"coverage: {note}" for note in self.coverage_notes(verbose)]
        )

    def baseline_notes(self) -> list[str]:
        """How many findings the baseline hid, and how many of its entries matched nothing."""
        notes = []
        if self.baselined:
            notes.append(f"{plural(self.baselined, 'finding')} in the baseline not shown")
        stale = sum(s.count for s in self.stale)
        if stale:
            notes.append(
                f"{plural(stale, 'baseline entry', 'baseline entries')} matched no finding "
                "(fixed, or changed): --write-baseline rewrites the baseline without them"
            )
        return notes

    def stale_suppressions(self) -> list[Tally]:
        """The suppression entries that matched no finding in this run."""
        return [t for t in self.suppressions if not t.count and t.judged]

    def suppression_notes(self) -> list[str]:
        """How many findings the suppression entries hid, and each entry that matched none."""
        notes = []
        if self.suppressed:
            used = sum(1 for t in self.suppressions if t.count)
            notes.append(
                f"{plural(len(self.suppressed), 'finding')} suppressed by "
                f"{plural(used, 'suppress entry', 'suppress entries')}"
            )
        where = f" of {self.config_file}" if self.config_file else ""
        notes.extend(
            f"suppress {t.described}{where} matched no finding (fixed, or changed): remove it"
            for t in self.stale_suppressions()
        )
        return notes

    def skipped_note(self) -> str | None:
        """The files a walk did not audit, grouped: `skipped 4 files: 2 *.md, 1 *.png, 1 JSON
        of no log shape (package.json)`; side-car JSON and text files are named."""
        if not self.unread:
            return None
        kinds = Counter(u.kind for u in self.unread)
        parts = []
        for kind, n in sorted(kinds.items(), key=lambda item: (-item[1], item[0])):
            part = f"{n:,} {kind}"
            if kind == LINK_KIND or (
                not kind.startswith("*") and ("no " in kind or kind.startswith("hidden"))
            ):
                named = [u.path for u in self.unread if u.kind == kind]
                part += f" ({', '.join(named[:3])}{', …' if len(named) > 3 else ''})"
            parts.append(part)
        advice = " (--follow-links follows links)" if LINK_KIND in kinds else ""
        return f"skipped {plural(len(self.unread), 'file')}: {', '.join(parts)}{advice}"

    def coverage_notes(self, verbose: bool = True) -> list[str]:
        """Coverage in words, one line per reason a rule could not examine conversations
        (rules of every family together), the ones a user can act on first, each with what to
        do; then, when a rule that reads tools ran, where the tool sets came from if not all
        from the logs. Without `verbose`, the lines with nothing to act on are counted in a
        last line instead."""
        total = self.counts.conversations
        grouped: dict[tuple[str, int], list[str]] = {}
        for gap in self.gaps:
            grouped.setdefault((gap.reason, gap.conversations), []).extend(gap.rules)
        order = list(COVERAGE_HINTS)
        lines: list[tuple[bool, str]] = []
        for (reason, n), codes in sorted(
            grouped.items(),
            key=lambda item: (order.index(item[0][0]) if item[0][0] in order else -1, -item[0][1]),
        ):
            hint = COVERAGE_HINTS.get(reason, "")
            useful = bool(hint) or reason not in COVERAGE_HINTS
            text = (
                f"{code_ranges(sorted(codes))} could not examine {n:,} of {total:,} "
                f"conversations: {reason}"
            )
            lines.append((useful, f"{text}; {hint}" if hint else text))
        sets = self.tool_sets()
        if (sets["file"] or sets["inferred"]) and any(
            "tools" in r.requires or r.resolve is not None for r in self.rules
        ):
            lines.append(
                (
                    False,
                    f"tool sets: {sets['declared']:,} declared by the log, {sets['file']:,} from "
                    f"--tools, {sets['inferred']:,} inferred from the calls in their file or run "
                    "(enough for FB003, not for EX005/EX007)",
                )
            )
        languages = dict(self.counts.languages)
        if set(languages) - {"en"}:
            lines.append((False, _languages_note(languages)))
        shown = [text for useful, text in lines if useful or verbose]
        hidden = len(lines) - len(shown)
        if hidden:
            shown.append(f"-v shows {plural(hidden, 'more note')}")
        return shown

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
            "skipped_files": [
                {"path": u.path, "reason": u.reason, **({"detail": u.detail} if u.detail else {})}
                for u in self.unread
            ],
        }


def _languages_note(languages: dict[str, int]) -> str:
    """`languages: 8 in English, 7 in Spanish, 1 in English and Spanish, 2 in a language with
    no lexicon`: the conversations the rules that read claims or replies looked at."""
    from auditor.languages import LEXICONS

    def name(code: str) -> str:
        lexicon = LEXICONS.get(code)
        return "English" if code == "en" else lexicon.name if lexicon else code

    parts = [
        f"{n:,} in "
        + (" and ".join(map(name, code.split("+"))) if code else "a language with no lexicon")
        for code, n in sorted(languages.items(), key=lambda item: (-item[1], item[0]))
    ]
    return "languages read: " + ", ".join(parts)
