"""A team's own rules (`[[tool.auditor.rule]]`, `auditor.policies`): each check on its fixtures
in two log formats, and every mistake in a rule reported before anything is read.

`fixtures/policies/<check>/bad_*` must give exactly the findings of the `.expected` file beside
it with only that check's rule of `fixtures/policies/airline.toml` selected; `good_*` none.
`AUDITOR_UPDATE_EXPECTED=1` rewrites the expected files: review the diff.
"""

from __future__ import annotations

import json
import pickle
import re
import shlex
from pathlib import Path

import pytest

from auditor import config, engine
from auditor.common.errors import ConfigError
from tests.helpers import FIXTURES, brief, check_case, invoke

POLICIES = FIXTURES / "policies"
AIRLINE = POLICIES / "airline.toml"
CASES = sorted(
    p
    for p in POLICIES.glob("*/*")
    if p.suffix != ".expected"
    and p.name.startswith(("bad_", "good_"))
    and p.parent.name != "plugin"  # the example plugin's (test_plugins.py)
)


def _settings(select: list[str] | None = None, path: Path = AIRLINE) -> config.Settings:
    return config.build(select=select, file=config.read(path))


def _code(check: str) -> str:
    """The airline rule that makes `check` (`require_before` -> the require-before one)."""
    rule = next(r for r in _settings().user_rules if r.check.kind == check.replace("_", "-"))
    return rule.code


@pytest.mark.parametrize("case", CASES, ids=[f"{p.parent.name}_{p.name}" for p in CASES])
def test_policy_case(case: Path) -> None:
    code = _code(case.parent.name)
    check_case(case, engine.audit([str(case)], _settings([code])), code)


def test_each_check_is_tested_in_two_formats() -> None:
    from auditor.policies import checks

    for check in checks.CHECKS:
        names = {p.name for p in (POLICIES / check.replace("-", "_")).iterdir()}
        for kind in ("bad", "good"):
            assert {f"{kind}_openai.jsonl", f"{kind}_anthropic.json"} <= names, (check, kind)


def test_the_formats_agree() -> None:
    """The same conversations in OpenAI chat and Anthropic messages: the same findings, turn
    for turn (their lines and pointers differ)."""
    for folder in sorted(p for p in POLICIES.iterdir() if p.is_dir() and p.name != "plugin"):
        settings = _settings([_code(folder.name)])
        keep = ("code", "message", "conversation", "turn", "tool")
        found = [
            [
                {k: v for k, v in brief(f).items() if k in keep}
                for f in engine.audit([str(folder / name)], settings).findings
            ]
            for name in ("bad_openai.jsonl", "bad_anthropic.json")
        ]
        assert found[0] == found[1] and found[0], folder.name


def test_own_rules_are_selected_ignored_and_given_severities(tmp_path: Path) -> None:
    everything = _settings()
    assert [r.code for r in everything.rules if r.code.startswith("AIR")] == [
        "AIR001",
        "AIR002",
        "AIR003",
        "AIR004",
        "AIR005",
    ]  # ALL holds them
    head = 'ignore = ["AIR004", "card-number-in-reply"]\n[severity]\nsearch-spree = "note"\n'
    (tmp_path / "auditor.toml").write_text(head + AIRLINE.read_text())
    chosen = _settings(path=tmp_path / "auditor.toml")
    codes = {r.code for r in chosen.rules}
    assert {"AIR001", "AIR002", "AIR003"} <= codes and not {"AIR004", "AIR005"} & codes
    assert chosen.severity["AIR003"].value == "note"
    assert [r.code for r in _settings(["AIR"]).rules] == [
        "IN001",
        "AIR001",
        "AIR002",
        "AIR003",
        "AIR004",
        "AIR005",
    ]


def test_a_rule_runs_in_worker_processes() -> None:
    rule = next(r for r in _settings().user_rules if r.code == "AIR002")
    again = pickle.loads(pickle.dumps(rule))
    assert again.code == "AIR002" and again.check.kind == "forbid-call"
    settings = _settings(["AIR"])
    one = engine.audit([str(POLICIES)], settings, jobs=1)
    two = engine.audit([str(POLICIES)], settings, jobs=2)
    assert one.findings == two.findings and len(one.findings) == 12


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        (
            {"check": "require-befor"},
            "check must be one of require-before, forbid-call, max-calls, "
            "grounded-argument, forbid-text, got 'require-befor' (did you mean `require-before`?)",
        ),
        ({"where": "amount >"}, "where is not a JMESPath expression"),
        ({"code": "CF010"}, "code CF010 is in a built-in family (IN, FB, EX, CF, LP)"),
        ({"name": "unapproved-execution"}, "name unapproved-execution is a built-in rule's"),
        (
            {"message": "`{tool}` cost {amount}"},
            "message names `{amount}`, which a forbid-call rule does not give",
        ),
        ({"most": 3}, "has an unknown key `most`"),
        ({"call": []}, "call must be a tool name glob or a list of them"),
        ({"severity": "fatal"}, "severity must be error, warning or note, got 'fatal'"),
    ],
)
def test_a_mistake_is_one_line_naming_the_entry(tmp_path: Path, entry: dict, says: str) -> None:
    rule = {
        "code": "POL001",
        "name": "no-big-refunds",
        "description": "No refund above 500.",
        "check": "forbid-call",
        "call": "refund_*",
        "where": "amount > `500`",
    } | entry
    lines = ["[[rule]]", *(f"{k} = {json.dumps(v)}" for k, v in rule.items())]
    (tmp_path / "auditor.toml").write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError) as raised:
        _settings(path=tmp_path / "auditor.toml")
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"invalid config in {tmp_path / 'auditor.toml'}".split(" in ")[0])
    assert "[[rule]] entry 1" in message and says in message, message


