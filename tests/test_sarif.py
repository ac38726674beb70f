"""SARIF output is valid against the official 2.1.0 schema and fit for GitHub code scanning."""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema
import pytest

from auditor.report import Context
from auditor.reporters import sarif
from auditor.rules import RULES
from tests.conftest import FIXTURES, audit
from tests.test_reporters import REPORT

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())


def sarif_of(report) -> dict:
    out = io.StringIO()
    sarif.write(report, out, Context())
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def validator():
    cls = jsonschema.validators.validator_for(SCHEMA)
    cls.check_schema(SCHEMA)
    return cls(SCHEMA, format_checker=cls.FORMAT_CHECKER)


def test_shared_report_is_valid(validator):
    validator.validate(sarif_of(REPORT))


def test_real_run_with_findings_is_valid(validator):
    report = audit([FIXTURES / "demo", *sorted((FIXTURES / "rules").glob("*/bad_*"))])
    assert report.findings
    validator.validate(sarif_of(report))


def test_results_point_at_rules_files_and_turns():
    doc = sarif_of(REPORT)
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.code for r in RULES]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert not result["message"]["text"].startswith(result["ruleId"])
        assert "auditor/v1" in result["partialFingerprints"]
        assert "primaryLocationLineHash" not in result["partialFingerprints"]
    ex001 = run["results"][1]
    location = ex001["locations"][0]
    assert location["physicalLocation"] == {
        "artifactLocation": {"uri": "logs/a%20run.jsonl"},
        "region": {"startLine": 7},
    }
    assert location["logicalLocations"][0]["fullyQualifiedName"] == "refund-17/turn 3"
    # A colon in a relative path would read as a URI scheme: it is escaped.
    assert run["results"][3]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "logs/tau%3A2025-10-13T11%3A43.json"
    )


def _ex001_index() -> int:
    # By code, not by a fixed position: the registry grows as rules are added.
    return next(i for i, r in enumerate(RULES) if r.code == "EX001")


def test_rule_descriptors_come_from_the_docs():
    index = _ex001_index()
    rule = sarif_of(REPORT)["runs"][0]["tool"]["driver"]["rules"][index]
    assert rule["id"] == "EX001" and rule["name"] == "unanswered-tool-call"
    assert rule["shortDescription"]["text"] == RULES[index].summary
    assert rule["fullDescription"]["text"] == RULES[index].sections["What it does"]
    assert "## Why is this bad?" in rule["help"]["markdown"]
    assert rule["defaultConfiguration"]["level"] == "error"


def test_crash_becomes_a_tool_notification_and_failed_execution():
    invocation = sarif_of(REPORT)["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["associatedRule"] == {"id": "EX001", "index": _ex001_index()}
    assert note["message"]["text"].startswith("EX001 (unanswered-tool-call) crashed")
