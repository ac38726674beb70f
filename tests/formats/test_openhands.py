"""OpenHands agent-SDK (V1) events (`openhands.py`): a folder of event files, benchmark records,
observations, rejections and agent errors; and the real events of both OpenHands readers in
../shared/realdata-3 (skipped in a user's clone)."""

from __future__ import annotations

import json
from collections import Counter

from auditor import sources
from auditor.replay import replay
from tests.formats.shared import replayed_calls
from tests.helpers import FORMAT_DIR, REALDATA_3, audit, conversations_below, requires_realdata_3


def test_openhands_folder_of_event_files_is_one_source_and_one_conversation(tmp_path):
    folder = FORMAT_DIR / "openhands" / "confirmation-mode"
    found = list(sources.discover([str(FORMAT_DIR / "openhands")]))
    events = [f for f in found if isinstance(f, sources.Source) and f.kind == "events"]
    assert [(f.path, f.explicit) for f in events] == [(str(folder), False)]
    assert not any(getattr(f, "path", "").startswith(str(folder) + "/") for f in found)
    (run,) = conversations_below(folder)
    assert (run.format, run.id) == ("openhands", str(folder))
    assert [t.name for t in run.tools][:2] == ["terminal", "file_editor"]
    assert [m.role for m in run.messages[:4]] == ["system", "user", "assistant", "tool"]
    assert [m[:3] + m[3:] for m in replayed_calls(run)] == [
        (2, "terminal", "echo hello world", False, None),
        (6, "terminal", "echo hello world", False, None),
        (10, "terminal", "echo hello world", False, None),
    ]
    assert run.messages[3].location.path.endswith(
        "event-00003-abf5b534-5c6f-4aa4-b01a-614602dead85.json"
    )
    report = audit([folder])
    assert (report.counts.files, report.counts.records, report.counts.conversations) == (1, 13, 1)
    # a file beside the event files is read on its own; a lone event file is a conversation
    (tmp_path / "events").mkdir()
    for name in ("event-00001-b.json", "event-00000-a.json"):
        (tmp_path / "events" / name).write_bytes((folder / _named(folder, name[:11])).read_bytes())
    (tmp_path / "events" / "base_state.json").write_text('{"id": "x", "agent": {}}')
    found = list(sources.discover([str(tmp_path)]))
    assert [
        (type(f).__name__, f.path.rsplit("/", 1)[1], getattr(f, "kind", "")) for f in found
    ] == [
        ("Source", "base_state.json", "document"),
        ("Source", "events", "events"),
    ]
    (run,) = conversations_below(tmp_path)
    assert [m.role for m in run.messages] == ["system", "user"]  # events 0 then 1, in order


def _named(folder, prefix: str) -> str:
    return next(p.name for p in folder.iterdir() if p.name.startswith(prefix))


def test_openhands_benchmark_record_takes_its_task_from_instruction():
    (run,) = conversations_below(FORMAT_DIR / "openhands" / "benchmark-record.jsonl")
    assert (run.id, run.own_id) == ("creating-agent-plan-1", True)
    assert [m.role for m in run.messages[:3]] == ["system", "user", "assistant"]
    assert run.messages[1].text == "create a dummy plan"
    assert [m[1] for m in replayed_calls(run)] == ["task_tracker", "task_tracker"]


def test_openhands_observation_without_its_action_is_an_orphan():
    path = FORMAT_DIR / "openhands" / "goal-events-excerpt.jsonl"
    (finding,) = audit([path]).findings
    assert (finding.code, finding.line, finding.call_id) == (
        "EX002",
        7,
        "chatcmpl-tool-9051d3d10f914188",
    )
    (run,) = conversations_below(path)
    failed = [e.failed for e in replay(run).exchanges]
    # "Cannot execute multiple commands at once" (is_error), then a traceback with exit code 1
    assert failed == [True, True]


def test_openhands_observations_before_sdk_1_0_say_errors_in_error(tmp_path):
    bash, editor = "ExecuteBashObservation", "FileEditorObservation"
    observed = [  # the tools' observations as the SDK wrote them before 1.0 (2025-11)
        ("terminal", {"kind": bash, "output": "rm: cannot remove", "error": True}),
        ("terminal", {"kind": bash, "output": "Error: 0 tests", "error": False}),
        ("editor", {"kind": editor, "output": "", "error": "Invalid `path`"}),
        ("editor", {"kind": editor, "output": "Error handling added", "error": None}),
        ("terminal", {"kind": bash, "output": "", "exit_code": 2}),
        # exit_code null, the terminal's own record in metadata: 1 failed, -1 still running
        (
            "terminal",
            {"kind": bash, "output": "SyntaxError", "exit_code": None, "error": False}
            | {"metadata": {"exit_code": 1, "pid": -1}},
        ),
        (
            "terminal",
            {"kind": bash, "output": "waiting", "exit_code": None, "error": False}
            | {"metadata": {"exit_code": -1}},
        ),
        (
            "terminal",
            {"kind": bash, "output": "ok", "exit_code": None, "error": False}
            | {"metadata": {"exit_code": 0}},
        ),
    ]
    events = []
    for n, (tool, observation) in enumerate(observed):
        call = {"id": f"c{n}", "name": tool, "arguments": "{}"}
        events.append(
            {"id": f"a{n}", "kind": "ActionEvent", "source": "agent", "tool_name": tool}
            | {"tool_call_id": f"c{n}", "tool_call": call, "llm_response_id": f"r{n}"}
        )
        events.append(
            {"id": f"o{n}", "kind": "ObservationEvent", "source": "environment"}
            | {"tool_name": tool, "tool_call_id": f"c{n}", "observation": observation}
        )
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    (run,) = conversations_below(path)
    assert [(e.result.text, e.result.is_error, e.failed) for e in replay(run).exchanges] == [
        ("rm: cannot remove", True, True),
        ("Error: 0 tests", False, False),  # the flag says, not the words
        ("Invalid `path`", True, True),  # the model was shown the error, not the output
        ("Error handling added", False, False),
        ("", True, True),
        ("SyntaxError", True, True),
        ("waiting", False, False),
        ("ok", False, False),
    ]


