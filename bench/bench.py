"""`make bench`: how fast `audit` reads real logs compared with parsing them, and its memory.

One table, from one run, with the machine's load average before and after:

- one row per format family of the real corpora in ../shared/realdata* (tau-bench, tau2,
  Claude Code / Codex / managed-agent sessions, gateway exchanges, mini-swe-agent, OpenHands,
  traces), each replicated with fresh ids to BENCH_MB megabytes (`bench/real.py`), and their
  total; without ../shared it says so and the table holds the synthetic log only;
- one row for the synthetic log: OpenAI-format JSON Lines shaped like tau-bench's airline
  trajectories (about 16 KB and 26 messages a conversation: a 6 KB system prompt, short user
  and assistant turns, the user giving the ids the agent looks up, tool results of ~650
  characters, tools declared with schemas), a few percent of conversations carrying injected
  failures (a call without result, an orphan result, a repeated failing call, a call written
  as text, leaked harmony tokens, an approval followed by a different call; `bench/synthetic.py`);
- per row: orjson's parse of the same bytes (the floor, CPU time); `audit -f json --jobs 1`
  (CPU time, one core's: MB/s and the ratio to the floor by it; wall time; peak RSS) and
  `--jobs auto` (wall time, speed-up, peak RSS of the process tree); and what each rule family
  costs (an in-process audit of the first copies with `--ignore FAMILY`);
- start-up: `audit` of an empty file, `audit --version`, a small input (one copy of the
  sessions family) with each `--jobs` setting, and the import time of the empty file's audit
  by package (`python -X importtime`), with which of typer, jsonlines, fsspec, Dask it loaded;
- then what the language layer costs English-only logs, in process (`bench/languages.py`;
  BENCH_LANGUAGES=0 skips it);
- then what a team's own rules cost: none configured, and ten (`bench/own_rules.py`;
  BENCH_OWN_RULES=0 skips it);
- then the readers of issue 26 against the OpenAI chat reader, per megabyte and on the same
  transcripts written as OpenAI chat (`bench/readers.py`; BENCH_READERS=0 skips it).

Size: BENCH_MB (default 20) megabytes per family, which takes `make bench` about five minutes
on two shared cores, and the readers' table about four more (BENCH_READERS_MB, default 10);
`BENCH_MB=200 make bench` for the figures at scale, `BENCH_MB=1000` for the 1 GB memory
figure. Each time is the best of BENCH_RUNS (default 3) runs; peak memory is the highest seen.
Inputs are cached in bench/out/.

More, each on request:
- BENCH_STAGES=1: where one core's time goes on the synthetic log, in process (decode, model,
  replay, each rule; `bench/stages.py`);
- BENCH_SHAPES=1: growth on the input shapes that were once quadratic (`bench/shapes.py`);
- BENCH_OTEL=1: an OTLP JSON Lines file of BENCH_MB made by repeating a real kagent trace
  (Tempo export in `../shared/realdata-next`, or the trimmed copy in `fixtures/formats/otel`)
  with fresh trace and conversation ids, each trace's three resource batches interleaved with
  the next trace's, so spans are buffered per trace: throughput and peak RSS;
- BENCH_CODING_READERS=1: the coding agents' readers against the OpenAI chat reader
  (`bench/coding_readers.py`).
Figures are printed, never asserted: tests do not time things.
"""

from __future__ import annotations

import compileall
import os
import sys
from pathlib import Path

import orjson

# This checkout's auditor, whatever is installed, then the sibling modules of this script.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import coding_readers
import languages
import own_rules
import readers
import real
import shapes
import stages
from process import LAZY, audit_run, has_jobs, imports, load, startup
from synthetic import generate

OUT = Path(__file__).resolve().parent / "out"
ROOT = Path(__file__).resolve().parent.parent


RUNS = int(os.environ.get("BENCH_RUNS", "3"))
"""Each figure is the best of this many runs: this machine's timings vary by a third."""


def parse_only(path: Path) -> float:
    """The floor: orjson parsing every line and every arguments string of the file (what
    reading the log at all costs), the best of RUNS runs."""
    return min(stages.floor(path) for _ in range(RUNS))


OTEL_SAMPLES = (
    ROOT.parent
    / "shared"
    / "realdata-next"
    / "otel-genai"
    / "agentevals-dev-agentevals"
    / "samples"
    / "tempo_export_with_batches.json",
    ROOT / "fixtures" / "formats" / "otel" / "tempo-kagent-excerpt.json",
)


def generate_otel(path: Path, megabytes: int) -> int:
    """OTLP JSON lines: the sample trace repeated, each copy with its own trace and
    conversation ids, its resource batches one per line, each two traces interleaved."""
    sample_path = next(p for p in OTEL_SAMPLES if p.exists())
    sample = orjson.loads(sample_path.read_bytes())
    spans = [
        s
        for b in sample["batches"]
        for ils in b["instrumentationLibrarySpans"]
        for s in ils["spans"]
    ]
    trace_id = spans[0]["traceId"]
    conversation = next(
        a["value"]["stringValue"]
        for s in spans
        for a in s.get("attributes", ())
        if a["key"] == "gen_ai.conversation.id"
    )
    lines = [
        orjson.dumps(
            {
                "resourceSpans": [
                    {
                        "resource": batch["resource"],
                        "scopeSpans": [
                            {"scope": ils["instrumentationLibrary"], "spans": ils["spans"]}
                            for ils in batch["instrumentationLibrarySpans"]
                        ],
                    }
                ]
            }
        )
        for batch in sample["batches"]
    ]
    old_trace, old_conversation = trace_id.encode(), conversation.encode()
    target = megabytes * 1_000_000
    written = n = 0
    with open(path, "wb") as f:
        while written < target:
            pair = [
                [
                    line.replace(old_trace, f"{k:032x}".encode()).replace(
                        old_conversation, f"ctx-bench-{k}".encode()
                    )
                    + b"\n"
                    for line in lines
                ]
                for k in (n, n + 1)
            ]
            for first, second in zip(*pair, strict=True):
                f.write(first + second)
                written += len(first) + len(second)
            n += 2
    return n


