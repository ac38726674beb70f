"""Reports from elsewhere (issue 28, items 11-12): a CI artifact of another branch is untrusted
input. `audit compare` escapes every text it takes from a report, validates each report against
the published schema of the auditor's own JSON report, and never materialises counts."""

from __future__ import annotations

import json

import pytest

from auditor import compare
from tests.helpers import FIXTURES, audit_process

HOSTILE = "\x1b]52;c;aGVsbG8=\x07\x1b]8;;https://example.invalid\x1b\\link\x1b]8;;\x1b\\\x9b2J\x1b]0;t\x07"
RAW = ("\x1b", "\x07", "\x9b")


@pytest.fixture
def report(tmp_path):
    proc = audit_process(FIXTURES / "demo", "-f", "json", "--no-progress")
    assert proc.returncode == 1
    return json.loads(proc.stdout)


def write(path, document) -> str:
    path.write_text(json.dumps(document))
    return str(path)


def test_the_auditors_own_reports_follow_the_published_schema(report, tmp_path):
    assert compare.schema_problem(report) is None
    proc = audit_process(FIXTURES / "demo", "--statistics", "-f", "json", "--no-progress")
    assert compare.schema_problem(json.loads(proc.stdout)) is None
    assert compare.SCHEMA.endswith("auditor/report.schema.json")


# 11. A report's `tool.version` (and codes, names, ids) reached the terminal raw: OSC 52
# clipboard writes, OSC 8 links, window titles.
@pytest.mark.parametrize("fmt", ["table", "json", "html"])
def test_every_text_from_a_report_is_escaped(report, tmp_path, fmt):
    base = write(tmp_path / "base.json", report)
    report["tool"]["version"] = HOSTILE
    report["findings"][0]["code"] = "EX001\x1b]0;t\x07\x9b2J"
    report["findings"][0]["name"] = HOSTILE
    report["findings"][1]["conversation"] = HOSTILE
    report["coverage"]["families"]["EX"]["rules"].append("EX001\x1b]0;t\x07\x9b2J")
    new = write(tmp_path / "new.json", report)
    proc = audit_process("compare", base, new, "-f", fmt)
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 0, err
    assert not [c for c in RAW if c in out or c in err]
    if fmt == "table":
        assert (
            "note: the reports were written by different auditor versions (0.1.0 and \\x1b]52"
            in out
        )
        assert "  \\x1b]52;c;aGVsbG8=\\x07" in out  # the conversation id, escaped


def test_every_text_is_escaped_as_the_report_is_read(report):
    report["tool"]["version"] = HOSTILE
    run = compare.from_document("r.json", report)
    assert run.version.startswith("\\x1b]52;c;aGVsbG8=\\x07\\x1b]8;;https://example.invalid")
    assert not [c for c in RAW if c in run.version]


# 12. A malformed report was AttributeError (`"coverage": [1]`) or TypeError (`"rules": 5`).
@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda r: r.update(coverage=[1]), "coverage: [1] is not of type 'object'"),
        (
            lambda r: r["coverage"]["families"]["EX"].update(rules=5),
            "coverage.families.EX.rules: 5 is not of type 'array'",
        ),
        (
            lambda r: r["summary"].update(conversations="7"),
            "summary.conversations: '7' is not of type 'integer'",
        ),
        (
            lambda r: r["findings"][1].update(code=None),
            "findings[1].code: None is not of type 'string'",
        ),
        (lambda r: r.pop("findings"), "the document: {'version': 1, 'tool':"),
    ],
)
def test_a_malformed_report_is_one_line_naming_what_breaks_the_schema(
    report, tmp_path, change, said
):
    good = write(tmp_path / "good.json", report)
    change(report)
    bad = write(tmp_path / "bad.json", report)
    proc = audit_process("compare", good, bad)
    assert proc.returncode == 2
    [line] = proc.stderr.decode().splitlines()
    assert line.startswith(f"audit: error: {bad}: not an auditor report: {said}")
    assert "internal error" not in line


def test_counts_in_a_statistics_report_are_never_materialised(report, tmp_path):
    statistics = {
        "version": 1,
        "tool": {"name": "auditor", "version": "0.1.0"},
        "summary": {"conversations": 10},
        "statistics": [{"code": "LP001", "name": "repeated-tool-call", "count": 300_000_000}],
    }
    base = write(tmp_path / "base.json", statistics)
    statistics["statistics"][0]["count"] = 600_000_000
    new = write(tmp_path / "new.json", statistics)
    proc = audit_process("compare", base, new, "-f", "json")
    assert proc.returncode == 0, proc.stderr.decode()
    document = json.loads(proc.stdout)
    assert document["base"]["findings"] == 300_000_000
    assert document["rules"] == [
        {
            "code": "LP001",
            "name": "repeated-tool-call",
            "base": 300_000_000,
            "new": 600_000_000,
            "base_per_100_conversations": 3_000_000_000.0,
            "new_per_100_conversations": 6_000_000_000.0,
            "change_per_100_conversations": 3_000_000_000.0,
            "change_percent": 100.0,
        }
    ]
