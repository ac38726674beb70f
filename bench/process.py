"""`audit` as a user runs it: one process (tree), its wall time and peak resident memory.

Every process runs this checkout's `auditor` (PYTHONPATH is set to it), whatever is installed.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def command(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "auditor", *arguments]


def _tree_rss_kb(pid: int) -> int:
    """Resident memory of a process and all its descendants, from /proc."""
    total = 0
    stack = [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    stack.extend(int(c) for c in f.read().split())
        except OSError:
            continue
    return total


class Run(NamedTuple):
    """One `audit` process tree."""

    wall: float
    """Seconds, start to exit."""
    rss: float
    """Peak resident memory of the tree, MB (sampled every 20 ms)."""
    cpu: float
    """Seconds of CPU (user and system) of the process and the workers it waited for."""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def audit_run(
    path: Path,
    jobs: int | str | None,
    options: tuple[str, ...] = (),
    output: str = os.devnull,
    others: tuple[int, ...] = (),
) -> Run:
    """Wall time, peak resident memory and CPU time of one `audit -f json` process tree, with
    `options` added, the report written to `output`, and the process trees of `others` (a
    Dask cluster's, `engine/dask.py`) counted in the memory. `jobs` None leaves `--jobs` to
    the default."""
    arguments = [str(path), "-f", "json", "--no-progress", "--exit-zero", "-o", output, *options]
    if jobs is not None:
        arguments += ["--jobs", str(jobs)]
    cpu = _children_cpu()
    start = time.perf_counter()
    child = subprocess.Popen(command(*arguments), env=ENV)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, sum(_tree_rss_kb(p) for p in (child.pid, *others)))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    child.wait()
    elapsed = time.perf_counter() - start
    done.set()
    sampler.join()
    if child.returncode != 0:
        raise SystemExit(f"audit exited {child.returncode}")
    return Run(elapsed, peak / 1024, _children_cpu() - cpu)


def has_jobs() -> bool:
    help_text = subprocess.run(command("--help"), capture_output=True, text=True, env=ENV).stdout
    return "--jobs" in help_text


def startup(*arguments: str, times: int = 7) -> float:
    """The median wall time of `audit ARGUMENTS` (its exit status is not looked at)."""
    seconds = []
    for _ in range(times):
        start = time.perf_counter()
        subprocess.run(command(*arguments), capture_output=True, env=ENV)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def load() -> str:
    """The machine's load average over 1, 5 and 15 minutes."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


LAZY = (
    *("typer", "jsonlines", "fsspec", "dask", "distributed", "importlib.metadata", "rich"),
    *("auditor.replay", "auditor.dialects", "auditor.sources.remote", "hashlib", "pathlib"),
)
"""Modules an audit of an empty file should not import."""


def imports(*arguments: str) -> tuple[dict[str, float], list[str]]:
    """`python -X importtime -m auditor ARGUMENTS`: the import time (ms, each module's own,
    summed by top-level package) and which of `LAZY` it imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "auditor", *arguments],
        capture_output=True,
        text=True,
        env=ENV,
    )
    by_package: dict[str, float] = {}
    loaded = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _, name = line[len("import time:") :].split("|")
        module = name.strip()
        top = module.split(".")[0]
        by_package[top] = by_package.get(top, 0.0) + int(own) / 1000
        if any(module == m or module.startswith(m + ".") for m in LAZY):
            loaded.append(module)
    return by_package, sorted({m for m in LAZY for x in loaded if x == m or x.startswith(m + ".")})
