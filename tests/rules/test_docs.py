"""Rule docs are the documentation everywhere: fixed headings, runnable examples, a fresh README."""

from __future__ import annotations

import itertools
import re

import pytest

from auditor import ruledocs
from auditor.rules import CLOSING_SECTIONS, RULES, SECTIONS
from scripts import docs
from tests.helpers import ROOT, audit, conversations

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
def test_the_sections_come_in_their_order(rule):
    """What it does, why it is bad, an example, how to fix it, then what it does not fire on:
    the order a reader of any page, `--explain` or the report's dialog finds them in."""
    order = [*SECTIONS, *CLOSING_SECTIONS]
    headings = [h for h in rule.sections if h in order]
    assert headings == sorted(headings, key=order.index), rule.code
    assert len(rule.sections["How to fix"].split()) >= 30, "say what to change, and where"


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
    assert rule.summary in page
    for heading, body in rule.sections.items():  # the prose as written, the examples shown
        assert f"\n## {heading}\n" in page
        assert FENCE.sub("", body).strip() in page
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


CONVERSATION = re.compile(r"^```text\n(.*?)^```$", re.DOTALL | re.MULTILINE)
LABEL = re.compile(r"^(tools|system|developer|user|assistant|tool)\b[^:]*: ")


def prose(page: str) -> list[str]:
    """The lines of a page outside fenced blocks."""
    lines, fenced = [], False
    for line in page.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_a_page_reads_as_text_lines_no_longer_than_120(rule):
    """Outside code blocks a page is short lines of prose (the examples' JSON Lines are in a
    code block, folded), and no tag a renderer would swallow (`<tool_call>` outside backticks
    vanishes on GitHub)."""
    page = docs.rule_page(rule.code)
    lines = prose(page)
    for line in lines:
        assert len(line) <= 120, f"{rule.code}: {line[:60]}…"
    bare = re.sub(r"(`+).+?\1", "", "\n".join(lines), flags=re.DOTALL)  # spans over lines too
    bare = re.sub(r"</?(details|summary)>|<!--|-->", "", bare)
    assert not re.findall(r".{0,30}<[A-Za-z/|].{0,30}", bare), f"{rule.code}: a tag outside code"


@pytest.mark.parametrize("rule", [r for r in RULES if r.family != "IN"], ids=lambda r: r.code)
def test_a_page_shows_each_example_as_the_conversation_the_readers_make_of_it(rule, tmp_path):
    """The example and the counterexamples are shown as `role: text` lines, one message a line
    (its further lines indented), in the order and with the roles the auditor's own reader
    gives them; the JSON Lines they come from is kept under each, folded."""
    page = docs.rule_page(rule.code)
    example = page.split("\n## Example\n", 1)[1]
    assert example.startswith("```text\n"), "the example is shown as a conversation first"
    logs = FENCE.findall(rule.doc)
    shown = CONVERSATION.findall(page)
    assert len(shown) == len(logs) and page.count("<details><summary>") == len(logs)
    for i, (log, talk) in enumerate(zip(logs, shown, strict=True)):
        assert f"```jsonl\n{log}```\n\n</details>" in page  # the log, to run it
        path = tmp_path / f"{i}.jsonl"
        path.write_text(log)
        read = [[m.role for m in c.messages] for c in conversations(path)]
        heads = [line for line in talk.splitlines() if line and not line.startswith(" ")]
        roles = [LABEL.match(h) for h in heads if not h.startswith(("---", "tools:"))]
        assert all(roles), heads
        said = [m.group(1) for m in roles if m]
        # A message with text and calls is one line each: count messages, not lines.
        assert [r for r, _ in itertools.groupby(said)] == [
            r for r, _ in itertools.groupby(role for c in read for role in c)
        ]
        assert max(map(len, talk.splitlines())) <= ruledocs.WIDTH + 20


def test_the_input_rules_show_their_records_as_they_are():
    """IN001 and IN002 are about records, not conversations: their examples stay JSON Lines."""
    for code in ("IN001", "IN002"):
        page = docs.rule_page(code)
        assert "```text" not in page and "```jsonl" in page and "<details>" not in page


def test_a_conversation_is_written_one_message_a_line():
    record = {
        "tools": [{"name": "paint", "input_schema": {"properties": {"c": {"enum": ["red"]}}}}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Paint"}, {"type": "image"}]},
            {
                "role": "assistant",
                "content": "Sure.\n```\nnot a fence\n```",
                "tool_calls": [
                    {"id": "c1", "function": {"name": "paint", "arguments": '{"c":"red"}'}},
                    {"function": {"name": "paint", "arguments": {"c": "blue"}}},
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "ok\u202e"},
            {"role": "tool", "name": "paint", "content": "ok"},
            {"role": "assistant", "content": None},
            {"role": "user", "content": "word " * 40},
        ],
    }
    lines = ruledocs.conversation(record, width=60)
    assert lines[:9] == [
        'tools: paint(c: "red")',
        "user: Paint",
        "    [image]",
        "assistant: Sure.",
        "    ```",  # indented by four: it cannot close the fence it is shown in
        "    not a fence",
        "    ```",
        'assistant → c1: paint({"c":"red"})',  # the arguments as the log wrote them
        'assistant →: paint({"c": "blue"})',
    ]
    assert lines[9:12] == ["tool ← c1: ok\\u202e", "tool (paint): ok", "assistant: (empty)"]
    assert lines[12].startswith("user: word") and all(len(x) <= 60 for x in lines[12:])
    assert all(x.startswith("    word") for x in lines[13:])
    assert ruledocs.conversation({"event": "heartbeat"}) is None
    assert ruledocs.conversation([{"role": "user", "content": "hi"}]) is None
    assert ruledocs.conversations('{"messages": []}\nnot json') is None
