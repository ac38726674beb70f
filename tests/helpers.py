"""Shared helpers: paths to fixtures and the real data, a one-call audit and a report rendered,
the command in this process or a child one, the normalised model as plain data, conversations
built by hand, the reporters' shared findings and an HTML reader."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterable
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor import config, engine, sources
from auditor.__main__ import main
from auditor.cli import app
from auditor.findings import Finding, fingerprint, identity
from auditor.formats import FileReader, Problem
from auditor.model import Conversation, Location, Message
from auditor.report import Context, Counts, Gap, Report, RunError, Suppressed, Tally
from auditor.reporters import writer
from auditor.rules import BY_CODE, RULES

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


# One shared set of findings every reporter renders

HOSTILE = (
    "\x1b[31mred\x1b[0m [bold]markup[/bold] [link=http://x]y[/link] "
    "\u202eevil\u202c\n::error::owned"
)


def _finding(
    code, path, line, pointer, conversation, turn, message, evidence="", tool=None, call_id=None
):
    rule = BY_CODE[code]
    same = identity(code, conversation or "", turn, evidence or message)
    return Finding(
        code=code,
        name=rule.name,
        severity=rule.severity,
        message=message,
        path=path,
        line=line,
        pointer=pointer,
        conversation=conversation,
        turn=turn,
        tool=tool,
        call_id=call_id,
        evidence=evidence,
        fingerprint=fingerprint(same, path),
        identity=same,
    )


FINDINGS = (
    _finding(
        "IN001",
        "logs/a run.jsonl",
        2,
        "",
        None,
        None,
        "not valid JSON: unexpected text where a JSON value should start at column 1",
        evidence="this is not json",
    ),
    _finding(
        "EX001",
        "logs/a run.jsonl",
        7,
        "/messages/3/tool_calls/0",
        "refund-17",
        3,
        "`issue_refund` call `call_7` got no result before the assistant spoke again at turn 4; "
        "it went on without the tool's output",
        evidence='issue_refund({"order": "A-1041"})',
        tool="issue_refund",
        call_id="call_7",
    ),
    _finding(
        "EX002",
        "logs/a run.jsonl",
        7,
        "/messages/9",
        "refund-17",
        9,
        "tool result for call `call_x` answers no earlier call",
        evidence=HOSTILE,
        call_id="call_x",
    ),
    _finding(
        "IN002",
        "logs/tau:2025-10-13T11:43.json",
        15,
        "/3",
        None,
        None,
        "JSON object of no known log format (keys: event, ts)",
    ),
    _finding(
        "EX002",
        "logs/tau:2025-10-13T11:43.json",
        420,
        "/simulations/0/messages/5",
        "sim-1",
        5,
        "tool result for call `" + HOSTILE + "` answers no earlier call",
    ),
)

SUPPRESSED = _finding(
    "EX001",
    "logs/a run.jsonl",
    12,
    "/messages/2/tool_calls/0",
    "refund-18",
    2,
    "`lookup` call `call_9` got no result before the assistant spoke again at turn 3; "
    "it went on without the tool's output",
    evidence='lookup({"order": "A-1042"})',
    tool="lookup",
    call_id="call_9",
)

USED = Tally(
    1,
    "the lookup service was down",
    {"path": "logs/*.jsonl", "code": "EX001"},
    'entry 1 (path "logs/*.jsonl", code "EX001")',
    1,
)
STALE = Tally(
    2,
    "an old harness",
    {"fingerprint": "0123456789abcdef0123"},
    'entry 2 (fingerprint "0123456789abcdef0123")',
    0,
)

REPORT = Report(
    findings=FINDINGS,
    counts=Counts(
        files=2, records=9, conversations=7, assistant_turns=31, tool_calls=24, tool_results=23
    ),
    rules=RULES,
    gaps=(Gap("EX", "no tools declared", ("EX005", "EX007"), 6),),
    errors=(
        RunError(
            "rule",
            "EX001 (unanswered-tool-call) crashed on conversation c9: KeyError: 'x'",
            "logs/a run.jsonl",
            "EX001",
        ),
    ),
    accepted=FINDINGS[1:2] * 2,  # two findings the baseline hid
    config_file="pyproject.toml",
    suppressed=(Suppressed(SUPPRESSED, 1, "the lookup service was down on " + HOSTILE),),
    suppressions=(USED, STALE),
)


# The HTML report

CANARY = FIXTURES / "html" / "xss-canary.jsonl"


class Page(HTMLParser):
    """Everything a structural check needs: elements with attributes, text, script and style."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._raw: str | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._raw = tag
            (self.scripts if tag == "script" else self.styles).append("")

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag == self._raw:
            self._raw = None

    def handle_data(self, data):
        if self._raw == "script":
            self.scripts[-1] += data
        elif self._raw == "style":
            self.styles[-1] += data
        else:
            self.text.append(data)

    def ids(self) -> list[str]:
        return [a["id"] for _, a in self.elements if a.get("id")]

    def all_text(self) -> str:
        return "".join(self.text)


