"""AutoGen AgentChat (`autogen.py`): tool events and saved team state."""

from __future__ import annotations

from tests.formats.shared import found
from tests.helpers import FORMAT_DIR, conversations


def test_autogen_tool_events_and_saved_team_state():
    unanswered = FORMAT_DIR / "autogen" / "agent_history-unanswered-call.json"
    (chat,) = conversations(unanswered)
    assert chat.messages[1].reasoning == "Two cities: two lookups."
    assert [c.id for c in chat.messages[1].tool_calls] == ["call_1", "call_2"]
    assert found(unanswered) == [
        (
            "EX001",
            29,
            "`get_weather` call `call_2` got no result before the assistant spoke again at turn 4; "
            "it went on without the tool's output",
        )
    ]
    assert found(FORMAT_DIR / "autogen" / "agent_history.json") == []
    weather, critic = conversations(FORMAT_DIR / "autogen" / "team_state.json")
    assert weather.id.endswith("team_state.json#0") and critic.messages[1].name == "critic"
    assert weather.messages[2].result.is_error is True
