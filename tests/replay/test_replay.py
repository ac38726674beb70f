"""Replay pairs calls with results once; rules only read the pairing."""

from __future__ import annotations

from auditor.model import ToolCall, ToolResult
from auditor.replay import replay
from tests.helpers import conv, msg


def call(cid, name="f") -> ToolCall:
    return ToolCall(cid, name, {})


def test_results_pair_by_id_in_any_order():
    r = replay(
        conv(
            msg(0, "user", "go"),
            msg(1, "assistant", calls=[call("a"), call("b")]),
            msg(2, "tool", result=ToolResult("b", "B")),
            msg(3, "tool", result=ToolResult("a", "A")),
            msg(4, "assistant", "done"),
        )
    )
    assert [(e.call.id, e.result.text, e.result_turn, e.answered) for e in r.exchanges] == [
        ("a", "A", 3, True),
        ("b", "B", 2, True),
    ]
    assert r.orphans == ()
    assert [t.message.index for t in r.turns] == [1, 4]
    assert r.pending(r.turns[1]) == []
    assert r.history(r.turns[1]) == r.exchanges


def test_result_without_id_answers_the_oldest_open_call():
    r = replay(
        conv(
            msg(0, "assistant", calls=[call(None, "first"), call(None, "second")]),
            msg(1, "tool", result=ToolResult(None, "one")),
            msg(2, "tool", result=ToolResult(None, "two")),
        )
    )
    assert [(e.call.name, e.result.text) for e in r.exchanges] == [
        ("first", "one"),
        ("second", "two"),
    ]


def test_caller_moving_on_marks_the_call_passed_and_a_late_result_still_pairs():
    r = replay(
        conv(
            msg(0, "assistant", calls=[call("a")]),
            msg(1, "assistant", "never mind"),
            msg(2, "tool", result=ToolResult("a", "late")),
        )
    )
    (e,) = r.exchanges
    assert e.passed_at == 1 and e.result_turn == 2 and not e.answered
    assert r.pending(r.turns[1]) == [e]
    assert r.orphans == ()


def test_other_roles_speaking_do_not_pass_the_assistants_call():
    r = replay(
        conv(
            msg(0, "assistant", calls=[call("a")]),
            msg(1, "user", "hurry"),
            msg(2, "tool", result=ToolResult("a", "ok")),
        )
    )
    assert r.exchanges[0].answered


def test_a_batch_runs_over_results_between_its_call_only_messages():
    r = replay(
        conv(
            msg(0, "assistant", calls=[call("a")]),
            msg(1, "assistant", calls=[call("b")]),
            msg(2, "tool", result=ToolResult("a", "A")),
            msg(3, "assistant", calls=[call("c")]),  # after a result: defers b, passes nothing
            msg(4, "tool", result=ToolResult("b", "B")),
            msg(5, "assistant", calls=[call("d")]),  # defers c
            msg(6, "assistant", "c and d never came"),  # ends the batch: c passed where deferred
        )
    )
    assert [(e.call.id, e.answered, e.passed_at) for e in r.exchanges] == [
        ("a", True, None),
        ("b", True, None),
        ("c", False, 5),
        ("d", False, 6),
    ]


def test_a_user_turn_ends_the_batch_and_calls_without_id_are_not_deferred():
    r = replay(
        conv(
            msg(0, "assistant", calls=[call("a"), call(None, "anon")]),
            msg(1, "tool", result=ToolResult("zz", "?")),
            msg(2, "assistant", calls=[call("b")]),
            msg(3, "user", "hurry"),
            msg(4, "tool", result=ToolResult("a", "late")),
        )
    )
    a, anon, b = r.exchanges
    assert (a.passed_at, a.result_turn, a.answered) == (2, 4, False)
    assert anon.passed_at == 2 and anon.result is None
    assert (b.passed_at, b.result) == (None, None)  # the transcript ends on it


def test_a_result_logged_just_before_its_call_in_the_batch_answers_it():
    r = replay(
        conv(
            msg(0, "assistant", calls=[call("a")]),
            msg(1, "tool", result=ToolResult("b", "B")),
            msg(2, "assistant", calls=[call("b")]),
            msg(3, "tool", result=ToolResult("a", "A")),
            msg(4, "tool", result=ToolResult("c", "C")),
            msg(5, "assistant", "now c", calls=[call("c")]),  # text between: not the batch
        )
    )
    a, b, c = r.exchanges
    assert a.answered and (b.answered, b.result_turn) == (True, 1)
    assert c.result is None
    assert [o.message.index for o in r.orphans] == [4]


def test_user_calls_are_paired_on_the_users_side():
    r = replay(
        conv(
            msg(0, "user", calls=[call("u1")]),
            msg(1, "tool", result=ToolResult("u1", "ok")),
            msg(2, "assistant", "fine"),
            msg(3, "user", "thanks"),
        )
    )
    (e,) = r.exchanges
    assert e.caller == "user" and e.answered
    assert r.turns[0].exchanges == ()


def test_orphans_name_duplicates():
    r = replay(
        conv(
            msg(0, "assistant", calls=[call("a")]),
            msg(1, "tool", result=ToolResult("a", "ok")),
            msg(2, "tool", result=ToolResult("a", "again")),
            msg(3, "tool", result=ToolResult("zzz", "who?")),
        )
    )
    assert [(o.message.index, o.answered_turn) for o in r.orphans] == [(2, 0), (3, None)]


def test_failed_uses_the_flag_and_falls_back_to_the_wording():
    def outcome(result):
        r = replay(conv(msg(0, "assistant", calls=[call("a")]), msg(1, "tool", result=result)))
        return r.exchanges[0].failed

    assert outcome(ToolResult("a", "fine", is_error=True))
    assert not outcome(ToolResult("a", "Error: but flagged fine", is_error=False))
    assert outcome(ToolResult("a", "Error: payment amount does not add up"))
    assert outcome(ToolResult("a", "Traceback (most recent call last):\n  File"))
    assert outcome(ToolResult("a", 'An error occurred while executing tool "X".'))
    assert outcome(ToolResult("a", "Internal server error"))
    assert not outcome(ToolResult("a", "No errors found."))