def html_of(*paths, jobs: int = 1, timelines: bool = True) -> str:
    settings = dataclasses.replace(config.build(), timelines=timelines)
    return render(engine.audit([str(p) for p in paths], settings, jobs=jobs), "html")


# GitHub code scanning's documented limits and required properties of an uploaded SARIF file
# ("SARIF support for code scanning" and "SARIF results exceed limits" in GitHub's docs).

GITHUB_SARIF_LIMITS = {
    "runs": 20,
    "results": 25_000,
    "rules": 25_000,
    "tags": 20,
    "locations": 1_000,
}


def github_sarif_problems(doc: dict) -> list[str]:
    """What GitHub code scanning would reject or mis-file in a SARIF document: past a limit,
    a result without `ruleId`, message, file or `region.startLine`, a description over 1024
    characters, or without `partialFingerprints.primaryLocationLineHash` (what it matches
    alerts on; unique here, as each finding has its own)."""
    problems = []
    if len(doc["runs"]) > GITHUB_SARIF_LIMITS["runs"]:
        problems.append(f"{len(doc['runs'])} runs")
    for run in doc["runs"]:
        rules = run["tool"]["driver"]["rules"]
        if len(rules) > GITHUB_SARIF_LIMITS["rules"]:
            problems.append(f"{len(rules)} rules")
        for rule in rules:
            if len(rule.get("properties", {}).get("tags", [])) > GITHUB_SARIF_LIMITS["tags"]:
                problems.append(f"{rule['id']}: too many tags")
            problems.extend(
                f"{rule['id']}: {key} over 1024 characters"
                for key in ("shortDescription", "fullDescription")
                if len(rule[key]["text"]) > 1024
            )
        results = run["results"]
        if len(results) > GITHUB_SARIF_LIMITS["results"]:
            problems.append(f"{len(results)} results")
        hashes = set()
        for i, result in enumerate(results):
            where = f"result {i}"
            if not result.get("ruleId") or not result.get("message", {}).get("text"):
                problems.append(f"{where}: no ruleId or message")
            locations = result.get("locations") or []
            if not 0 < len(locations) <= GITHUB_SARIF_LIMITS["locations"]:
                problems.append(f"{where}: {len(locations)} locations")
            for location in locations:
                physical = location.get("physicalLocation", {})
                if not physical.get("artifactLocation", {}).get("uri"):
                    problems.append(f"{where}: no artifactLocation.uri")
                if not isinstance(physical.get("region", {}).get("startLine"), int):
                    problems.append(f"{where}: no region.startLine")
            line_hash = result.get("partialFingerprints", {}).get("primaryLocationLineHash")
            if not line_hash or line_hash in hashes:
                problems.append(f"{where}: primaryLocationLineHash missing or repeated")
            hashes.add(line_hash)
    return problems


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
