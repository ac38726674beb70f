"""Formats declared in the configuration (`_mapped.py`): docs/formats.md's example read as it
says, each wrong mapping one error line, JSON Lines and documents, headers, calls paired by
position, the final call."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from auditor import config, engine, formats, sources
from auditor.formats import FileReader
from auditor.model import Conversation
from tests.helpers import ROOT, audit_process

FORMATS_DOC = (ROOT / "docs" / "formats.md").read_text()


SECTION = FORMATS_DOC[FORMATS_DOC.index("## Your own formats") :]


def _example(tmp_path: Path) -> Path:
    toml, document = re.findall(r"```(?:toml|json)\n(.*?)```", SECTION, re.S)[:2]
    (tmp_path / "pyproject.toml").write_text(toml)
    (tmp_path / "runs.json").write_text(document)
    return tmp_path


def test_the_readmes_declared_format_is_read_as_it_says(tmp_path):
    _example(tmp_path)
    proc = audit_process("runs.json", "-q", cwd=tmp_path)
    (said,) = re.findall(r"```console\n\$ audit runs.json -q\n(.*?)\n```", SECTION, re.S)
    assert proc.stdout.decode().strip() == said
    assert proc.returncode == 1
    # the same with worker processes: a declared format crosses to them
    jobs = audit_process("runs.json", "-q", "--jobs", "2", cwd=tmp_path)
    assert jobs.stdout.decode().strip() == said
    listed = audit_process("runs.json", "--show-files", cwd=tmp_path)
    assert listed.stdout.decode() == "runs.json\tacme-runs\n"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ('messages = "steps"', 'messages = "events"'),
            "[tool.auditor.formats.acme-runs] `messages` = `events` matches nothing in runs.json, "
            "a record its `detect` takes: check the expression against the record",
        ),
        (
            ('detect = "schema', 'detect = "schema =='),
            "[tool.auditor.formats.acme-runs] `detect` = `schema == == 'acme.run/2'` is not a "
            "JMESPath expression: ",
        ),
        (
            ('call-id = "ref"', 'call_id = "ref"'),
            "[tool.auditor.formats.acme-runs] unknown key `call_id` (did you mean `call-id`?)",
        ),
        (('role = "actor"\n', ""), "[tool.auditor.formats.acme-runs] `role` is required"),
        (
            ('bot = "assistant"', 'bot = "agent"'),
            "[tool.auditor.formats.acme-runs] `roles` maps to `agent`; map to one of user, ",
        ),
        (
            ("formats.acme-runs]", "formats.openai]"),
            "[tool.auditor.formats.openai] is named as a built-in or plugin format: rename it",
        ),
        # issue 37, item 3: a hostile expression is a configuration error, not a crash
        (
            ('detect = "schema', 'detect = "' + "(" * 990 + "schema"),
            "[tool.auditor.formats.acme-runs] `detect` is nested too deep to be read as a "
            "JMESPath expression",
        ),
        (  # issue 40: a key that finds nothing would give calls with no name
            ('call-name = "fn"', 'call-name = "function"'),
            "[tool.auditor.formats.acme-runs] `call-name` = `function` finds nothing in any of "
            "the 4 calls of runs.json, a record its `detect` takes: check the expression",
        ),
        (  # issue 37: an expression that doubles its input at every stage
            ('detect = "schema', 'detect = "' + "[@,@][] | " * 11 + "[0].schema"),
            "[tool.auditor.formats.acme-runs] `detect` could build 2,834,348 times the size of "
            "the record it reads (lists of `@` piped into lists of `@`, `to_string` of",
        ),
        (
            ('id = "run_id"', 'id = "' + "run_id || " * 300 + 'run_id"'),
            "[tool.auditor.formats.acme-runs] `id` is 3,006 characters long: at most 2,000",
        ),
    ],
)
def test_a_wrong_mapping_is_one_line_naming_the_table_and_key(tmp_path, change, message):
    _example(tmp_path)
    toml = tmp_path / "pyproject.toml"
    toml.write_text(toml.read_text().replace(*change, 1))
    proc = audit_process("runs.json", cwd=tmp_path)
    assert proc.returncode == 2
    (line,) = proc.stderr.decode().splitlines()
    assert line.startswith(f"audit: error: invalid config in pyproject.toml: {message}")
    assert "Traceback" not in proc.stderr.decode()


def test_a_declared_format_reads_json_lines_and_documents_alike(tmp_path):
    declared = formats.declare(
        "ticket",
        {"detect": "ticket", "messages": "log", "role": "who", "text": "said", "id": "ticket"},
        "[formats.ticket]",
    )
    (tmp_path / "t.jsonl").write_text(
        '{"ticket": "T-1", "log": [{"who": "user", "said": "hi there, my printer is broken"}, '
        '{"who": "assistant", "said": "Sorry to hear it."}]}\n'
        '{"ticket": "T-2", "log": [{"who": "user"}, {"said": "no role"}]}\n'
    )
    settings = config.Settings(rules=config.build().rules, formats=(declared,))
    report = engine.audit([str(tmp_path / "t.jsonl")], settings)
    assert report.counts.conversations == 2
    (problem,) = [f for f in report.findings if f.code == "IN002"]
    assert problem.line == 2 and problem.message.startswith("`role` found no string here (ticket)")


def test_a_declared_format_passes_headers_pairs_by_position_and_reads_the_final_call(tmp_path):
    declared = formats.declare(
        "toolbench",
        {
            "detect": "answer_generation.train_messages",
            "skip": "summary",
            "messages": "answer_generation.train_messages[-1]",
            "role": "role",
            "roles": {"function": "tool"},
            "text": "content",
            "calls": "function_call",
            "call-name": "name",
            "call-arguments": "arguments",
            "final-call": "Finish",
        },
        "[formats.toolbench]",
    )
    finish = '{"return_type": "give_answer", "final_answer": "It is 12C in Paris."}'
    chain = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "function_call": {"name": "get_weather", "arguments": "{}"}},
        {"role": "function", "name": "get_weather", "content": "12C"},
        {"role": "assistant", "function_call": {"name": "get_weather", "arguments": "{}"}},
        {"role": "function", "name": "get_weather", "content": "12C"},
        {"role": "assistant", "function_call": {"name": "Finish", "arguments": finish}},
    ]
    log = tmp_path / "run.jsonl"
    log.write_text(
        json.dumps({"summary": {"runs": 1}})
        + "\n"
        + json.dumps({"answer_generation": {"train_messages": [chain]}})
        + "\n"
    )
    settings = config.Settings(rules=config.build().rules, formats=(declared,))
    report = engine.audit([str(log)], settings)
    counts = report.counts
    assert (counts.records, counts.conversations, counts.tool_calls) == (2, 1, 2)
    assert counts.tool_results == 2  # paired by position: no id anywhere
    assert [f.code for f in report.findings] == []  # no EX001, EX002, no IN002 for the header
    (run,) = read_with(log, declared)
    assert run.messages[-1].role == "assistant"
    assert run.messages[-1].text == "It is 12C in Paris." and not run.messages[-1].tool_calls


def read_with(path: Path, declared) -> list[Conversation]:
    reader = FileReader(declared=(declared,))
    found = []
    kind, compressed = sources.kind_of(str(path))
    for record in sources.read(sources.Source(str(path), kind, compressed, True)):
        if isinstance(record, sources.Record):
            found += [c for c in reader.feed(record) if isinstance(c, Conversation)]
    found += [c for c in reader.finish() if isinstance(c, Conversation)]
    return found