@requires_realdata_3
def test_openhands_events_are_read_whole():
    v1 = conversations_below(REALDATA_3 / "openhands-v1-sdk-events")
    hidden = REALDATA_3 / "openhands-v1-sdk-events" / "OpenHands-software-agent-sdk" / ".pr"
    v1 += conversations_below(hidden)  # a dot-folder: read when named
    v0 = conversations_below(REALDATA_3 / "openhands-v0-events")
    shape = Counter()
    for run in v1 + v0:
        made = replay(run).exchanges
        shape[run.format] += len(made)
        assert all(e.result is not None for e in made), run.id
    assert (len(v1), len(v0)) == (7, 9)
    assert shape == {"openhands": 13, "openhands-v0": 135}
    no_calls = sorted(r.id.rsplit("/", 1)[1] for r in v1 + v0 if not replay(r).exchanges)
    # a chat without actions, and a follow-up chat the critic closed without one
    assert no_calls == ["basic_interactions.json", "cli447_hi_followup_iterative_case_b"]


def test_openhands_rejections_and_agent_errors(tmp_path):
    def action(n: int, call: str, command: str) -> dict:
        arguments = json.dumps({"command": command})
        return {
            "id": f"a{n}",
            "kind": "ActionEvent",
            "source": "agent",
            "thought": [{"type": "text", "text": f"Step {n}."}],
            "tool_name": "terminal",
            "tool_call_id": call,
            "tool_call": {"id": call, "name": "terminal", "arguments": arguments},
            "llm_response_id": f"r{n}",
        }

    events = [
        {
            "id": "u",
            "kind": "MessageEvent",
            "source": "user",
            "llm_message": {"role": "user", "content": [{"type": "text", "text": "Clean up."}]},
        },
        action(1, "c1", "rm -rf /tmp/cache"),
        {
            "id": "x1",
            "kind": "UserRejectObservation",
            "source": "user",
            "action_id": "a1",
            "tool_name": "terminal",
            "tool_call_id": "c1",
            "rejection_reason": "Too risky.",
        },
        action(2, "c2", "ls /tmp/cache"),
        {
            "id": "e2",
            "kind": "AgentErrorEvent",
            "source": "agent",
            "tool_name": "terminal",
            "tool_call_id": "c2",
            "error": "Terminal session crashed.",
        },
        {
            "id": "e3",
            "kind": "AgentErrorEvent",
            "source": "agent",
            "tool_name": "termnal",
            "tool_call_id": "c3",
            "error": "Tool 'termnal' not found.",
        },
    ]
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    (run,) = conversations_below(path)
    denied = run.messages[2]
    assert (denied.role, denied.result.call_id, denied.result.is_error) == ("tool", "c1", False)
    assert denied.approval_decision.approved is False
    assert denied.approval_decision.reason == "Too risky."
    assert [(e.call.id, e.failed) for e in replay(run).exchanges] == [("c1", False), ("c2", True)]
    unknown = run.messages[-1]  # a call that never became an action: the log lacks it
    assert (unknown.role, unknown.name, unknown.text) == (
        "user",
        "environment",
        "Tool 'termnal' not found.",
    )
    assert [f.code for f in audit([path], select=["EX001", "EX002"]).findings] == []


def test_a_benchmark_record_with_an_empty_history_is_a_conversation_with_no_calls(tmp_path):
    record = FORMAT_DIR / "openhands" / "benchmark-record.jsonl"
    empty = {"instance_id": "task-2", "instruction": "do it", "history": [], "error": None}
    log = tmp_path / "output.jsonl"
    log.write_text(record.read_text().rstrip("\n") + "\n" + json.dumps(empty) + "\n")
    report = audit([log])
    assert [f.code for f in report.findings if f.code.startswith("IN")] == []
    assert report.counts.conversations == 2
    # a record of another shape with an empty history is not taken for one
    (tmp_path / "other.jsonl").write_text(json.dumps({"history": [], "id": 1}) + "\n")
    assert [f.code for f in audit([tmp_path / "other.jsonl"]).findings] == ["IN002"]
