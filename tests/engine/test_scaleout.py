"""`--engine dask` gives the report of a local run, byte for byte: on local files, on fsspec's
in-memory filesystem, with files cut into byte ranges, session streams whose conversations
run across the cuts, and bad records; and one clear line when Dask is not installed."""

from __future__ import annotations

import dataclasses
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor import config, engine, sources
from auditor.common.errors import AuditorError
from auditor.engine import dask as scaleout
from auditor.reporters import REPORTERS
from auditor.sources import remote, spans
from tests.helpers import (
    FIXTURES,
    REALDATA,
    ROOT,
    audit_process,
    examples,
    render,
    requires_realdata,
)

distributed = pytest.importorskip("distributed")
fsspec = pytest.importorskip("fsspec")

SETTINGS = dataclasses.replace(config.build(), timelines=True)  # as `-f html` asks


@pytest.fixture(scope="module")
def client():
    """One in-process cluster for the module: two worker threads, so files are cut in spans."""
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.fixture
def memory():
    """fsspec's in-memory filesystem, emptied after the test."""
    fs = fsspec.filesystem("memory")
    yield fs
    fs.rm("/", recursive=True)


def unfingerprinted(rendered: str) -> str:
    return re.sub(r'"fingerprint": "[0-9a-f]+"', '"fingerprint": "…"', rendered)


def on_dask(client, paths, settings=SETTINGS):
    return engine.audit_plan(
        engine.plan(paths, settings), settings, runner=scaleout.DaskRunner(client)
    )


def on_one_core(paths, settings=SETTINGS):
    return engine.audit(paths, settings)


DEMO = (FIXTURES / "demo" / "agent-runs.jsonl").read_text().splitlines()


def demo_line(i: int) -> str:
    return DEMO[i % len(DEMO)].replace('"id": "', f'"id": "copy{i}-', 1)


def stream_line(i: int, conversation: int) -> str:
    """A line of a session stream (one message per line, conversations interleaved)."""
    c = f"s{conversation}"
    kinds = [
        {"conversation_id": c, "role": "user", "content": f"Book flight LX {i} for me."},
        {
            "conversation_id": c,
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {"name": "book_flight", "arguments": '{"flight": "LX 318"}'},
                }
            ],
        },
        {"conversation_id": c, "role": "assistant", "content": "Your flight is booked."},
    ]
    return json.dumps(kinds[i % len(kinds)])


def big_log() -> str:
    """JSON Lines large enough (with SPLIT_AT_LEAST patched) to be cut: bad lines among them."""
    lines = []
    for i in range(80):
        lines.append(demo_line(i))
        if i % 7 == 0:
            lines.extend(["this line is not JSON", ""])
    return "\n".join(lines) + "\n"


def session_stream() -> str:
    """Ten conversations whose lines are spread over the whole file, so every cut falls
    inside some of them."""
    return "".join(stream_line(i, i % 10) + "\n" for i in range(300))


def mixed_log(path: Path, parts: int) -> None:
    """Chat records with session-stream lines among them, none of which starts a span: spans
    are cut and defer the stream's lines to the end of the file (`merge.FileMerge`)."""
    lines = []
    for i in range(90):
        lines.append(demo_line(i))
        if i % 4 == 1:
            lines.append(stream_line(i, i % 3))
    for _ in range(100):
        path.write_text("\n".join(lines) + "\n")
        spans = sources.split(sources.Source(str(path), "jsonl", False, True), parts)
        firsts = [_line_at(path, span.span.first_line) for span in spans[1:]]  # type: ignore[union-attr]
        starting = [
            i for i, line in enumerate(lines) if line in firsts and '"conversation_id"' in line
        ]
        if not starting:
            return
        lines.insert(starting[0], demo_line(1000 + len(lines)))
    raise AssertionError("could not keep stream lines off the span borders")


def _line_at(path: Path, number: int) -> str:
    return path.read_text().splitlines()[number - 1]


