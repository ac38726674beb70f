"""The coding agents' readers (mini-swe-agent, OpenHands, LiteLLM logs) and the text-action
protocol they share with SWE-agent and the multi-agent executors, on their fixtures and, where
present, on the real logs in ../shared/realdata-3 (skipped in a user's clone)."""

from __future__ import annotations

from collections import Counter

import orjson
import pytest

from auditor import sources
from auditor.formats import FileReader
from auditor.model import Conversation
from auditor.replay import replay
from tests.helpers import FIXTURES, ROOT, audit

FORMATS = FIXTURES / "formats"
REALDATA_3 = ROOT.parent / "shared" / "realdata-3"
requires_realdata_3 = pytest.mark.skipif(
    not REALDATA_3.is_dir(),
    reason="../shared/realdata-3 is not present (it exists on dev machines only)",
)


def read(path) -> list[Conversation]:
    """Every conversation the files below `path` hold, as the engine reads them."""
    out: list[Conversation] = []
    for found in sources.discover([str(path)]):
        if not isinstance(found, sources.Source):
            continue
        reader = FileReader()
        for record in sources.read(found):
            if isinstance(record, sources.Record):
                out.extend(c for c in reader.feed(record) if isinstance(c, Conversation))
        out.extend(c for c in reader.finish() if isinstance(c, Conversation))
    return out


def calls(conversation: Conversation) -> list[tuple]:
    """(turn, name, command or arguments, failed, ran) of every call, as replay pairs them."""
    return [
        (
            e.turn,
            e.call.name,
            e.call.arguments.get("command", e.call.arguments)
            if isinstance(e.call.arguments, dict)
            else e.call.arguments,
            None if e.result is None else e.failed,
            None if e.result is None else e.result.ran,
        )
        for e in replay(conversation).exchanges
    ]


# --- mini-swe-agent ------------------------------------------------------------------------


def test_mini_1_bash_blocks_are_calls_answered_by_the_next_user_message():
    (run,) = read(FORMATS / "mini-swe-agent" / "requests-1921-text-actions-excerpt.traj.json")
    assert run.format == "mini-swe-agent"
    made = calls(run)
    assert made[0] == (2, "bash", "ls -R", False, None)
    # two blocks in one message: the harness runs neither, each is refused with its reply
    refused = (4, "bash", True, False)
    assert [m[:2] + m[3:] for m in made[1:3]] == [refused, refused]
    assert made[1][2].startswith("cat <<'EOF' > reproduce_issue.py")
    assert made[2][2] == "python3 reproduce_issue.py"
    assert run.messages[5].result.text.startswith("Please always provide EXACTLY ONE action")
    # `<returncode>1</returncode>` is a failure; the submit command is answered by the diff
    assert [m[3] for m in made[-4:]] == [True, True, False, False]
    assert made[-1][2].startswith("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")
    assert run.messages[-1].result.text.startswith("diff --git a/requests/sessions.py")


def test_mini_1_refusal_is_ex003_naming_the_harness_reason():
    path = FORMATS / "mini-swe-agent" / "requests-1921-text-actions-excerpt.traj.json"
    (finding,) = audit([path], select=["EX003", "EX001"]).findings
    assert (finding.code, finding.turn, finding.line) == ("EX003", 4, 24)
    assert finding.message == (
        "`bash` call and 1 more written as text; the harness refused to run them: "
        "`Please always provide EXACTLY ONE action in triple backticks, found 2 actions.`"
    )


def test_mini_2_exit_message_answers_the_submit_call():
    (run,) = read(FORMATS / "mini-swe-agent" / "pydicom-1256-tool-calls-excerpt.traj.json")
    made = calls(run)
    assert [m[3] for m in made] == [False, True, False, False]  # `extra.returncode` 1 fails
    last = run.messages[-1]
    assert last.role == "tool" and last.result.call_id == "call_00_fwdJ7bOxKMSnNh5YQtT2l2kV"
    assert last.result.text.startswith("diff --git a/pydicom/jsonrep.py")
    path = FORMATS / "mini-swe-agent" / "pydicom-1256-tool-calls-excerpt.traj.json"
    assert audit([path], select=["EX001"]).findings == ()


def test_mini_2_run_that_timed_out_has_no_calls_and_keeps_its_exit_turn():
    (run,) = read(FORMATS / "mini-swe-agent" / "pvlib-1154-timeout.traj.json")
    assert [m.role for m in run.messages] == ["system", "user", "exit"]
    assert run.messages[-1].text.startswith("litellm.Timeout")
    assert calls(run) == []


