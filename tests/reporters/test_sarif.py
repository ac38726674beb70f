"""SARIF output is valid against the official 2.1.0 schema and fit for GitHub code scanning."""

from __future__ import annotations

import io
import json
import shutil
from dataclasses import replace

import jsonschema
import pytest

from auditor import config, engine
from auditor.findings import Severity
from auditor.report import Context, Gap
from auditor.reporters import sarif
from auditor.rules import RULES
from tests.helpers import DATA, FIXTURES, LOST, ORPHAN, audit, audit_main, invoke, render
from tests.reports import REPORT, github_sarif_problems

SCHEMA = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())


def sarif_of(report) -> dict:
    return json.loads(render(report, "sarif"))


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
        fingerprints = result["partialFingerprints"]
        # What code scanning matches alerts on is the auditor's own key, the baselines' one.
        assert fingerprints["primaryLocationLineHash"] == fingerprints["auditor/v2"]
    ex001 = run["results"][1]
    location = ex001["locations"][0]
    assert location["physicalLocation"] == {
        "artifactLocation": {"uri": "logs/a%20run.jsonl", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 7},
    }
    assert location["logicalLocations"][0]["fullyQualifiedName"] == "refund-17/turn 3"
    assert sarif.artifact_uri("./logs/../logs/a.jsonl") == "logs/a.jsonl"
    # A colon in a relative path would read as a URI scheme: it is escaped.
    assert run["results"][4]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "logs/tau%3A2025-10-13T11%3A43.json"
    )


def index_of(code: str) -> int:
    # By code, not by a fixed position: the registry grows as rules are added.
    return next(i for i, r in enumerate(RULES) if r.code == code)


def test_rule_descriptors_come_from_the_docs():
    index = index_of("EX001")
    rule = sarif_of(REPORT)["runs"][0]["tool"]["driver"]["rules"][index]
    assert rule["id"] == "EX001" and rule["name"] == "unanswered-tool-call"
    assert rule["shortDescription"]["text"] == RULES[index].summary
    assert rule["fullDescription"]["text"] == RULES[index].sections["What it does"]
    assert "## Why is this bad?" in rule["help"]["markdown"]
    assert rule["defaultConfiguration"]["level"] == "error"


