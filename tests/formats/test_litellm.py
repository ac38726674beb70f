"""LiteLLM completion logs (`litellm.py`): text calls answered by `EXECUTION RESULT` and failing
as OpenHands notes it, on the fixtures and on the real logs in ../shared/realdata-3."""

from __future__ import annotations

from auditor.replay import replay
from tests.formats.shared import replayed_calls
from tests.helpers import (
    FIXTURES,
    FORMAT_DIR,
    REALDATA_3,
    audit,
    conversations_below,
    requires_realdata_3,
)


def test_litellm_text_calls_answered_by_execution_result_and_the_response_pending():
    (log,) = conversations_below(FORMAT_DIR / "litellm" / "deepseek-nonfncall-log-excerpt.json")
    assert (log.format, log.complete) == ("litellm", False)
    assert [t.name for t in log.tools] == ["terminal", "str_replace_editor", "finish"]
    made = replayed_calls(log)
    assert [m[:2] for m in made] == [
        (2, "terminal"),
        (4, "str_replace_editor"),
        (6, "terminal"),
        (8, "finish"),
    ]
    assert made[0][2] == "pwd && ls -la" and made[2][3] is False  # `exit code 0.`
    assert log.messages[3].result.text.startswith("/Users/xingyaow/")  # the header left out
    assert made[3][3] is None and log.messages[8].tool_calls[0].id == "toolu_04"  # the response
    path = FORMAT_DIR / "litellm" / "deepseek-nonfncall-log-excerpt.json"
    assert audit([path], select=["EX001", "EX003"]).findings == ()


def test_litellm_text_call_followed_by_the_user_stays_text_for_ex003():
    # nearest negative: no `EXECUTION RESULT` follows, so nothing ran it
    path = FIXTURES / "rules" / "EX003" / "bad_openhands_text_call_unanswered.jsonl"
    (log,) = conversations_below(path)
    assert log.format == "litellm" and replayed_calls(log) == []
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
    (run,) = conversations_below(path)
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
        c.location.path.rsplit("/", 1)[1]: c
        for c in conversations_below(REALDATA_3 / "litellm-completion-logs")
    }
    shapes = {name: (c.format, len(replayed_calls(c))) for name, c in logs.items()}
    assert shapes == {
        "fncall-llm-message.json": ("openai", 6),
        "nonfncall-llm-message.json": ("openai", 4),
        "litellm_proxy__anthropic__claude-sonnet-4-20250514-1757015046.707.json": ("litellm", 6),
        "litellm_proxy__deepseek__deepseek-chat-1757015076.651.json": ("litellm", 4),
    }
    report = audit([REALDATA_3 / "litellm-completion-logs"])
    assert [f.code for f in report.findings] == []