def test_two_rules_may_not_share_a_code(tmp_path: Path) -> None:
    one = (
        '[[rule]]\ncode = "POL001"\nname = "a"\ndescription = "A."\n'
        'check = "forbid-text"\npattern = "x"\n'
    )
    (tmp_path / "auditor.toml").write_text(one + one.replace('"a"', '"b"'))
    with pytest.raises(ConfigError, match=r"entry 2 \(POL001\): code POL001 or name b is already"):
        _settings(path=tmp_path / "auditor.toml")


def test_explain_and_rules_show_the_configurations_own_rules() -> None:
    explained = invoke("--config", str(AIRLINE), "--explain", "AIR002")
    assert explained.exit_code == 0
    assert explained.stdout.startswith("# AIR002 basic-economy-change (error)\n\n")
    assert 'call = "update_reservation_flights"\nwhere = "cabin == \'basic_economy\'"\n' in (
        explained.stdout
    )
    family = invoke("--config", str(AIRLINE), "--explain", "AIR")
    assert family.stdout.startswith("# AIR: the configuration's own rules (5 rules)\n")
    listed = invoke("--config", str(AIRLINE), "--rules").stdout.splitlines()
    assert listed[-1].split() == [
        "AIR005",
        "card-number-in-reply",
        "error",
        "Never",
        "write",
        "a",
        "whole",
        "card",
        "number",
        "to",
        "the",
        "customer.",
    ]
    unknown = invoke("--config", str(AIRLINE), "--explain", "AIR009")
    assert unknown.exit_code == 2 and "(did you mean `AIR005`?)" in unknown.stderr


def test_a_rules_configuration_reads_back_as_written() -> None:
    import tomllib

    for rule in _settings().user_rules:
        shown = rule.sections["Configuration"].removeprefix("```toml\n").removesuffix("\n```")
        assert tomllib.loads(shown)["tool"]["auditor"]["rule"][0] == rule.check.entry


PAGE = FIXTURES.parent / "docs" / "own-rules.md"


def test_the_documented_policies_run_as_the_page_shows(tmp_path: Path) -> None:
    text = PAGE.read_text()
    toml = "\n".join(re.findall(r"```toml\n(.*?)```", text, re.S))
    assert toml == AIRLINE.read_text()  # the fixtures' configuration is the page's
    shown = re.findall(r"```console\n\$ audit (.*?)\n(.*?)```", text, re.S)
    assert len(shown) == 5
    (tmp_path / "airline.toml").write_text(toml)
    for command, output in shown:
        args = shlex.split(
            command.replace("fixtures/policies/airline.toml", str(tmp_path / "airline.toml"))
        )
        result = invoke(*args)
        assert result.exit_code == 1, (command, result.stderr)
        assert result.stdout == output, command


def test_own_findings_beside_findings_decided_at_the_end_of_the_run(tmp_path: Path) -> None:
    # FB003 holds back the claims of a log whose tools are inferred until the whole run is
    # read; a rule of the configuration's own is never held back, and is kept as it is.
    held = FIXTURES / "rules" / "FB003" / "good_no_tool_of_the_file_does_it.jsonl"
    (tmp_path / "auditor.toml").write_text(
        '[[rule]]\ncode = "POL001"\nname = "any-answer"\ndescription = "Any answer."\n'
        'check = "forbid-text"\npattern = "\\\\w"\n'
    )
    report = engine.audit([str(held)], _settings(["FB003", "POL001"], tmp_path / "auditor.toml"))
    assert not report.errors
    assert {f.code for f in report.findings} == {"POL001"}


def test_own_rules_are_suppressed_and_baselined_like_the_built_in_ones(tmp_path: Path) -> None:
    config_file = tmp_path / "auditor.toml"
    config_file.write_text(
        '[[suppress]]\npath = "*/forbid_text/*"\ncode = "card-number-in-reply"\n'
        'reason = "the test cards of the staging agent"\n\n' + AIRLINE.read_text()
    )
    logs = [str(POLICIES / "forbid_text" / "bad_openai.jsonl"), str(POLICIES / "max_calls")]
    run = ("--config", str(config_file), "--select", "AIR", "-f", "json", *logs)
    found = json.loads(invoke(*run).stdout)["findings"]
    assert [(f["code"], "suppressed" in f) for f in found] == [
        ("AIR005", True),
        ("AIR003", False),
        ("AIR003", False),
    ]
    baseline = tmp_path / "baseline.json"
    assert invoke(*run, "--write-baseline", str(baseline)).exit_code == 0
    again = invoke(*run, "--baseline", str(baseline))
    assert again.exit_code == 0  # what is left is the suppressed one, shown as such
    assert [(f["code"], "suppressed" in f) for f in json.loads(again.stdout)["findings"]] == [
        ("AIR005", True)
    ]


def test_a_mistake_in_a_rule_is_one_line_and_nothing_is_read(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.auditor.rule]]\ncode = "POL001"\nname = "x"\ndescription = "D."\n'
        'check = "forbid-call"\ncall = "refund_*"\nmessage = "{tool} refunded {amount}"\n'
    )
    result = invoke("--config", str(tmp_path / "pyproject.toml"), str(POLICIES))
    assert result.exit_code == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("audit: error: invalid config in ")
    assert line.endswith(
        "[[tool.auditor.rule]] entry 1 (POL001): message names `{amount}`, which a forbid-call "
        "rule does not give; it gives {code}, {name}, {tool}, {turn}, {arguments}"
    )
