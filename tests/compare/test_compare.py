"""`audit compare BASE NEW`: rates per rule, conversations matched by id, limits, and what two
reports of different versions or rule sets do not share."""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from auditor.cli import app, compare_app
from tests.helpers import FIXTURES, REALDATA, ROOT, audit_process, requires_realdata
from tests.reports import Page

DEMO = FIXTURES / "demo" / "agent-runs.jsonl"


@pytest.fixture
def runs(tmp_path):
    """BASE: the demo log. NEW: the same, but text-call-003 is now clean and clean-weather-001
    repeats itself (the conversations of repeated-reply-013 and clean-weather-001 under their
    ids): EX003 goes down, LP004 doubles."""
    lines = {json.loads(line)["id"]: json.loads(line) for line in DEMO.read_text().splitlines()}
    new = dict(lines)
    new["text-call-003"] = {**lines["clean-weather-001"], "id": "text-call-003"}
    new["clean-weather-001"] = {**lines["repeated-reply-013"], "id": "clean-weather-001"}
    base_log, new_log = tmp_path / "base.jsonl", tmp_path / "new.jsonl"
    base_log.write_text("".join(json.dumps(v) + "\n" for v in lines.values()))
    new_log.write_text("".join(json.dumps(v) + "\n" for v in new.values()))
    for log in (base_log, new_log):
        report = run(
            app,
            str(log),
            "-f",
            "json",
            "-o",
            str(log.with_suffix(".json")),
            "--exit-zero",
            cwd=tmp_path,
        )
        assert report.returncode == 0, report.stderr
    return tmp_path


def run(command, *args, cwd) -> SimpleNamespace:
    """A command in this process (a child process costs a second each), from `cwd`."""
    here = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(command, [str(a) for a in args])
    finally:
        os.chdir(here)
    return SimpleNamespace(
        returncode=result.exit_code,
        stdout=result.stdout.encode(),
        stderr=result.stderr.encode(),
    )


def compare(*args, cwd):
    return run(compare_app, *args, cwd=cwd)


def test_rates_per_rule_and_conversations_that_gained_or_lost(runs):
    result = compare("base.json", "new.json", cwd=runs)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    assert lines[:2] == [
        "BASE base.json: 20 conversations, 24 findings (auditor 0.1.0)",
        "NEW  new.json: 20 conversations, 24 findings (auditor 0.1.0)",
    ]
    table = lines[3:]
    assert table[0].split() == ["code", "name", "BASE", "per", "100", "NEW", "per", "100", "change"]
    rows = {line.split()[0]: line.split()[2:] for line in table[1:] if line[:2] in ("EX", "LP")}
    assert rows["EX003"] == ["2", "10.0", "1", "5.0", "-5.0", "-50%"]
    assert rows["LP004"] == ["1", "5.0", "2", "10.0", "+5.0", "+100%"]
    assert rows["LP001"] == ["1", "5.0", "1", "5.0", "+0.0", "+0%"]
    text = result.stdout.decode()
    assert "Conversations (by id): 18 with findings in both runs, 1 gained findings, 1 lost" in text
    assert "  clean-weather-001  +LP004\n" in text
    assert "  text-call-003  -EX003\n" in text
    assert "2 more rules ran in both and fired in neither." in text  # IN001, IN002


def test_json_document(runs):
    result = compare("base.json", "new.json", "-f", "json", cwd=runs)
    doc = json.loads(result.stdout)
    assert doc["base"] == {
        "label": "base.json",
        "auditor_version": "0.1.0",
        "conversations": 20,
        "findings": 24,
    }
    lp004 = next(r for r in doc["rules"] if r["code"] == "LP004")
    assert lp004 == {
        "code": "LP004",
        "name": "repeated-assistant-message",
        "base": 1,
        "new": 2,
        "base_per_100_conversations": 5.0,
        "new_per_100_conversations": 10.0,
        "change_per_100_conversations": 5.0,
        "change_percent": 100.0,
    }
    assert doc["conversations"]["changed"] == [
        {
            "conversation": "clean-weather-001",
            "base": {},
            "new": {"LP004": 1},
            "gained": {"LP004": 1},
            "lost": {},
        },
        {
            "conversation": "text-call-003",
            "base": {"EX003": 1},
            "new": {},
            "gained": {},
            "lost": {"EX003": 1},
        },
    ]
    assert doc["left_out"] == {
        "rules_only_in_base": [],
        "rules_only_in_new": [],
        "findings_only_in_base": 0,
        "findings_only_in_new": 0,
    }
    assert doc["notes"] == []


