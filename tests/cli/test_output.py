"""What a person sees: concise lines, a compact table, colour, progress, help and listings."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace

import pytest
from rich.console import Console

from auditor import config, engine, progress
from auditor.commands import run
from auditor.findings import Finding
from auditor.report import Context, Report, Unread
from auditor.reporters import concise, writer
from tests.helpers import (
    CLEAN,
    FIXTURES,
    LOST,
    ORPHAN,
    REALDATA,
    ROOT,
    audit_main,
    invoke,
    render,
    requires_realdata,
)
from tests.reports import FINDINGS, REPORT

DEMO = FIXTURES / "demo"


# -f concise: one line per finding, the default when stdout is not a terminal.


def test_concise_lines_and_summary_on_stderr():
    proc = audit_main(LOST, ORPHAN, "-f", "concise")
    assert proc.returncode == 1
    rel = "fixtures/rules/EX00{}/{}"
    lost, orphan = rel.format(1, LOST.name), rel.format(2, ORPHAN.name)
    out = proc.stdout.decode().splitlines()
    assert [re.sub(r" `.*", "", line) for line in out] == [
        f"{ROOT / lost}:1: EX001",
        f"{ROOT / lost}:2: EX001",
        f"{ROOT / orphan}:1: EX002 tool result for call",
    ]
    assert out[0].endswith("[moved-on turn 1]")
    notes = proc.stderr.decode().splitlines()
    assert notes[0] == (
        "audit: read 2 files, 3 conversations, 5 assistant turns, 3 tool calls: "
        "3 findings (2 errors, 1 warning)"
    )
    assert audit_main(LOST, ORPHAN, "-f", "concise", "-q").stderr == b""


def test_concise_is_the_default_off_a_terminal_and_table_on_one(monkeypatch):
    assert audit_main(LOST).stdout.decode().startswith(f"{LOST}:1: EX001 ")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert run.output_format(run.Output()) == "table"
    assert run.output_format(run.Output(path="out.txt")) == "concise"
    assert run.output_format(run.Output("json")) == "json"


@requires_realdata
def test_concise_on_the_real_logs_is_one_line_per_finding(tmp_path):
    # One audit, written twice: concise on stdout, JSON in a file.
    proc = audit_main(REALDATA, "-f", "concise", "-f", f"json:{tmp_path / 'r.json'}", "--exit-zero")
    lines = proc.stdout.decode().splitlines()
    doc = json.loads((tmp_path / "r.json").read_bytes())
    assert len(lines) == doc["summary"]["findings"] > 0
    for line, f in zip(lines, doc["findings"], strict=True):
        assert line.startswith(f"{f['path']}:{f['line']}: {f['code']} ")


# The table: at most three lines a finding at 80 columns, ids never split.

UUID = "0b5e6a3c-58f1-4c5e-9a4e-2f6d8c1b7a90"


def table(report: Report, width: int = 80, **context) -> str:
    return render(report, "table", width=width, **{"color": False, **context})


def findings_blocks(text: str) -> list[list[str]]:
    """The lines of each finding: its head line (`  7 EX001 error …`) and the lines under it,
    up to the next head, blank line or the summary."""
    head = re.compile(r"^ *(\d+ )?[A-Z]{2}\d{3} (error|warning|note)")
    blocks: list[list[str]] = []
    for line in text.split("\nRead ")[0].splitlines():
        if head.match(line):
            blocks.append([line])
        elif blocks and line.startswith(" ") and blocks[-1]:
            blocks[-1].append(line)
        elif blocks and blocks[-1]:
            blocks.append([])
    return [b for b in blocks if b]


def test_demo_table_fits_80_columns_with_three_lines_a_finding():
    report = engine.audit([str(DEMO)], config.build())
    text = table(report)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    blocks = findings_blocks(text)
    assert len(blocks) == len(report.findings) == 24
    assert all(len(block) <= 3 for block in blocks)
    for f, block in zip(report.findings, blocks, strict=True):
        assert f.conversation in block[0]  # the whole id, on the head line
        assert f.code in block[0] and f"turn {f.turn}" in block[0]
        assert f.evidence not in text  # evidence only on request
    # Rendered on a real rich Console of 80 columns, as a terminal shows it.
    console = Console(width=80, file=io.StringIO(), force_terminal=True, color_system=None)
    writer("table")(report, console.file, Context(width=console.width))
    assert max(map(len, console.file.getvalue().splitlines())) <= 80


def test_long_ids_are_never_split_and_long_messages_are_cut_to_two_lines():
    long = replace(
        FINDINGS[1],
        conversation=UUID,
        message="word " * 80,
        evidence="the evidence",
    )
    text = table(Report((long,), REPORT.counts, REPORT.rules), width=60)
    (block,) = findings_blocks(text)
    assert len(block) == 3 and UUID in block[0]
    assert block[2].endswith("…")
    assert "Messages cut to two lines: -v shows them whole." in text
    # A narrower terminal shortens the id at its end rather than wrapping it.
    narrow = table(Report((long,), REPORT.counts, REPORT.rules), width=40)
    head = findings_blocks(narrow)[0][0]
    assert head.endswith("…") and len(head) <= 40
    # -v shows all of it, and the evidence; --show-evidence the evidence.
    whole = table(Report((long,), REPORT.counts, REPORT.rules), width=60, whole=True)
    assert len(findings_blocks(whole)[0]) > 3 and "the evidence" in whole
    shown = table(Report((long,), REPORT.counts, REPORT.rules), width=60, show_evidence=True)
    assert "the evidence" in shown


def test_path_shaped_conversation_ids_are_shortened_under_their_file():
    at_line = replace(FINDINGS[1], conversation="logs/a run.jsonl:7")
    whole_file = replace(FINDINGS[1], conversation="logs/a run.jsonl", line=None)
    text = table(Report((at_line, whole_file), REPORT.counts, REPORT.rules))
    heads = [b[0] for b in findings_blocks(text)]
    assert heads[0].endswith("line 7 · turn 3")
    assert heads[1].endswith("EX001 error    turn 3")


# A path is never broken across lines: terminals open `path` and `path:line` on a click.

LONG_PATH = "logs/2025-10-05T22:50:14.083933_airline_llm_agent_grok-3_user_grok-3/a run.jsonl"
LONG_SIDECAR = "logs/2025-10-05T22:50:14.083933_airline_llm_agent_grok-3_user_grok-3/package.json"


def long_path_report() -> Report:
    findings = tuple(
        replace(f, path=LONG_PATH, message=f.message + " and" * 40) for f in FINDINGS[:3]
    )
    return Report(
        findings, REPORT.counts, REPORT.rules, unread=(Unread(LONG_SIDECAR, "no log shape"),)
    )


def test_at_200_columns_the_path_heads_its_findings_whole_and_messages_wrap():
    report = long_path_report()
    text = table(report, width=200)
    lines = text.splitlines()
    assert lines[0] == LONG_PATH and max(map(len, lines)) <= 200
    blocks = findings_blocks(text)
    assert [block[0].split()[:2] for block in blocks] == [
        ["2", "IN001"],
        ["7", "EX001"],
        ["7", "EX002"],
    ]
    assert [len(block) for block in blocks] == [3, 3, 3]  # the messages wrap to two lines, cut
    assert blocks[1][1].strip().startswith("`issue_refund` call `call_7` got no result")
    assert any(line.endswith(f"({LONG_SIDECAR})") for line in lines)  # the skipped file, whole
    assert "one line a finding" not in text


def test_at_60_columns_a_path_too_wide_gives_one_line_a_finding():
    report = long_path_report()
    text = table(report, width=60)
    findings, summary = text.split("\nRead ")
    assert [line for line in findings.splitlines() if line] == [
        concise.line(f) for f in report.findings
    ]
    assert findings.splitlines()[0].startswith(f"{LONG_PATH}:2: IN001 not valid JSON")
    assert findings.splitlines()[1].endswith(" and [refund-17 turn 3]")  # the message whole
    assert any(line.endswith(f"({LONG_SIDECAR})") for line in summary.splitlines())
    assert "A path is wider than 60 columns: one line a finding, as -f concise writes them." in (
        " ".join(summary.split())
    )
    assert "Messages cut" not in summary
    evidence = table(report, width=60, show_evidence=True).splitlines()
    assert evidence[:2] == [concise.line(report.findings[0]), "  this is not json"]
    # A path that fits keeps the table, at 60 columns too.
    short = replace(
        report, findings=tuple(replace(f, path="logs/a run.jsonl") for f in report.findings)
    )
    assert table(short, width=60).splitlines()[0] == "logs/a run.jsonl"


def test_show_evidence_and_verbose_through_the_command():
    plain = audit_main(LOST, "-f", "table").stdout.decode()
    assert 'lookup({"key"' not in plain
    for flag in ("--show-evidence", "-v"):
        shown = audit_main(LOST, "-f", "table", flag)
        assert "get_weather(" in shown.stdout.decode(), flag
    verbose = audit_main(LOST, DEMO, "-v", "-q").stderr.decode().splitlines()
    assert f"audit: {DEMO}/agent-runs.jsonl: openai; 20 records, 20 conversations, 24 findings" in (
        verbose
    )


# Colour: --color, NO_COLOR, FORCE_COLOR.


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    ("when", "env", "tty", "expected"),
    [
        ("auto", {}, True, True),
        ("auto", {}, False, False),
        ("auto", {"NO_COLOR": "1"}, True, False),
        ("auto", {"FORCE_COLOR": "1"}, False, True),
        ("auto", {"NO_COLOR": ""}, True, True),  # an empty NO_COLOR does not count
        ("always", {"NO_COLOR": "1"}, False, True),
        ("never", {"FORCE_COLOR": "1"}, True, False),
    ],
)
def test_color_choice(monkeypatch, when, env, tty, expected):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert run.color(when, _Stream(tty)) is expected


def test_color_reaches_the_output_and_never_comes_from_a_log():
    concise = audit_main(LOST, "-f", "concise", "--color", "always").stdout.decode()
    assert "\x1b[1;31mEX001\x1b[0m" in concise
    assert "\x1b[" not in audit_main(LOST, "-f", "concise").stdout.decode()
    coloured = audit_main(LOST, "-f", "table", "--color", "always").stdout.decode()
    assert "\x1b[" in coloured
    hostile = replace(FINDINGS[2], message=FINDINGS[2].evidence)
    text = table(Report((hostile,), REPORT.counts, REPORT.rules), color=True)
    assert "\\x1b[31mred" in text and "\x1b[31mred" not in text


# The progress bar: stderr only, a terminal only, never holding stdout.


def test_progress_bar_shows_bytes_counts_and_keeps_stdout(monkeypatch, capsys):
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(progress, "DELAY", 0)
    monkeypatch.setattr(progress, "REFRESH", 0)
    report_ = None
    with progress.Bar(total=2048, enabled=True, color=False) as bar:
        report_ = engine.audit([str(DEMO)], config.build(), progress=bar)
        print("stdout stays stdout")
        assert bar._bar is not None
        rendered = bar._bar.console.export_text() if bar._bar.console.record else ""
        task = bar._bar.tasks[0]
        assert task.fields["conversations"] == 20
        assert task.fields["findings"] == len(report_.findings)
        assert task.completed == min(2048, (DEMO / "agent-runs.jsonl").stat().st_size)
        assert bar._bar.live._redirect_stdout is False and bar._bar.live._redirect_stderr is False
    assert capsys.readouterr().out == "stdout stays stdout\n"
    assert rendered == ""


def test_no_progress_bar_off_a_terminal_or_with_no_progress(monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0)
    with progress.Bar(total=10, enabled=True, color=False) as bar:  # stderr is captured
        engine.audit([str(CLEAN)], config.build(), progress=bar)
        assert bar._bar is None
    proc = audit_main(DEMO, "-f", "json", "--no-progress")
    assert b"auditing" not in proc.stderr


# --help, usage errors, listings.


def test_help_is_grouped_without_bool_noise():
    result = invoke("--help")
    assert result.exit_code == 0
    text = result.stdout
    for panel in (
        "Rule selection",
        "File selection",
        "Output",
        "Configuration and baselines",
        "Information",
    ):
        assert f"─ {panel} ─" in text, panel
    assert "<bool>" not in text and "[default: False]" not in text
    for option in (
        "--extend-select",
        "--show-files",
        "--show-settings",
        "--allow-empty",
        "--color",
    ):
        assert option in text
    assert invoke("-h").stdout == text


def columns(*args: str, width: int) -> str:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": str(width)}
    proc = subprocess.run(
        [sys.executable, "-m", "auditor", *args], capture_output=True, env=env, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.decode()


def paragraph(text: str, first: str) -> list[str]:
    """The lines of the paragraph that starts with `first`, without the help's margins."""
    lines = [line.strip(" │") for line in text.splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    end = next(i for i in range(start, len(lines)) if not lines[i].strip())
    return lines[start:end]


@pytest.mark.parametrize("width", [80, 120])
def test_help_paragraphs_are_wrapped_at_the_terminal_width_not_at_the_source(width):
    text = columns("-h", width=width)
    assert max(map(len, text.splitlines())) <= width
    # Filled lines: only a paragraph's last line may end short (before, lines broke where
    # the docstring was wrapped, at 92 columns, and again at 80).
    for first in ("Reads agent logs", "Settings come from", "Exit status:"):
        lines = paragraph(text, first)
        assert len(lines) > 1, first
        assert all(len(line) > width - 20 for line in lines[:-1]), lines


def test_explain_is_wrapped_at_the_terminal_width():
    text = columns("--explain", "CF001", width=72)
    prose = []
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            prose.append(line)
    assert max(map(len, prose)) <= 72
    lines = paragraph(text, "Compares each approved call")
    lines = lines[: next(i for i, line in enumerate(lines) if line.startswith("- "))]
    assert all(len(line) > 52 for line in lines[:-1]), lines
    assert "- the user decided on values of a kind" in text  # list items keep their mark


def test_explain_shows_the_example_as_a_conversation_and_how_to_fix():
    """The terminal gets the readable form the rule's page has: a conversation, one message a
    line within the width, not the JSON Lines the docstring keeps for the tests."""
    text = columns("--explain", "LP004", width=72)
    assert "\n## How to fix\nThe agent is stuck" in text
    assert '"messages"' not in text and '{"role"' not in text
    assert "--- reworded-apology ---\nuser: I need the same insurance as my family.\n" in text
    assert "\nassistant: I'm truly sorry for the frustration this has caused, Sophia.\n" in text
    assert max(map(len, text.splitlines())) <= 72


def test_explain_a_family_lists_its_rules_then_explains_each():
    text = columns("--explain", "LP", width=100)
    assert text.startswith("# LP: loops (5 rules)\n\nLP001  repeated-tool-call ")
    heads = [line for line in text.splitlines() if re.match(r"# LP00\d ", line)]
    assert heads == [
        "# LP001 repeated-tool-call (warning)",
        "# LP002 repeated-tool-error (warning)",
        "# LP003 cyclic-tool-calls (warning)",
        "# LP004 repeated-assistant-message (warning)",
        "# LP005 uninformative-tool-error (warning)",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--explain", "LP01"], "unknown rule `LP01` (did you mean `LP001`?)"),
        (
            ["--explain", "unanswered-tool-cal"],
            "unknown rule `unanswered-tool-cal` (did you mean `unanswered-tool-call`?)",
        ),
        (
            ["x.jsonl", "--select", "EX0001"],
            "unknown rule selector `EX0001` (did you mean `EX001`?)",
        ),
    ],
)
def test_a_mistyped_rule_gets_a_suggestion(args, message):
    proc = audit_main(*args)
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith(f"audit: error: {message}")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--nope",), "audit: error: No such option: --nope"),
        (("-f", "xml", "x.jsonl"), "audit: error: Invalid value for '--format' / '-f'"),
        (("--color", "sometimes", "x"), "audit: error: Invalid value for '--color'"),
    ],
)
def test_usage_errors_are_one_line_without_a_box(args, message):
    proc = audit_main(*args)
    assert proc.returncode == 2
    (line,) = proc.stderr.decode().splitlines()
    assert line.startswith(message) and line.endswith("(audit -h for help)")
    assert "╭" not in line


