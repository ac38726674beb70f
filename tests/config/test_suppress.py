"""Suppressions with a reason (`[[tool.auditor.suppress]]`), through the real command."""

from __future__ import annotations

import json

import jsonschema
import pytest

from auditor.compare import from_document
from tests.helpers import DATA, audit_main


def conversation(cid: str, unanswered: int) -> str:
    """A conversation whose first `unanswered` `lookup` calls get no result (EX001 each, at
    turns 1, 3, 5, ...)."""
    messages: list[dict] = [{"role": "user", "content": "Look things up"}]
    for n in range(unanswered):
        call = {
            "id": f"call_{cid}_{n}",
            "type": "function",
            "function": {"name": "lookup", "arguments": json.dumps({"key": n})},
        }
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "assistant", "content": f"Moving on from {n}."})
    return json.dumps({"id": cid, "messages": messages}) + "\n"


@pytest.fixture
def logs(tmp_path):
    """logs/a.jsonl: run-a with EX001 at turns 1, 3, 5 and run-b at turn 1; logs/b.jsonl the
    same conversations again."""
    (tmp_path / "logs").mkdir()
    for name in ("a.jsonl", "b.jsonl"):
        (tmp_path / "logs" / name).write_text(conversation("run-a", 3) + conversation("run-b", 1))
    return tmp_path


def where(rows: list[dict], suppressed: bool) -> list[tuple]:
    return [
        (r["path"], r["conversation"], r["turn"]) for r in rows if ("suppressed" in r) == suppressed
    ]


def findings(proc) -> list[dict]:
    return json.loads(proc.stdout)["findings"]


def run(cwd, *args):
    return audit_main("logs", "--select", "EX001", *args, cwd=cwd)


def configure(cwd, body: str, name: str = "pyproject.toml") -> None:
    head = "[tool.auditor]\n" if name == "pyproject.toml" else ""
    (cwd / name).write_text(head + body)


def test_a_fingerprint_entry_suppresses_that_finding_and_no_other(logs):
    every = findings(run(logs, "-f", "json"))
    assert len(every) == 8
    chosen = every[2]
    configure(
        logs,
        f'\n[[tool.auditor.suppress]]\nfingerprint = "{chosen["fingerprint"]}"\n'
        'reason = "the lookup service was down that night"\n',
    )
    proc = run(logs, "-f", "jsonl")
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["fingerprint"] for r in rows] == [f["fingerprint"] for f in every]
    (suppressed,) = [r for r in rows if "suppressed" in r]
    assert suppressed["fingerprint"] == chosen["fingerprint"]
    assert suppressed["suppressed"] == {
        "entry": 1,
        "reason": "the lookup service was down that night",
    }
    assert "audit: 1 finding suppressed by 1 suppress entry" in proc.stderr.decode().splitlines()
    assert proc.returncode == 1  # the seven others still fail the run


def test_path_conversation_turns_and_code_narrow_an_entry(logs):
    configure(
        logs,
        "\n[[tool.auditor.suppress]]\n"
        'path = "logs/a.jsonl"\nconversation = "run-a"\nturns = "2-5"\ncode = "EX"\n'
        'reason = "known flaky lookups"\n'
        "\n[[tool.auditor.suppress]]\n"  # the right file, another rule: nothing
        'path = "logs/b.jsonl"\ncode = "FB00"\nreason = "no such findings"\n'
        "\n[[tool.auditor.suppress]]\n"  # a single turn, a name-only glob
        'path = "b.jsonl"\nconversation = "run-b"\nturns = 1\ncode = "unanswered-tool-call"\n'
        'reason = "run-b is a negative control"\n',
    )
    proc = run(logs, "-f", "json")
    doc = json.loads(proc.stdout)
    assert where(doc["findings"], suppressed=True) == [
        ("logs/a.jsonl", "run-a", 3),
        ("logs/a.jsonl", "run-a", 5),
        ("logs/b.jsonl", "run-b", 1),
    ]
    assert where(doc["findings"], suppressed=False) == [
        ("logs/a.jsonl", "run-a", 1),
        ("logs/a.jsonl", "run-b", 1),
        ("logs/b.jsonl", "run-a", 1),
        ("logs/b.jsonl", "run-a", 3),
        ("logs/b.jsonl", "run-a", 5),
    ]
    assert [f["suppressed"]["entry"] for f in doc["findings"] if "suppressed" in f] == [1, 1, 3]
    summary = doc["summary"]
    assert (summary["findings"], summary["suppressed"], summary["stale_suppressions"]) == (5, 3, 1)
    assert summary["by_rule"] == {"EX001": 5}
    assert [(e["entry"], e["suppressed"], e["stale"]) for e in doc["suppressions"]] == [
        (1, 2, False),
        (2, 0, True),
        (3, 1, False),
    ]
    assert doc["suppressions"][0] == {
        "entry": 1,
        "path": "logs/a.jsonl",
        "conversation": "run-a",
        "turns": "2-5",
        "code": "EX",
        "reason": "known flaky lookups",
        "suppressed": 2,
        "stale": False,
    }