@pytest.mark.parametrize(
    ("limits", "status", "line"),
    [
        (["LP004=50"], 1, "limit LP004 +50%: 5.0 -> 10.0 per 100 conversations (+100%): EXCEEDED"),
        (["LP004=100"], 0, "limit LP004 +100%: 5.0 -> 10.0 per 100 conversations (+100%): ok"),
        (["EX003=0"], 0, "limit EX003 +0%: 10.0 -> 5.0 per 100 conversations (-50%): ok"),
        (["LP=150,EX=10"], 0, "limit LP004 +150%: 5.0 -> 10.0 per 100 conversations (+100%): ok"),
        (
            ["ALL=10", "repeated-assistant-message=200"],
            0,
            "limit LP004 +200%: 5.0 -> 10.0 per 100 conversations (+100%): ok",
        ),
    ],
)
def test_fail_on_increase(runs, limits, status, line):
    args = [arg for limit in limits for arg in ("--fail-on-increase", limit)]
    result = compare("base.json", "new.json", *args, cwd=runs)
    assert result.returncode == status, result.stdout
    assert line in result.stdout.decode().splitlines()


def test_fail_on_increase_from_the_configuration_and_the_command_line_replaces_it(runs):
    (runs / "pyproject.toml").write_text("[tool.auditor]\nfail-on-increase = { LP004 = 20 }\n")
    result = compare("base.json", "new.json", cwd=runs)
    assert result.returncode == 1
    assert (
        "limit LP004 +20%: 5.0 -> 10.0 per 100 conversations (+100%): EXCEEDED"
        in result.stdout.decode()
    )
    result = compare("base.json", "new.json", "--fail-on-increase", "EX003=5", cwd=runs)
    assert result.returncode == 0
    assert "LP004 +20%" not in result.stdout.decode()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fail-on-increase", "LP004"], "invalid --fail-on-increase `LP004`: use CODE=PERCENT"),
        (["--fail-on-increase", "LP004=-3"], "invalid --fail-on-increase `LP004=-3`"),
        (["--fail-on-increase", "XX9=3"], "unknown rule selector `XX9`"),
    ],
)
def test_bad_limits_are_one_clear_line(runs, args, message):
    result = compare("base.json", "new.json", *args, cwd=runs)
    assert result.returncode == 2
    err = result.stderr.decode()
    assert err.startswith("audit: error: ") and message in err
    assert len(err.splitlines()) == 1


def test_paths_are_audited_when_they_are_not_reports(runs):
    from_reports = compare("base.json", "new.json", "-q", cwd=runs).stdout.decode()
    from_logs = compare("base.jsonl", "new.jsonl", "-q", cwd=runs)
    assert from_logs.returncode == 0
    assert from_logs.stdout.decode() == from_reports


def test_a_missing_path_exits_2(runs):
    result = compare("base.json", "nothing-here", cwd=runs)
    assert result.returncode == 2
    assert "nothing-here" in result.stderr.decode()


def test_a_side_with_no_conversation_exits_2_in_one_line(runs):
    (runs / "empty").mkdir()
    result = compare("base.json", "empty", "-q", cwd=runs)
    assert result.returncode == 2
    assert result.stderr.decode() == (
        "audit: error: no conversation found in empty: 0 files read. Check the paths\n"
    )


def test_output_naming_a_compared_report_is_refused(runs):
    before = (runs / "base.json").read_bytes()
    result = compare("base.json", "new.json", "-o", "./base.json", cwd=runs)
    assert result.returncode == 2
    assert "-o ./base.json would overwrite base.json" in result.stderr.decode()
    assert (runs / "base.json").read_bytes() == before


