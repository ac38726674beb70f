"""Timelines: what reporters may see of a conversation with findings, bounded whatever the log."""

from __future__ import annotations

import dataclasses
import pickle

from auditor import config, engine, timeline
from auditor.model import (
    ApprovalDecision,
    ApprovalRequest,
    Conversation,
    Location,
    Message,
    ToolCall,
    ToolResult,
)
from tests.helpers import FIXTURES

HERE = Location("log.jsonl", 1)


def conversation(messages: list[Message]) -> Conversation:
    return Conversation("c-1", "openai", HERE, tuple(messages), own_id=True)


def message(i: int, role: str = "user", text: str = "", **more) -> Message:
    return Message(i, role, text, HERE.child("messages", i), **more)


def test_only_conversations_with_findings_get_one_and_only_when_asked():
    settings = config.build()
    plain = engine.audit([str(FIXTURES / "demo")], settings)
    assert plain.timelines == ()
    report = engine.audit([str(FIXTURES / "demo")], dataclasses.replace(settings, timelines=True))
    with_findings = {f.conversation for f in report.findings}
    assert [t.conversation for t in report.timelines] == sorted(
        with_findings, key=lambda cid: int(cid.rsplit("-", 1)[1])
    )
    assert "clean-weather-001" not in {t.conversation for t in report.timelines}
    assert pickle.loads(pickle.dumps(report.timelines)) == report.timelines  # --jobs ships them


def test_a_conversation_whose_findings_are_dropped_has_no_timeline(tmp_path):
    """Findings `per-file-ignores` drops mark no timeline, and a finding its rule decides away
    once the run's tools are known (FB003 with inferred tools) takes its timeline with it."""
    settings = dataclasses.replace(
        config.build(),
        timelines=True,
        per_file_ignores=(("agent-runs.jsonl", frozenset({"LP004", "FB001", "FB002"})),),
    )
    report = engine.audit([str(FIXTURES / "demo")], settings)
    shown = {t.conversation for t in report.timelines}
    assert "repeated-reply-013" not in shown and "react-fabricated-002" not in shown
    assert shown == {f.conversation for f in report.findings}
    log = tmp_path / "claims.jsonl"
    log.write_text(
        '{"id": "claims-only", "messages": [{"role": "user", "content": "Please cancel my '
        'reservation ABC123."}, {"role": "assistant", "content": "Your reservation ABC123 has '
        'been cancelled."}]}\n'
    )
    # No tool of the file cancels anything: FB003 is decided away, and so is the timeline.
    report = engine.audit([str(log)], dataclasses.replace(config.build(), timelines=True))
    assert (report.findings, report.timelines) == ((), ())


def test_an_entry_holds_calls_results_and_approvals():
    call = ToolCall("call_1", "pay", {"amount": 100}, raw_arguments='{"amount": 100}')
    messages = [
        message(0, "user", "Pay 100."),
        message(1, "approval", approval_request=ApprovalRequest("apr", None, "pay", {"a": 1})),
        message(2, "approval", approval_decision=ApprovalDecision("apr", True, {"a": 2})),
        message(3, "assistant", "", tool_calls=(call,)),
        message(4, "tool", "Error: no funds", result=ToolResult("call_1", "Error: no funds")),
    ]
    t = timeline.build(conversation(messages), [(3, "pay(...)")])
    assert [e.turn for e in t.entries] == [0, 1, 2, 3, 4]
    request, decision = t.entries[1].approvals[0], t.entries[2].approvals[0]
    assert (request.kind, request.id, request.name, request.arguments) == (
        "request",
        "apr",
        "pay",
        '{"a":1}',
    )
    assert (decision.kind, decision.approved, decision.arguments) == ("decision", True, '{"a":2}')
    assert t.entries[3].calls == (timeline.CallEntry("pay", "call_1", '{"amount": 100}'),)
    result = t.entries[4].result
    assert result == timeline.ResultEntry("call_1", "Error: no funds", None, reads_as_error=True)
    assert t.entries[4].text == ""  # the result, shown once


def test_long_texts_are_cut_and_keep_the_evidence():
    long = "x " * 50_000 + "Observation: the made-up result." + " y" * 50_000
    messages = [message(0, "user", "hi"), message(1, "assistant", long)]
    t = timeline.build(conversation(messages), [(1, "Observation: the made-up result.")])
    entry = t.entries[1]
    assert entry.length == len(long)
    assert len(entry.text) < 2100
    assert "Observation: the made-up result." in entry.text
    assert entry.text.startswith("x x")


def test_a_huge_conversation_keeps_the_turns_near_findings_and_counts_the_rest():
    messages = [message(i, "user" if i % 2 else "assistant", f"m{i}") for i in range(5000)]
    t = timeline.build(conversation(messages), [(4000, "m4000")])
    turns = [e.turn for e in t.entries]
    assert len(t.entries) == timeline.MAX_ENTRIES
    assert set(range(4000 - timeline.NEAR, 4000 + timeline.NEAR + 1)) <= set(turns)
    assert 4999 in turns  # the last message
    kept_quiet = [e for e in t.entries if not e.near]
    assert all(len(e.text) <= 240 for e in kept_quiet)
    omitted = sum(e.omitted_before for e in t.entries) + t.omitted_after
    assert omitted + len(t.entries) == 5000
    assert t.messages == 5000
    # Past the budget, the quiet messages kept are those closest to the finding.
    budget = timeline.MAX_ENTRIES - (2 * timeline.NEAR + 1) - 3
    first = 4000 - timeline.NEAR - budget // 2
    assert turns[:3] == [0, 1, first]
    assert t.entries[2].omitted_before == first - 2
    assert t.entries[-1].turn == 4999
    assert t.entries[-1].omitted_before == 4999 - (4000 + timeline.NEAR + budget // 2) - 1