def test_suppressed_findings_fail_no_run_and_the_table_does_not_list_them(logs):
    configure(
        logs,
        '\n[[tool.auditor.suppress]]\npath = "logs/**"\nreason = "a replayed incident"\n',
    )
    proc = run(logs, "-f", "table")
    assert proc.returncode == 0
    text = proc.stdout.decode()
    assert "No new findings." in text
    assert "got no result" not in text
    assert "8 findings suppressed by 1 suppress entry" in text
    for fmt in ("concise", "github", "gitlab", "junit"):
        proc = run(logs, "-f", fmt)
        assert proc.returncode == 0, fmt
        assert b"got no result" not in proc.stdout, fmt
    assert run(logs, "-f", "concise", "--fail-on", "note").returncode == 0


def test_stale_entries_are_named_on_stderr_and_counted(logs):
    configure(
        logs,
        '\n[[tool.auditor.suppress]]\npath = "logs/a.jsonl"\ncode = "EX002"\nreason = "old"\n'
        '\n[[tool.auditor.suppress]]\npath = "logs/archive/**"\nreason = "not read today"\n'
        '\n[[tool.auditor.suppress]]\nfingerprint = "0123456789abcdef0123"\nreason = "gone"\n',
    )
    proc = audit_main("logs", "-f", "jsonl", cwd=logs)
    stderr = proc.stderr.decode().splitlines()
    assert stderr[:2] == [
        'audit: suppress entry 1 (path "logs/a.jsonl", code "EX002") of pyproject.toml matched '
        "no finding (fixed, or changed): remove it",
        'audit: suppress entry 3 (fingerprint "0123456789abcdef0123") of pyproject.toml matched '
        "no finding (fixed, or changed): remove it",
    ]
    doc = json.loads(audit_main("logs", "-f", "json", cwd=logs).stdout)
    # Entry 2 names files this run did not read (pre-commit names only those changed): not stale.
    assert doc["summary"]["stale_suppressions"] == 2
    assert [e["stale"] for e in doc["suppressions"]] == [True, False, True]


def test_verbose_says_what_each_entry_suppressed(logs):
    configure(
        logs,
        '\n[[tool.auditor.suppress]]\npath = "logs/b.jsonl"\nreason = "replayed"\n'
        '\n[[tool.auditor.suppress]]\npath = "logs/a.jsonl"\nturns = 3\nreason = "flaky"\n',
    )
    lines = run(logs, "-f", "jsonl", "-v").stderr.decode().splitlines()
    assert "audit: logs/a.jsonl: openai; 2 records, 2 conversations, 3 findings (1 suppressed)" in (
        lines
    )
    assert 'audit: suppress entry 1 (path "logs/b.jsonl"): 4 findings suppressed (replayed)' in (
        lines
    )
    assert (
        'audit: suppress entry 2 (path "logs/a.jsonl", turns 3): 1 finding suppressed (flaky)'
        in (lines)
    )
    assert "audit: 5 findings suppressed by 2 suppress entries" in lines


