"""The real corpora of `make bench`: ../shared/realdata* replicated per format family.

Each family's files (its folders in `FAMILIES`, hidden paths and files that are not logs left
out) are copied side by side, `copy-0000/`, `copy-0001/`, ... (the folder layout kept: a
folder of OpenHands event files stays one conversation), until the family holds BENCH_MB
megabytes. Every copy but the first gets fresh ids: each UUID and each hexadecimal id of 16 to
64 digits has its first eight digits XORed with the copy's number, so sessions, traces and
spans of two copies never meet, while lengths, lines and everything else stay as they were.
The copies are cached in bench/out/.

For each family (and the synthetic log, as one more row) `measure` gives:
- the floor: orjson parsing the same bytes (a JSON file whole, a JSON Lines file line by line),
  CPU time in process;
- `audit -f json` as a user runs it (one process tree, best of BENCH_RUNS): with `--jobs 1`,
  its CPU time (one core's: less sensitive to the machine's load than wall time), MB/s and
  the ratio to the floor by it, its wall time and peak resident memory; with each other
  `--jobs` setting, the wall time, the speed-up over one job and the peak memory;
- the cost of each rule family: an in-process audit of the first copies (`SAMPLE_MB`) with
  `--ignore FAMILY`, as the fraction of the whole in-process audit it saves.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("BENCH_SHARED", ROOT.parent / "shared"))
"""../shared beside the checkout; BENCH_SHARED names another place."""
OUT = Path(__file__).resolve().parent / "out"
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
SAMPLE_MB = 4
"""Rule families are costed in process on the first copies that hold this many megabytes."""

FAMILIES: dict[str, tuple[str, ...]] = {
    "tau-bench": ("realdata/tau-bench",),
    "tau2": ("realdata/tau2-bench-blakeelias",),
    "sessions": (
        "realdata/sessions-and-apis/claude-code",
        "realdata/sessions-and-apis/codex-cli",
        "realdata-next/anthropic-managed-agents",
    ),
    "exchanges": (
        "realdata/sessions-and-apis/api-exchanges",
        "realdata/sessions-and-apis/responses-api",
        "realdata/sessions-and-apis/anthropic-messages-api",
        "realdata-next/gemini-generatecontent",
        "realdata-next/bedrock-converse",
        "realdata-next/mcp-jsonrpc",
        "realdata-3/litellm-completion-logs",
    ),
    "mini-swe-agent": ("realdata-3/mini-swe-agent",),
    "openhands": ("realdata-3/openhands-v0-events", "realdata-3/openhands-v1-sdk-events"),
    "traces": (
        "realdata-next/otel-genai",
        "realdata-next/openinference",
        "realdata-next/langfuse-langsmith",
    ),
}
"""Format families and the folders of ../shared that hold them."""

LOGS = (".json", ".jsonl", ".traj")
_IDS = re.compile(
    rb"\b[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b|\b(?=[0-9]*[a-f])[0-9a-f]{16,64}\b"
)


def available() -> bool:
    return all((SHARED / d).is_dir() for dirs in FAMILIES.values() for d in dirs)


def logs(top: Path) -> Iterator[Path]:
    """The log files under `top`, hidden paths left out, in a stable order."""
    for path in sorted(top.rglob("*")):
        relative = path.relative_to(top).parts
        if path.is_file() and path.suffix in LOGS and not any(p.startswith(".") for p in relative):
            yield path


def fresh(data: bytes, copy: int) -> bytes:
    """`data` with every id made the copy's own (the same id always becomes the same)."""
    if copy == 0:
        return data
    return _IDS.sub(lambda m: b"%08x" % (int(m[0][:8], 16) ^ copy) + m[0][8:], data)


def replicate(family: str, megabytes: int) -> Path:
    """The family's folder of copies, made once."""
    top = OUT / f"real-v1-{family}-{megabytes}mb"
    done = top / ".complete"
    if done.exists():
        return top
    files = [(p, p.relative_to(SHARED)) for d in FAMILIES[family] for p in logs(SHARED / d)]
    size = sum(p.stat().st_size for p, _ in files)
    copies = max(1, math.ceil(megabytes * 1_000_000 / size))
    print(f"making {top.name}: {copies} copies of {len(files)} files …", flush=True)
    for k in range(copies):
        for path, relative in files:
            target = top / f"copy-{k:04d}" / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(fresh(path.read_bytes(), k))
    done.touch()
    return top


def parse(files: list[Path]) -> float:
    """CPU seconds orjson takes to parse the files: JSON Lines line by line, the rest whole
    (line by line when that fails: a JSON Lines file named .json)."""
    loads = orjson.loads
    start = time.process_time()
    for path in files:
        data = path.read_bytes()
        if path.suffix != ".jsonl":
            try:
                loads(data)
                continue
            except orjson.JSONDecodeError:
                pass
        for line in data.splitlines():
            if line.strip():
                with contextlib.suppress(orjson.JSONDecodeError):
                    loads(line)
    return time.process_time() - start


