"""The reduce half of the engine: what each source returns, merged in input order into one
report, so that the report is the same for any number of jobs and any runner.

`RunMerge` takes every item a runner hands back, in plan order, and owns what they add up to:
the findings, counts, coverage gaps, errors, unread files, `-v` summaries and timelines.
Within a file (`FileMerge`): unread-record groups are joined across the spans a file was cut
into, and the lines spans deferred are read at the file's end. Across files (`RunMerge.decide`):
the tools inferred from every file are gathered, and the findings a rule left undecided until
they were known (FB003's) are decided.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from auditor import sources
from auditor.config import Settings
from auditor.engine.results import Item, SourceResult, UnreadGroup
from auditor.engine.source import audit_source
from auditor.findings import Finding, occurrence
from auditor.report import Counts, FileSummary, Gap, Report, RunError, Unread
from auditor.rules import BY_CODE, UNTOOLED

if TYPE_CHECKING:
    from auditor import timeline


class RunMerge:
    """Every item of a run, added in plan order (`add`), reduced into one sorted report
    (`report`).

    A file's results, whole or in spans, go through its `FileMerge`. The tools each input file
    inferred and the findings a rule left undecided until they are known (`Violation.deferred`,
    FB003's) are kept per file over its spans, and decided once every file is merged, so that
    memory holds sets of tool names and the few undecided findings.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.findings: list[Finding] = []
        self.counts = Counts()
        self.skipped: dict[tuple[str, str], int] = defaultdict(int)
        self.errors: list[RunError] = []
        self.unread: list[Unread] = []
        self.files: list[FileSummary] = []
        self.timelines: list[timeline.Timeline] = []
        self.tooled: dict[str, SourceResult] = {}
        """Input file -> its inferred tools and undecided findings, over its spans."""
        self.file = FileMerge(settings, None)

    def add(self, item: Item) -> None:
        if isinstance(item, RunError):
            self.errors.append(item)
        elif isinstance(item, Counts):
            self.counts += item
        elif isinstance(item, Unread):
            self.unread.append(item)
        else:
            source, result = item
            continued = source.span is not None and source.span.start > 0
            if source.path != self.file.path or not continued:
                self.close_file()
                self.file = FileMerge(self.settings, source)
            self.file.add(result)
            self.take(source, result, continued)

    def close_file(self) -> None:
        """What the file being merged still holds (its deferred lines, its groups), taken."""
        rest = self.file.finish()
        if rest is not None and self.file.source is not None:
            self.take(self.file.source, rest, True)

    def take(self, source: sources.Source, result: SourceResult, continued: bool) -> None:
        if not result.unread:
            summarise(self.files, source, result, continued)
        merged = self.tooled.setdefault(source.path, SourceResult())
        for fmt, names in result.tools.items():
            merged.tools.setdefault(fmt, set()).update(names)
        for fmt, n in result.untooled.items():
            merged.untooled[fmt] = merged.untooled.get(fmt, 0) + n
        merged.undecided.update(result.undecided)
        self.findings.extend(result.findings)
        self.counts += result.counts
        for key, n in result.skipped.items():
            self.skipped[key] += n
        self.errors.extend(result.errors)
        self.unread.extend(result.unread)
        self.timelines.extend(result.timelines)

    def report(self) -> Report:
        """The sorted report, once every item was added: the last file closed, the undecided
        findings decided, findings alike told apart, the timelines of those left."""
        self.close_file()
        findings = self.decide()
        findings.sort(key=Finding.sort_key)
        unique(findings)
        timelines = shown(self.timelines, findings) if self.timelines else []
        return Report(
            tuple(findings),
            self.counts,
            self.settings.rules,
            gaps(self.skipped),
            tuple(self.errors),
            severity=dict(self.settings.severity),
            unread=tuple(self.unread),
            files=tuple(self.files),
            timelines=tuple(timelines),
        )

    def decide(self) -> list[Finding]:
        """The findings with each undecided one decided by its rule, given the inferred tools;
        the conversations a rule could not examine for want of any tool, counted as skipped."""
        run: dict[str, set[str]] = defaultdict(set)  # log format -> tools, over every file
        files: dict[tuple[str, str], int] = defaultdict(int)  # (format, tool) -> files calling it
        undecided: dict[str, tuple[frozenset[str], frozenset[str], str, Any]] = {}
        for merged in self.tooled.values():
            for fmt, names in merged.tools.items():
                run[fmt] |= names
                for name in names:
                    files[(fmt, name)] += 1
        for merged in self.tooled.values():
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
                    for rule in self.settings.rules:
                        if rule.resolve is not None:
                            self.skipped[(rule.code, UNTOOLED)] += n
        if not undecided:
            return self.findings
        kept = []
        for finding in self.findings:
            entry = undecided.get(finding.fingerprint)
            known = BY_CODE.get(finding.code)  # None: the configuration's own, never deferred
            resolve = known.resolve if known is not None else None
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


def gaps(skipped: dict[tuple[str, str], int]) -> tuple[Gap, ...]:
    grouped: dict[tuple[str, str, int], list[str]] = defaultdict(list)
    for (code, reason), n in sorted(skipped.items()):
        grouped[(code[:2], reason, n)].append(code)
    return tuple(
        Gap(family, reason, tuple(codes), n)
        for (family, reason, n), codes in sorted(grouped.items())
    )


def unique(findings: list[Finding]) -> None:
    """Findings alike in one log (a conversation without an id logged twice) told apart, in
    place: the n-th of a fingerprint gets `occurrence(fingerprint, n)`, in the sorted order."""
    seen: Counter[str] = Counter()
    for i, f in enumerate(findings):
        n = seen[f.fingerprint]
        seen[f.fingerprint] += 1
        if n:
            findings[i] = replace(f, fingerprint=occurrence(f.fingerprint, n))
