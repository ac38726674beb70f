"""Processes and signals (issue 28, items 1-2): SIGTERM ends the whole process tree promptly with
143, as SIGINT does with 130, and `-j N` starts no more workers than there is work and CPUs.

The signal tests run the real command in its own process group, wait (bounded) until its
workers exist, signal the parent alone, and kill the whole group when they end, whatever
happened. Waiting is bounded; nothing is timed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from concurrent import futures
from typing import ClassVar

import pytest

from auditor import config, engine, sources
from auditor.engine import runners
from tests.helpers import FIXTURES, ROOT

DEMO = FIXTURES / "demo" / "agent-runs.jsonl"
BOUND = 60  # seconds: a hang detector, never a speed assertion


@pytest.fixture
def many_logs(tmp_path):
    """Twelve files of a few MB each: work enough that workers are busy when the signal comes."""
    lines = DEMO.read_text().splitlines()
    for k in range(12):
        with open(tmp_path / f"run{k:02}.jsonl", "w") as out:
            for i in range(1500):
                out.write(lines[i % len(lines)].replace('"id": "', f'"id": "c{k}-{i}-', 1) + "\n")
    return tmp_path


def children(pid: int) -> list[int]:
    found = []
    with contextlib.suppress(FileNotFoundError, ProcessLookupError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fp:
                found.extend(int(child) for child in fp.read().split())
    return found


def running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fp:
            return fp.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads /proc to find workers")
@pytest.mark.parametrize(("signum", "status", "said"), [
    (signal.SIGTERM, 143, "audit: terminated\n"),
    (signal.SIGINT, 130, "audit: interrupted\n"),
])  # fmt: skip
def test_a_signal_ends_the_whole_tree_promptly(many_logs, signum, status, said):
    proc = subprocess.Popen(
        [sys.executable, "-m", "auditor", str(many_logs), "-j", "2", "--no-progress", "-f", "json"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        deadline = time.monotonic() + BOUND
        while len(children(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = children(proc.pid)
        assert len(workers) == 2, "the workers never started"
        proc.send_signal(signum)
        # Reading stderr to its end is what hung: the workers held it open.
        _, stderr = proc.communicate(timeout=BOUND)
        assert proc.returncode == status
        assert stderr.decode() == said
        assert not [pid for pid in workers if running(pid)]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=BOUND)


class Recorded(futures.ProcessPoolExecutor):
    """A pool that records how many workers it was asked for, and never starts more than 2."""

    asked: ClassVar[list[int]] = []

    def __init__(self, max_workers=None, **kwargs):
        Recorded.asked.append(max_workers)
        super().__init__(max_workers=min(max_workers, 2), **kwargs)


@pytest.fixture
def recorded(monkeypatch):
    Recorded.asked = []
    # runners imports the pool where one starts: the name it then reads is this one
    monkeypatch.setattr(futures, "ProcessPoolExecutor", Recorded)
    monkeypatch.setattr(runners, "cpus", lambda: 64)  # the cap by work, on any machine
    return Recorded.asked


def test_workers_are_capped_by_the_work(recorded, tmp_path):
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.jsonl").write_bytes(DEMO.read_bytes())
    report = engine.audit([str(tmp_path)], config.build(), jobs=1000)
    assert recorded == [3]
    assert report.counts.files == 3
    one = engine.audit([str(tmp_path / "a.jsonl")], config.build(), jobs=1000)
    assert recorded == [3]  # one source: audited here, no pool at all
    assert [f.to_dict() for f in one.findings] == [
        f.to_dict() for f in report.findings if f.path.endswith("a.jsonl")
    ]


def test_workers_are_capped_by_the_cpus(monkeypatch):
    monkeypatch.setattr(runners, "cpus", lambda: 3)
    assert runners.local(1_000_000).jobs == 3
    monkeypatch.setattr(runners, "cpus", lambda: 1)
    assert isinstance(runners.local(8), runners.Sequential)


def test_jobs_auto_is_one_per_cpu_this_process_may_use(monkeypatch):
    from auditor.cli.values import parse_jobs

    monkeypatch.setattr(runners, "cpus", lambda: 5)
    assert parse_jobs("auto") == 5 and parse_jobs("AUTO") == 5
    assert runners.cpus() == 5
    monkeypatch.undo()
    if hasattr(os, "sched_getaffinity"):
        assert runners.cpus() == len(os.sched_getaffinity(0))


def test_jobs_auto_starts_workers_for_the_work_only(recorded, tmp_path, monkeypatch):
    # A worker costs its start (fork, its own patterns and modules, results sent back):
    # `--jobs auto` starts none for less input than `WORK_PER_WORKER` per worker, where
    # `--jobs N` starts N (one per source at most). The report is the same either way.
    for name in "abcdef":
        (tmp_path / f"{name}.jsonl").write_bytes(DEMO.read_bytes())
    settings = config.build()

    def fitted() -> list[dict]:
        planned = engine.plan([str(tmp_path)], settings)
        report = engine.audit_plan(planned, settings, jobs=6, fitted=True)
        return [f.to_dict() for f in report.findings]

    one = [f.to_dict() for f in engine.audit([str(tmp_path)], settings).findings]
    assert fitted() == one and recorded == []  # 6 small files: no pool at all
    monkeypatch.setattr(runners, "WORK_PER_WORKER", DEMO.stat().st_size * 2)
    assert fitted() == one and recorded == [3]  # six files' worth: three workers
    # one large JSON Lines file: cut into spans for the workers, as `--jobs N` cuts it
    monkeypatch.setattr(sources.spans, "SPLIT_AT_LEAST", DEMO.stat().st_size)
    big = tmp_path / "one" / "big.jsonl"
    big.parent.mkdir()
    big.write_bytes(DEMO.read_bytes() * 6)
    alone = engine.audit_plan(engine.plan([str(big)], settings), settings, jobs=6, fitted=True)
    assert recorded == [3, 3]
    assert [f.to_dict() for f in alone.findings] == [
        f.to_dict() for f in engine.audit([str(big)], settings).findings
    ]
    size = runners.WORK_PER_WORKER
    planned = [
        sources.Source("a.jsonl", "jsonl", False, True, size=size * 5),
        sources.Source("b.json", "document", False, True),  # of unknown size: one worker's
        sources.Source("-", "jsonl", False, True, size=size * 9),  # stdin is read here
    ]
    # a.jsonl may be cut into spans: five workers' worth
    assert runners.workers_for(planned, 64) == 6
    assert runners.workers_for(planned[:1], 64) == 5
    assert runners.workers_for(planned[:1], 2) == 2
    # compressed, or a document: one piece, read by one worker
    gz = sources.Source("a.jsonl.gz", "jsonl", True, True, size=size * 5)
    assert runners.workers_for([gz], 64) == 1
    assert runners.workers_for([planned[1], gz], 64) == 2


def test_small_files_go_to_the_workers_together(monkeypatch, tmp_path):
    # A task per file of a thousand small files cost more in messages than the files did.
    submitted = []

    class Counted(futures.ProcessPoolExecutor):
        def submit(self, fn, batch, /):
            submitted.append(len(batch))
            return super().submit(fn, batch)

    monkeypatch.setattr(futures, "ProcessPoolExecutor", Counted)
    monkeypatch.setattr(runners, "cpus", lambda: 2)
    for i in range(40):
        (tmp_path / f"{i:02d}.jsonl").write_bytes(DEMO.read_bytes())
    two = engine.audit([str(tmp_path)], config.build(), jobs=2)
    one = engine.audit([str(tmp_path)], config.build(), jobs=1)
    assert sum(submitted) == 40 and 2 <= len(submitted) < 40  # files sent together
    assert [f.to_dict() for f in two.findings] == [f.to_dict() for f in one.findings]