@pytest.fixture(scope="module")
def validator():
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def test_sarif_keeps_suppressed_results_with_their_justification(logs, validator):
    configure(
        logs,
        '\n[[tool.auditor.suppress]]\npath = "logs/a.jsonl"\nreason = "the service was down"\n',
    )
    proc = run(logs, "-f", "sarif")
    assert proc.returncode == 1  # logs/b.jsonl still has findings
    doc = json.loads(proc.stdout)
    validator.validate(doc)
    results = doc["runs"][0]["results"]
    assert len(results) == 8
    suppressed = [r for r in results if "suppressions" in r]
    assert [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in suppressed
    ] == (["logs/a.jsonl"] * 4)
    assert suppressed[0]["suppressions"] == [
        {
            "kind": "external",
            "status": "accepted",
            "justification": "the service was down",
            "properties": {"entry": 1},
            "location": {
                "physicalLocation": {
                    "artifactLocation": {"uri": "pyproject.toml", "uriBaseId": "%SRCROOT%"}
                }
            },
        }
    ]
    assert not any("baselineState" in r for r in results)
    assert doc["runs"][0]["properties"]["summary"]["suppressed"] == 4


def test_the_baseline_records_no_suppressed_finding(logs):
    configure(logs, '\n[[tool.auditor.suppress]]\npath = "logs/a.jsonl"\nreason = "down"\n')
    proc = run(logs, "--write-baseline", "b.json")
    assert proc.stderr.decode().splitlines()[0] == "audit: wrote 4 findings to b.json"
    recorded = json.loads((logs / "b.json").read_text())["findings"]
    assert {e["path"] for e in recorded} == {"logs/b.jsonl"}
    proc = run(logs, "--baseline", "b.json", "-f", "json")
    assert proc.returncode == 0
    summary = json.loads(proc.stdout)["summary"]
    assert (summary["findings"], summary["baselined"], summary["suppressed"]) == (0, 4, 4)
    assert summary["stale_baseline_entries"] == 0


def test_show_settings_lists_the_entries(logs):
    configure(
        logs,
        '\n[[tool.auditor.suppress]]\npath = "logs/*.jsonl"\ncode = ["EX001", "LP"]\n'
        'turns = "3-3"\nreason = "known"\n',
    )
    out = audit_main("logs", "--show-settings", cwd=logs).stdout.decode()
    assert out.endswith(
        "\n[[suppress]]  # entry 1, pyproject.toml\n"
        'path = "logs/*.jsonl"\nturns = 3\ncode = ["EX001", "LP"]\nreason = "known"\n'
    )


def test_compare_counts_no_suppressed_finding_of_a_report():
    doc = {
        "summary": {"conversations": 2},
        "findings": [
            {"code": "EX001", "conversation": "a"},
            {"code": "EX001", "conversation": "b", "suppressed": {"entry": 1, "reason": "x"}},
        ],
    }
    assert from_document("base", doc).findings == (("EX001", "a"),)


# Errors: one line naming the file and the entry, exit status 2.


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '[[tool.auditor.suppress]]\npath = "logs/**"\n',
            "[[tool.auditor.suppress]] entry 1 needs a reason: why its findings are acceptable "
            '(reason = "…")',
        ),
        (
            '[[tool.auditor.suppress]]\npath = "logs/**"\nreason = "ok"\n'
            '[[tool.auditor.suppress]]\npath = "logs/**"\nreason = "  "\n',
            "[[tool.auditor.suppress]] entry 2 needs a reason: why its findings are acceptable "
            '(reason = "…"), got "  "',
        ),
        (
            '[[tool.auditor.suppress]]\npath = "logs/**"\nreason = "ok"\nturn = 3\n',
            "[[tool.auditor.suppress]] entry 1 has an unknown key `turn` (did you mean `turns`?); "
            "the keys are fingerprint, path, conversation, turns, code, reason",
        ),
        (
            '[[tool.auditor.suppress]]\ncode = "EX001"\nreason = "ok"\n',
            "[[tool.auditor.suppress]] entry 1 matches no finding: give a fingerprint, or a path "
            "(a glob)",
        ),
        (
            '[[tool.auditor.suppress]]\npath = "logs/**"\nturns = "8-3"\nreason = "ok"\n',
            "[[tool.auditor.suppress]] entry 1: turns must be a turn (5) or a range of turns "
            '("3-8"), got "8-3"',
        ),
        (
            '[[tool.auditor.suppress]]\nfingerprint = "abc"\nreason = "ok"\n',
            "[[tool.auditor.suppress]] entry 1: fingerprint must be the 20 hex digits a report "
            'gives, got "abc"',
        ),
        (
            '[[tool.auditor.suppress]]\npath = "logs/**"\ncode = "ZZ"\nreason = "ok"\n',
            "[[tool.auditor.suppress]] entry 1: code: unknown rule selector `ZZ`",
        ),
        (
            '[[tool.auditor.ignore]]\npath = "logs/**"\nreason = "ok"\n',
            "[tool.auditor] ignore is a list of rules; to suppress findings with a reason, write "
            "[[tool.auditor.suppress]] entries",
        ),
    ],
)
def test_a_bad_entry_is_one_line_naming_the_file_and_the_entry(logs, body, message):
    (logs / "pyproject.toml").write_text(body)
    proc = run(logs)
    assert (proc.returncode, proc.stdout) == (2, b"")
    line = proc.stderr.decode()
    assert line.startswith(f"audit: error: invalid config in pyproject.toml: {message}")
    assert line.count("\n") == 1
    assert "Traceback" not in line


