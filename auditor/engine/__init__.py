"""read -> normalise -> replay -> rules -> sorted findings; a rule that crashes is reported.

The run loop (`audit_plan`: plan -> runner -> merge) over the package's stages: `plan` (what
to audit), `runners` (where each source is audited: here, in worker processes, on Dask),
`source` (the audit of one source), `checker` (the rules on each conversation), `merge` (the
results reduced in input order into the report: `RunMerge`), `results` (what crosses them).

Tool sets: a conversation's own declarations win; else the tools of `--tools` (`Settings.tools`);
else its tools are inferred from its input file: every tool some conversation of the file
called and got a result from that was not an error (and, for what no tool of the file does,
those of the run's other logs of the same format: one run often spreads a benchmark's tasks
over files; never another format's, nor for a file that calls tools of which no other log
calls one, another domain). Those sets are known only once every file was read,
which with `--jobs` happens in several worker processes, so a rule that needs them (FB003)
yields its findings with `deferred` data instead of deciding them; each source reports its
tools and those findings (keyed by fingerprint, as lines are resolved and unread records
regrouped in place), and the merge decides them (`Rule.resolve`) once every source is merged
in input order. The report is thus the same with any number of jobs, memory holds sets of
tool names and the few undecided findings, and rules stay functions of one replayed
conversation.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from auditor.config import Settings
from auditor.engine.checker import ConversationChecker, conversation_key
from auditor.engine.merge import RunMerge
from auditor.engine.plan import Planned, cut_for_jobs, plan, spans
from auditor.engine.results import UNREAD_SHOWN, Progress, SourceResult
from auditor.engine.runners import Runner, local, workers_for
from auditor.engine.source import audit_source
from auditor.report import Report

__all__ = [
    "UNREAD_SHOWN",
    "ConversationChecker",
    "Planned",
    "Progress",
    "RunMerge",
    "Runner",
    "SourceResult",
    "audit",
    "audit_plan",
    "audit_source",
    "conversation_key",
    "plan",
    "spans",
]


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
    if runner is None:
        if fitted and jobs > 1:
            planned = list(planned)
            jobs = workers_for(planned, jobs)
        runner = local(jobs)
    if runner.jobs > 1:
        planned = cut_for_jobs(planned, settings, runner.jobs)
    merge = RunMerge(settings)
    # Closed however the loop ends, so a runner's workers end with it (`runners.ProcessPool`).
    with contextlib.closing(runner.results(iter(planned), settings, progress)) as results:
        for item in results:
            if progress is not None and isinstance(item, tuple):
                source, result = item
                progress.finished(source, result.counts.conversations, len(result.findings))
            merge.add(item)
    return merge.report()