def test_crash_becomes_a_tool_notification_and_failed_execution():
    invocation = sarif_of(REPORT)["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    crash = invocation["toolExecutionNotifications"][0]
    assert crash["level"] == "error"
    assert crash["associatedRule"] == {"id": "EX001", "index": index_of("EX001")}
    assert crash["message"]["text"].startswith("EX001 (unanswered-tool-call) crashed")
    assert "ruleConfigurationOverrides" not in invocation  # every rule ran at its own level


def test_coverage_gaps_are_notes_naming_each_rule():
    gap = Gap("EX", "no tools declared", ("EX001", "EX002"), 6)
    invocation = sarif_of(replace(REPORT, errors=(), gaps=(gap,)))["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is True
    why = "could not examine 6 of 7 conversations: no tools declared"
    assert invocation["toolExecutionNotifications"] == [
        {
            "level": "note",
            "message": {"text": f"{code} {why}"},
            "associatedRule": {"id": code, "index": index_of(code)},
        }
        for code in ("EX001", "EX002")
    ]


def test_configuration_overrides_say_what_did_not_run_and_what_changed_level(validator):
    settings = config.build(select=["EX"], file=None)
    settings = replace(settings, severity={"EX002": Severity.ERROR})
    report = engine.audit([str(FIXTURES / "rules" / "EX002")], settings)
    doc = sarif_of(report)
    validator.validate(doc)
    run = doc["runs"][0]
    overrides = {
        o["descriptor"]["id"]: (o["descriptor"]["index"], o["configuration"])
        for o in run["invocations"][0]["ruleConfigurationOverrides"]
    }
    assert overrides == {
        **{
            r.code: (index_of(r.code), {"enabled": False})
            for r in RULES
            if not r.code.startswith("EX") and r.code != "IN001"  # IN001 always runs
        },
        "EX002": (index_of("EX002"), {"level": "error"}),
    }
    assert {r["level"] for r in run["results"]} == {"error"}


def test_descriptions_stay_within_githubs_limits():
    long = "x" * 3000
    rule = replace(RULES[index_of("EX001")], summary=long, sections={"What it does": long})
    described = sarif.descriptor(rule)
    assert len(described["shortDescription"]["text"]) == sarif.DESCRIPTION_LIMIT
    assert len(described["fullDescription"]["text"]) == sarif.DESCRIPTION_LIMIT
    assert described["fullDescription"]["text"].endswith("…")
    assert described["help"]["markdown"].startswith(long)  # help has no limit: kept whole
    for real in sarif_of(REPORT)["runs"][0]["tool"]["driver"]["rules"]:
        assert 0 < len(real["fullDescription"]["text"]) <= sarif.DESCRIPTION_LIMIT
        assert real["properties"]["problem.severity"] in ("error", "warning", "recommendation")


def test_sarif_tools_reads_results_rules_and_locations(tmp_path):
    """sarif-tools, a real consumer, reads back what GitHub would show."""
    loader = pytest.importorskip("sarif.loader", reason="sarif-tools is a dev extra")
    target = tmp_path / "audit.sarif"
    # Relative paths, as CI runs it from the repository root.
    lost = "fixtures/rules/EX001/bad_moved_on_without_result.jsonl"
    orphan = "fixtures/rules/EX002/bad_unknown_call_id.jsonl"
    proc = audit_main(lost, orphan, "-f", "sarif", "-o", target)
    assert proc.returncode == 1, proc.stderr
    sarif_file = loader.load_sarif_file(str(target))
    records = [
        (r["Tool"], r["Location"], r["Line"], r["Code"], r["Severity"], r["Description"])
        for r in sarif_file.get_records()
    ]
    jsonl = audit_main(lost, orphan, "-f", "jsonl").stdout
    expected = [json.loads(line) for line in jsonl.splitlines()]
    assert records == [
        ("auditor", f["path"], f["line"], f["code"], f["severity"], f["message"]) for f in expected
    ]
    assert [r[1] for r in records] == [lost, lost, orphan]
    assert [r[3] for r in records] == ["EX001", "EX001", "EX002"]
    assert sarif_file.get_distinct_tool_names() == ["auditor"]
    (rule,) = sarif_file.get_rules_by_id("EX002")
    assert rule["name"] == "orphan-tool-result"
    assert sarif_file.get_result_count() == 3


# Locations that resolve: %SRCROOT% with originalUriBaseIds, never `../`.


def test_locations_are_relative_to_a_source_root_that_resolves(tmp_path, monkeypatch, validator):
    repo = tmp_path / "repo"
    (repo / "logs").mkdir(parents=True)
    (repo / ".git").mkdir()
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(LOST, repo / "logs" / "a.jsonl")
    shutil.copy(LOST, tmp_path / "elsewhere" / "b.jsonl")
    monkeypatch.chdir(repo / "logs")  # run from a subdirectory of the repository
    proc = audit_main("a.jsonl", "../../elsewhere/b.jsonl", "-f", "sarif", cwd=repo / "logs")
    doc = json.loads(proc.stdout)
    validator.validate(doc)
    run = doc["runs"][0]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": repo.as_uri() + "/"}}
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    # Findings sort by path as given: `../../elsewhere/b.jsonl` before `a.jsonl`.
    assert locations[0] == {"uri": (tmp_path / "elsewhere" / "b.jsonl").as_uri()}
    assert locations[2] == {"uri": "logs/a.jsonl", "uriBaseId": "%SRCROOT%"}
    assert not any("../" in loc["uri"] for loc in locations)


# Baselines: every result kept, with its state; stale entries named.


def test_a_baselined_run_keeps_every_result_with_its_state(tmp_path, validator):
    shutil.copy(LOST, tmp_path / "runs.jsonl")
    assert audit_main("runs.jsonl", "--write-baseline", "b.json", cwd=tmp_path).returncode == 0
    (tmp_path / "runs.jsonl").write_bytes(LOST.read_bytes() + ORPHAN.read_bytes())
    proc = audit_main("runs.jsonl", "--baseline", "b.json", "-f", "sarif", cwd=tmp_path)
    assert proc.returncode == 1  # the new EX002 fails the run
    doc = json.loads(proc.stdout)
    validator.validate(doc)
    results = doc["runs"][0]["results"]
    assert [(r["ruleId"], r["baselineState"]) for r in results] == [
        ("EX001", "unchanged"),
        ("EX001", "unchanged"),
        ("EX002", "new"),
    ]
    assert results[0]["suppressions"] == [
        {
            "kind": "external",
            "status": "accepted",
            "justification": "recorded in the baseline b.json",
        }
    ]
    assert "suppressions" not in results[2]
    summary = doc["runs"][0]["properties"]["summary"]
    assert (summary["findings"], summary["baselined"], summary["stale_baseline_entries"]) == (
        1,
        2,
        0,
    )


def test_stale_baseline_entries_are_reported_and_write_baseline_prunes_them(tmp_path, validator):
    (tmp_path / "runs.jsonl").write_bytes(LOST.read_bytes())
    assert audit_main("runs.jsonl", "--write-baseline", "b.json", cwd=tmp_path).returncode == 0
    # One of the two findings is fixed: its conversation now has its tool result.
    fixed = (FIXTURES / "rules" / "EX001" / "good_answered.jsonl").read_bytes().splitlines()[0]
    lines = LOST.read_bytes().splitlines()
    (tmp_path / "runs.jsonl").write_bytes(fixed + b"\n" + lines[1] + b"\n")
    proc = audit_main("runs.jsonl", "--baseline", "b.json", cwd=tmp_path)
    assert proc.returncode == 0
    assert (
        "audit: 1 baseline entry matched no finding (fixed, or changed): --write-baseline "
        "rewrites the baseline without them"
    ) in proc.stderr.decode().splitlines()
    doc = json.loads(
        audit_main("runs.jsonl", "--baseline", "b.json", "-f", "sarif", cwd=tmp_path).stdout
    )
    validator.validate(doc)
    (stale,) = doc["runs"][0]["properties"]["baseline"]["stale"]
    assert (stale["code"], stale["conversation"], stale["count"]) == ("EX001", "moved-on", 1)
    # Rewriting the baseline keeps only what is still found.
    args = ("runs.jsonl", "--baseline", "b.json", "--write-baseline", "b.json")
    assert audit_main(*args, cwd=tmp_path).returncode == 0
    entries = json.loads((tmp_path / "b.json").read_text())["findings"]
    assert [e["conversation"] for e in entries] == ["parallel-one-lost"]
    proc = audit_main("runs.jsonl", "--baseline", "b.json", "-f", "json", cwd=tmp_path)
    assert json.loads(proc.stdout)["summary"]["stale_baseline_entries"] == 0


def test_entries_of_files_this_run_did_not_read_are_not_stale(tmp_path):
    shutil.copy(LOST, tmp_path / "a.jsonl")
    shutil.copy(ORPHAN, tmp_path / "b.jsonl")
    assert (
        audit_main("a.jsonl", "b.jsonl", "--write-baseline", "b.json", cwd=tmp_path).returncode == 0
    )
    # pre-commit names only the changed file
    proc = audit_main("b.jsonl", "--baseline", "b.json", "-f", "json", cwd=tmp_path)
    assert json.loads(proc.stdout)["summary"]["stale_baseline_entries"] == 0


# GitHub code scanning's limits: what it would reject, or file under one alert.


def test_reports_meet_github_code_scanning_limits(validator):
    report = audit([FIXTURES / "demo", *sorted((FIXTURES / "rules").glob("*/bad_*"))])
    for doc in (sarif_of(REPORT), sarif_of(report)):
        validator.validate(doc)
        assert github_sarif_problems(doc) == []
    results = sarif_of(report)["runs"][0]["results"]
    hashes = [r["partialFingerprints"]["primaryLocationLineHash"] for r in results]
    assert hashes == [f.fingerprint for f in report.findings]


def eval_with_findings(tmp_path):
    """An Inspect `.eval` whose two sample members cannot be read, and whose third holds a
    tool result that answers no call: findings with no line, told apart by their member."""
    import zipfile

    source = FIXTURES / "formats" / "inspect-ai" / "approval-demo.eval"
    target = tmp_path / "run.eval"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename.startswith("samples/"):
                sample = json.loads(data)
                sample["messages"].append(
                    {"role": "tool", "tool_call_id": "call_zz", "content": "done"}
                )
                data = json.dumps(sample).encode()
            new.writestr(info.filename, data)
        new.writestr("samples/2_epoch_1.json", b"{not json")
        new.writestr("samples/3_epoch_1.json", b"{not json")
    return target


def test_findings_inside_an_eval_member_have_a_start_line_and_say_where(tmp_path, validator):
    target = eval_with_findings(tmp_path)
    proc = audit_main(target.name, "-f", "sarif", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    validator.validate(doc)
    assert github_sarif_problems(doc) == []
    results = doc["runs"][0]["results"]
    bad = "not valid JSON: unexpected character, expected a string key at line 1"
    assert [
        (r["ruleId"], r["locations"][0]["physicalLocation"]["region"], r["message"]["text"])
        for r in results
    ] == [
        (
            "EX002",
            {"startLine": 1},
            "tool result for call `call_zz` answers no earlier call "
            "(at /samples/1_epoch_1.json/messages/12)",
        ),
        ("IN001", {"startLine": 1}, f"{bad} (at /samples/2_epoch_1.json)"),
        ("IN001", {"startLine": 1}, f"{bad} (at /samples/3_epoch_1.json)"),
    ]


def test_concise_lines_name_the_eval_member_so_no_two_findings_read_alike(tmp_path):
    eval_with_findings(tmp_path)
    proc = audit_main("run.eval", "-f", "concise", cwd=tmp_path)
    bad = "not valid JSON: unexpected character, expected a string key at line 1"
    assert proc.stdout.decode().splitlines() == [
        "run.eval:/samples/1_epoch_1.json/messages/12: EX002 tool result for call `call_zz` "
        "answers no earlier call [fdob6U3CeEMEBDeAwdKgrj:1:1 turn 12]",
        f"run.eval:/samples/2_epoch_1.json: IN001 {bad}",
        f"run.eval:/samples/3_epoch_1.json: IN001 {bad}",
    ]


def test_results_past_githubs_limit_are_left_out_with_a_note(monkeypatch, validator):
    report = audit([FIXTURES / "demo"])  # 13 errors, 11 warnings
    monkeypatch.setattr(sarif, "RESULT_LIMIT", 15)
    out = io.StringIO()
    said = sarif.write(report, out, Context())
    doc = json.loads(out.getvalue())
    validator.validate(doc)
    results = doc["runs"][0]["results"]
    # Every error, then the first warnings, in report order.
    errors = [f for f in report.findings if f.severity is Severity.ERROR]
    warnings = [f for f in report.findings if f.severity is Severity.WARNING]
    kept = {f.fingerprint for f in [*errors, *warnings[:2]]}
    assert [r["partialFingerprints"]["auditor/v2"] for r in results] == [
        f.fingerprint for f in report.findings if f.fingerprint in kept
    ]
    note = (
        "15 of 24 results written: GitHub code scanning accepts at most 15 a run; the 9 left "
        "out are the least severe; -f json lists every finding"
    )
    assert said == note
    assert doc["runs"][0]["invocations"][0]["toolExecutionNotifications"][0] == {
        "level": "warning",
        "message": {"text": note},
    }
    assert doc["runs"][0]["properties"]["summary"]["findings"] == 24


def test_the_cap_is_said_on_stderr_by_the_command(monkeypatch, tmp_path):
    monkeypatch.setattr(sarif, "RESULT_LIMIT", 1)
    monkeypatch.chdir(tmp_path)
    result = invoke(LOST, "-f", "sarif:a.sarif")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "audit: sarif: 1 of 2 results written: GitHub code scanning accepts at most 1 a run; "
        "the 1 left out are the least severe; -f json lists every finding",
        "audit: wrote 2 findings to a.sarif (sarif)",
    ]
    assert len(json.loads((tmp_path / "a.sarif").read_text())["runs"][0]["results"]) == 1
