"""The command line: typer's runner for behaviour, a real subprocess for exit statuses and pipes,
and the in-process run most tests use (`audit_main`) held to the child process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from auditor import __version__
from auditor.formats import FORMATS
from tests.helpers import CLEAN, DEMO, LOST, ORPHAN, ROOT, audit_main, audit_process, invoke


def test_version():
    result = invoke("--version")
    assert result.exit_code == 0
    assert result.stdout == f"audit (transcript-auditor) {__version__}\n"


def test_help_teaches():
    result = invoke("--help")
    assert result.exit_code == 0
    for text in ("--format", "--fail-on", "--explain", "Examples:", "Exit status"):
        assert text in result.stdout
    for text in ("--config", "--baseline", "--write-baseline", "--statistics"):
        assert text in result.stdout
    # Square brackets survive rich's markup: the table is named as users write it.
    assert "Settings come from [tool.auditor] in pyproject.toml" in " ".join(result.stdout.split())


def test_rules_table_and_json():
    table = invoke("--rules")
    assert table.exit_code == 0
    assert "EX001  unanswered-tool-call" in table.stdout
    rows = json.loads(invoke("--rules", "-f", "json").stdout)
    (row,) = [r for r in rows if r["code"] == "EX002"]  # by code: the registry grows
    assert row["name"] == "orphan-tool-result"


def test_explain_by_code_and_name():
    by_code = invoke("--explain", "ex001")
    assert by_code.exit_code == 0
    assert by_code.stdout.startswith("# EX001 unanswered-tool-call (error)\n")
    assert "## Why is this bad?" in by_code.stdout
    assert invoke("--explain", "orphan-tool-result").stdout.startswith("# EX002")


def test_formats_lists_input_formats():
    result = invoke("--formats")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == list(FORMATS)
    assert "tau-bench and tau2-bench results." in lines[list(FORMATS).index("tau")]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "no paths given"),
        (("--explain", "XX999"), "unknown rule `XX999`"),
        ((CLEAN, "--select", "XX"), "unknown rule selector `XX`"),
        ((CLEAN, "--input-format", "yaml"), "unknown --input-format `yaml`"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args, message):
    result = invoke(*args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_bad_choice_is_a_usage_error():
    result = invoke(CLEAN, "-f", "xml")
    assert result.exit_code == 2
    assert "xml" in result.stderr


def test_json_output_names_file_line_conversation_turn():
    result = invoke(LOST, "-f", "json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    first = doc["findings"][0]
    assert (first["code"], first["line"], first["conversation"], first["turn"]) == (
        "EX001",
        1,
        "moved-on",
        1,
    )
    assert first["path"].endswith("bad_moved_on_without_result.jsonl")


def test_output_file(tmp_path):
    target = tmp_path / "out.sarif"
    result = invoke(LOST, "-f", "sarif", "-o", target)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert json.loads(target.read_text())["runs"][0]["results"][0]["ruleId"] == "EX001"


def test_output_file_that_cannot_be_written(tmp_path):
    result = invoke(LOST, "-o", tmp_path / "missing-dir" / "out.txt")
    assert result.exit_code == 2
    # said before the audit: a run of an hour does not end on a typo (issue 37, item 5)
    assert f"no directory {tmp_path / 'missing-dir'}" in result.stderr


def test_select_and_ignore():
    both = [LOST, ORPHAN, "-f", "jsonl"]
    codes = lambda r: [json.loads(line)["code"] for line in r.stdout.splitlines()]  # noqa: E731
    assert codes(invoke(*both)) == ["EX001", "EX001", "EX002"]
    assert codes(invoke(*both, "--select", "EX002")) == ["EX002"]
    assert codes(invoke(*both, "--ignore", "unanswered-tool-call")) == ["EX002"]
    assert codes(invoke(*both, "--select", "EX", "--ignore", "EX00")) == []


def test_internal_error_is_one_line_and_exit_2(monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("kaput")

    monkeypatch.setattr("auditor.engine.audit_plan", boom)
    result = invoke(CLEAN)
    assert result.exit_code == 2
    assert result.stderr == (
        "audit: error: internal error: RuntimeError: kaput (run with --debug for a traceback)\n"
    )


# Exit statuses through a real process.


def test_exit_0_when_clean():
    proc = audit_process(CLEAN, "-f", "table")
    assert proc.returncode == 0, proc.stderr
    assert b"No findings." in proc.stdout


def test_exit_1_on_findings_and_0_with_exit_zero():
    assert audit_process(LOST).returncode == 1
    assert audit_process(LOST, "--exit-zero").returncode == 0


def test_fail_on_levels():
    # EX002 is a warning: it fails the default (warning) but not --fail-on error.
    assert audit_process(ORPHAN).returncode == 1
    assert audit_process(ORPHAN, "--fail-on", "error").returncode == 0
    assert audit_process(LOST, "--fail-on", "never").returncode == 0
    assert audit_process(ORPHAN, "--fail-on", "note").returncode == 1


@pytest.mark.parametrize(
    "args",
    [
        (LOST, ORPHAN),  # a plain run, read without typer
        (DEMO, "-f", "json", "--select", "EX,FB", "--fail-on", "error"),
        (DEMO, "--statistics", "-f", "table"),
        ("-", "-f", "sarif"),
        ("runs.jsonl", "-f", "github", "-f", "html:page.html"),  # a file written, and said so
        ("nope.jsonl", LOST, "-q"),
        (LOST, "--bogus"),  # typer's usage error
        ("--explain", "EX001"),
        ("compare", "--help"),
        ("--version",),
    ],
    ids=str,
)
def test_a_run_in_this_process_is_the_run_of_a_child_process(tmp_path, args):
    """What most tests read through `audit_main` (no start-up to pay) is what the command does
    in a process of its own: the same status, bytes on stdout and stderr, and files."""
    stdin = LOST.read_bytes()
    runs = []
    for run, where in ((audit_process, tmp_path / "child"), (audit_main, tmp_path / "here")):
        where.mkdir()
        (where / "runs.jsonl").write_bytes(stdin)
        proc = run(*args, stdin=stdin, cwd=where)
        files = {p.name: p.read_bytes() for p in where.iterdir()}
        out, err = (text.replace(bytes(where), b"~") for text in (proc.stdout, proc.stderr))
        runs.append((proc.returncode, out, err, files))
    assert runs[0] == runs[1]


def test_missing_path_exits_2_after_auditing_the_rest():
    proc = audit_process("nope.jsonl", LOST, "-f", "json")
    assert proc.returncode == 2
    assert proc.stderr.decode() == "audit: error: nope.jsonl: no such file or directory\n"
    doc = json.loads(proc.stdout)
    assert doc["findings"][0]["code"] == "EX001"
    assert doc["errors"] == [
        {
            "kind": "path",
            "message": "nope.jsonl: no such file or directory",
            "path": "nope.jsonl",
            "code": None,
        }
    ]


def test_stdin():
    proc = audit_process("-", "-f", "jsonl", stdin=LOST.read_bytes())
    assert proc.returncode == 1
    first = json.loads(proc.stdout.splitlines()[0])
    # One name for standard input in every format (`-` is how it is asked for, not a file).
    assert (first["path"], first["line"], first["code"]) == ("<stdin>", 1, "EX001")


def test_broken_pipe_is_quiet():
    # Many findings, and a reader that stops after the first line.
    big = LOST.read_bytes() * 3000
    child = subprocess.Popen(
        [sys.executable, "-m", "auditor", "-", "-f", "jsonl"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    child.stdin.write(big)
    child.stdin.close()
    child.stdout.readline()
    child.stdout.close()
    child.wait(timeout=60)
    stderr = child.stderr.read()
    assert stderr == b""
    assert child.returncode == 1  # the findings' status, not a crash


def test_garbage_input_never_tracebacks():
    proc = audit_process("-", "-f", "jsonl", stdin=b"\x01\xff{{{\n[1,2\n\xde\xad\xbe\xef\n")
    assert proc.returncode == 2  # no conversation could be read
    assert proc.stderr.decode() == (
        "audit: error: no conversation found in standard input: 1 file read; 3 records. "
        "Check the paths, or pass --allow-empty if that is expected\n"
    )
    found = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(f["code"], f["line"], f["message"]) for f in found] == [
        ("IN001", 1, "not valid UTF-8: byte 0xff at column 2"),
        (
            "IN001",
            2,
            "not valid JSON: the text ends before the JSON value does (truncated?) at column 5",
        ),
        ("IN001", 3, "not valid UTF-8: byte 0xbe at column 3"),  # \xde\xad is valid UTF-8
    ]


def test_table_has_a_summary():
    proc = audit_process("fixtures/demo", "-f", "table")
    assert proc.returncode == 1
    text = proc.stdout.decode()
    assert text.startswith("fixtures/demo/agent-runs.jsonl\n")
    assert "Read 1 file, 20 records, 20 conversations" in text
