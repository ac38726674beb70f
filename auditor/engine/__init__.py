"""read -> normalise -> replay -> rules -> sorted findings; a rule that crashes is reported.

The run loop (`audit_plan`) over the package's stages: `plan` (what to audit), `runners` (where
each source is audited: here, in worker processes, on Dask), `source` (the audit of one
source), `checker` (the rules on each conversation), `merge` (the results reduced in input
order), `results` (what crosses them).

Tool sets: a conversation's own declarations win; else the tools of `--tools` (`Settings.tools`);
else its tools are inferred from its input file: every tool some conversation of the file
called and got a result from that was not an error (and, for what no tool of the file does,
those of the run's other logs of the same format: one run often spreads a benchmark's tasks
over files; never another format's, nor for a file that calls tools of which no other log
calls one, another domain). Those sets are known only once every file was read,
which with `--jobs` happens in several worker processes, so a rule that needs them (FB003)
yields its findings with `deferred` data instead of deciding them; each source reports its
tools and those findings (keyed by fingerprint, as lines are resolved and unread records
regrouped in place), and `audit_plan` decides them (`Rule.resolve`) after merging every source
in input order. The report is thus the same with any number of jobs, memory holds sets of
tool names and the few undecided findings, and rules stay functions of one replayed
conversation.
"""

from __future__ import annotations

import contextlib
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from auditor import sources
from auditor.config import Settings
from auditor.engine.checker import ConversationChecker, conversation_key
from auditor.engine.merge import FileMerge, decide, gaps, shown, summarise
from auditor.engine.plan import Planned, cut_for_jobs, plan, spans
from auditor.engine.results import UNREAD_SHOWN, Progress, SourceResult
from auditor.engine.runners import Runner, local, workers_for
from auditor.engine.source import audit_source
from auditor.findings import Finding, occurrence
from auditor.report import Counts, FileSummary, Report, RunError, Unread

if TYPE_CHECKING:
    from auditor import timeline

__all__ = [
    "UNREAD_SHOWN",
    "ConversationChecker",
    "Planned",
    "Progress",
    "Runner",
    "SourceResult",
    "audit",
    "audit_plan",
    "audit_source",
    "conversation_key",
    "plan",
    "spans",
]


def unique(findings: list[Finding]) -> None:
    """Findings alike in one log (a conversation without an id logged twice) told apart, in
    place: the n-th of a fingerprint gets `occurrence(fingerprint, n)`, in the sorted order."""
    seen: Counter[str] = Counter()
    for i, f in enumerate(findings):
        n = seen[f.fingerprint]
        seen[f.fingerprint] += 1
        if n:
            findings[i] = replace(f, fingerprint=occurrence(f.fingerprint, n))


def audit(
    paths: Iterable[str],
    settings: Settings,
    progress: Progress | None = None,
    jobs: int = 1,
) -> Report:
    """Audit every path and return the sorted report."""
    return audit_plan(plan(paths, settings), settings, progress, jobs)


def audit_plan(
    planned: Iterable[Planned],
    settings: Settings,
    progress: Progress | None = None,
    jobs: int = 1,
    runner: Runner | None = None,
    fitted: bool = False,
) -> Report:
    """Audit what `plan` found and return the sorted report.

    With `jobs` > 1, files (and large JSON Lines files cut into spans of whole lines) are
    audited in worker processes; their results are merged in input order, so the report is
    the same, byte for byte, as with one job. `runner` replaces the local runner for `jobs`
    (`runners.local`) by another (`dask.DaskRunner`), which gets the plan cut for its own
    `jobs`; what it returns is merged here in the same way, so its report is the same too.
    With `fitted` (`--jobs auto`), no more local workers start than the plan keeps busy
    (`runners.workers_for`): none for a small input.
    """
    findings: list[Finding] = []
    counts = Counts()
    skipped: dict[tuple[str, str], int] = defaultdict(int)
    errors: list[RunError] = []
    unread: list[Unread] = []
    files: list[FileSummary] = []
    timelines: list[timeline.Timeline] = []
    tooled: dict[str, SourceResult] = {}  # input file -> its inferred tools and undecided findings
    if runner is None:
        if fitted and jobs > 1:
            planned = list(planned)
            jobs = workers_for(planned, jobs)
        runner = local(jobs)
    if runner.jobs > 1:
        planned = cut_for_jobs(planned, settings, runner.jobs)
    file = FileMerge(settings, None)

    def take(source: sources.Source, result: SourceResult, continued: bool) -> None:
        nonlocal counts
        if not result.unread:
            summarise(files, source, result, continued)
        merged = tooled.setdefault(source.path, SourceResult())
        for fmt, names in result.tools.items():
            merged.tools.setdefault(fmt, set()).update(names)
        for fmt, n in result.untooled.items():
            merged.untooled[fmt] = merged.untooled.get(fmt, 0) + n
        merged.undecided.update(result.undecided)
        findings.extend(result.findings)
        counts += result.counts
        for key, n in result.skipped.items():
            skipped[key] += n
        errors.extend(result.errors)
        unread.extend(result.unread)
        timelines.extend(result.timelines)

    def close(file: FileMerge) -> None:
        rest = file.finish()
        if rest is not None and file.source is not None:
            take(file.source, rest, True)

    # Closed however the loop ends, so a runner's workers end with it (`runners.ProcessPool`).
    with contextlib.closing(runner.results(iter(planned), settings, progress)) as results:
        for item in results:
            if isinstance(item, RunError):
                errors.append(item)
                continue
            if isinstance(item, Counts):
                counts += item
                continue
            if isinstance(item, Unread):
                unread.append(item)
                continue
            source, result = item
            if source.path != file.path or source.span is None or source.span.start == 0:
                close(file)
                file = FileMerge(settings, source)
            if progress is not None:
                progress.finished(source, result.counts.conversations, len(result.findings))
            file.add(result)
            take(source, result, source.span is not None and source.span.start > 0)
    close(file)
    findings = decide(findings, tooled, skipped, settings)
    findings.sort(key=Finding.sort_key)
    unique(findings)
    if timelines:
        timelines = shown(timelines, findings)
    return Report(
        tuple(findings),
        counts,
        settings.rules,
        gaps(skipped),
        tuple(errors),
        severity=dict(settings.severity),
        unread=tuple(unread),
        files=tuple(files),
        timelines=tuple(timelines),
    )
