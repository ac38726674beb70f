"""smolagents decentralized teams (`smolagents.py`): the message bus."""

from __future__ import annotations

from tests.formats.shared import found
from tests.helpers import FORMAT_DIR, conversations


def test_smolagents_bus_is_one_conversation_and_poll_updates_are_not_messages():
    path = FORMAT_DIR / "smolagents" / "run-56371001-messages.jsonl"
    (run,) = conversations(path)
    assert run.messages[0].role == "user" and "Caesar cipher" in run.messages[0].text
    assert len(run.messages) == 12  # 13 lines: a poll re-posted with its status is no message
    assert (
        run.messages[9].name == "Coordinator" and run.messages[9].text == "Meet me at Central Park."
    )
    assert run.messages[2].text.startswith("YES (confidence 1.0): ")
    assert found(path) == []