def rule_costs(paths: list[Path]) -> tuple[float, dict[str, float]]:
    """The CPU seconds of a whole in-process audit of `paths`, and for each rule family the
    fraction of it that `--ignore FAMILY` saves; each the best of RUNS, after one run that
    pays what is loaded or built on first use."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from auditor import config, engine

    def run(ignore: list[str] | None) -> float:
        settings = config.build(ignore=ignore, respect_gitignore=False)
        start = time.process_time()
        engine.audit([str(p) for p in paths], settings)
        return time.process_time() - start

    def best(ignore: list[str] | None) -> float:
        return min(run(ignore) for _ in range(RUNS))

    codes = sorted({rule.code[:2] for rule in config.build().rules} - {"IN"})
    run(None)
    whole = best(None)
    return whole, {code: max(0.0, whole - best([code])) / whole for code in codes}


@dataclass
class Row:
    """One line of the table."""

    name: str
    megabytes: float
    files: int
    conversations: int = 0
    floor: float = 0.0
    """CPU seconds of orjson's parse of the same bytes."""
    wall: dict[str, float] = field(default_factory=dict)
    """Wall seconds of `audit` by --jobs setting, best of RUNS."""
    cpu: dict[str, float] = field(default_factory=dict)
    """CPU seconds of the `audit` process tree by --jobs setting, best of RUNS."""
    rss: dict[str, float] = field(default_factory=dict)
    """Peak resident MB of the process tree by --jobs setting."""
    in_process: float = 0.0
    families: dict[str, float] = field(default_factory=dict)


AuditRun = Callable[..., tuple[float, float]]


def sample(top: Path) -> list[Path]:
    """The first copies of a family's folder, enough to hold SAMPLE_MB (or all of them)."""
    chosen: list[Path] = []
    size = 0
    for copy in sorted(top.glob("copy-*")):
        chosen.append(copy)
        size += sum(p.stat().st_size for p in logs(copy))
        if size >= SAMPLE_MB * 1_000_000:
            break
    return chosen


def measure(
    name: str, path: Path, audit_run: AuditRun, jobs: list[str], costed: list[Path] | None = None
) -> Row:
    """The row of `path` (a file or a folder), audited with each `--jobs` setting in `jobs`
    (best of RUNS each), its rule families costed on `costed` (default: `path`)."""
    files = [path] if path.is_file() else list(logs(path))
    size = sum(p.stat().st_size for p in files) / 1e6
    row = Row(name, size, len(files))
    row.floor = min(parse(files) for _ in range(RUNS))
    report = OUT / f"report-{name}.json"
    options = ("--no-respect-gitignore", "--quiet")
    for setting in jobs:
        runs = [audit_run(path, setting, options) for _ in range(RUNS - 1)]
        runs.append(audit_run(path, setting, options, str(report)))
        row.wall[setting] = min(r.wall for r in runs)
        row.rss[setting] = max(r.rss for r in runs)
        row.cpu[setting] = min(r.cpu for r in runs)
    row.conversations = orjson.loads(report.read_bytes())["summary"]["conversations"]
    row.in_process, row.families = rule_costs(costed or [path])
    return row


def table(rows: list[Row], jobs: list[str]) -> None:
    """The rows, and their total when there are several. The first `--jobs` setting is one
    core's: its CPU time gives MB/s and the ratio to orjson's (CPU) parse; each other setting
    is the whole machine's: its wall time, and how many times faster than the first's."""
    codes = sorted({c for r in rows for c in r.families})
    one, *more = jobs
    head = f"{'':<15}{'MB':>6}{'files':>6}{'convs':>6}{'orjson':>7}"
    head += f" | -j {one}: {'cpu':>6}{'MB/s':>6}{'x orjson':>9}{'wall':>7}{'RSS MB':>7}"
    for setting in more:
        head += f" | -j {setting}: {'wall':>6}{'x -j ' + one:>7}{'RSS MB':>7}"
    head += " | in-process " + " ".join(f"{c:>4}" for c in codes)
    print(head)

    def line(r: Row) -> None:
        text = f"{r.name:<15}{r.megabytes:6.1f}{r.files:6d}{r.conversations:6d}{r.floor:6.2f}s"
        cpu = r.cpu[one]
        text += f" | {'':{len(one) + 5}}{cpu:5.2f}s{r.megabytes / cpu:6.1f}{r.floor / cpu:9.3f}"
        text += f"{r.wall[one]:6.2f}s{r.rss[one]:7.0f}"
        for setting in more:
            wall = r.wall[setting]
            text += f" | {'':{len(setting) + 5}}{wall:5.2f}s{r.wall[one] / wall:6.2f}x"
            text += f"{r.rss[setting]:7.0f}"
        text += f" | {r.in_process:8.2f}s " + " ".join(
            f"{r.families.get(c, 0) * 100:3.0f}%" for c in codes
        )
        print(text)

    for r in rows:
        line(r)
    real = [r for r in rows if r.name != "synthetic"]
    if len(real) > 1:
        total = Row("total (real)", sum(r.megabytes for r in real), sum(r.files for r in real))
        total.conversations = sum(r.conversations for r in real)
        total.floor = sum(r.floor for r in real)
        total.in_process = sum(r.in_process for r in real)
        for setting in jobs:
            total.wall[setting] = sum(r.wall[setting] for r in real)
            total.cpu[setting] = sum(r.cpu[setting] for r in real)
            total.rss[setting] = max(r.rss[setting] for r in real)
        for c in codes:
            saved = sum(r.families.get(c, 0) * r.in_process for r in real)
            total.families[c] = saved / total.in_process
        line(total)
