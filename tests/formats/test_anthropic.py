"""Anthropic Messages logs (`anthropic.py`): results taken out of the user message, server
tools, a list read whole, and plain bodies read as their drafts would read them."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.formats import Problem
from auditor.model import Location
from tests.formats.shared import by_id, roles_of
from tests.helpers import FORMAT_DIR, examples, normalised


def test_anthropic_results_leave_the_user_message_and_keep_their_error_flag():
    weather = by_id(FORMAT_DIR / "anthropic" / "tool-use.jsonl")["conv_weather"]
    assert weather["format"] == "anthropic" and weather["tools"][0]["name"] == "get_weather"
    assert roles_of(weather) == "system user assistant tool tool user assistant"
    turn = weather["messages"][2]
    assert turn["reasoning"] == "Two cities, so two calls."
    assert [c["id"] for c in turn["tool_calls"]] == [
        "toolu_01A09q90qw90lq917835lq9",
        "toolu_01B09q90qw90lq917835lq9",
    ]
    assert weather["messages"][3]["result"] == {
        "call_id": "toolu_01A09q90qw90lq917835lq9",
        "text": "59°F, foggy",
    }
    failed = weather["messages"][4]
    assert failed["result"]["is_error"] is True
    assert failed["location"].endswith(":1/messages/2/content/1")
    assert weather["messages"][5]["text"] == "Never mind Paris."


def test_anthropic_server_tool_results_follow_the_assistant_turn():
    convs = by_id(FORMAT_DIR / "anthropic" / "tool-use.jsonl")
    search = convs["conv_search"]["messages"]
    assert [m["role"] for m in search] == ["user", "assistant", "tool"]
    assert search[1]["tool_calls"][0]["name"] == "web_search"
    assert search[2]["result"]["call_id"] == search[1]["tool_calls"][0]["id"]
    fetch = convs["conv_fetch_failed"]["messages"][2]["result"]
    assert fetch == {
        "call_id": "srvtoolu_013gia34XNKyTfwHxaPCKEVd",
        "text": "web_fetch_tool_result_error: unavailable",
        "is_error": True,
    }


def test_anthropic_list_is_read_whole_when_a_later_conversation_has_blocks():
    plain, with_tool = normalised(FORMAT_DIR / "anthropic" / "conversations.json")
    assert plain["format"] == with_tool["format"] == "anthropic"
    assert plain["messages"][0] == {
        "index": 0,
        "role": "system",
        "text": "Answer in one word.",
        "location": "formats/anthropic/conversations.json/0/system",
    }
    assert with_tool["messages"][2]["result"]["is_error"] is False


# Anthropic's reader takes a body without blocks (a Chat Completions request in a gateway log)
# message by message, without drafts: it must give what the drafts give, problems included.
_TEXTS = st.sampled_from(["", " ", "\n\t", "hello", " hi ", "a\nb"])


_CONTENTS = st.one_of(
    st.none(),
    _TEXTS,
    st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": _TEXTS}), max_size=2),
    st.just([{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]),  # blocks: drafts
    st.just([{"type": "web_search_tool_result", "tool_use_id": "s1", "content": []}]),
    st.just(7),
)


_CALLS = st.lists(
    st.fixed_dictionaries(
        {
            "id": st.sampled_from(["c1", "c2"]),
            "type": st.just("function"),
            "function": st.fixed_dictionaries(
                {"name": st.sampled_from(["f", ""]), "arguments": st.sampled_from(["{}", "{"])}
            ),
        }
    ),
    max_size=2,
)


_MESSAGES = st.one_of(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant", "system", "tool", "function"])},
        optional={
            "content": _CONTENTS,
            "tool_calls": st.one_of(_CALLS, st.just("x")),
            "tool_call_id": st.sampled_from(["c1", "c9"]),
            "name": st.sampled_from(["bob", 3]),
            "reasoning_content": st.one_of(_TEXTS, st.just(1)),
            "is_error": st.booleans(),
        },
    ),
    st.sampled_from([{"content": "no role"}, "text", 1, {"role": 2}]),
)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_MESSAGES, max_size=6),
    st.one_of(st.none(), _TEXTS, st.just([{"type": "text", "text": "be brief"}])),
)
def test_anthropic_plain_bodies_read_as_their_drafts(items, system):
    from auditor.formats import anthropic
    from auditor.formats._common import freeze

    body: dict = {"messages": items}
    if system is not None:
        body["system"] = system
    here = Location("gateway.jsonl", 3, "/request")
    fast: list[Problem] = []
    slow: list[Problem] = []
    assert anthropic.messages(body, here, fast) == freeze(anthropic.drafts(body, here, slow))
    assert fast == slow
