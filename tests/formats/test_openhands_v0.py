"""OpenHands V0 event lists (`openhands_v0.py`): actions paired with observations by cause, and
observations that fail as OpenHands marks them."""

from __future__ import annotations

from auditor.model import Conversation
from auditor.replay import replay
from tests.formats.shared import replayed_calls
from tests.helpers import FORMAT_DIR, audit, conversations_below


def test_openhands_v0_actions_pair_with_observations_by_cause():
    (run,) = conversations_below(FORMAT_DIR / "openhands-v0" / "wrong-initial-state.json")
    assert run.format == "openhands-v0"
    made = replayed_calls(run)
    assert [(m[0], m[1], m[3]) for m in made] == [
        (1, "str_replace_editor", False),  # `success: true`
        (3, "execute_bash", False),
        (5, "str_replace_editor", False),
    ]
    assert made[1][2] == "mv /workspace/game_2048.py /workspace/2048.py"  # the model's arguments
    assert run.messages[-1].role == "assistant" and not run.messages[-1].tool_calls


def test_openhands_v0_evaluation_record_error_without_cause_and_finish():
    (run,) = conversations_below(FORMAT_DIR / "openhands-v0" / "multi-swe-bench-excerpt.jsonl")
    assert (run.id, run.own_id) == ("ponylang__ponyc-4593", True)
    error = run.messages[8]
    assert (error.role, error.name) == ("user", "environment")
    assert error.text.startswith("Parameter 'command' is expected to be one of")
    finish = run.messages[-1]
    assert finish.role == "assistant" and not finish.tool_calls
    assert "Unable to make necessary changes" in finish.text  # its `final_thought`
    assert [e.failed for e in replay(run).exchanges][:2] == [False, True]  # exit code 2


def test_openhands_v0_resolver_refused_edits_in_a_row_are_a_loop():
    path = FORMAT_DIR / "openhands-v0" / "resolver-excerpt.jsonl"
    (run,) = conversations_below(path)
    assert [m[4] for m in replayed_calls(run)] == [None, False, False, False, False]
    (finding,) = audit([path]).findings
    assert (finding.code, finding.turn) == ("LP002", 3)
    assert finding.message.startswith("`run_ipython` failed 4 calls in succession")


def results(conversation: Conversation) -> list[tuple]:
    """(turn, is_error as logged, failed as replay reads it, the text's start) of every call."""
    return [
        (e.turn, e.result.is_error, e.failed, e.result.text[:30])
        for e in replay(conversation).exchanges
        if e.result is not None
    ]


def test_openhands_v0_file_editor_fails_with_its_error_prefix():
    (run,) = conversations_below(FORMAT_DIR / "openhands-v0" / "editor-errors-excerpt.jsonl")
    assert results(run) == [
        (2, True, True, "ERROR:\nInvalid `view_range` pa"),
        (4, False, False, "Here's the result of running `"),
        (6, True, True, "ERROR:\nParameter `old_str` is "),
        (8, False, False, "Here's the result of running `"),
        (10, False, False, "The file /workspace/ponylang__"),  # quotes a `SyntaxError`
        (12, True, True, "ERROR:\nNo replacement was perf"),
    ]
    assert 'return SyntaxError(token, "unknown command")' in run.messages[11].text


def test_openhands_v0_edit_skills_no_exact_match_is_an_error():
    (run,) = conversations_below(
        FORMAT_DIR / "openhands-v0" / "resolver-no-exact-match-excerpt.jsonl"
    )
    assert results(run) == [
        (1, None, False, "[File: /workspace/src/PullRequ"),  # open_file: the text decides
        (3, True, True, "[No exact match found in /work"),
        (5, None, False, "[File: /workspace/src/PullRequ"),
        (7, True, True, "[No exact match found in /work"),
        (9, True, True, "[No exact match found in /work"),
        (11, None, False, "[File: /workspace/src/PullRequ"),  # applied
    ]
    assert "console.error('Error fetching repos:', error);" in run.messages[12].text
    # two refusals of the same edit after a view that changed nothing: below LP001's three
    assert not audit(
        [FORMAT_DIR / "openhands-v0" / "resolver-no-exact-match-excerpt.jsonl"]
    ).findings


# (observation, its fields) -> (is_error as read, failed as replay reads it)
_MARKED = [
    # IPython's `success` is true for every cell: the edit skills' words decide, else the text
    ("run_ipython", {"content": "[No exact match found in /a.py for\n```\nx\n```\n]"}, True, True),
    ("run_ipython", {"content": "ERROR: File /b.py not found."}, True, True),
    ("run_ipython", {"content": '[No matches found for "x" in /a.py]'}, None, False),
    ("run_ipython", {"content": "Error: printed by the cell itself"}, None, True),
    # a command's exit code where OpenHands wrote it before 2025
    ("run", {"content": "No such file", "extras": {"exit_code": 2}}, True, True),
    ("run", {"content": "error: none", "extras": {"exit_code": 0}}, False, False),
    ("browse", {"content": "Page", "extras": {"error": True, "url": "x"}}, True, True),
    ("mcp", {"content": '{"isError": true, "content": []}'}, True, True),
    ("mcp", {"content": '{"isError": false, "content": [{"text": "Error: 404"}]}'}, False, False),
    # a file that starts so, read without the editor: OpenHands does not say
    ("read", {"content": "ERROR:\nlog line", "extras": {"path": "/log"}}, None, True),
]


def test_openhands_v0_observations_fail_as_openhands_marks_them(tmp_path):
    import json

    events: list[dict] = [
        {"id": 0, "source": "user", "message": "", "action": "message", "args": {"content": "Go"}}
    ]
    for n, (kind, fields, _, _) in enumerate(_MARKED, 1):
        metadata = {"function_name": kind, "tool_call_id": f"t{n}"}
        action = {"id": 2 * n, "source": "agent", "message": "", "action": kind, "args": {}}
        events.append(action | {"tool_call_metadata": metadata})
        answer = {"id": 2 * n + 1, "source": "agent", "message": "", "observation": kind}
        answer |= {"cause": 2 * n, "tool_call_metadata": metadata} | fields
        if kind == "run_ipython":
            answer["success"] = True  # as OpenHands writes every cell's since 2024-12
        events.append(answer)
    path = tmp_path / "events.json"
    path.write_text(json.dumps(events))
    (run,) = conversations_below(path)
    assert [(r[1], r[2]) for r in results(run)] == [(m[2], m[3]) for m in _MARKED]
