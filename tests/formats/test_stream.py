"""Session streams (`stream.py`): interleaved sessions, Claude Code, Codex rollouts, Claude
Managed Agents, and a session without messages; and the real Claude Code and Codex sessions in
../shared/realdata (skipped in a user's clone)."""

from __future__ import annotations

import json
from collections import Counter

import orjson

from auditor.replay import replay
from tests.formats.shared import by_id, lines_of, roles_of
from tests.helpers import (
    FORMAT_DIR,
    SESSIONS,
    audit,
    brief,
    conversations,
    conversations_below,
    normalised,
    requires_realdata,
)


def test_stream_groups_interleaved_sessions_each_message_at_its_line():
    sessions = by_id(FORMAT_DIR / "stream" / "sessions.jsonl")
    assert list(sessions) == ["c1", "c2", "t1", "tr-7"]
    c1 = sessions["c1"]
    assert lines_of(c1) == [1, 3, 4, 5, 7, 9, 10]  # line 8 is an event with no message
    assert c1["tools"][0]["name"] == "book_flight"
    assert c1["messages"][3]["approval_request"]["call_id"] == "call_1"
    assert c1["messages"][4]["approval_decision"] == {
        "request_id": "apr_1",
        "approved": True,
        "arguments": '{"flight": "LX318", "date": "2025-06-03"}',
    }
    assert lines_of(sessions["c2"]) == [2, 6]
    assert sessions["t1"]["messages"][1]["tool_calls"][0]["id"] == "fc_1"
    merged = sessions["tr-7"]["messages"][1]
    assert merged["text"] == "Pinging."
    assert (
        merged["tool_calls"][0]["location"] == "formats/stream/sessions.jsonl:17/message/content/0"
    )


def test_claude_code_blocks_merge_and_a_rejection_is_a_denied_approval():
    (session,) = normalised(FORMAT_DIR / "stream" / "claude-code-short.jsonl")
    assert session["id"] == "55604662-cf2a-4331-851a-ec234028f8ca"
    assert roles_of(session) == "user assistant tool tool user"
    turn = session["messages"][1]
    assert [c["location"].split(":")[1] for c in turn["tool_calls"]] == [
        "8/message/content/0",
        "10/message/content/0",
    ]
    for message, call in zip(session["messages"][2:4], turn["tool_calls"], strict=True):
        assert message["result"]["is_error"] is False
        assert message["approval_decision"] == {
            "request_id": call["id"],
            "approved": False,
            "arguments": None,
        }


def test_claude_code_progress_lines_and_subagents():
    path = FORMAT_DIR / "stream" / "claude-code-subagent-excerpt.jsonl"
    (main,) = normalised(path)
    kinds = [json.loads(line)["type"] for line in path.read_text().splitlines()]
    progress = {i for i, kind in enumerate(kinds, 1) if kind == "progress"}
    # hook output, and a copy of the subagent's own messages: no message comes from them
    assert {26, 27, 28} <= progress and not progress & set(lines_of(main))
    second = main["messages"][7]
    assert [c["name"] for c in second["tool_calls"]] == ["Glob", "WebSearch"]
    assert lines_of(main)[7:10] == [17, 21, 23]  # a result logged between two blocks of one turn
    (agent,) = normalised(FORMAT_DIR / "stream" / "claude-code-agent-file-excerpt.jsonl")
    assert agent["id"] == "4d5611e5-241a-462a-8d15-5122611a9569/agent-a2898e3"


def test_codex_rollouts_read_response_items_once():
    (cli,) = normalised(FORMAT_DIR / "stream" / "codex-cli-rollout-excerpt.jsonl")
    assert cli["id"] == "019e1625-789d-76c0-80ab-3724b5ddb799" and cli["own_id"] is True
    users = [m for m in cli["messages"] if m["role"] == "user"]
    assert [m["text"] for m in users][1:] == [
        "show tools",
        "let's update the defailt context compart to 90 in env var",
    ]
    assert all(m["location"].endswith("/payload") for m in cli["messages"])
    calls = [c for m in cli["messages"] for c in m.get("tool_calls", [])]
    assert [c["name"] for c in calls] == [
        "exec_command",
        "write_stdin",
        "web_search",
        "update_plan",
        "apply_patch",
    ]
    assert calls[2]["id"] == "web_search_call@26"
    assert set(calls[4]["arguments"]) == {"input"}
    (desktop,) = normalised(FORMAT_DIR / "stream" / "codex-desktop-rollout-excerpt.jsonl")
    users = [m for m in desktop["messages"] if m["role"] == "user"]
    assert [int(m["location"].split(":")[1].split("/")[0]) for m in users] == [2, 8, 10]
    report = audit([FORMAT_DIR / "stream"], select=["EX001", "EX002"])
    assert report.findings == ()


