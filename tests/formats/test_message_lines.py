"""Plain messages one per line (`message_lines.py`): conversations split at a restart, other
lines reported alone."""

from __future__ import annotations

from auditor.replay import replay
from tests.helpers import FORMAT_DIR, audit, conversations_below


def test_message_lines_form_conversations_split_at_a_restart():
    path = FORMAT_DIR / "message-lines" / "three-runs.jsonl"
    runs = conversations_below(path)
    assert [(r.format, r.id.rsplit("/", 1)[1]) for r in runs] == [
        ("message-lines", "three-runs.jsonl:1"),  # the follow-up "And in Rome?" stays in it
        ("message-lines", "three-runs.jsonl:10"),  # the first question again, after an answer
        ("message-lines", "three-runs.jsonl:12"),  # a new system prompt
    ]
    assert [len(r.messages) for r in runs] == [9, 2, 3]
    assert [m.location.line for m in runs[0].messages] == list(range(1, 10))
    assert [(e.call.id, e.result_turn) for e in replay(runs[0]).exchanges] == [
        ("call_1", 3),
        ("call_2", 7),
    ]
    (finding,) = audit([path]).findings
    # the turn is the line's place in the file (0-based), as a person counts it
    assert (finding.code, finding.line, finding.turn) == ("EX001", 14, 13)


def test_message_lines_other_lines_are_reported_alone(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text(
        '{"role": "user", "content": "hi"}\n{"event": "ping"}\n'
        '{"role": "assistant", "content": "Hello! How can I help?"}\n'
    )
    report = audit([path])
    assert [(f.code, f.line) for f in report.findings] == [("IN002", 2)]
    (run,) = conversations_below(path)
    assert [m.role for m in run.messages] == ["user", "assistant"]