@pytest.fixture
def logs(tmp_path, monkeypatch, client):
    """Every fixture, a large chat log, a session stream and a mixed log, all cut in spans."""
    monkeypatch.setattr(spans, "SPLIT_AT_LEAST", 2_000)
    shutil.copytree(FIXTURES, tmp_path / "fixtures")
    (tmp_path / "big.jsonl").write_text(big_log())
    (tmp_path / "stream.jsonl").write_text(session_stream())
    parts = 4 * sum(client.nthreads().values())  # as the engine cuts for the cluster
    mixed_log(tmp_path / "mixed.jsonl", parts)
    with gzip.open(tmp_path / "big-copy.jsonl.gz", "wt") as gz:
        gz.write(big_log())
    return tmp_path


def test_local_files_give_the_same_report(logs, client, monkeypatch):
    big = sources.Source(str(logs / "big.jsonl"), "jsonl", False, True)
    assert len(engine.spans(big, SETTINGS, 2)) > 1, "the large log must be cut"
    mixed = sources.Source(str(logs / "mixed.jsonl"), "jsonl", False, True)
    assert len(engine.spans(mixed, SETTINGS, 2)) > 1, "the mixed log must be cut"
    deferred = []
    read_only = sources.read_only

    def spy(source, lines):
        deferred.append((source.path, tuple(lines)))
        return read_only(source, lines)

    monkeypatch.setattr(sources, "read_only", spy)
    one = on_one_core([str(logs)])
    assert not deferred
    dask = on_dask(client, [str(logs)])
    assert str(logs / "mixed.jsonl") in [p for p, _ in deferred], "spans deferred its stream"
    assert one.findings and one.timelines
    for name in REPORTERS:
        assert render(one, name) == render(dask, name), name
    assert one.counts == dask.counts
    assert [
        f.line for f in dask.findings if f.path.endswith("big.jsonl") and f.code == "IN001"
    ] == [
        i + 1
        for i, text in enumerate((logs / "big.jsonl").read_text().splitlines())
        if text == "this line is not JSON"
    ]
    stream = {f.conversation for f in dask.findings if f.path.endswith("stream.jsonl")}
    assert stream, "the session stream's conversations are audited whole, with findings"


@settings(max_examples=examples(200), deadline=None)
@given(
    data=st.binary(max_size=400).map(lambda b: b.replace(b"\r", b"\n")),
    parts=st.integers(2, 12),
    block=st.integers(1, 64),
)
def test_counted_stretches_cut_as_one_pass_does(data, parts, block):
    # The cuts of a file counted stretch by stretch (on the workers) are those one pass over
    # it finds, whatever its lines: long ones over several stretches, none at all.
    fs = fsspec.filesystem("memory")
    fs.pipe("/cut/log.jsonl", data)
    size = len(data)
    targets = [size * k // parts for k in range(1, parts) if size * k // parts > 0]
    targets = sorted(set(targets))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spans, "_BLOCK", block)
        one_pass = spans.cuts(io.BytesIO(data), targets)
    with remote.counting_with(lambda function, calls: [function(*c) for c in calls]):
        counted = remote.cuts("memory://cut/log.jsonl", targets, size)
    assert counted == one_pass


