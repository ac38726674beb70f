"""Runners: the ways to audit the sources of a plan behind one interface (`Runner`), each
handing back every planned item, and every source with what `audit_source` returns for it, in
plan order: `Sequential` in this process, `ProcessPool` in forked worker processes, and
`auditor.engine.dask.DaskRunner` on a Dask cluster. The merge after them is the same, so the
report is the same, byte for byte, whichever runs.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Generator, Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

from auditor import sources
from auditor.config import Settings
from auditor.engine.plan import Planned
from auditor.engine.results import Item, Progress, SourceResult
from auditor.engine.source import audit_source

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

Results = Generator[Item, None, None]
"""Each planned item, and each source with what `audit_source` returns for it, in plan order;
closed by the engine however the run ends."""


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
    """Sources audited in worker processes, forked where the platform can (the settings and
    compiled patterns are inherited, not sent); standard input in this process.

    No more workers start than there are sources to audit (nor than `jobs`), and none for one
    source. When the run ends early (SIGTERM or SIGINT raised in this process, or the results
    abandoned), the workers are terminated before the exception goes on: none is left running,
    holding this process's stderr, for a caller that reads it to its end.
    """

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs

    def results(
        self, planned: Iterator[Planned], settings: Settings, progress: Progress | None
    ) -> Results:
        items = list(planned)
        parallel = [i for i in items if isinstance(i, sources.Source) and i.path != "-"]
        workers = min(self.jobs, len(parallel))
        if workers <= 1:
            yield from Sequential().results(iter(items), settings, progress)
            return
        import multiprocessing  # here: a run of one job never pays for it
        from concurrent.futures import ProcessPoolExecutor

        _warm(settings)
        context = multiprocessing.get_context(
            "fork" if "fork" in multiprocessing.get_all_start_methods() else None
        )
        pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(settings,),
        )
        try:
            # Futures of our own, not `pool.map`'s: closing its iterator cancels them, and a
            # cancelled future that Python 3.11's pool then marks broken (the workers ended
            # below) raises InvalidStateError in its manager thread, a traceback on stderr.
            with _signals_held():  # a worker forked now starts with the parent's handlers
                tasks = [pool.submit(_work, batch) for batch in _batches(parallel, workers)]
            done = (result for task in tasks for result in task.result())
            for item in items:
                if not isinstance(item, sources.Source):
                    yield item
                elif item.path == "-":  # stdin belongs to this process
                    yield item, audit_source(item, settings, progress)
                else:
                    yield item, next(done)
        except BaseException:  # Terminated, KeyboardInterrupt, GeneratorExit: end the workers
            _terminate(pool)
            raise
        pool.shutdown(wait=True)


_ENDING = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM held back while workers are forked, delivered after. A child forked
    with them held keeps them held until its initializer has set its own handlers: a SIGTERM
    from `_terminate` in between would otherwise run the parent's handler in the child, and
    its traceback would reach stderr."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _ENDING)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop every worker of `pool` now, and whatever it was still to do."""
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14
    if terminate is not None:
        terminate()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()
    # Not `cancel_futures`: Python 3.11's pool then fails setting BrokenProcessPool on them.
    pool.shutdown(wait=False)


def cpus() -> int:
    """The processors this process may run on (a container's share, not the machine's)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def local(jobs: int) -> Runner:
    """The runner for `--jobs N` on this machine: no more processes than processors."""
    jobs = min(jobs, cpus())
    return Sequential() if jobs <= 1 else ProcessPool(jobs)


WORK_PER_WORKER = 8 * 1024 * 1024
"""Bytes of input that pay for a worker process. A worker costs its fork, the patterns it
compiles and the modules it loads for itself, and its results sent back: below this much
input the second core saves less than that (measured by `make bench`)."""
BATCH_BYTES = 1024 * 1024
"""Consecutive small files go to a worker together, up to this many bytes: a task per file
of a thousand small files cost more in messages than the files did."""


def workers_for(planned: Sequence[Planned], jobs: int) -> int:
    """How many workers the plan keeps busy (`--jobs auto`), at most `jobs`: one per
    `WORK_PER_WORKER` bytes (a source of unknown size counts as that much), and no more than
    there are pieces to hand out: a source each, or, for a JSON Lines file that `--jobs` may
    cut into spans, one per `WORK_PER_WORKER` bytes of it (standard input is read here)."""
    sizes: list[int] = []
    pieces = 0
    for i in planned:
        if isinstance(i, sources.Source) and i.path != "-":
            size = WORK_PER_WORKER if i.size is None else i.size
            sizes.append(size)
            cut = sources.cuttable(i) and i.span is None
            pieces += max(1, size // WORK_PER_WORKER) if cut else 1
    return max(1, min(jobs, pieces, sum(sizes) // WORK_PER_WORKER))


def _batches(parallel: list[sources.Source], workers: int) -> Iterator[list[sources.Source]]:
    """Consecutive sources grouped into tasks of about `BATCH_BYTES`, smaller when the input
    is, so that every worker gets some eight tasks to balance its load."""
    sizes = [source.size or 0 for source in parallel]
    target = max(1, min(BATCH_BYTES, sum(sizes) // (workers * 8)))
    batch: list[sources.Source] = []
    held = 0
    for source, size in zip(parallel, sizes, strict=True):
        batch.append(source)
        held += size
        if held >= target:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


def _warm(settings: Settings) -> None:
    """Import before forking what every worker would otherwise import for itself: shared,
    copy-on-write, instead of loaded once per worker."""
    from auditor import formats
    from auditor.replay.approvals import events, language, pending  # noqa: F401

    formats.registry(settings.formats)  # every reader, as detection would import them
    for rule in settings.rules:
        rule.check  # noqa: B018  (the registry imports a rule's module when first asked)


_worker_settings: Settings | None = None


def _start_worker(settings: Settings) -> None:
    global _worker_settings
    _worker_settings = settings
    # The parent ends the workers (`_terminate`): SIGTERM kills a worker outright, whatever
    # handler the fork inherited, and a Ctrl-C meant for the run is the parent's to handle.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # held by the parent while it forked (`_signals_held`)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _ENDING)


def _work(batch: list[sources.Source]) -> list[SourceResult]:
    assert _worker_settings is not None
    return [audit_source(source, _worker_settings) for source in batch]
