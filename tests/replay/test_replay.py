"""Replay pairs calls with results once; rules only read the pairing."""

from __future__ import annotations

from auditor.model import Conversation, Location, Message, ToolCall, ToolResult
from auditor.replay import replay

HERE = Location("t.jsonl", 1)


def conv(*messages: Message) -> Conversation:
    return Conversation("c", "openai", HERE, tuple(messages))


def msg(i: int, role: str, text: str = "", calls=(), result=None) -> Message:
    return Message(i, role, text, HERE.child("messages", i), tuple(calls), result)


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
