"""OpenAI Responses API logs (`responses.py`): the items of one response are one turn, a call
record waits for the next request, MCP approvals."""

from __future__ import annotations

import json

from tests.formats.shared import roles_of
from tests.helpers import FORMAT_DIR, audit, normalised


def test_responses_items_of_one_response_are_one_turn():
    history = normalised(FORMAT_DIR / "responses" / "items.jsonl")[1]
    assert roles_of(history) == "user assistant tool tool assistant tool assistant"
    patch, search = history["messages"][1]["tool_calls"]
    assert patch["name"] == "apply_patch" and patch["arguments"]["input"].startswith("*** Begin")
    assert "raw_arguments" not in patch
    assert (search["id"], search["name"]) == ("ws_67ccf18ef5fc", "web_search")
    assert history["messages"][2]["result"] == {
        "call_id": "ws_67ccf18ef5fc",
        "text": "completed",
        "is_error": False,
        "name": "web_search",
    }
    assert history["messages"][5]["result"]["text"] == "3 passed"


def test_responses_api_call_record_waits_for_the_next_request():
    weather = normalised(FORMAT_DIR / "responses" / "items.jsonl")[0]
    assert weather["complete"] is False
    assert weather["messages"][0] == {
        "index": 0,
        "role": "system",
        "text": "You are a weather bot.",
        "location": "formats/responses/items.jsonl:1/instructions",
    }
    assert weather["messages"][2]["reasoning"] == "The user wants the weather: call the tool."
    report = audit([FORMAT_DIR / "responses" / "items.jsonl"], select=["EX001", "EX002"])
    assert report.findings == ()


def test_responses_mcp_approvals_become_approval_events():
    approved, denied = normalised(FORMAT_DIR / "responses" / "items.jsonl")[2:]
    assert [t["name"] for t in approved["tools"]] == ["ask_question"]
    request, decision, turn, result = approved["messages"][1:]
    assert request["role"] == decision["role"] == "approval"
    assert request["approval_request"]["id"] == "mcpr_682d498e3bd4"
    # As logged: a JSON string stays text, so CF002 can compare it with the call's.
    assert json.loads(request["approval_request"]["arguments"])["repoName"].startswith(
        "modelcontext"
    )
    assert decision["approval_decision"] == {
        "request_id": "mcpr_682d498e3bd4",
        "approved": True,
        "arguments": None,
    }
    assert turn["tool_calls"][0]["approval_request_id"] == "mcpr_682d498e3bd4"
    assert result["result"]["text"] == "stdio and Streamable HTTP"
    assert denied["messages"][2]["approval_decision"]["approved"] is False
    assert denied["messages"][2]["approval_decision"]["reason"] == "Not today."
    assert denied["messages"][4]["result"]["is_error"] is True
