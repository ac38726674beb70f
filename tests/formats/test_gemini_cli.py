"""Gemini CLI as it writes today: chat recordings (JSON and JSON Lines) and stream-json runs."""

from __future__ import annotations

from auditor.formats import gemini_cli
from auditor.model import Location, turn_of
from auditor.sources import Record
from tests.helpers import FORMAT_DIR, audit, conversations

GEMINI = FORMAT_DIR / "gemini-cli"


def _turns(path):
    (run,) = conversations(path)
    return run, [
        (m.role, [c.name for c in m.tool_calls], m.result.is_error if m.result else None)
        for m in run.messages
    ]


def test_a_chat_recording_is_read_with_its_calls_results_and_thoughts():
    run, turns = _turns(GEMINI / "chat-recording.json")
    assert (run.format, run.id, run.own_id) == (
        "gemini-cli",
        "f3c1a2b4-5d6e-4f70-8a9b-0c1d2e3f4a5b",
        True,
    )
    assert turns == [
        ("user", [], None),
        ("assistant", ["run_shell_command"], None),
        ("tool", [], True),  # "success", but the command's `Exit Code: 1`: the test failed
        ("assistant", ["replace", "read_file"], None),
        ("tool", [], True),  # status "error": its functionResponse's `error`
        ("tool", [], False),
        ("assistant", [], None),
    ]
    assert run.messages[0].text == "Fix the failing test in tests/test_paginate.py"
    assert run.messages[1].reasoning == "Reproducing: Run the failing test to see the error."
    assert run.messages[4].result.text.startswith("Failed to edit, 0 occurrences found")
    assert "1 failed in 0.04s" in run.messages[2].result.text
    # the `info` notice holds no turn; turns are the places in `messages`
    assert [turn_of(m) for m in run.messages] == [0, 1, 1, 3, 3, 3, 4]


def test_the_json_lines_recording_keeps_the_last_write_and_drops_what_was_rewound():
    run, turns = _turns(GEMINI / "chat-recording.jsonl")
    _, whole = _turns(GEMINI / "chat-recording.json")
    assert turns == whole  # the same conversation as the JSON form
    texts = [m.text for m in run.messages]
    assert "Let me rewrite the whole module." not in texts  # `$rewindTo` dropped it
    assert run.messages[2].result.text.startswith("Command: python -m pytest")  # last write
    # a rewritten message sits in its first place among the others, at the line of its last
    # write (line 4: the text a finding quotes is there)
    assert turn_of(run.messages[1]) == 3


def test_stream_json_runs_are_one_conversation_each_with_deltas_joined():
    first, second = conversations(GEMINI / "stream-json.jsonl")
    assert [first.id, second.id] == [
        "8d3c0d5e-6f1a-4b8e-9a51-2f6f0e2c1a11",
        "1b2c3d4e-0000-4000-8000-aaaaaaaaaaaa",
    ]
    assert [(m.role, m.text) for m in first.messages[:2]] == [
        ("user", "How many TODOs are in src/?"),
        ("assistant", "I'll search for them."),
    ]
    assert [c.name for c in first.messages[1].tool_calls] == ["search_file_content"]
    assert first.messages[3].tool_calls[0].arguments == {
        "absolute_path": "/home/dev/shop/src/missing.js"
    }
    assert first.messages[4].result.is_error is True
    assert first.messages[4].result.text == "File not found: /home/dev/shop/src/missing.js"
    assert [turn_of(m) for m in first.messages] == [1, 2, 5, 6, 7, 9]


def test_a_stream_is_read_whole_by_one_reader_and_its_findings_are_the_runs():
    report = audit([GEMINI / "stream-json.jsonl"])
    assert report.counts.tool_calls == 3
    found = [(f.code, f.line, f.turn) for f in report.findings]
    # the cancelled run ends on its call: nothing answered it
    assert found == [("EX001", 14, 13)]


def test_other_writers_lines_are_not_taken_for_gemini_events():
    claude = {
        "type": "user",
        "sessionId": "s1",
        "uuid": "u1",
        "timestamp": "2025-01-01T00:00:00Z",
        "message": {"role": "user", "content": "hi"},
    }
    bare = {"role": "user", "content": "hi"}
    codex = {"type": "response_item", "payload": {"type": "message"}}
    claude_result = {"type": "result", "subtype": "success", "session_id": "s1", "result": "ok"}
    for value in (claude, bare, codex, claude_result):
        assert not gemini_cli.detect(Record(value, Location("x.jsonl", 1), "json")), value