@requires_realdata_3
def test_mini_swe_agent_runs_are_read_with_every_action():
    runs = read(REALDATA_3 / "mini-swe-agent")
    assert len(runs) == 36 and {r.format for r in runs} == {"mini-swe-agent"}
    made = Counter()
    for run in runs:
        variant = "1.1" if "SWE-agent-mini-swe-agent" in run.location.path else "1"
        for e in replay(run).exchanges:
            outcome = "refused" if e.result.ran is False else "failed" if e.failed else "ok"
            made[(variant, outcome)] += 1
            assert e.result is not None  # every action, the submit included, is answered
    assert made == {
        ("1", "ok"): 940,  # 1,013 single blocks, 915 `<returncode>0` and 25 submissions
        ("1", "failed"): 73,  # `<returncode>` 1, 2 or 127
        ("1", "refused"): 75,  # 31 turns of 2 to 5 blocks
        ("1.1", "ok"): 499,  # 546 calls, the 9 submit calls answered by `exit` included
        ("1.1", "failed"): 47,
    }
    no_calls = [r.location.path.rsplit("/", 1)[1] for r in runs if not replay(r).exchanges]
    assert no_calls == ["pvlib__pvlib-python-1154.traj.json"]  # the run that timed out


# --- SWE-agent -----------------------------------------------------------------------------