def test_rules_honour_the_selection_and_json():
    text = invoke("--rules", "--select", "EX00,LP001").stdout.splitlines()
    assert [line.split()[0] for line in text] == [
        "IN001",  # always on
        "EX001",
        "EX002",
        "EX003",
        "EX004",
        "EX005",
        "EX006",
        "EX007",
        "LP001",
    ]
    rows = json.loads(invoke("--rules", "--select", "CF", "-f", "json").stdout)
    assert [r["code"] for r in rows] == ["IN001", "CF001", "CF002", "CF003", "CF004"]


@pytest.mark.parametrize("code", ["IN001", "in002", "invalid-record", "unrecognized-record"])
def test_explain_every_code_including_the_input_rules(code):
    result = invoke("--explain", code)
    assert result.exit_code == 0
    assert result.stdout.startswith("# IN00")
    assert "## What it does" in result.stdout


def test_show_files_names_each_file_and_its_format(tmp_path):
    (tmp_path / "logs").mkdir()
    shutil.copy(LOST, tmp_path / "logs" / "a.jsonl")
    shutil.copy(FIXTURES / "formats" / "tau" / "tau2-bench-excerpt.json", tmp_path / "logs")
    (tmp_path / "logs" / "package.json").write_text('{"name": "x"}')
    (tmp_path / "logs" / "cut.jsonl").write_text('{"messages": [\n')
    (tmp_path / "logs" / "notes.md").write_text("x")
    (tmp_path / "logs" / "plot.png").write_bytes(b"\x89PNG")
    proc = audit_main("logs", "--show-files", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().splitlines() == [
        "logs/a.jsonl\topenai",
        "logs/cut.jsonl\tunreadable: not valid JSON: the text ends before the JSON value does "
        "(truncated?) at column 15",
        "logs/notes.md\tskipped: no transcript: text in no known transcript format",
        "logs/package.json\tskipped: no log shape: JSON object of no known log format (keys: name)",
        "logs/plot.png\tskipped: not a log file type (*.png)",
        "logs/tau2-bench-excerpt.json\ttau",
    ]
    # Named, a file is read whatever its first bytes: its records get IN002.
    named = audit_main("logs/package.json", "--show-files", cwd=tmp_path)
    assert named.stdout.decode().splitlines() == [
        "logs/package.json\tread, but JSON object of no known log format (keys: name)"
    ]


def test_show_settings_says_where_each_value_came_from(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.auditor]\nignore = ["EX002"]\nfail-on = "error"\n[tool.auditor.loops]\n'
        "min-repeats = 4\n"
    )
    proc = audit_main("--show-settings", "--extend-select", "EX002", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert lines[0] == "# configuration file: pyproject.toml"
    assert lines[1].startswith('select            = ["IN001", "IN002", "FB001"')
    assert lines[1].endswith("# ignore: pyproject.toml; extend-select: command line; IN001 always")
    assert 'fail-on           = "error"  # pyproject.toml' in lines
    assert 'input-format      = "auto"  # default' in lines
    assert "loops.min-repeats = 4  # pyproject.toml" in lines
    # Each option of a table as set or not: the table was in the file, this option was not.
    assert "loops.exempt-tools = []  # default" in lines
    assert "approvals.require-approval = []  # default" in lines
    assert "max-record-mb     = 128  # default" in lines


# One name for standard input, in every format.


@pytest.mark.parametrize("fmt", ["json", "jsonl", "concise", "sarif", "github", "gitlab", "junit"])
def test_stdin_has_one_stable_name_in_every_format(fmt):
    proc = audit_main("-", "-f", fmt, stdin=LOST.read_bytes())
    text = proc.stdout.decode()
    assert "<stdin>" in text or "%3Cstdin%3E" in text or "&lt;stdin&gt;" in text, text
    assert '"-"' not in text and "file=-," not in text


def test_findings_carry_the_stdin_name():
    proc = audit_main("-", "-f", "json", stdin=LOST.read_bytes() + b"{oops\n")
    found: list[Finding] = json.loads(proc.stdout)["findings"]
    assert {f["path"] for f in found} == {"<stdin>"}
    assert [f["conversation"] for f in found] == ["moved-on", "parallel-one-lost", None]


def test_pre_existing_behaviour_runs_through_subprocess_in_a_pipe():
    child = subprocess.run(
        [sys.executable, "-m", "auditor", str(LOST)], capture_output=True, cwd=ROOT, timeout=60
    )
    assert child.stdout.decode().count("\n") == 2  # concise: one line per finding


# Several outputs of one run, and the line that says what was written.


def test_one_run_writes_several_outputs_and_says_so_in_one_line(tmp_path):
    proc = audit_main(
        LOST, "-f", "github", "-f", "sarif:a.sarif", "-f", "html:b.html", cwd=tmp_path
    )
    assert proc.returncode == 1
    # stdout: the one -f without a file; the others in their files, from the same audit.
    assert proc.stdout.decode().startswith("::error file=")
    sarif = json.loads((tmp_path / "a.sarif").read_text())
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["EX001", "EX001"]
    assert "moved-on" in (tmp_path / "b.html").read_text()
    assert proc.stderr.decode().splitlines() == [
        "audit: wrote 2 findings to a.sarif (sarif) and b.html (html)"
    ]


def test_a_run_that_writes_a_file_says_so(tmp_path):
    proc = audit_main(LOST, "-f", "html", "-o", "report.html", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (1, b"")
    assert proc.stderr.decode() == "audit: wrote 2 findings to report.html (html)\n"
    proc = audit_main(LOST, "-o", "out.txt", "-q", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (1, b"")
    assert (tmp_path / "out.txt").read_text().startswith(f"{LOST}:1: EX001 ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["-f", "json", "-f", "sarif"],
            "-f json and -f sarif would both go to stdout: give all but one a file, -f FORMAT:FILE",
        ),
        (
            ["-f", "bogus:x"],
            "Invalid value for '--format' / '-f': `bogus:x` is not FORMAT or FORMAT:FILE with "
            "FORMAT one of table, concise, json, jsonl, sarif, github, gitlab, junit, html "
            "(audit -h for help)",
        ),
        (
            ["-f", "sarif:"],
            "Invalid value for '--format' / '-f': `sarif:` names no FILE after the colon "
            "(audit -h for help)",
        ),
        (["-f", "sarif:a", "-f", "html:a"], "two outputs name the same file a"),
        (["-f", "json:a", "-o", "a"], "two outputs name the same file a"),
        (
            ["-f", "sarif:a", "--statistics"],
            "--statistics prints as table, json, jsonl, not as sarif",
        ),
    ],
)
def test_outputs_that_cannot_be_written_as_asked_are_one_error(tmp_path, args, message):
    proc = audit_main(LOST, *args, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.decode() == f"audit: error: {message}\n"
    assert not (tmp_path / "a").exists()


# The coverage block that ends a run.


def test_coverage_is_one_block_most_useful_first_the_rest_under_v():
    report = engine.audit([str(DEMO)], config.build())
    lines = table(report).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Coverage:"))
    block = lines[start : start + 6]
    # Each note starts a line after the block's head; its own lines are indented under it.
    assert [line[:10] for line in block] == ["Coverage: "] + ["          "] * 5
    assert " ".join(" ".join(line.split()) for line in block).split(" Messages cut")[0] == (
        "Coverage: EX005, EX007 could not examine 5 of 20 conversations: no tools declared or "
        "given with --tools; --tools FILE declares them "
        "CF001-CF004 could not examine 12 of 20 conversations: no approvals seen; "
        "require-approval in [tool.auditor.approvals] names the tools that need one "
        "-v shows 2 more notes"
    )
    # With -v, every note; each reason once, with one count for all the rules it stopped
    # (before, EX005 and EX001 gave 3 and 6 conversations "with no tool calls").
    assert report.coverage_notes(verbose=True)[2:] == [
        "EX001, EX005-EX007, FB004, FB005, FB007, LP001-LP003, LP005 could not examine 6 of "
        "20 conversations: no tool calls",
        "tool sets: 15 declared by the log, 0 from --tools, 5 inferred from the calls in "
        "their file or run (enough for FB003, not for EX005/EX007)",
    ]


def test_coverage_in_json_counts_every_reason_a_rule_could_not_examine():
    report = engine.audit([str(DEMO)], config.build())
    gaps = {
        (gap["reason"], tuple(gap["rules"]), gap["conversations"])
        for family in report.coverage()["families"].values()
        for gap in family["not_examined"]
    }
    assert ("no tool calls", ("EX001", "EX005", "EX006", "EX007"), 6) in gaps
    assert ("no tools declared or given with --tools", ("EX005", "EX007"), 5) in gaps


def test_json_summary_counts_the_calls_and_results_read():
    proc = audit_main(LOST, ORPHAN, "-f", "json")
    summary = json.loads(proc.stdout)["summary"]
    # EX001's log: two calls, one answered; EX002's: a call answered, a result of no call.
    assert (summary["assistant_turns"], summary["tool_calls"], summary["tool_results"]) == (5, 3, 2)
