"""ShareGPT data (`sharegpt.py`): calls and observations paired in order."""

from __future__ import annotations

from tests.formats.shared import problems_of, roles_of
from tests.helpers import FORMAT_DIR, normalised


def test_sharegpt_calls_and_observations_pair_in_order():
    single, parallel = normalised(FORMAT_DIR / "sharegpt" / "glaive-function-calling.json")
    assert single["tools"][0]["name"] == "get_weather"
    assert single["messages"][2]["tool_calls"][0]["arguments"] == {"city": "Paris"}
    assert single["messages"][3]["result"]["text"] == '{"temperature": 21, "sky": "clear"}'
    assert roles_of(parallel) == "user assistant tool tool assistant"
    assert [m["result"]["text"] for m in parallel["messages"][2:4]] == [
        '{"temperature":21}',
        '{"temperature":27}',
    ]
    (bad,) = problems_of(FORMAT_DIR / "sharegpt" / "chat.jsonl")
    assert bad["location"] == "formats/sharegpt/chat.jsonl:3/conversations/1"
    assert bad["evidence"] == "search(query='cats')"
