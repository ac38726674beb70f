"""Every reporter on one shared set of findings, compared with reviewed snapshots (semgrep-style).

The findings hold hostile log text on purpose: escape sequences, rich markup, bidi controls
and a line that starts a GitHub workflow command. `AUDITOR_UPDATE_EXPECTED=1` rewrites.
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import replace

import pytest

from auditor.findings import Severity
from auditor.report import Context, Counts, Gap, Report
from auditor.reporters import REPORTERS, writer
from auditor.rules import RULES
from tests.helpers import ROOT, SNAPSHOTS, UPDATE, render
from tests.reports import FINDINGS, REPORT, SUPPRESSED


def shown(name: str, report: Report = REPORT) -> str:
    """`report` as the reporter `name` writes it after a run of 1.25 s (the snapshots' time)."""
    return render(report, name, elapsed=1.25)


@pytest.fixture(autouse=True)
def _fixed_width(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.mark.parametrize("name", sorted(REPORTERS))
def test_snapshot(name, monkeypatch):
    monkeypatch.chdir(ROOT)  # relative paths are relative to the working directory
    text = shown(name).replace(ROOT.as_uri() + "/", "file:///checkout/")
    snapshot = SNAPSHOTS / "reporters" / f"report.{name}"
    if os.environ.get(UPDATE):
        snapshot.write_text(text, encoding="utf-8")
    assert text == snapshot.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["table", "github"])
def test_no_control_character_from_a_log_reaches_the_terminal(name):
    text = shown(name)
    assert "\x1b" not in text and "\u202e" not in text
    assert "\\x1b[31mred" in text  # shown, visibly escaped
    for line in text.splitlines():
        assert not line.startswith("::error::owned")
    if name == "table":
        assert "[bold]markup[/bold]" in text  # printed as text, not applied as markup


def test_table_without_findings_says_so_and_keeps_coverage():
    report = Report(
        (),
        Counts(files=1, records=1, conversations=3, assistant_turns=5),
        RULES,
        gaps=(Gap("EX", "no tools declared", ("EX005",), 3),),
    )
    text = shown("table", report)
    assert "No findings." in text
    assert "Coverage: EX005 could not examine 3 of 3 conversations: no tools declared" in text
    assert "Done in" not in text  # elapsed time only on a terminal: files stay reproducible


def test_json_document_shape():
    doc = json.loads(shown("json"))
    assert list(doc) == [
        "version",
        "tool",
        "summary",
        "coverage",
        "findings",
        "suppressions",
        "errors",
    ]
    # A suppressed finding is listed, with its entry and reason, and counted apart.
    assert doc["summary"]["by_rule"] == {"EX001": 1, "EX002": 2, "IN001": 1, "IN002": 1}
    assert (doc["summary"]["findings"], doc["summary"]["suppressed"]) == (5, 1)
    assert [f.get("suppressed", {}).get("entry") for f in doc["findings"]] == [
        None,
        None,
        None,
        1,
        None,
        None,
    ]
    assert doc["findings"][3]["fingerprint"] == SUPPRESSED.fingerprint
    assert [(e["entry"], e["suppressed"], e["stale"]) for e in doc["suppressions"]] == [
        (1, 1, False),
        (2, 0, True),
    ]
    assert doc["coverage"]["families"]["EX"]["not_examined"] == [
        {"reason": "no tools declared", "rules": ["EX005", "EX007"], "conversations": 6}
    ]
    assert doc["findings"][1]["fingerprint"] == FINDINGS[1].fingerprint


def test_jsonl_is_one_finding_per_line_and_coverage_goes_to_the_side():
    out, notes = io.StringIO(), io.StringIO()
    writer("jsonl")(REPORT, out, Context(notes=notes))
    lines = out.getvalue().splitlines()
    rows = [json.loads(line) for line in lines]
    assert [(r["code"], "suppressed" in r) for r in rows] == [
        *((f.code, False) for f in FINDINGS[:3]),
        ("EX001", True),
        *((f.code, False) for f in FINDINGS[3:]),
    ]
    assert notes.getvalue() == (
        "audit: 2 findings in the baseline not shown\n"
        "audit: 1 finding suppressed by 1 suppress entry\n"
        'audit: suppress entry 2 (fingerprint "0123456789abcdef0123") of pyproject.toml '
        "matched no finding (fixed, or changed): remove it\n"
        "audit: coverage: EX005, EX007 could not examine 6 of 7 conversations: no tools declared\n"
    )
    quiet = io.StringIO()
    writer("jsonl")(REPORT, io.StringIO(), Context(notes=quiet, quiet=True))
    assert quiet.getvalue() == ""


def test_github_annotation_escaping():
    lines = shown("github").splitlines()
    assert lines[0] == (
        "::error file=logs/a run.jsonl,line=2,title=IN001 invalid-record::not valid JSON: "
        "unexpected text where a JSON value should start at column 1"
    )
    assert lines[3].startswith("::warning file=logs/tau%3A2025-10-13T11%3A43.json,line=15,")
    walked = Report((replace(FINDINGS[1], path="./logs/../logs/a.jsonl"),), REPORT.counts, RULES)
    assert shown("github", walked).startswith("::error file=logs/a.jsonl,line=7,")
    assert all(line.startswith("::") for line in lines)
    # After the annotations, what they cannot show: the baseline count and coverage gaps.
    assert lines[len(FINDINGS) :] == [
        "::notice title=auditor::2 findings in the baseline not shown",
        "::notice title=auditor::1 finding suppressed by 1 suppress entry",
        '::notice title=auditor::suppress entry 2 (fingerprint "0123456789abcdef0123") of '
        "pyproject.toml matched no finding (fixed, or changed): remove it",
        "::notice title=auditor::coverage: EX005, EX007 could not examine 6 of 7 "
        "conversations: no tools declared",
    ]


def test_github_says_when_annotations_exceed_what_github_shows():
    many = Report(FINDINGS[1:2] * 11, REPORT.counts, RULES)
    lines = shown("github", many).splitlines()
    assert len(lines) == 12
    assert lines[-1] == (
        "::notice title=auditor::11 findings (11 error): GitHub shows 10 annotations of each "
        "kind per step; the step's log lists them all"
    )
    ten = Report(FINDINGS[1:2] * 10, REPORT.counts, RULES)
    assert len(shown("github", ten).splitlines()) == 10  # all shown: nothing to say


def test_severity_levels_map_to_sarif_levels():
    assert {s.value for s in Severity} == {"error", "warning", "note"}


# Machine outputs: every character a terminal or a line-based reader would act on is escaped.
INVISIBLE = "\u009b31m\u009d0;title\u0007\u0085next\u202eevil\u202c\u2066iso\u2069\u2028\u2029"


def invisible_report() -> Report:
    tricky = replace(
        FINDINGS[2],
        path="logs/\u202egnp.jsonl",
        conversation="conv\u0085\u2028",
        message="tool result for call `\u009b2J` answers no earlier call " + INVISIBLE,
        evidence=INVISIBLE,
        tool="\u2067tool",
    )
    return Report((tricky,), REPORT.counts, RULES)


RAW = set("\u009b\u009d\u0085\u202e\u202c\u2066\u2067\u2069\u2028\u2029")


@pytest.mark.parametrize("name", ["json", "jsonl", "sarif"])
def test_machine_outputs_escape_c1_bidi_and_line_separators(name):
    report = invisible_report()
    text = shown(name, report)
    assert not RAW & set(text), sorted(RAW & set(text))
    for escaped in ("\\u009b", "\\u0085", "\\u202e", "\\u2066", "\\u2028", "\\u2029"):
        assert escaped in text
    # Escaped, not lost: a JSON reader gets the log's text back.
    first = json.loads(text.splitlines()[0] if name == "jsonl" else text)
    if name == "sarif":
        result = first["runs"][0]["results"][0]
        assert result["properties"]["evidence"] == INVISIBLE
        assert result["properties"]["conversation"] == "conv\u0085\u2028"
    else:
        finding = first if name == "jsonl" else first["findings"][0]
        assert (finding["evidence"], finding["path"]) == (INVISIBLE, "logs/\u202egnp.jsonl")
        assert finding["tool"] == "\u2067tool"


def test_baseline_file_escapes_them_too(tmp_path):
    from auditor.commands import baseline

    path = tmp_path / "b.json"
    baseline.write(str(path), invisible_report().findings)
    text = path.read_text(encoding="utf-8")
    assert not RAW & set(text)
    assert json.loads(text)["findings"][0]["conversation"] == "conv\u0085\u2028"


def test_sarif_message_text_cannot_plant_an_embedded_link():
    planted = "tool result for call `[click here](1)` or [x](sarif:/runs/0) or \\[y\\](2)"
    report = Report((replace(FINDINGS[2], message=planted),), REPORT.counts, RULES)
    text = json.loads(shown("sarif", report))["runs"][0]["results"][0]["message"]["text"]
    # SARIF §3.11.6: `\`, `[` and `]` are escaped with a backslash in plain text messages.
    assert text == (
        "tool result for call `\\[click here\\](1)` or \\[x\\](sarif:/runs/0) or \\\\\\[y\\\\\\](2)"
    )
    assert "[" not in text.replace("\\[", "")
