"""Gateway and HTTP recordings (`exchange/`): requests that repeat a conversation, each API's
bodies, stored conversations continued, and the Gemini and Bedrock dialects."""

from __future__ import annotations

from tests.formats.shared import lines_of, problems_of, roles_of, shape_of
from tests.helpers import FORMAT_DIR, audit, normalised


def test_exchanges_that_repeat_a_conversation_add_only_what_is_new():
    path = FORMAT_DIR / "exchange" / "gateway-chat-completions.jsonl"
    cancel, weather, joke = normalised(path)
    assert cancel["id"] == "formats/exchange/gateway-chat-completions.jsonl:1"
    assert lines_of(cancel) == [1, 1, 1, 3, 3]
    assert cancel["messages"][3]["result"]["call_id"] == "call_a1"
    # the request of line 4 failed (500): its tool result counts, the retry adds only its answer
    assert lines_of(weather) == [2, 2, 4, 5]
    assert weather["messages"][0]["location"].endswith(":2/request/body/messages/0")
    assert weather["messages"][3]["tool_calls"][0]["id"] == "call_b2"
    assert all(c["complete"] is False for c in (cancel, weather, joke))
    (streamed,) = problems_of(path)
    assert streamed["location"].endswith(":6/response/body")
    assert streamed["reason"] == "body is not JSON (a streamed response?)"
    assert streamed["conversation"] == joke["id"]


def test_exchange_trailing_call_waits_for_a_request_the_log_does_not_hold():
    report = audit([FORMAT_DIR / "exchange"], select=["EX001", "EX002"])
    assert report.findings == ()
    assert report.counts.conversations == 17


def test_exchange_recordings_of_each_api():
    (anthropic,) = normalised(
        FORMAT_DIR / "exchange" / "pydantic-ai-anthropic-strict-tool-run.jsonl"
    )
    assert roles_of(anthropic) == "system user assistant tool assistant tool assistant"
    assert lines_of(anthropic) == [1, 1, 1, 2, 2, 3, 3]
    (retry,) = normalised(FORMAT_DIR / "exchange" / "pydantic-ai-openai-responses-retry.jsonl")
    assert len(retry["messages"][1]["tool_calls"]) == 2
    assert [m["result"]["call_id"] for m in retry["messages"][2:4]] == [
        "call_LWVp74L5HaH2KNvgVz9PJsrj",
        "call_YnRAWeTyxI91m5uNa5bxXwVO",
    ]
    (body,) = normalised(FORMAT_DIR / "exchange" / "responses-response-body.json")
    assert body["id"] == "resp_68c1d3a0" and body["own_id"] is True
    assert body["tools"] == [
        {"name": "create_short_url", "parameters": body["tools"][0]["parameters"]}
    ]
    assert body["messages"][0]["tool_calls"][0]["approval_request_id"] == "mcpr_04f6b174"
    (message,) = normalised(FORMAT_DIR / "exchange" / "anthropic-response-body.json")
    assert message["id"] == "msg_01Aq9w938a90dw8q" and message["complete"] is False


def test_exchange_requests_naming_a_stored_conversation_continue_it():
    path = FORMAT_DIR / "exchange" / "responses-stored-state.jsonl"
    chain, stored = normalised(path)
    assert roles_of(chain) == "user assistant tool assistant user assistant"
    assert lines_of(chain) == [1, 1, 2, 2, 3, 3]
    assert chain["messages"][2]["result"]["call_id"] == "call_001"
    # the Conversations API: each request sends only its new input
    assert stored["id"] == "conv_689667905b048191b4740501625afd940c7533ace33a2dab"
    assert stored["own_id"] is True
    assert roles_of(stored) == "user assistant user assistant"
    assert lines_of(stored) == [4, 4, 5, 5]


def test_gemini_function_response_error_and_ids_named_by_the_next_request():
    (conversation,) = normalised(FORMAT_DIR / "exchange" / "gemini-pydantic-ai-model-retry.jsonl")
    # the answers name no call id; the next request does, and the call takes it
    assert shape_of(conversation)[2:6] == [
        ("assistant", ("pyd_ai_1f2bdea4ea804905a3f05dfe5b96a7fb",), None),
        ("tool", (), ("pyd_ai_1f2bdea4ea804905a3f05dfe5b96a7fb", True)),
        ("assistant", ("pyd_ai_9f63eafb0eac47419f4f6c19975e924b",), None),
        # an `output` does not say the call succeeded: its text decides (`None`)
        ("tool", (), ("pyd_ai_9f63eafb0eac47419f4f6c19975e924b", None)),
    ]
    assert [t["name"] for t in conversation["tools"]] == ["get_capital"]


def test_bedrock_tool_result_status_error():
    (conversation,) = normalised(FORMAT_DIR / "exchange" / "bedrock-pydantic-ai-model-retry.jsonl")
    assert shape_of(conversation)[3] == ("tool", (), ("tooluse_Ze_bgl9CSqu8aJv7XD-_Dw", True))
    (nock,) = normalised(FORMAT_DIR / "exchange" / "bedrock-nock-recording.json")
    assert nock["tools"][0]["name"] == "calculate"
