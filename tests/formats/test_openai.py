"""OpenAI chat logs (`openai.py`): calls, results and content parts; parallel calls written one
message each."""

from __future__ import annotations

from auditor.replay import replay
from tests.helpers import FIXTURES, FORMAT_DIR, conversations_below, normalised


def test_openai_calls_results_and_parts():
    (chat, bare, named, unnamed) = normalised(FORMAT_DIR / "openai" / "chat-completions.jsonl")
    assert chat["id"] == "chat-1" and chat["own_id"] is True
    assert chat["tools"][0]["name"] == "get_weather"
    user = chat["messages"][1]
    assert user["text"] == "Weather in Paris\nand Rome?"
    calls = chat["messages"][2]["tool_calls"]
    assert calls[0]["arguments"] == {"city": "Paris"}
    assert calls[1]["arguments"] is None
    assert calls[1]["arguments_error"].startswith("unexpected end of data")
    assert chat["messages"][2]["reasoning"] == "Two cities: two calls."
    assert chat["messages"][3]["result"] == {"call_id": "call_a", "text": "sunny"}
    assert bare["id"] == "formats/openai/chat-completions.jsonl:2" and not bare.get("own_id")
    assert bare["messages"][1]["tool_calls"][0]["name"] == "now"
    assert bare["messages"][2]["role"] == "tool"
    assert named["id"] == "conv-x"
    assert unnamed["id"] == "formats/openai/chat-completions.jsonl:3#1"


def test_parallel_calls_one_message_each_are_one_batch():
    path = FIXTURES / "rules" / "EX001" / "good_parallel_calls_one_message_each.jsonl"
    (conversation,) = conversations_below(path)
    exchanges = replay(conversation).exchanges
    assert [(e.call.id, e.turn, e.result_turn, e.passed_at) for e in exchanges] == [
        ("c1", 1, 3, None),
        ("c2", 2, 4, None),
    ]
    # the nearest negative: the second message speaks, so the first call was passed over
    path = FIXTURES / "rules" / "EX001" / "bad_parallel_batch_answered_late_or_never.jsonl"
    never, spoke = conversations_below(path)
    assert [(e.call.id, e.passed_at) for e in replay(never).exchanges] == [("c1", 4), ("c2", None)]
    assert [(e.call.id, e.passed_at) for e in replay(spoke).exchanges] == [("c1", 2), ("c2", None)]
