"""Letta agent files (`letta.py`): `send_message` is the reply, and the boot sequence is not the
model's."""

from __future__ import annotations

from tests.formats.shared import call_names, found
from tests.helpers import FORMAT_DIR, conversations


def test_letta_send_message_is_the_reply_and_the_boot_sequence_is_not_the_models():
    (agent,) = conversations(FORMAT_DIR / "letta" / "composio_github_star_agent.af")
    roles = [m.role for m in agent.messages]
    assert roles[:5] == ["system", "system", "system", "system", "user"]  # boot, then login
    assert agent.messages[4].text == "please star this repo https://github.com/letta-ai/letta"
    star = agent.messages[5]
    assert star.reasoning.startswith("User requested to star") and star.text == ""
    assert call_names(agent)[0] == "github_star_a_repository_for_the_authenticated_user"
    heartbeat = agent.messages[7]
    assert heartbeat.role == "system" and '"type": "heartbeat"' in heartbeat.text
    (loop,) = conversations(FORMAT_DIR / "letta" / "loop-agentfile-1.0-excerpt.af")
    assert loop.id == "agent-0" and [m.role for m in loop.messages] == ["system"] * 3
    # the boot send_message lacks request_heartbeat: not EX007
    assert found(FORMAT_DIR / "letta") == []
