"""`python bench/scaleout.py`: `--engine dask` against the local engine, on the bench log and
on ../shared/realdata, with the wall time, peak memory and whether the JSON is the same.

Cases, each an `audit -f json` process (best of BENCH_RUNS, default 3; peak RSS of the whole
process tree, Dask's worker processes included):
- local `-j 1` and `-j 2`;
- `--engine dask -j 2`: a LocalCluster of two worker processes started by the run itself;
- `--engine dask --scheduler …`: a cluster started as the README shows (`dask scheduler`,
  `dask worker --nthreads 1 --nworkers 2` on this machine, the profiler off); its start-up
  is not counted, its processes' memory is (sampled with the client's).

Needs the `dask` extra. BENCH_MB (default 60) sizes the synthetic log (made by synthetic.py,
cached in bench/out/). Figures are printed, never asserted.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import generate

from bench import OUT, RUNS, audit_run  # sibling scripts

ROOT = Path(__file__).resolve().parent.parent
REALDATA = ROOT.parent / "shared" / "realdata"
BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def cluster(workers: int) -> Iterator[tuple[str, list[int]]]:
    """`dask scheduler` and `dask worker` on loopback, as the README starts them."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    # As the README starts them: the profiler off (auditor.engine.dask.QUIET_WORKERS).
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}
    quiet: dict = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    scheduler = subprocess.Popen(
        [BIN / "dask", "scheduler", "--host", "127.0.0.1", "--port", str(port),
         "--dashboard-address", ":0"],
        **quiet,
    )  # fmt: skip
    worker = subprocess.Popen(
        [BIN / "dask", "worker", address, "--nthreads", "1", "--nworkers", str(workers),
         "--dashboard-address", ":0"],
        **quiet,
    )  # fmt: skip
    try:
        from distributed import Client

        with Client(address, timeout=30) as client:
            client.wait_for_workers(workers, timeout=60)
        yield address, [scheduler.pid, worker.pid]
    finally:
        for process in (worker, scheduler):
            process.terminate()
            process.wait(timeout=30)


def bench(path: Path, label: str) -> None:
    size = sum(p.stat().st_size for p in ([path] if path.is_file() else path.rglob("*")))
    print(f"{label}: {size / 1e6:.0f} MB")
    reference = OUT / "scaleout-reference.json"
    cases: list[tuple[str, list[str]]] = [
        ("local -j 1", []),
        ("local -j 2", ["-j", "2"]),
        ("dask LocalCluster -j 2", ["--engine", "dask", "-j", "2"]),
    ]
    for name, args in cases:
        best(path, name, args, reference, [])
    with cluster(2) as (address, pids):
        best(path, "dask scheduler + 2 workers", ["--engine", "dask", "--scheduler", address],
             reference, pids)  # fmt: skip


def best(path: Path, name: str, args: list[str], reference: Path, pids: list[int]) -> None:
    out = OUT / "scaleout-out.json"
    target = reference if not args else out
    runs = [audit_run(path, None, tuple(args), str(target), tuple(pids)) for _ in range(RUNS)]
    elapsed, peak = min(r[0] for r in runs), max(r[1] for r in runs)
    same = "" if target == reference else (
        "  same JSON" if out.read_bytes() == reference.read_bytes() else "  JSON DIFFERS"
    )  # fmt: skip
    print(f"  {name:<28} {elapsed:6.2f} s  peak RSS {peak:6.0f} MB{same}")


def main() -> None:
    megabytes = int(os.environ.get("BENCH_MB", "60"))
    OUT.mkdir(exist_ok=True)
    path = OUT / f"synthetic-v3-{megabytes}mb.jsonl"
    if not path.exists():
        generate(path, megabytes)
    with open("/proc/loadavg") as f:
        print(f"machine: {os.cpu_count()} cores, load {f.read().split()[0]}")
    bench(path, f"bench log {path.name}")
    if REALDATA.is_dir():
        bench(REALDATA, "../shared/realdata")


if __name__ == "__main__":
    main()
