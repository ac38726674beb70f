"""A baseline read in memory proportional to what is kept (issue 37, item 7): a 49 MB baseline
cost 1.2 GB, the document decoded whole and an entry object made of each of its entries. The
baseline is now read an entry at a time and keeps its text (for the entries a run finds stale)
and, per entry, what matching needs. Measured with tracemalloc: the peak of `baseline.load`,
file read included, as a multiple of the file's size."""

from __future__ import annotations

import dataclasses
import json
import os
import tracemalloc

from auditor.commands import baseline
from auditor.findings import fingerprint, identity
from auditor.report import FileSummary
from tests.reports import FINDINGS, REPORT


def written(path, n: int) -> None:
    """A baseline of `n` findings, as `--write-baseline` writes it (about 350 bytes each)."""
    model = FINDINGS[1]
    findings = []
    for i in range(n):
        same = identity(model.code, f"conversation-{i // 8}", i % 30, f"call_{i}")
        log = f"logs/run-{i // 40:05d}.jsonl"
        findings.append(
            dataclasses.replace(
                model,
                message=f"`issue_refund` call `call_{i}` got no result before the assistant "
                f"spoke again at turn {i % 30 + 1}; it went on without the tool's output",
                path=log,
                conversation=f"conversation-{i // 8}",
                turn=i % 30,
                identity=same,
                fingerprint=fingerprint(same, log),
            )
        )
    baseline.write(str(path), findings)


def peak_of_loading(path) -> tuple[baseline.Baseline, float]:
    tracemalloc.start()
    try:
        loaded = baseline.load(str(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return loaded, peak / os.path.getsize(path)


def test_a_written_baseline_costs_at_most_three_times_its_size(tmp_path):
    path = tmp_path / "baseline.json"
    written(path, 20_000)
    assert os.path.getsize(path) > 6_000_000
    loaded, ratio = peak_of_loading(path)
    assert len(loaded) == 20_000
    assert ratio < 3, f"loading took {ratio:.1f} times the file's size"  # was 15x


def test_a_baseline_of_the_smallest_entries_costs_at_most_six_times_its_size(tmp_path):
    # two short strings an entry: the most entries a megabyte can hold (was 20x)
    path = tmp_path / "baseline.json"
    entries = [{"fingerprint": f"{i:x}", "identity": f"{i:x}"} for i in range(150_000)]
    path.write_text(json.dumps({"version": 2, "findings": entries}, separators=(",", ":")))
    loaded, ratio = peak_of_loading(path)
    assert len(loaded) == 150_000
    assert ratio < 6, f"loading took {ratio:.1f} times the file's size"


def test_what_a_baseline_keeps_still_matches_and_names_stale_entries(tmp_path):
    path = tmp_path / "baseline.json"
    written(path, 200)
    loaded = baseline.load(str(path))
    recorded = json.loads(path.read_text())["findings"]
    assert loaded.recorded(7) == recorded[7]
    # a run that reads the first log and finds one of its 40 findings again
    first = recorded[0]
    finding = dataclasses.replace(
        FINDINGS[1],
        path=first["path"],
        fingerprint=first["fingerprint"],
        identity=first["identity"],
    )
    read = (FileSummary(first["path"], (("openai", 1),), 1, 1),)
    report = dataclasses.replace(REPORT, findings=(finding,), accepted=(), files=read)
    applied = baseline.apply(report, loaded)
    assert applied.findings == () and len(applied.accepted) == 1
    stale = sorted(s.message for s in applied.stale)
    assert len(stale) == 39 and stale == sorted(r["message"] for r in recorded[1:40])
