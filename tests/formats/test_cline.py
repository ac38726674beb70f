"""Cline task UI messages (`cline.py`): results read from the next request, on the fixtures and
on the real task in ../shared/realdata-3 (skipped in a user's clone)."""

from __future__ import annotations

import json

from tests.formats.shared import call_names, found
from tests.helpers import FORMAT_DIR, REALDATA_3, conversations, requires_realdata_3


def test_cline_results_come_from_the_next_request_and_a_failing_edit_retried_is_a_loop():
    retried = FORMAT_DIR / "cline" / "edit-retried-ui_messages.json"
    (task,) = conversations(retried)
    assert call_names(task) == ["read_file", *["replace_in_file"] * 3, "execute_command"]
    assert task.messages[1].tool_calls[0].arguments == {"path": "shop/cart.py"}
    assert task.messages[2].result.text.startswith("def total(items: list) -> int:")
    assert task.messages[4].result.is_error is True
    assert task.messages[10].result.text == "Command executed.\nOutput:\n1 passed in 0.02s"
    assert task.messages[12].role == "user" and task.messages[12].text == "thanks"
    (loop,) = found(retried)
    assert loop[:2] == ("LP001", 67)
    assert loop[2].startswith("`replace_in_file` called 3 times with the same arguments")
    assert found(FORMAT_DIR / "cline" / "edit-fixed-ui_messages.json") == []


def test_cline_reads_a_request_only_for_the_calls_it_answers(tmp_path):
    request = (
        "Quoted: [read_file for 'b.py'] Result:\nno\n[read_file for 'a.py'] Result:\nhello\n"
        "\n<environment_details>\nx\n</environment_details>"
    )
    entries = [
        {"ts": 1, "type": "say", "say": "task", "text": "Fix a.py"},
        {"ts": 2, "type": "say", "say": ["not", "a", "kind"], "text": "ignored"},
        {"ts": 3, "type": "say", "say": "api_req_started", "text": "not JSON, answers no call"},
        {
            "ts": 4,
            "type": "say",
            "say": "tool",
            "text": json.dumps({"tool": "readFile", "path": "a.py"}),
        },
        {
            "ts": 5,
            "type": "say",
            "say": "api_req_started",
            "text": json.dumps({"request": request}),
        },
        {"ts": 6, "type": "say", "say": "completion_result", "text": "Done."},
    ]
    log = tmp_path / "ui_messages.json"
    log.write_text(json.dumps(entries))
    (task,) = conversations(log)
    assert [(m.role, m.text) for m in task.messages] == [
        ("user", "Fix a.py"),
        ("assistant", ""),
        ("tool", "hello"),
        ("assistant", "Done."),
    ]
    assert task.messages[2].result.call_id == task.messages[1].tool_calls[0].id == "ui-3"
    assert found(log) == []


@requires_realdata_3
def test_realdata_3_cline_task_reads_its_results_from_the_requests():
    (task,) = conversations(
        REALDATA_3
        / "cline-ui-messages"
        / "CoreGems-Cline-Xray"
        / "task_sample"
        / "ui_messages.json"
    )
    results = [m.result for m in task.messages if m.result is not None]
    assert len(results) == 67 and sum(r.unrecorded for r in results) == 0
    assert sum(m.role == "user" for m in task.messages) == 7  # the task and 6 follow-ups
