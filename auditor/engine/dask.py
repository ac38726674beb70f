"""`--engine dask`: the audit of files and byte ranges mapped over a Dask cluster.

The audit of one source (a file, or a span of whole lines of a JSON Lines file) is a pure
function of that source and the settings: `source.audit_source`. `DaskRunner` maps it over the
plan with `distributed` instead of local worker processes (`runners`), and hands the results
back to `engine.audit_plan` in plan order, never in the order they complete. The engine then merges
them with the same code as a local run (repeat groups joined across the spans of a file,
lines deferred by spans read at the file's end, FB003's undecided findings decided once every
file's tools are known, timelines), so the report is the same, byte for byte.

What runs where:
- here (the client): the paths are expanded (a glob, a directory walk; `auditor.sources.remote` for
  URLs); large JSON Lines files are cut into spans as `--jobs` cuts them (`sources.split`),
  reading the first line of each span to keep session streams whole; the lines of session
  streams a span defers are read; and the report is written;
- on the workers: the newlines of a remote file being cut are counted (`remote.cuts`: the
  client does not read a whole file to number its lines), and every source is opened and
  audited where it lies, through fsspec for a URL (`s3://…` needs `s3fs` on the workers,
  with their own credentials) and at the same path for a local one (a shared filesystem);
  standard input is audited here.

Workers must run the same version of auditor (checked before anything is sent) and should
have one thread each (`dask worker ADDRESS --nthreads 1 --nworkers auto`): the audit is
pure Python, and threads of one process share one core.

Dask is imported only by a run that asks for it; without the `dask` extra, `--engine dask`
is one error line (`require`).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import importlib.util
import logging
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from auditor import __version__ as VERSION
from auditor import sources
from auditor.common.errors import AuditorError
from auditor.config import Settings
from auditor.engine.plan import Planned
from auditor.engine.results import Progress, SourceResult
from auditor.engine.runners import Results, cpus
from auditor.engine.source import audit_source
from auditor.progress import size_of as progress_size
from auditor.report import RunError
from auditor.sources import remote

if TYPE_CHECKING:
    from distributed import Client

INSTALL = remote.INSTALL
QUIET_WORKERS = {"distributed.worker.profile.enabled": False}
"""Dask's statistical profiler samples every worker thread's stack each 10 ms: on this pure Python
audit it costs 25-40 % (measured on the real tau-bench and session logs). Off for the local cluster
a run starts; the README says how to start workers without it
(DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False)."""
CONNECT_TIMEOUT = 10
"""Seconds to reach the scheduler and to wait for its first worker."""


def require() -> None:
    """Raise the one line a user needs when the `dask` extra is not installed."""
    missing = [m for m in ("dask", "distributed", "fsspec") if importlib.util.find_spec(m) is None]
    if missing:
        raise AuditorError(
            f"--engine dask needs {', '.join(missing)}, which this installation lacks: {INSTALL}"
        )


@contextlib.contextmanager
def runner(scheduler: str | None, jobs: int) -> Iterator[DaskRunner]:
    """A runner on the cluster at `scheduler`, else on a cluster of `jobs` local worker
    processes started for this run."""
    require()
    with connect(scheduler, jobs) as client:
        yield DaskRunner(client)


@contextlib.contextmanager
def connect(scheduler: str | None, jobs: int) -> Iterator[Client]:
    """A client of the scheduler at `scheduler`, or of a local cluster made for this run."""
    import dask
    from distributed import Client, LocalCluster

    if scheduler is None:
        with (
            dask.config.set(QUIET_WORKERS),
            LocalCluster(
                n_workers=max(min(jobs, cpus()), 1),  # `-j 1000` starts no 1,000 workers
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.ERROR,
            ) as cluster,
            Client(cluster) as client,
        ):
            yield client
        return
    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise AuditorError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from exc
    with client:
        yield client


class DaskRunner:
    """Sources audited by the workers of `client`: the plan is cut for as many spans as they
    have threads, and remote files are cut there (`remote.counting_with`)."""

    def __init__(self, client: Client) -> None:
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
        except TimeoutError as exc:
            address = client.scheduler.address if client.scheduler else "?"
            raise AuditorError(f"the Dask scheduler at {address} has no worker") from exc
        _same_version(client)
        self.client = client
        self.jobs = max(sum(client.nthreads().values()), 1)

    def results(
        self, planned: Iterator[Planned], settings: Settings, progress: Progress | None
    ) -> Results:
        """`Runner.results` on Dask: every source submitted at once, results fetched as they
        complete, and handed on in plan order only (one that completes early waits its turn)."""
        client = self.client
        with remote.counting_with(functools.partial(_map, client)):  # remote files cut there
            items = list(planned)
        work = [i for i in items if isinstance(i, sources.Source) and i.path != "-"]
        arrived = _arrivals(client, work, settings)
        position = 0
        for item in items:
            if not isinstance(item, sources.Source):
                yield item
            elif item.path == "-":  # standard input is this process's
                yield item, audit_source(item, settings, progress)
            else:
                yield item, arrived(position)
                position += 1


def _map(client: Client, function: Callable[..., Any], calls: list[tuple[Any, ...]]) -> list[Any]:
    """`remote.Map` on the cluster; failing, an OSError (the file is then read whole)."""
    try:
        return client.gather(client.map(function, *zip(*calls, strict=True), pure=False))
    except Exception as exc:
        raise OSError(errno.EIO, f"{type(exc).__name__}: {exc}") from exc


def _same_version(client: Client) -> None:
    """Workers with another auditor would audit by other rules: refuse before sending work."""
    try:
        versions = client.run(_version)
    except Exception as exc:  # a worker that cannot import auditor at all
        raise AuditorError(
            f"a Dask worker cannot run auditor ({type(exc).__name__}: {exc}): "
            f"install auditor {VERSION} on every worker"
        ) from exc
    for worker, version in sorted(versions.items()):
        if version != VERSION:
            raise AuditorError(
                f"the Dask worker at {worker} runs auditor {version}, this is {VERSION}: "
                "install the same version on every worker"
            )


def _version() -> str:
    return VERSION


def _arrivals(
    client: Client, work: list[sources.Source], settings: Settings
) -> Callable[[int], Any]:
    """Submit `work`; the returned function gives the result of `work[i]`, waiting for it."""
    from distributed import as_completed

    if not work:
        return lambda i: None
    [shared] = client.scatter([settings], broadcast=True)  # sent once, not with every task
    # The largest first (the scheduler starts tasks in the order they come): a large file
    # met last would leave every other worker idle while one finishes it.
    order = sorted(range(len(work)), key=lambda i: -progress_size(work[i]))
    submitted = client.map(_audit, [work[i] for i in order], settings=shared, pure=False)
    index = {future.key: i for i, future in zip(order, submitted, strict=True)}
    # Fetched as they complete, not one round trip per result once they are all done.
    completed = as_completed(submitted, with_results=True, raise_errors=False)
    done: dict[int, Any] = {}

    def arrived(i: int) -> Any:
        while i not in done:
            future, result = next(completed)
            if future.status == "error":  # the cluster failed (a worker died), not the input
                name = work[index[future.key]].name
                exc = future.exception()
                raise AuditorError(
                    f"the Dask cluster failed auditing {name}: {type(exc).__name__}: {exc}"
                )
            done[index[future.key]] = result
            future.release()
        return done.pop(i)

    return arrived


def _audit(source: sources.Source, settings: Settings) -> Any:
    """One source audited on a worker; what a local run would stop on becomes an error line
    for that source (a storage driver's own exceptions are not all OSError)."""
    try:
        return audit_source(source, settings)
    except Exception as exc:
        result = SourceResult()
        result.errors.append(RunError("path", f"{source.name}: {remote.reason(exc)}", source.name))
        return result
