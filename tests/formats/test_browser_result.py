"""Browser-agent result files (`browser_result.py`): each action a call whose outcome the
file does not record."""

from __future__ import annotations

from auditor.model import UNRECORDED
from tests.formats.shared import call_names, found
from tests.helpers import FORMAT_DIR, conversations


def test_browser_result_actions_are_calls_whose_outcome_is_not_recorded():
    (run,) = conversations(FORMAT_DIR / "browser-result" / "abp-0b838cd5-excerpt.json")
    assert run.id == "0b838cd54f826c59c71f600c56b89a11" and run.own_id
    opening = run.messages[0]  # the benchmark opens the task's website: the user turn's call
    assert opening.role == "user" and opening.tool_calls[0].arguments == {
        "url": "https://www.bbb.org/"
    }
    assert call_names(run) == ["navigate", *["click"] * 4, "type", "click", "type", "click"]
    clicks = [m for m in run.messages if m.role == "assistant"][:3]
    assert [m.tool_calls[0].arguments for m in clicks] == [{"x": 973, "y": 761}] * 3
    results = [m.result for m in run.messages if m.result is not None]
    assert {(r.text, r.is_error, r.unrecorded) for r in results} == {(UNRECORDED, None, True)}
    # the cookie banner clicked three times in a row, the thoughts saying it is still there:
    # a loop, though the file keeps no page (LP001 says the outcome was not logged)
    assert found(FORMAT_DIR / "browser-result") == [
        (
            "LP001",
            8,
            "`click` called 3 times in a row with the same arguments (turns 1, 2, 3); the log "
            "does not record what came of them, and nothing came between them: no other call, "
            "no result, no user turn",
        )
    ]
