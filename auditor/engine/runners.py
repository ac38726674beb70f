"""Runners: the ways to audit the sources of a plan behind one interface (`Runner`), each
handing back every planned item, and every source with what `audit_source` returns for it, in
plan order: `Sequential` in this process, `ProcessPool` in forked worker processes, and
`auditor.engine.dask.DaskRunner` on a Dask cluster. The merge after them is the same, so the
report is the same, byte for byte, whichever runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from auditor import sources
from auditor.config import Settings
from auditor.engine.plan import Planned
from auditor.engine.results import Progress, SourceResult
from auditor.engine.source import audit_source
from auditor.report import Counts, RunError, Unread

Results = Iterator[RunError | Counts | Unread | tuple[sources.Source, SourceResult]]
"""Each planned item, and each source with what `audit_source` returns for it, in plan order."""


class Runner(Protocol):
    """A way to audit the sources of a plan."""

    jobs: int
    """How many sources it audits at once: the plan is cut into spans for as many."""

    def results(
        self, planned: Iterator[Planned], settings: Settings, progress: Progress | None
    ) -> Results:
        """Each planned item with its result, in plan order, never in completion order."""
        ...


class Sequential:
    """Every source audited in this process, one after the other."""

    jobs = 1

    def results(
        self, planned: Iterator[Planned], settings: Settings, progress: Progress | None
    ) -> Results:
        for item in planned:
            if isinstance(item, sources.Source):
                yield item, audit_source(item, settings, progress)
            else:
                yield item


class ProcessPool:
    """Sources audited in `jobs` worker processes, forked where the platform can (the settings
    and compiled patterns are inherited, not sent); standard input in this process."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs

    def results(
        self, planned: Iterator[Planned], settings: Settings, progress: Progress | None
    ) -> Results:
        import multiprocessing  # here: a run of one job never pays for it
        from concurrent.futures import ProcessPoolExecutor

        items = list(planned)
        parallel = [i for i in items if isinstance(i, sources.Source) and i.path != "-"]
        context = multiprocessing.get_context(
            "fork" if "fork" in multiprocessing.get_all_start_methods() else None
        )
        with ProcessPoolExecutor(
            max_workers=self.jobs,
            mp_context=context,
            initializer=_start_worker,
            initargs=(settings,),
        ) as pool:
            done = pool.map(_work, parallel)
            for item in items:
                if not isinstance(item, sources.Source):
                    yield item
                elif item.path == "-":  # stdin belongs to this process
                    yield item, audit_source(item, settings, progress)
                else:
                    yield item, next(done)


def local(jobs: int) -> Runner:
    """The runner for `--jobs N` on this machine."""
    return Sequential() if jobs <= 1 else ProcessPool(jobs)


_worker_settings: Settings | None = None


def _start_worker(settings: Settings) -> None:
    global _worker_settings
    _worker_settings = settings


def _work(source: sources.Source) -> SourceResult:
    assert _worker_settings is not None
    return audit_source(source, _worker_settings)
