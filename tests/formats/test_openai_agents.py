"""OpenAI Agents SDK run state (`openai_agents.py`): a pending approval, a decision for every call
of a tool, the JS SDK's camelCase."""

from __future__ import annotations

import json

from auditor.replay import replay
from tests.helpers import FORMAT_DIR, audit, brief, conversations, normalised


def test_agents_sdk_pending_approval_is_asked_and_not_an_unanswered_call():
    path = FORMAT_DIR / "openai-agents" / "v1_13_pending_tool_approval.json"
    (conversation,) = conversations(path, strict=True)
    assert conversation.id == "trace_179a5e809d614cf89ac5a1f24b415704" and not conversation.complete
    (approval,) = replay(conversation).approvals
    assert (approval.name, approval.approved, approval.execution) == (
        "historical_approval",
        None,
        None,
    )
    assert [brief(f) for f in audit([path]).findings] == []


def test_agents_sdk_decision_for_every_call_of_a_tool_decides_the_pending_one(tmp_path):
    state = json.loads(
        (FORMAT_DIR / "openai-agents" / "v1_13_pending_tool_approval.json").read_text()
    )
    state["context"]["approvals"] = {"historical_approval": {"approved": True, "rejected": []}}
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))
    (conversation,) = conversations(path, strict=True)
    (approval,) = replay(conversation).approvals
    assert (approval.approved, approval.decided_at) == (True, 3)


def test_agents_sdk_js_state_reads_camel_case():
    (conversation,) = normalised(FORMAT_DIR / "openai-agents" / "v1.2-nested-approval.json")
    assert [m["role"] for m in conversation["messages"]] == ["user", "assistant", "approval"]
    assert conversation["messages"][2]["location"].endswith(
        "/currentStep/data/interruptions/0/rawItem"
    )