def bench_otel(megabytes: int) -> None:
    path = OUT / f"otlp-lines-v1-{megabytes}mb.jsonl"
    if not path.exists():
        print(f"generating {path.name} …", flush=True)
        generate_otel(path, megabytes)
    size = path.stat().st_size / 1e6
    parse = parse_only(path)
    print(f"OTLP JSON lines: {path.name}: {size:.0f} MB")
    print(f"orjson parse           {parse:7.2f} s  {size / parse:7.1f} MB/s")
    runs = [audit_run(path, 1 if has_jobs() else None) for _ in range(RUNS)]
    elapsed, peak = min(r[0] for r in runs), max(r[1] for r in runs)
    print(
        f"audit (otel)           {elapsed:7.2f} s  {size / elapsed:7.1f} MB/s  "
        f"{parse / elapsed:5.3f}x orjson  peak RSS {peak:6.0f} MB"
    )


def main() -> None:
    megabytes = int(os.environ.get("BENCH_MB", "20"))
    OUT.mkdir(exist_ok=True)
    # A user's install has its bytecode; a machine with PYTHONDONTWRITEBYTECODE would otherwise
    # compile ~100 modules from source in every timed process (about 0.2 s each).
    compileall.compile_dir(ROOT / "auditor", quiet=1)
    jobs = ["1", "auto"] if has_jobs() else []
    print(
        f"make bench: {megabytes} MB per family (BENCH_MB), best of {RUNS} (BENCH_RUNS); "
        f"{os.cpu_count()} cores, load average {load()} (1, 5, 15 min)"
    )
    rows = []
    if real.available():
        for family in real.FAMILIES:
            top = real.replicate(family, megabytes)
            rows.append(real.measure(family, top, audit_run, jobs, real.sample(top)))
    else:
        print(f"{real.SHARED} not found: the real corpora are left out, the synthetic log only")
    path = OUT / f"synthetic-v3-{megabytes}mb.jsonl"
    if not path.exists():
        print(f"generating {path.name} …", flush=True)
        generate(path, megabytes)
    rows.append(real.measure("synthetic", path, audit_run, jobs))
    print(
        "orjson: CPU seconds parsing the same bytes; -j 1: CPU seconds of `audit -f json "
        "--jobs 1` (one process), MB/s and orjson's time over it by CPU time, wall seconds, peak "
        "RSS; -j auto: wall seconds of the process tree, speed-up over -j 1, peak RSS; in-process: "
        f"CPU seconds of the first {real.SAMPLE_MB} MB audited in process, and the share of "
        "it that --ignore FAMILY saves"
    )
    real.table(rows, jobs)
    empty = OUT / "empty.jsonl"
    empty.write_bytes(b"")
    print(
        f"start-up: audit EMPTY-FILE {startup(str(empty), '--allow-empty') * 1000:4.0f} ms, "
        f"audit --version {startup('--version') * 1000:4.0f} ms (median of 7)"
    )
    sessions = real.OUT / f"real-v1-sessions-{megabytes}mb" / "copy-0000"
    small = sessions if sessions.is_dir() else ROOT / "fixtures" / "demo"
    size = sum(f.stat().st_size for f in real.logs(small)) / 1e6
    quiet = ("--no-respect-gitignore", "--quiet")
    for setting in jobs:
        runs = [audit_run(small, setting, quiet) for _ in range(max(RUNS, 5))]
        print(
            f"small input ({small.relative_to(ROOT.parent)}, {size:.1f} MB): -j {setting} "
            f"{min(r.wall for r in runs) * 1000:4.0f} ms wall, "
            f"{min(r.cpu for r in runs) * 1000:4.0f} ms CPU (best of {len(runs)})"
        )
    by_package, loaded = imports(str(empty), "--allow-empty")
    top = sorted(by_package.items(), key=lambda kv: -kv[1])[:6]
    print(
        f"imports of EMPTY-FILE (python -X importtime, own time by package): "
        f"{sum(by_package.values()):.0f} ms; "
        + ", ".join(f"{name} {ms:.0f}" for name, ms in top)
        + f"; of {', '.join(LAZY)}: {', '.join(loaded) or 'none'} imported"
    )
    print(f"load average at the end: {load()}")
    print(
        "targets: every real family >= 0.10x orjson on one core, the synthetic log >= 0.12x; "
        "start-up <= 100 ms, --version < 50 ms; peak RSS < 150 MB at 1 GB"
    )
    if os.environ.get("BENCH_LANGUAGES") != "0":
        languages.main(path)
    if os.environ.get("BENCH_OWN_RULES") != "0":
        own_rules.main(path)
    if os.environ.get("BENCH_READERS") != "0":
        readers.main(path)
    if os.environ.get("BENCH_STAGES") == "1":
        stages.main(path)
    if os.environ.get("BENCH_SHAPES") == "1":
        shapes.main(audit_run)
    if os.environ.get("BENCH_OTEL"):
        bench_otel(megabytes)
    if os.environ.get("BENCH_CODING_READERS"):
        coding_readers.main(audit_run, generate)


if __name__ == "__main__":
    main()