def test_a_standalone_file_names_its_entries_as_written_there(logs):
    configure(logs, '[[suppress]]\npath = "logs/**"\n', name=".auditor.toml")
    proc = run(logs)
    assert proc.returncode == 2
    assert proc.stderr.decode() == (
        "audit: error: invalid config in .auditor.toml: [[suppress]] entry 1 needs a reason: "
        'why its findings are acceptable (reason = "…")\n'
    )


# --add-ignore FINGERPRINT --reason: the entry written for you -------------------------------


def _first(cwd) -> dict:
    return findings(run(cwd, "-f", "json"))[0]


def test_add_ignore_appends_an_entry_to_the_configuration_found(logs):
    configure(logs, 'fail-on = "error"\n')  # a pyproject.toml with [tool.auditor]
    chosen = _first(logs)
    proc = run(logs, "--add-ignore", chosen["fingerprint"], "--reason", 'run-a\'s "lookup" stub')
    assert proc.returncode == 0 and proc.stdout == b""
    assert proc.stderr.decode() == (
        f"audit: added a suppress entry for {chosen['fingerprint']} to pyproject.toml\n"
    )
    assert (logs / "pyproject.toml").read_text() == (
        '[tool.auditor]\nfail-on = "error"\n\n'
        f"# EX001 unanswered-tool-call: logs/a.jsonl:1 [run-a turn 1]\n"
        f'[[tool.auditor.suppress]]\nfingerprint = "{chosen["fingerprint"]}"\n'
        'reason = "run-a\'s \\"lookup\\" stub"\n'
    )
    (suppressed,) = [r for r in findings(run(logs, "-f", "json")) if "suppressed" in r]
    assert suppressed["fingerprint"] == chosen["fingerprint"]
    again = run(logs, "--add-ignore", chosen["fingerprint"], "--reason", "twice")
    assert again.returncode == 0
    assert (
        again.stderr.decode()
        == f"audit: {chosen['fingerprint']} is already suppressed in pyproject.toml\n"
    )


def test_add_ignore_without_a_configuration_writes_a_standalone_one(logs):
    chosen = _first(logs)
    proc = audit_main("--add-ignore", chosen["fingerprint"], "--reason", "known", cwd=logs)
    assert proc.returncode == 0
    assert (logs / ".auditor.toml").read_text() == (
        f'[[suppress]]\nfingerprint = "{chosen["fingerprint"]}"\nreason = "known"\n'
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--add-ignore", "0123456789abcdef0123"], '--add-ignore needs --reason "why'),
        (["--add-ignore", "xyz", "--reason", "r"], "--add-ignore `xyz` is not a fingerprint"),
        (
            ["--add-ignore", "0123456789abcdef0123", "--reason", "r", "logs"],
            "--add-ignore: no finding of logs is 0123456789abcdef0123",
        ),
        (["--reason", "r", "logs"], "--reason goes with --add-ignore FINGERPRINT"),
        (
            ["--add-ignore", "0123456789abcdef0123", "--reason", "r", "--isolated"],
            "--add-ignore writes the configuration: drop --isolated",
        ),
    ],
)
def test_add_ignore_mistakes_are_one_line_and_write_nothing(logs, args, says):
    proc = audit_main(*args, cwd=logs)
    assert proc.returncode == 2
    (line,) = proc.stderr.decode().splitlines()
    assert line.startswith("audit: error: ") and says in line
    assert not (logs / ".auditor.toml").exists() and not (logs / "pyproject.toml").exists()
