"""Rule docs are the documentation everywhere: fixed headings, runnable examples, a fresh README."""

from __future__ import annotations

import re

import pytest

from auditor import docs
from auditor.rules import CLOSING_SECTIONS, RULES, SECTIONS
from tests.helpers import ROOT, audit

FENCE = re.compile(r"^```jsonl\n(.*?)^```$", re.DOTALL | re.MULTILINE)  # a fence on its own line


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_docstring_has_the_fixed_headings(rule):
    assert rule.summary.endswith("."), "the first line is one sentence"
    for heading in SECTIONS:
        assert rule.sections.get(heading), f"{rule.code} lacks `## {heading}`"
    assert any(rule.sections.get(h) for h in CLOSING_SECTIONS), (
        f"{rule.code} needs `## Does not fire on` or `## Use instead`"
    )


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_example_fires_and_counterexample_does_not(rule, tmp_path):
    (example,) = FENCE.findall(rule.sections["Example"])
    bad = tmp_path / "example.jsonl"
    bad.write_text(example)
    report = audit([bad], select=[rule.code])
    assert report.findings, f"the example in {rule.code}'s docs does not fire"
    assert {f.code for f in report.findings} == {rule.code}
    closing = rule.sections.get("Does not fire on", "")
    for i, counter in enumerate(FENCE.findall(closing)):
        good = tmp_path / f"counter{i}.jsonl"
        good.write_text(counter)
        assert audit([good], select=[rule.code]).findings == ()


def test_readme_rule_table_and_demo_output_are_current():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert docs.update(readme, ROOT) == readme, "README is stale: run `make docs`"
    for rule in RULES:
        assert f"| {rule.code} | `{rule.name}` |" in readme


def test_precision_table_counts_the_ledgers_verdicts_per_rule(tmp_path):
    ledger = tmp_path / docs.LEDGER
    ledger.parent.mkdir(parents=True)
    verdicts = [("LP004", "true"), ("CF001", "false"), ("CF001", "true"), ("CF001", "unclear")]
    verdicts += [("CF001", "true"), ("CF001", "")]  # a stub nobody judged yet is not counted
    ledger.write_text("".join(f'{{"code": "{c}", "verdict": "{v}"}}\n' for c, v in verdicts))
    assert docs.precision_table(tmp_path).splitlines()[2:] == [
        "| CF001 | `approved-arguments-changed` | 4 | 2 | 1 | 1 | 50.0 % |",  # registry order
        "| LP004 | `repeated-assistant-message` | 1 | 1 | 0 | 0 | 100.0 % |",
        "| all |  | 5 | 3 | 1 | 1 | 60.0 % |",
    ]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert docs.precision_table(ROOT) in readme  # and the README's is the committed ledger's