def test_a_session_of_events_without_messages_is_reported(tmp_path):
    path = tmp_path / "spans.jsonl"
    lines = [
        {"trace_id": "t1", "type": "span", "name": "retrieve"},
        {"trace_id": "t1", "type": "span", "name": "generate"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = audit([path])
    (finding,) = report.findings
    assert (finding.code, finding.line, finding.conversation) == ("IN002", 1, "t1")
    assert finding.message == "no line of session `t1` holds a message (`span`)"
    assert report.counts.records == 2 and report.counts.conversations == 0


def test_managed_agents_denied_call_is_a_denial_not_a_failure():
    path = FORMAT_DIR / "stream" / "anthropic-managed-mcp-tools-reject.jsonl"
    (conversation,) = conversations(path, strict=True)
    (approval,) = replay(conversation).approvals
    assert (approval.name, approval.approved, approval.execution) == ("web_search_exa", False, None)
    assert approval.decision.reason == "This tool is not allowed in this demo."
    denied = next(m for m in conversation.messages if m.result and m.approval_decision)
    assert denied.result.is_error is False
    assert [brief(f) for f in audit([path]).findings] == []


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
    (run,) = conversations_below(log)
    assert [m.role for m in run.messages] == ["user", "system", "system", "system", "user"]


@requires_realdata
def test_claude_code_rejections_are_denied_approvals_never_tool_errors():
    (session,) = conversations_below(
        SESSIONS
        / "claude-code"
        / "marot-spotter"
        / "test"
        / "fixtures"
        / "transcripts"
        / "short.jsonl"
    )
    denials = [m for m in session.messages if m.approval_decision is not None]
    assert [m.location.line for m in denials] == [11, 12]
    assert all(not m.approval_decision.approved for m in denials)
    assert all(m.result.is_error is False for m in denials)
    # the MANIFEST's other counts of errors hold: rejections are not among them
    errors = Counter()
    for conversation in conversations_below(SESSIONS / "claude-code"):
        name = conversation.location.path.rsplit("/", 1)[1]
        errors[name] += sum(1 for m in conversation.messages if m.result and m.result.is_error)
    assert errors == {
        "agent-a2898e3.jsonl": 8,
        "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl": 1,
        "short.jsonl": 0,
        "subagent.jsonl": 0,
        "tool_heavy.jsonl": 0,
    }


@requires_realdata
def test_session_calls_match_the_manifest_and_are_all_answered():
    calls = Counter()
    claude, codex = (conversations_below(SESSIONS / name) for name in ("claude-code", "codex-cli"))
    for conversation in claude + codex:
        exchanges = replay(conversation).exchanges
        assert all(e.answered for e in exchanges), conversation.location.path
        calls[conversation.id] += len(exchanges)
    assert calls == {
        "4d5611e5-241a-462a-8d15-5122611a9569/agent-a2898e3": 33,
        "8463c716-a2ea-4c14-9efa-87158ebd9f20": 18,
        "55604662-cf2a-4331-851a-ec234028f8ca": 2,  # short.jsonl
        "491e126e-1e71-469c-ade2-fcc8af567c74": 16,  # subagent.jsonl
        "d6e0bada-1959-4eec-a9d2-0bfade768d8f": 6,  # tool_heavy.jsonl
        "019e1625-789d-76c0-80ab-3724b5ddb799": 105,  # 99 function, 3 custom, 3 web search calls
        "019e1695-0522-7c83-8b39-0dd379793f80": 38,
    }
