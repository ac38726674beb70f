"""Records that hold no transcript inside a log that does (`_companions.py`): a header line
is counted, not reported; its nearest negatives are records nobody could read."""

from __future__ import annotations

import json

import pytest

from tests.helpers import audit, audit_process

CHAT = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]}


def test_a_header_line_is_counted_not_reported_and_the_file_is_what_follows(tmp_path):
    # AgentDojo's runs open with `{"metadata": {...}}`; the other lines are OpenAI chat.
    header = {"metadata": {"benchmark": "agent-dojo", "name": "command-r-plus"}}
    lines = [header, CHAT, CHAT, {"summary": {"accuracy": 0.25}, "version": "1"}]
    log = tmp_path / "run.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = audit([log])
    assert [f.code for f in report.findings] == []
    assert (report.counts.records, report.counts.conversations) == (4, 2)
    listed = audit_process("run.jsonl", "--show-files", cwd=tmp_path)
    assert listed.stdout.decode() == "run.jsonl\topenai\n"
    verbose = audit_process("run.jsonl", "-v", "-f", "concise", cwd=tmp_path).stderr.decode()
    assert "run.jsonl: header, openai; 4 records, 2 conversations" in verbose


@pytest.mark.parametrize(
    "record",
    [
        {"metadata": {"benchmark": "x"}, "messages_seen": 3},  # a key no header has
        {"version": "1", "name": "run"},  # no key that makes it a header
        {"metadata": {}, "results": [{"task": 1, "passed": True}]},  # what the run gave
    ],
)
def test_nearest_negatives_of_a_header_stay_records_nobody_could_read(tmp_path, record):
    log = tmp_path / "run.jsonl"
    log.write_text(json.dumps(CHAT) + "\n" + json.dumps(record) + "\n")
    report = audit([log])
    assert [(f.code, f.line) for f in report.findings] == [("IN002", 2)]


def test_a_file_of_a_header_alone_is_no_log(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "h.jsonl").write_text('{"metadata": {"a": 1}}\n')
    listed = audit_process("logs", "--show-files", cwd=tmp_path)
    assert listed.stdout.decode() == (
        "logs/h.jsonl\tskipped: no log shape: JSON object of no known log format (keys: metadata)\n"
    )
