"""Rule docs are the documentation everywhere: fixed headings, runnable examples, a fresh README."""

from __future__ import annotations

import re

import pytest

from auditor.rules import CLOSING_SECTIONS, RULES, SECTIONS
from scripts import docs
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


def test_generated_pages_and_tables_are_current():
    """ruff's generate_all --check: a page or table that differs from what the code says fails."""
    assert [str(p.relative_to(ROOT)) for p in docs.stale(ROOT)] == [], "run `make docs`"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for rule in RULES:
        assert f"| [{rule.code}](docs/rules/{rule.code}.md) | `{rule.name}` |" in readme
    assert sorted(p.stem for p in (ROOT / docs.RULE_PAGES).glob("*.md")) == sorted(
        r.code for r in RULES
    )


def test_a_rule_page_is_its_docstring(tmp_path):
    page = docs.rule_page("LP001")
    rule = next(r for r in RULES if r.code == "LP001")
    assert page.startswith("# LP001 repeated-tool-call\n")
    assert rule.summary in page and rule.doc.strip() in page
    assert "Options: `[tool.auditor.loops]`" in page
    # A stale page is found, and --write mends it.
    (tmp_path / "docs" / "rules").mkdir(parents=True)
    for name in docs.PAGES:
        (tmp_path / name).write_text((ROOT / name).read_text())
    (tmp_path / "tests" / "ecosystem").mkdir(parents=True)
    (tmp_path / docs.LEDGER).write_text((ROOT / docs.LEDGER).read_text())
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    for rule in RULES:
        (tmp_path / docs.RULE_PAGES / f"{rule.code}.md").write_text(docs.rule_page(rule.code))
    (tmp_path / docs.RULE_PAGES / "LP001.md").write_text("old\n")
    (tmp_path / docs.RULE_PAGES / "XX999.md").write_text("a rule that is gone\n")
    assert [p.name for p in docs.stale(tmp_path)] == ["LP001.md", "XX999.md"]


def test_sarif_help_uri_is_the_rule_page_in_the_repository():
    from auditor import REPOSITORY
    from auditor.reporters import sarif

    for rule in RULES:
        uri = sarif.descriptor(rule)["helpUri"]
        assert uri == f"{REPOSITORY}/blob/main/{docs.RULE_PAGES}/{rule.code}.md"
        assert (ROOT / uri.split("/blob/main/")[1]).is_file()


def test_precision_table_counts_the_ledgers_verdicts_per_rule(tmp_path):
    ledger = tmp_path / docs.LEDGER
    ledger.parent.mkdir(parents=True)
    verdicts = [("LP004", "true"), ("CF001", "false"), ("CF001", "true"), ("CF001", "unclear")]
    verdicts += [("CF001", "true"), ("CF001", "")]  # a stub nobody judged yet is not counted
    ledger.write_text("".join(f'{{"code": "{c}", "verdict": "{v}"}}\n' for c, v in verdicts))
    assert docs.precision_table(tmp_path).splitlines()[2:] == [
        "| CF001 | 4 | 2 | 1 | 1 | 50.0 % |",  # registry order
        "| LP004 | 1 | 1 | 0 | 0 | 100.0 % |",
        "| all | 5 | 3 | 1 | 1 | 60.0 % |",
    ]
    for page in docs.PAGES:  # and the pages' are the committed ledger's
        assert docs.precision_table(ROOT) in (ROOT / page).read_text(encoding="utf-8")


def test_a_rule_whose_findings_change_severity_says_so_in_its_row():
    """The rule table is what rules emit: a module that gives a finding another severity than
    its rule's (`severity=Severity.…` or `Severity.… if …`) declares `SEVERITY_CHANGES`, and
    its row in README.md and docs/rules.md shows it."""
    import importlib
    import inspect

    emits = re.compile(r"severity=Severity\.|Severity\.(?:ERROR|WARNING|NOTE) if ")
    readme = (ROOT / "README.md").read_text()
    for rule in RULES:
        module = importlib.import_module(f"auditor.rules.{rule.name.replace('-', '_')}")
        changes = emits.search(inspect.getsource(module)) is not None
        assert bool(rule.changes) == changes, rule.code
        if rule.changes:
            assert f"| {rule.severity.value} ({rule.changes}) |" in readme, rule.code
