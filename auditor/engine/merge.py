"""The reduce half of the engine: what each source returns, merged in input order into one
report's parts, so that the report is the same for any number of jobs and any runner.

Within a file (`FileMerge`): unread-record groups are joined across the spans a file was cut
into, and the lines spans deferred are read at the file's end. Across files (`decide`): the
tools inferred from every file are gathered, and the findings a rule left undecided until they
were known are decided.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from auditor import sources
from auditor.config import Settings
from auditor.engine.results import SourceResult, UnreadGroup
from auditor.engine.source import audit_source
from auditor.findings import Finding
from auditor.report import Counts, FileSummary, Gap
from auditor.rules import BY_CODE, UNTOOLED

if TYPE_CHECKING:
    from auditor import timeline


class FileMerge:
    """The results of one file, whole or in spans (`--jobs`), merged in the file's order.

    Unread-record groups are joined across spans before they become findings, and lines
    deferred by the spans are read here, so the report is the same for any number of jobs.
    """

    def __init__(self, settings: Settings, source: sources.Source | None) -> None:
        self.settings = settings
        self.source = source
        self.path = source.path if source is not None else None
        self.repeats: dict[tuple[str, str], UnreadGroup] = {}
        self.deferred: list[int] = []

    def add(self, result: SourceResult) -> None:
        join_groups(self.repeats, result.repeats)
        self.deferred.extend(result.deferred)

    def finish(self) -> SourceResult | None:
        """What the file still holds: its deferred lines audited, its groups as findings."""
        if self.source is None or not (self.repeats or self.deferred):
            return None
        result = SourceResult()
        if self.deferred:
            whole = replace(self.source, span=None)
            result = audit_source(whole, self.settings, only=self.deferred)
            join_groups(self.repeats, result.repeats)
        settings = self.settings
        dropped = settings.ignored_in(self.source.path) if settings.per_file_ignores else ()
        for (code, _), group in self.repeats.items():
            if code not in dropped:
                result.findings.extend(group.findings())
        return result


def join_groups(
    mine: dict[tuple[str, str], UnreadGroup], theirs: dict[tuple[str, str], UnreadGroup]
) -> None:
    for key, group in theirs.items():
        if key in mine:
            mine[key].absorb(group)
        else:
            mine[key] = group


def shown(timelines: list[timeline.Timeline], findings: list[Finding]) -> list[timeline.Timeline]:
    """The timelines of conversations that still have findings once the undecided ones are
    decided (a rule may drop them), sorted, not in completion order: spans defer some
    conversations to the end of their file."""
    kept = {(f.path, f.conversation) for f in findings if f.conversation is not None}
    shown = [t for t in timelines if (t.path, t.conversation) in kept]
    shown.sort(key=lambda t: t.sort_key())
    return shown


def summarise(
    files: list[FileSummary], source: sources.Source, result: SourceResult, continued: bool
) -> None:
    """One line of `-v` per file; what the spans of a file cut for --jobs read, and what its
    groups and deferred lines add at its end (`continued`), are added together."""
    formats = dict(result.formats)
    c = result.counts
    if files and continued:
        last = files.pop()
        for name, n in last.formats:
            formats[name] = formats.get(name, 0) + n
        c = c + Counts(records=last.records, conversations=last.conversations)
    files.append(FileSummary(source.name, tuple(formats.items()), c.records, c.conversations))


def decide(
    findings: list[Finding],
    tooled: dict[str, SourceResult],
    skipped: dict[tuple[str, str], int],
    settings: Settings,
) -> list[Finding]:
    """The findings with each undecided one decided by its rule, given the inferred tools."""
    run: dict[str, set[str]] = defaultdict(set)  # log format -> tools, over every file
    files: dict[tuple[str, str], int] = defaultdict(int)  # (format, tool) -> files that called it
    undecided: dict[str, tuple[frozenset[str], frozenset[str], str, Any]] = {}
    for merged in tooled.values():
        for fmt, names in merged.tools.items():
            run[fmt] |= names
            for name in names:
                files[(fmt, name)] += 1
    for merged in tooled.values():
        for key, (fmt, data) in merged.undecided.items():
            own = frozenset(merged.tools.get(fmt, ()))
            # The other logs lend their tools to a file that shares one with them, or calls
            # none: a file whose every tool no other log called works with another tool set
            # (a course's domains, one a file), of which the others' tools say nothing.
            kin = own
            if not own or any(files[(fmt, name)] > 1 for name in own):
                kin = frozenset(run[fmt])
            undecided[key] = (own, kin, fmt, data)
        for fmt, n in merged.untooled.items():
            if n and not run[fmt]:
                for rule in settings.rules:
                    if rule.resolve is not None:
                        skipped[(rule.code, UNTOOLED)] += n
    if not undecided:
        return findings
    kept = []
    for finding in findings:
        entry = undecided.get(finding.fingerprint)
        resolve = BY_CODE[finding.code].resolve
        if entry is None or resolve is None:
            kept.append(finding)
            continue
        own, kin, fmt, data = entry
        # the tools of its file first; then those of the run's other logs of its format (one
        # benchmark run spread over files) that share a tool with its file, never another
        # format's (SWE-agent's `create` says nothing of a multi-agent chat)
        outcome = resolve(data, own, "this file")
        if outcome is None and kin != own:
            outcome = resolve(data, kin, f"another {fmt} log of this run")
        if outcome is not None:
            message, tool = outcome
            kept.append(replace(finding, message=message, tool=tool))
    return kept


def gaps(skipped: dict[tuple[str, str], int]) -> tuple[Gap, ...]:
    grouped: dict[tuple[str, str, int], list[str]] = defaultdict(list)
    for (code, reason), n in sorted(skipped.items()):
        grouped[(code[:2], reason, n)].append(code)
    return tuple(
        Gap(family, reason, tuple(codes), n)
        for (family, reason, n), codes in sorted(grouped.items())
    )
