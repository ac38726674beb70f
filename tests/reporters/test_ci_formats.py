"""GitLab Code Quality, GitHub annotations and JUnit XML, checked as their consumers read them."""

from __future__ import annotations

import json

import jsonschema
import pytest

from tests.helpers import DATA, FIXTURES, LOST, ORPHAN, audit_main

DEMO = FIXTURES / "demo"


@pytest.fixture(scope="module")
def gitlab_schema():
    schema = json.loads((DATA / "gitlab-codequality-schema.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_gitlab_code_quality_report_validates_and_names_repository_paths(gitlab_schema, tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "runs.jsonl").write_bytes(LOST.read_bytes() + ORPHAN.read_bytes())
    proc = audit_main("runs.jsonl", "-f", "gitlab", cwd=tmp_path / "logs")
    assert proc.returncode == 1
    assert not proc.stdout.startswith(b"\xef\xbb\xbf")  # GitLab's parser refuses a BOM
    issues = json.loads(proc.stdout)
    gitlab_schema.validate(issues)
    assert [(i["check_name"], i["severity"], i["location"]) for i in issues] == [
        ("EX001", "major", {"path": "logs/runs.jsonl", "lines": {"begin": 1}}),
        ("EX001", "major", {"path": "logs/runs.jsonl", "lines": {"begin": 2}}),
        ("EX002", "minor", {"path": "logs/runs.jsonl", "lines": {"begin": 3}}),
    ]
    assert issues[0]["description"].endswith("(conversation moved-on, turn 1)")


def test_github_annotations_name_repository_paths_from_a_subdirectory(tmp_path):
    """GitHub attaches `file=` to a path of the repository: the same as SARIF's and GitLab's,
    wherever in the repository `audit` runs."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "logs" / "a").mkdir(parents=True)
    (tmp_path / "logs" / "a" / "runs.jsonl").write_bytes(ORPHAN.read_bytes())
    for cwd, path in ((tmp_path / "logs", "a/runs.jsonl"), (tmp_path / "logs" / "a", ".")):
        proc = audit_main(path, "-f", "github", cwd=cwd)
        assert proc.returncode == 1
        assert proc.stdout.decode().splitlines()[0] == (
            "::warning file=logs/a/runs.jsonl,line=1,title=EX002 orphan-tool-result::tool result "
            "for call `call_9` answers no earlier call (conversation unknown-id, turn 1)"
        )


def test_gitlab_fingerprints_are_unique_even_for_repeated_findings(gitlab_schema, tmp_path):
    # The same conversation twice, without an id: the same finding, the same fingerprint.
    line = LOST.read_bytes().splitlines()[0]
    nameless = json.loads(line)
    del nameless["id"]
    (tmp_path / "twice.jsonl").write_text((json.dumps(nameless) + "\n") * 2)
    issues = json.loads(audit_main("twice.jsonl", "-f", "gitlab", cwd=tmp_path).stdout)
    gitlab_schema.validate(issues)
    fingerprints = [i["fingerprint"] for i in issues]
    assert len(fingerprints) == 2 and len(set(fingerprints)) == 2
    jsonl = audit_main("twice.jsonl", "-f", "jsonl", cwd=tmp_path).stdout.splitlines()
    assert fingerprints[0] == json.loads(jsonl[0])["fingerprint"]  # the first keeps its own


def test_demo_gitlab_report_validates(gitlab_schema):
    gitlab_schema.validate(json.loads(audit_main(DEMO, "-f", "gitlab").stdout))


def test_junit_reads_back_with_a_real_consumer(tmp_path):
    junitparser = pytest.importorskip("junitparser", reason="junitparser is a dev extra")
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "a.jsonl").write_bytes(LOST.read_bytes())
    (tmp_path / "logs" / "clean.jsonl").write_bytes(
        (FIXTURES / "rules" / "EX001" / "good_answered.jsonl").read_bytes()
    )
    target = tmp_path / "report.xml"
    proc = audit_main("logs", "-f", "junit", "-o", target, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    xml = junitparser.JUnitXml.fromfile(str(target))
    suites = {suite.name: suite for suite in xml}
    assert set(suites) == {"logs/a.jsonl", "logs/clean.jsonl"}
    failing = suites["logs/a.jsonl"]
    assert (failing.tests, failing.failures, failing.errors) == (2, 2, 0)
    cases = list(failing)
    assert [case.name for case in cases] == [
        "EX001 moved-on turn 1",
        "EX001 parallel-one-lost turn 1",
    ]
    (result,) = cases[0].result
    assert isinstance(result, junitparser.Failure)
    assert result.message.startswith("`get_weather` call `call_1` got no result")
    assert result.type == "EX001 unanswered-tool-call (error)"
    # A file without findings is a passing test case, not a missing one.
    (passed,) = list(suites["logs/clean.jsonl"])
    assert passed.is_passed and passed.name == "no findings"


def test_junit_escapes_what_xml_cannot_hold(tmp_path):
    junitparser = pytest.importorskip("junitparser", reason="junitparser is a dev extra")
    record = json.loads(LOST.read_bytes().splitlines()[0])
    record["id"] = "evil\x1b[31m\x00\ufffe]]>&<"
    (tmp_path / "a.jsonl").write_text(json.dumps(record) + "\n")
    proc = audit_main("a.jsonl", "-f", "junit", "-o", "r.xml", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    xml = junitparser.JUnitXml.fromfile(str(tmp_path / "r.xml"))
    (case,) = list(next(iter(xml)))
    assert case.name == "EX001 evil\\x1b[31m\\x00\\ufffe]]>&< turn 1"
