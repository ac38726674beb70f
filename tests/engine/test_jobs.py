"""`--jobs N` gives the same report, byte for byte, as one job, in every output format."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from auditor import config, engine, sources
from auditor.reporters import REPORTERS
from auditor.sources import spans
from tests.helpers import FIXTURES, audit_main, render


@pytest.fixture
def logs(tmp_path, monkeypatch):
    """Every fixture, plus a JSON Lines file big enough to be cut into spans."""
    monkeypatch.setattr(spans, "SPLIT_AT_LEAST", 2_000)  # workers are forked: they see it
    shutil.copytree(FIXTURES, tmp_path / "fixtures")
    lines = []
    demo = (FIXTURES / "demo" / "agent-runs.jsonl").read_text().splitlines()
    for i in range(60):
        lines.append(demo[i % len(demo)].replace('"id": "', f'"id": "copy{i}-', 1))
        if i % 7 == 0:
            lines.append("this line is not JSON")
            lines.append("")
    (tmp_path / "big.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_reports_are_byte_identical(logs):
    # With timelines, as `-f html` asks: the page holds each conversation's timeline.
    settings = dataclasses.replace(config.build(), timelines=True)
    one = engine.audit([str(logs)], settings, jobs=1)
    two = engine.audit([str(logs)], settings, jobs=2)
    three = engine.audit([str(logs)], settings, jobs=3)
    assert one.findings, "the logs must give findings for the comparison to mean something"
    assert len(sources.split(sources.Source(str(logs / "big.jsonl"), "jsonl", False, True), 8)) > 1
    for name in REPORTERS:
        assert render(one, name) == render(two, name) == render(three, name), name
    assert one.counts == two.counts
    big = [f for f in two.findings if f.path.endswith("big.jsonl")]
    invalid = [f.line for f in big if f.code == "IN001"]
    text = (logs / "big.jsonl").read_text().splitlines()
    assert invalid and all(text[line - 1] == "this line is not JSON" for line in invalid)


def test_grouped_formats_are_not_cut(tmp_path, monkeypatch):
    # A session stream interleaves conversations: cutting it would split them.
    monkeypatch.setattr(spans, "SPLIT_AT_LEAST", 500)
    stream = FIXTURES / "formats" / "stream"
    files = sorted(stream.glob("*.jsonl"))
    assert files
    cut = 0
    for path in files:
        source = sources.Source(str(path), "jsonl", False, True)
        cut += len(sources.split(source, 4)) > 1
        assert engine.spans(source, config.build(), 4) == [source]
    assert cut, "at least one stream fixture is large enough to be cut"
    one = engine.audit([str(stream)], config.build(), jobs=1)
    two = engine.audit([str(stream)], config.build(), jobs=2)
    assert render(one, "json") == render(two, "json")


def test_cli_jobs(tmp_path):
    auto = audit_main("fixtures/demo", "-f", "json", "--jobs", "auto")
    one = audit_main("fixtures/demo", "-f", "json", "--jobs", "1")
    assert auto.returncode == one.returncode == 1
    assert auto.stdout == one.stdout
    assert json.loads(one.stdout)["summary"]["files"] == 1
    bad = audit_main("fixtures/demo", "--jobs", "0")
    assert bad.returncode == 2
    assert bad.stderr.decode() == "audit: error: invalid --jobs `0`: use a number >= 1 or `auto`\n"


def test_each_record_is_detected_once_in_a_span_and_in_a_walked_file(tmp_path, monkeypatch):
    monkeypatch.setattr(spans, "SPLIT_AT_LEAST", 500)
    # A span reads each record's format once: deciding whether a record is deferred (its
    # format groups records) and reading it, or whether a walked file is a side-car, ask the
    # same detection. Every reader's `detect` is wrapped to count what it was asked.
    from collections import Counter

    from auditor import formats
    from auditor.engine.source import audit_source

    asked: Counter[tuple[int | None, str]] = Counter()
    taken: Counter[int | None] = Counter()
    for reader in formats.FORMATS.values():

        def counted(record, detect=reader.detect, name=reader.NAME):
            asked[record.location.line, name] += 1
            found = detect(record)
            taken[record.location.line] += found
            return found

        monkeypatch.setattr(reader, "detect", counted)
    chat = '{"id": "c%d", "messages": [{"role": "user", "content": "hi"}, %s]}\n'
    said = '{"role": "assistant", "content": "hello"}'
    lines = [chat % (i, said) for i in range(40)]
    lines[25:25] = ['{"role": "user", "content": "hi"}\n', said + "\n"]  # grouped: deferred
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(lines))
    whole = sources.Source(str(path), "jsonl", False, True)
    parts = sources.split(whole, 4)
    assert len(parts) > 1
    settings = config.build()
    deferred = [line for part in parts for line in audit_source(part, settings).deferred]
    assert deferred == [26, 27]
    assert set(taken) == set(range(1, len(lines) + 1)) and set(taken.values()) == {1}
    assert max(asked.values()) == 1  # no format was asked twice about one record
    asked.clear()
    taken.clear()
    walked = sources.Source(str(path), "jsonl", False, False)  # found by a walk: maybe a side-car
    assert audit_source(walked, settings).counts.conversations == 41
    assert set(taken.values()) == {1} and max(asked.values()) == 1