def test_memory_filesystem_reads_as_local_files(logs, client, memory):
    fs = memory
    for path in sorted(logs.rglob("*")):
        if path.is_file():
            fs.pipe("/logs/" + path.relative_to(logs).as_posix(), path.read_bytes())
    url = "memory://logs"
    local = render(on_one_core([str(logs)]))
    here = render(on_one_core([url]))
    count_newlines = remote.count_newlines

    def spy(url, start, end):
        # Tasks are pickled even in this process: the note goes where the test can read it.
        fsspec.filesystem("memory").pipe(f"/counted/{url.replace('/', '|')}@{start}", b"")
        return count_newlines(url, start, end)

    def one_pass(*args):
        raise AssertionError("the client read a remote file to number its lines")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(remote, "count_newlines", spy)
        patch.setattr(spans, "cuts", one_pass)
        report = on_dask(client, [url])
    counted = {name.split("/")[-1].replace("|", "/") for name in fs.ls("/counted", detail=False)}
    size = len(big_log().encode())
    assert {c for c in counted if c.startswith("memory:///logs/big.jsonl@")} == {
        f"memory:///logs/big.jsonl@{size * k // 8}" for k in range(8)
    }, "the workers counted each stretch of the large log"
    dask = render(report)
    assert here == dask
    # The same bytes read from a bucket: the same report, but for the names of the files and
    # the fingerprints, which hold them (each finding's identity is the same).
    assert unfingerprinted(dask.replace("memory:///logs/", str(logs) + os.sep)) == (
        unfingerprinted(local)
    )
    assert [f.identity for f in report.findings] == [
        f.identity for f in on_one_core([str(logs)]).findings
    ]
    read = {f.path.removeprefix("memory:///logs/"): f.conversations for f in report.files}
    assert read["fixtures/formats/inspect-ai/approval-demo.eval"] > 0  # a zip, read by range
    assert read["big-copy.jsonl.gz"] == read["big.jsonl"] > 0
    assert [f.line for f in report.findings if f.path.endswith("big-copy.jsonl.gz")] == [
        f.line for f in report.findings if f.path.endswith("/big.jsonl")
    ]


def test_globs_and_missing_urls(client, memory):
    demo = (FIXTURES / "demo" / "agent-runs.jsonl").read_bytes()
    memory.pipe("/bucket/2026/01/a.jsonl", demo)
    memory.pipe("/bucket/2026/02/b.jsonl", demo)
    memory.pipe("/bucket/2026/02/notes.md", b"# not a log")
    paths = ["memory://bucket/**/*.jsonl", "memory://bucket/nothing-*.jsonl", "memory://nope.jsonl"]
    one, dask = on_one_core(paths), on_dask(client, paths)
    assert render(one) == render(dask)
    assert sorted({f.path for f in dask.findings}) == [
        "memory:///bucket/2026/01/a.jsonl",
        "memory:///bucket/2026/02/b.jsonl",
    ]
    assert [e.message for e in dask.errors] == [
        "memory://bucket/nothing-*.jsonl: no file matches this pattern",
        "memory://nope.jsonl: no such file or directory",
    ]


def test_size_bound_holds_remotely(client, memory):
    long = '{"messages": [{"role": "user", "content": "' + "x" * 5_000 + '"}]}'
    memory.pipe("/big/a.jsonl", f"{demo_line(0)}\n{long}\n{demo_line(1)}\n".encode())
    settings = dataclasses.replace(SETTINGS, max_record_bytes=4_096)
    report = on_dask(client, ["memory://big/a.jsonl"], settings)
    assert render(report) == render(on_one_core(["memory://big/a.jsonl"], settings))
    [bound] = [f for f in report.findings if f.code == "IN001"]
    assert bound.line == 2
    assert bound.message == (
        "line of 5,048 bytes is larger than the limit of 4,096 bytes: not read "
        "(`max-record-mb` raises the limit)"
    )


def test_a_source_that_fails_on_a_worker_is_one_error(client, memory, monkeypatch):
    memory.pipe("/fail/a.jsonl", DEMO[0].encode() + b"\n")
    memory.pipe("/fail/b.jsonl", DEMO[1].encode() + b"\n")
    audit_source = engine.audit_source

    def flaky(source, settings, *args, **kwargs):
        if source.path.endswith("a.jsonl"):
            raise RuntimeError("the store said no")  # a driver's exception, not an OSError
        return audit_source(source, settings, *args, **kwargs)

    monkeypatch.setattr(scaleout, "audit_source", flaky)  # the cluster runs in this process
    report = on_dask(client, ["memory://fail/"])
    assert [e.message for e in report.errors] == ["memory:///fail/a.jsonl: the store said no"]
    assert {f.path for f in report.findings} <= {"memory:///fail/b.jsonl"}
    assert report.counts.conversations == 1