def test_swe_agent_commands_it_had_to_stop_failed(tmp_path):
    import json

    footer = "\n(Open file: n/a)\n(Current directory: /repo)\nbash-$"
    said = [
        ("./rock", "\nEXECUTION TIMED OUT" + footer),  # 0.x, in place of any output
        ("python attack.py", "[*] lehmer attack\nEXECUTION TIMED OUT BECAUSE NO OUTPUT" + footer),
        ("sleep 99", "The command 'sleep 99' was cancelled because it took more than 30 seconds."),
        ("grep -n timeout log", "3: EXECUTION TIMED OUT is what the old harness wrote" + footer),
    ]
    history = [{"role": "user", "content": "ISSUE: crack it." + footer, "agent": "primary"}]
    for command, answer in said:
        history.append({"role": "assistant", "content": f"```\n{command}\n```", "agent": "primary"})
        history.append({"role": "user", "content": answer, "agent": "primary"})
    path = tmp_path / "run.traj"
    path.write_text(json.dumps({"history": history, "trajectory": [], "info": {}}))
    (run,) = read(path)
    assert [(e.call.name, e.result.is_error, e.failed) for e in replay(run).exchanges] == [
        ("./rock", True, True),
        ("python", True, True),
        ("sleep", True, True),
        ("grep", None, False),  # a line of output that only quotes it
    ]
    call = {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
    history[1:] = [
        {"role": "assistant", "content": "", "tool_calls": [call], "agent": "primary"},
        {"role": "tool", "content": said[2][1], "tool_call_ids": ["c1"], "agent": "primary"},
    ]
    path.write_text(json.dumps({"history": history, "trajectory": [], "info": {}}))
    (run,) = read(path)
    assert [(e.call.id, e.result.is_error) for e in replay(run).exchanges] == [("c1", True)]


# --- LiteLLM completion logs ---------------------------------------------------------------


def test_litellm_text_calls_answered_by_execution_result_and_the_response_pending():
    (log,) = read(FORMATS / "litellm" / "deepseek-nonfncall-log-excerpt.json")
    assert (log.format, log.complete) == ("litellm", False)
    assert [t.name for t in log.tools] == ["terminal", "str_replace_editor", "finish"]
    made = calls(log)
    assert [m[:2] for m in made] == [
        (2, "terminal"),
        (4, "str_replace_editor"),
        (6, "terminal"),
        (8, "finish"),
    ]
    assert made[0][2] == "pwd && ls -la" and made[2][3] is False  # `exit code 0.`
    assert log.messages[3].result.text.startswith("/Users/xingyaow/")  # the header left out
    assert made[3][3] is None and log.messages[8].tool_calls[0].id == "toolu_04"  # the response
    path = FORMATS / "litellm" / "deepseek-nonfncall-log-excerpt.json"
    assert audit([path], select=["EX001", "EX003"]).findings == ()


def test_litellm_text_call_followed_by_the_user_stays_text_for_ex003():
    # nearest negative: no `EXECUTION RESULT` follows, so nothing ran it
    path = FIXTURES / "rules" / "EX003" / "bad_openhands_text_call_unanswered.jsonl"
    (log,) = read(path)
    assert log.format == "litellm" and calls(log) == []
    (finding,) = audit([path], select=["EX003"]).findings
    assert (finding.turn, finding.tool) == (2, "terminal")


@requires_realdata_3
def test_litellm_text_calls_fail_as_openhands_notes_it(tmp_path):
    import json

    answers = [
        "[An error occurred during execution.]\nInvalid `path` parameter: /nope.",  # the SDK's
        "[There was an error during command execution.]\nbash: nope: command not found",
        "Parameter 'command' is missing.\n[Error occurred in processing last action]",  # V0's
        "FAILED 1 test\n[The command completed with exit code 1.]",
        "Error: 0 failures\n[The command completed with exit code 0.]",
    ]
    messages = [{"role": "user", "content": "Fix it."}]
    for n, answer in enumerate(answers):
        call = f"<function=terminal>\n<parameter=command>step {n}</parameter>\n</function>"
        messages.append({"role": "assistant", "content": call})
        messages.append({"role": "user", "content": f"EXECUTION RESULT of [terminal]:\n{answer}"})
    log = {"messages": messages, "kwargs": {"stop": ["</function"]}, "cost": 0.0}
    log["response"] = {"choices": [{"message": {"role": "assistant", "content": "Done."}}]}
    path = tmp_path / "completion.json"
    path.write_text(json.dumps(log))
    (run,) = read(path)
    assert [(e.result.is_error, e.failed) for e in replay(run).exchanges] == [
        (True, True),
        (True, True),
        (True, True),
        (True, True),
        (False, False),  # the exit code says, not the words
    ]


@requires_realdata_3
def test_litellm_logs_and_message_files_are_read_with_every_call():
    logs = {
        c.location.path.rsplit("/", 1)[1]: c for c in read(REALDATA_3 / "litellm-completion-logs")
    }
    shapes = {name: (c.format, len(calls(c))) for name, c in logs.items()}
    assert shapes == {
        "fncall-llm-message.json": ("openai", 6),
        "nonfncall-llm-message.json": ("openai", 4),
        "litellm_proxy__anthropic__claude-sonnet-4-20250514-1757015046.707.json": ("litellm", 6),
        "litellm_proxy__deepseek__deepseek-chat-1757015076.651.json": ("litellm", 4),
    }
    report = audit([REALDATA_3 / "litellm-completion-logs"])
    assert [f.code for f in report.findings] == []


# --- parallel calls written one message each -----------------------------------------------


def test_parallel_calls_one_message_each_are_one_batch():
    path = FIXTURES / "rules" / "EX001" / "good_parallel_calls_one_message_each.jsonl"
    (conversation,) = read(path)
    exchanges = replay(conversation).exchanges
    assert [(e.call.id, e.turn, e.result_turn, e.passed_at) for e in exchanges] == [
        ("c1", 1, 3, None),
        ("c2", 2, 4, None),
    ]
    # the nearest negative: the second message speaks, so the first call was passed over
    path = FIXTURES / "rules" / "EX001" / "bad_parallel_batch_answered_late_or_never.jsonl"
    never, spoke = read(path)
    assert [(e.call.id, e.passed_at) for e in replay(never).exchanges] == [("c1", 4), ("c2", None)]
    assert [(e.call.id, e.passed_at) for e in replay(spoke).exchanges] == [("c1", 2), ("c2", None)]


# --- OpenHands agent SDK (V1) --------------------------------------------------------------


def test_openhands_folder_of_event_files_is_one_source_and_one_conversation(tmp_path):
    folder = FORMATS / "openhands" / "confirmation-mode"
    found = list(sources.discover([str(FORMATS / "openhands")]))
    events = [f for f in found if isinstance(f, sources.Source) and f.kind == "events"]
    assert [(f.path, f.explicit) for f in events] == [(str(folder), False)]
    assert not any(getattr(f, "path", "").startswith(str(folder) + "/") for f in found)
    (run,) = read(folder)
    assert (run.format, run.id) == ("openhands", str(folder))
    assert [t.name for t in run.tools][:2] == ["terminal", "file_editor"]
    assert [m.role for m in run.messages[:4]] == ["system", "user", "assistant", "tool"]
    assert [m[:3] + m[3:] for m in calls(run)] == [
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
    (run,) = read(tmp_path)
    assert [m.role for m in run.messages] == ["system", "user"]  # events 0 then 1, in order


def _named(folder, prefix: str) -> str:
    return next(p.name for p in folder.iterdir() if p.name.startswith(prefix))


def test_openhands_benchmark_record_takes_its_task_from_instruction():
    (run,) = read(FORMATS / "openhands" / "benchmark-record.jsonl")
    assert (run.id, run.own_id) == ("creating-agent-plan-1", True)
    assert [m.role for m in run.messages[:3]] == ["system", "user", "assistant"]
    assert run.messages[1].text == "create a dummy plan"
    assert [m[1] for m in calls(run)] == ["task_tracker", "task_tracker"]


def test_openhands_observation_without_its_action_is_an_orphan():
    path = FORMATS / "openhands" / "goal-events-excerpt.jsonl"
    (finding,) = audit([path]).findings
    assert (finding.code, finding.line, finding.call_id) == (
        "EX002",
        7,
        "chatcmpl-tool-9051d3d10f914188",
    )
    (run,) = read(path)
    failed = [e.failed for e in replay(run).exchanges]
    # "Cannot execute multiple commands at once" (is_error), then a traceback with exit code 1
    assert failed == [True, True]


def test_openhands_observations_before_sdk_1_0_say_errors_in_error(tmp_path):
    import json

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
    (run,) = read(path)
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


# --- OpenHands V0 --------------------------------------------------------------------------


def test_openhands_v0_actions_pair_with_observations_by_cause():
    (run,) = read(FORMATS / "openhands-v0" / "wrong-initial-state.json")
    assert run.format == "openhands-v0"
    made = calls(run)
    assert [(m[0], m[1], m[3]) for m in made] == [
        (1, "str_replace_editor", False),  # `success: true`
        (3, "execute_bash", False),
        (5, "str_replace_editor", False),
    ]
    assert made[1][2] == "mv /workspace/game_2048.py /workspace/2048.py"  # the model's arguments
    assert run.messages[-1].role == "assistant" and not run.messages[-1].tool_calls


def test_openhands_v0_evaluation_record_error_without_cause_and_finish():
    (run,) = read(FORMATS / "openhands-v0" / "multi-swe-bench-excerpt.jsonl")
    assert (run.id, run.own_id) == ("ponylang__ponyc-4593", True)
    error = run.messages[8]
    assert (error.role, error.name) == ("user", "environment")
    assert error.text.startswith("Parameter 'command' is expected to be one of")
    finish = run.messages[-1]
    assert finish.role == "assistant" and not finish.tool_calls
    assert "Unable to make necessary changes" in finish.text  # its `final_thought`
    assert [e.failed for e in replay(run).exchanges][:2] == [False, True]  # exit code 2


def test_openhands_v0_resolver_refused_edits_in_a_row_are_a_loop():
    path = FORMATS / "openhands-v0" / "resolver-excerpt.jsonl"
    (run,) = read(path)
    assert [m[4] for m in calls(run)] == [None, False, False, False, False]
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
    (run,) = read(FORMATS / "openhands-v0" / "editor-errors-excerpt.jsonl")
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
    (run,) = read(FORMATS / "openhands-v0" / "resolver-no-exact-match-excerpt.jsonl")
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
    assert not audit([FORMATS / "openhands-v0" / "resolver-no-exact-match-excerpt.jsonl"]).findings


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
    (run,) = read(path)
    assert [(r[1], r[2]) for r in results(run)] == [(m[2], m[3]) for m in _MARKED]


@requires_realdata_3
def test_openhands_events_are_read_whole():
    v1 = read(REALDATA_3 / "openhands-v1-sdk-events")
    hidden = REALDATA_3 / "openhands-v1-sdk-events" / "OpenHands-software-agent-sdk" / ".pr"
    v1 += read(hidden)  # a dot-folder: read when named
    v0 = read(REALDATA_3 / "openhands-v0-events")
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


# --- plain message-per-line JSON Lines -----------------------------------------------------


def test_message_lines_form_conversations_split_at_a_restart():
    path = FORMATS / "message-lines" / "three-runs.jsonl"
    runs = read(path)
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
    (run,) = read(path)
    assert [m.role for m in run.messages] == ["user", "assistant"]


# --- the text-action protocol --------------------------------------------------------------


def test_a_new_framework_is_a_few_lines_of_declaration():
    import re

    from auditor.formats._common import MessageDraft, freeze
    from auditor.formats._text_actions import TextProtocol, exit_status, fenced, pair
    from auditor.model import Location

    protocol = TextProtocol(
        actions=fenced("python", "python", "code"),
        runs="last",
        opening=re.compile(r"Execution result:\n"),
        failed=exit_status(r"\[exit (-?\d+)\]", window=40),
        refusal=re.compile(r"Only one code block per turn"),
        issued=True,
    )
    said = [
        ("user", "Sum 1 and 2, then 3 and 4."),
        ("assistant", "```python\nprint(1 + 2)\n```"),
        ("user", "Execution result:\n3\n[exit 0]"),
        ("assistant", "```python\nprint(3 + 4\n```"),
        ("user", "Execution result:\nSyntaxError: '(' was never closed\n[exit 1]"),
        ("assistant", "Two at once:\n```python\nprint(3)\n```\n```python\nprint(4)\n```"),
        ("user", "Only one code block per turn, please."),
        ("assistant", "```python\nprint(7)\n```"),
        ("user", "Is it done?"),  # not an answer: that block stays text
        ("assistant", "Done.\n```python\nprint('bye')\n```"),  # the run ends on it: issued
    ]
    drafts = [
        MessageDraft(role, Location("x", i + 1), [text]) for i, (role, text) in enumerate(said)
    ]
    messages = freeze(pair(drafts, (protocol,)))
    made = [(m.index, c.id, c.arguments["code"]) for m in messages for c in m.tool_calls]
    assert made == [
        (1, "action-1", "print(1 + 2)"),
        (3, "action-3", "print(3 + 4"),
        (5, "action-5", "print(4)"),  # runs="last": the harness takes the last block
        (9, "action-9", "print('bye')"),
    ]
    results = [
        (m.index, m.result.call_id, m.result.text, m.result.is_error, m.result.ran)
        for m in messages
        if m.result is not None
    ]
    assert results == [
        (2, "action-1", "3\n[exit 0]", False, None),  # the opening left out of the text
        (4, "action-3", "SyntaxError: '(' was never closed\n[exit 1]", True, None),
        (6, "action-5", "Only one code block per turn, please.", True, False),
    ]
    assert not messages[7].tool_calls and messages[8].role == "user"


@requires_realdata_3
def test_the_coding_agents_logs_and_these_are_their_findings():
    folders = ["mini-swe-agent", "litellm-completion-logs", "openhands-v0-events"]
    folders += [
        "openhands-v1-sdk-events",
        "openhands-v1-sdk-events/OpenHands-software-agent-sdk/.pr",
    ]
    report = audit([REALDATA_3 / f for f in folders])
    assert not report.errors
    # 36 + 4 + 6 files and 7 sources of V1 events (5 folders, events.jsonl, the .pr folder)
    assert (report.counts.files, report.counts.conversations) == (53, 56)
    found = Counter((f.code, f.path.split("realdata-3/")[1].split("/")[0]) for f in report.findings)
    assert found == {
        ("EX003", "mini-swe-agent"): 31,  # turns of 2 to 5 bash blocks the harness refused
        ("LP002", "openhands-v0-events"): 2,  # `make` x3, and five refused edits in a row
        ("EX002", "openhands-v1-sdk-events"): 1,  # the excerpt's observation without its action
    }
    # what the walk read by content and found to be no log: the state beside the events, the
    # run summary; licences and a README are text of no transcript; `.pr` was named as well
    skipped = sorted(u.path.rsplit("/", 1)[1] for u in report.unread if u.reason != "type")
    assert [s for s in skipped if s not in ("LICENSE", "README.md")] == [
        ".pr",
        "base_state.json",
        "deepseek__deepseek-chat.deepseek_chat_dev.json",
    ]
    not_logs = {u.reason for u in report.unread if u.path.endswith("base_state.json")}
    assert not_logs == {"not a transcript"}


def test_openhands_rejections_and_agent_errors(tmp_path):
    import json

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
    (run,) = read(path)
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


def test_claude_code_lines_the_cli_wrote_in_the_users_place_are_system_messages(tmp_path):
    base = {"sessionId": "s1", "type": "user", "timestamp": "2026-02-10T22:58:08.126Z"}
    lines = [
        {**base, "uuid": "u1", "message": {"role": "user", "content": "Fix the flaky test"}},
        {
            **base,
            "uuid": "u2",
            "isMeta": True,
            "message": {"role": "user", "content": "<local-command-caveat>Caveat: …"},
        },
        {
            **base,
            "uuid": "u3",
            "message": {
                "role": "user",
                "content": "<local-command-stdout>Reconnected</local-command-stdout>",
            },
        },
        {
            **base,
            "uuid": "u4",
            "isCompactSummary": True,
            "message": {"role": "user", "content": "This session is being continued from a …"},
        },
        {**base, "uuid": "u5", "message": {"role": "user", "content": "yes, go ahead"}},
    ]
    log = tmp_path / "session.jsonl"
    log.write_text("".join(orjson.dumps(line).decode() + "\n" for line in lines))
    (run,) = read(log)
    assert [m.role for m in run.messages] == ["user", "system", "system", "system", "user"]
