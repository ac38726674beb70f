"""Shared helpers: paths to fixtures and the real data, a one-call audit and a report rendered,
the command in this process or a child one, the normalised model as plain data, conversations
built by hand, and a rule's cases held to their expected findings. What the reporters' tests
share is in `tests/reports.py`."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor import config, engine, sources
from auditor.__main__ import main
from auditor.cli import app
from auditor.findings import Finding
from auditor.formats import FileReader, Problem
from auditor.model import Conversation, Location, Message
from auditor.report import Context, Report
from auditor.reporters import writer

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
DATA = Path(__file__).resolve().parent / "data"
FORMAT_DIR = FIXTURES / "formats"
# The shared real logs live beside the checkout on our machines only; tests that need them skip.
REALDATA = ROOT.parent / "shared" / "realdata"
UPDATE = "AUDITOR_UPDATE_EXPECTED"
FUZZ = float(os.environ.get("AUDITOR_FUZZ", "0.2"))
"""Scales the examples of every property-based test (`examples`): a fifth of the count each is
written with under `make test`, thirty times it under `make fuzz` (AUDITOR_FUZZ=30)."""


def examples(count: int) -> int:
    """`count` examples scaled by AUDITOR_FUZZ, and never fewer than ten."""
    return max(10, round(count * FUZZ))


requires_realdata = pytest.mark.skipif(
    not REALDATA.is_dir(),
    reason="../shared/realdata is not present (it exists on dev machines only)",
)
SESSIONS = REALDATA / "sessions-and-apis"
"""Real sessions and API bodies (Claude Code, Codex CLI, exchanges, Responses) in REALDATA."""
REALDATA_3 = REALDATA.parent / "realdata-3"
requires_realdata_3 = pytest.mark.skipif(
    not REALDATA_3.is_dir(),
    reason="../shared/realdata-3 is not present (it exists on dev machines only)",
)
REALDATA_NEXT = REALDATA.parent / "realdata-next"
requires_realdata_next = pytest.mark.skipif(
    not REALDATA_NEXT.is_dir(),
    reason="../shared/realdata-next is not present (it exists on dev machines only)",
)
requires_corpora = pytest.mark.skipif(
    not any(REALDATA.parent.glob("realdata*")),
    reason="../shared/realdata* is not present (it exists on dev machines only)",
)


def audit(
    paths: Iterable[str | Path],
    select: Iterable[str] | None = None,
    input_format: str | None = None,
) -> Report:
    """Audit paths in-process with the given rules enabled."""
    settings = config.build(select=list(select) if select else None, input_format=input_format)
    return engine.audit([str(p) for p in paths], settings)


def audit_bytes(tmp_path: Path, data: bytes, name: str = "input.jsonl", **given) -> Report:
    """`data` written to `tmp_path / name` and audited in-process (`audit`'s options)."""
    path = tmp_path / name
    path.write_bytes(data)
    return audit([path], **given)


def render(report: Report, name: str = "json", **context) -> str:
    """A report as the reporter `name` writes it, in the given `Context`."""
    out = io.StringIO()
    writer(name)(report, out, Context(**context))
    return out.getvalue()


def brief(f: Finding) -> dict:
    """A finding without its path and fingerprint (which depend on where the checkout is),
    with its identity (which does not) in the fingerprint's place."""
    d = f.to_dict()
    del d["path"], d["fingerprint"]
    d["identity"] = f.identity
    if f.conversation and f.conversation.startswith(f"{ROOT}{os.sep}"):
        d["conversation"] = Path(f.conversation).relative_to(ROOT).as_posix()  # a log without ids
    return d


# The command line

DEMO = FIXTURES / "demo"
CLEAN = FIXTURES / "rules" / "EX001" / "good_answered.jsonl"
LOST = FIXTURES / "rules" / "EX001" / "bad_moved_on_without_result.jsonl"
ORPHAN = FIXTURES / "rules" / "EX002" / "bad_unknown_call_id.jsonl"

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def audit_process(*args, stdin: bytes | None = None, cwd=ROOT) -> subprocess.CompletedProcess:
    """The real console entry point in a child process, as CI and shells run it."""
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("COLUMNS", None)
    return subprocess.run(
        [sys.executable, "-m", "auditor", *map(str, args)],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=60,
    )


def audit_main(*args, stdin: bytes | None = None, cwd=ROOT) -> subprocess.CompletedProcess:
    """What `audit_process` gives, from the same console entry point (`auditor.__main__.main`:
    its plain-run reader, then typer) called in this process with its own arguments, working
    directory, standard streams (not terminals), NO_COLOR and exit status, and no start-up to
    pay (a child process costs a quarter of a second). For what a run does; a test of the
    process itself (signals, pipes, a hang, the installed script) wants `audit_process`."""
    argv = [str(a) for a in args]
    here, sigterm, saved = os.getcwd(), signal.getsignal(signal.SIGTERM), sys.argv
    with runner.isolation(env={"NO_COLOR": "1", "COLUMNS": None}) as (out, err, _):
        # buffered as a real stdin is (the reader peeks); the isolation puts the old one back
        sys.stdin = io.TextIOWrapper(io.BufferedReader(io.BytesIO(stdin or b"")), "utf-8")
        sys.argv = ["audit", *argv]
        os.chdir(cwd)
        try:
            main()
            status = 0
        except SystemExit as end:
            status = end.code if isinstance(end.code, int) else 0 if end.code is None else 1
            if not isinstance(end.code, int | None):
                print(end.code, file=sys.stderr)  # as the interpreter does on its way out
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            sys.argv = saved
            os.chdir(here)
            signal.signal(signal.SIGTERM, sigterm)
        return subprocess.CompletedProcess(argv, status, out.getvalue(), err.getvalue())


# The normalised model as plain data


def conversations(path, strict: bool = False) -> list[Conversation]:
    """The conversations the readers make of one log, as the engine would get them (`strict`:
    and every record of it readable)."""
    kind, compressed = sources.kind_of(str(path))
    return _conversations_of(sources.Source(str(path), kind, compressed, True), strict)


def conversations_below(path) -> list[Conversation]:
    """Every conversation the files below `path` hold, as a walk finds and the engine reads
    them (a folder of event files is one source; files of other types are passed over)."""
    return [
        c
        for found in sources.discover([str(path)])
        if isinstance(found, sources.Source)
        for c in _conversations_of(found)
    ]


def _conversations_of(source: sources.Source, strict: bool = False) -> list[Conversation]:
    reader = FileReader()
    found = []
    for record in sources.read(source):
        if isinstance(record, sources.Record):
            found += [c for c in reader.feed(record) if isinstance(c, Conversation)]
        else:
            assert not strict, record
    found += [c for c in reader.finish() if isinstance(c, Conversation)]
    return found


def normalised(path) -> list[dict]:
    """The conversations `normalise` makes of a file, as plain data."""
    return [item["conversation"] for item in normalise(path) if "conversation" in item]


def normalise(path) -> list[dict]:
    """Every conversation and problem a file yields, as plain data."""
    source = sources.Source(str(path.relative_to(FIXTURES)), *sources.kind_of(path.name), True)
    reader = FileReader()
    items: list = []
    cwd = os.getcwd()
    os.chdir(FIXTURES)
    try:
        for record in sources.read(source):
            assert isinstance(record, sources.Record), record
            items.extend(reader.feed(record))
        items.extend(reader.finish())
    finally:
        os.chdir(cwd)
    return [{"problem" if isinstance(i, Problem) else "conversation": plain(i)} for i in items]


def plain(value):
    """Model objects as plain data: locations as `path:line/pointer`, empty fields left out."""
    if isinstance(value, Location):
        line = "" if value.line is None else f":{value.line}"
        return f"{value.path}{line}{value.pointer}"
    if dataclasses.is_dataclass(value):
        out = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if v in (None, "", ()) and f.name not in ("arguments",):
                continue
            if f.name == "unrecorded" and v is False:
                continue  # the usual case: said only when the outcome is not recorded
            out[f.name] = plain(v)
        return out
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


# The model built by hand

HERE = Location("t.jsonl", 1)
"""Where a conversation built by hand (`conv`) was read."""


def conv(*messages: Message) -> Conversation:
    """A conversation `c` of these messages."""
    return Conversation("c", "openai", HERE, tuple(messages))


def msg(i, role, text="", calls=(), result=None, request=None, decision=None) -> Message:
    """Turn `i` (at `/messages/i`): its text, calls, result, or approval request or decision."""
    return Message(
        i,
        role,
        text,
        HERE.child("messages", i),
        tuple(calls),
        result,
        approval_request=request,
        approval_decision=decision,
    )


def check_case(case: Path, report: Report, code: str) -> None:
    """A `good_` case gives no finding; a `bad_` one exactly those its `.expected` lists."""
    assert not report.errors, report.errors
    found = [brief(f) for f in report.findings]
    if case.name.startswith("good_"):
        assert found == [], f"{case.name} should not fire {code}"
        return
    assert found == expected_findings(case, found, code)


def expected_findings(case: Path, found: list[dict], code: str) -> list[dict]:
    """The findings `case.expected` lists (rewritten with `found` under `AUDITOR_UPDATE_EXPECTED`),
    each of `code`; a bad case must list one at least."""
    expected_path = case.with_suffix(".expected")
    if os.environ.get(UPDATE):
        expected_path.write_text("".join(json.dumps(f, ensure_ascii=False) + "\n" for f in found))
    expected = [json.loads(line) for line in expected_path.read_text().splitlines() if line.strip()]
    assert expected, f"{expected_path.name} lists no finding: a bad_ case must fire"
    assert all(f["code"] == code for f in expected)
    return expected