def test_cli_on_a_local_cluster_of_processes():
    local = audit_process("fixtures/demo", "-f", "json")
    dask = audit_process("fixtures/demo", "-f", "json", "--engine", "dask", "-j", "2")
    assert dask.stderr == b""
    assert (dask.returncode, dask.stdout) == (local.returncode, local.stdout) == (1, local.stdout)


def test_cli_usage_errors():
    cases = {
        ("--scheduler", "tcp://127.0.0.1:8786"): "--scheduler needs --engine dask",
        ("--engine", "dask", "--scheduler", "tcp://127.0.0.1:8786", "-j", "2"): (
            "--jobs sizes a local run: with --scheduler, the cluster's workers do"
        ),
    }
    for args, message in cases.items():
        result = audit_process("fixtures/demo", *args)
        assert (result.returncode, result.stderr.decode()) == (2, f"audit: error: {message}\n")


def audit_in_python(*args: str, without_dask: bool = True) -> subprocess.CompletedProcess:
    """`audit ARGS` in a child Python, where Dask and fsspec cannot be imported (as without
    the extra) when `without_dask`; its last stderr line lists the ones it imported."""
    code = (
        "import sys\n"
        f"for name in {EXTRA!r} if {without_dask} else ():\n"
        "    sys.modules[name] = None\n"
        "from auditor.cli import main\n"
        f"sys.argv = ['audit', *{list(args)!r}]\n"
        "try:\n"
        "    main()\n"
        "finally:\n"
        "    loaded = [m for m, v in sys.modules.items() if v is not None\n"
        f"              and m.split('.')[0] in {EXTRA!r}]\n"
        "    print('loaded', loaded, file=sys.stderr)\n"
    )
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, env=env, check=False
    )


EXTRA = ("dask", "distributed", "fsspec")


def test_without_the_extra():
    result = audit_in_python("fixtures/demo", "--engine", "dask")
    assert result.returncode == 2
    assert result.stderr.decode().splitlines() == [
        "audit: error: --engine dask needs dask, distributed, fsspec, which this installation "
        "lacks: pip install 'transcript-auditor[dask]'",
        "loaded []",
    ]
    url = audit_in_python("s3://bucket/logs/", "--allow-empty")
    assert url.returncode == 2
    assert url.stderr.decode().splitlines()[0] == (
        "audit: error: s3://bucket/logs/: reading URLs needs fsspec: "
        "pip install 'transcript-auditor[dask]'"
    )


def test_local_runs_import_no_dask():
    for args in (["--version"], ["fixtures/demo", "-f", "json"]):
        result = audit_in_python(*args, without_dask=False)
        assert result.stderr.decode().splitlines()[-1] == "loaded []", args


@requires_realdata
def test_realdata_gives_the_same_report(client, monkeypatch):
    monkeypatch.setattr(spans, "SPLIT_AT_LEAST", 32 * 1024)  # its JSON Lines cut in spans too
    one = on_one_core([str(REALDATA)])
    dask = on_dask(client, [str(REALDATA)])
    assert one.findings
    assert render(one) == render(dask)
    assert render(one, "sarif") == render(dask, "sarif")


def test_a_failing_cluster_is_one_error(client, memory, monkeypatch):
    memory.pipe("/dead/a.jsonl", DEMO[0].encode() + b"\n")

    def dies(source, settings):
        raise MemoryError("the worker ran out of memory")  # as a KilledWorker would surface

    monkeypatch.setattr(scaleout, "_audit", dies)
    with pytest.raises(AuditorError) as error:
        on_dask(client, ["memory://dead/a.jsonl"])
    assert str(error.value) == (
        "the Dask cluster failed auditing memory://dead/a.jsonl: "
        "MemoryError: the worker ran out of memory"
    )