def test_reports_of_other_versions_and_rule_sets_compare_on_what_both_hold(runs):
    narrow = run(
        app, "base.jsonl", "--select", "EX,LP", "-f", "json", "-o", "narrow.json", cwd=runs
    )
    assert narrow.returncode == 1
    doc = json.loads((runs / "new.json").read_text())
    doc["tool"]["version"] = "9.9.9"
    doc["coverage"]["families"]["ZZ"] = {"name": "future", "rules": ["ZZ001"], "not_examined": []}
    doc["findings"].append({**doc["findings"][0], "code": "ZZ001", "name": "future-rule"})
    (runs / "future.json").write_text(json.dumps(doc))
    result = compare("narrow.json", "future.json", "--fail-on-increase", "ZZ001=1", cwd=runs)
    assert result.returncode == 0
    text = result.stdout.decode()
    assert "NEW  future.json: 20 conversations, 25 findings (auditor 9.9.9)" in text
    assert (
        "left out: rules that ran only in NEW: CF001, CF002, CF003, CF004, FB001, FB002, "
        "FB003, FB004, FB005, FB006, FB007, IN002, ZZ001 (12 findings left out)"
    ) in text
    assert "note: the reports were written by different auditor versions (0.1.0 and 9.9.9)" in text
    assert "note: the limit on ZZ001 was not checked: the rule did not run in both" in text
    assert "\n1 more rule ran in both and fired in neither.\n" in text  # IN001 always runs
    rows = [line.split()[0] for line in text.splitlines() if line[:2] in ("EX", "LP", "FB", "CF")]
    assert all(code[:2] in ("EX", "LP") for code in rows)


def test_a_statistics_report_compares_rates_only(runs):
    stats = run(app, "base.jsonl", "--statistics", "-f", "json", "-o", "s.json", cwd=runs)
    assert stats.returncode == 1
    result = compare("s.json", "new.json", cwd=runs)
    text = result.stdout.decode()
    assert "note: a --statistics report has no conversations: only rates are compared" in text
    assert "Conversations (by id)" not in text
    assert any(line.split()[:3] == ["LP004", "repeated-assistant-message", "1"] for line in
               text.splitlines())  # fmt: skip


def test_html(runs):
    result = compare("base.json", "new.json", "-f", "html", "-o", "compare.html", cwd=runs)
    assert result.returncode == 0
    page = Page((runs / "compare.html").read_text())
    shown = page.all_text()
    assert "clean-weather-001" in shown and "+LP004" in shown
    assert len(page.scripts) == 1
    for _, attrs in page.elements:
        assert not any(name.startswith("on") for name in attrs)


def test_the_console_entry_point_runs_compare(runs):
    assert "audit compare" in run(app, "--help", cwd=runs).stdout.decode()
    result = audit_process(
        "compare", "base.json", "new.json", "--fail-on-increase", "LP=5", cwd=runs
    )
    assert result.returncode == 1
    assert (
        "limit LP004 +5%: 5.0 -> 10.0 per 100 conversations (+100%): EXCEEDED"
        in result.stdout.decode()
    )
    assert b"Usage: audit compare [OPTIONS]" in audit_process("compare", "--help").stdout


@requires_realdata
def test_the_readme_example_is_what_compare_prints(tmp_path):
    """docs/usage.md's `audit compare` on tau2-bench runs of two models is the real output."""
    readme = (ROOT / "docs" / "usage.md").read_text()
    marker = "audit compare grok-3.json grok-3-mini.json --fail-on-increase EX003=10\n```\n\n```\n"
    start = readme.index(marker) + len(marker)
    shown = readme[start : readme.index("```", start)]
    runs = REALDATA / "tau2-bench-blakeelias"
    for model, pattern in (
        ("grok-3", "*airline*_grok-3_*"),
        ("grok-3-mini", "*airline*_grok-3-mini_*"),
    ):
        logs = sorted(str(p) for p in runs.glob(pattern))
        assert len(logs) == 2
        result = run(app, *logs, "-f", "json", "-o", f"{model}.json", "--exit-zero", cwd=tmp_path)
        assert result.returncode == 0
    result = compare(
        "grok-3.json", "grok-3-mini.json", "--fail-on-increase", "EX003=10", cwd=tmp_path
    )
    assert result.returncode == 1
    assert result.stdout.decode() == shown


def test_a_bad_configured_limit_is_one_line_naming_the_key(runs):
    (runs / "pyproject.toml").write_text('[tool.auditor]\nfail-on-increase = { LP001 = "ten" }\n')
    result = compare("base.json", "new.json", cwd=runs)
    assert result.returncode == 2
    assert result.stderr.decode() == (
        "audit: error: invalid config in pyproject.toml: [tool.auditor] "
        "fail-on-increase.LP001 must be a number >= 0 (a percent)\n"
    )
