"""browser-use agent history (`browser_use.py`): results carry the page the next step
starts on."""

from __future__ import annotations

from tests.formats.shared import call_names
from tests.helpers import FORMAT_DIR, conversations


def test_browser_use_results_carry_the_page_the_next_step_starts_on():
    (history,) = conversations(FORMAT_DIR / "browser-use" / "agent-history-list-excerpt.json")
    assert call_names(history) == ["search_google", "click_element", "click_element", "done"]
    first = history.messages[1].result
    assert (
        first.text == "Page: elon musk - Google Suche (https://www.google.com/search?q=elon%20musk)"
    )
    assert history.messages[0].text.endswith("Next goal: Search for 'elon musk' on Google.")
    (dump,) = conversations(FORMAT_DIR / "browser-use" / "conversation_10-excerpt.txt")
    assert len(call_names(dump)) == 11 and call_names(dump)[-1] == "input"
    page = dump.messages[21]
    assert page.result.call_id == "line-39" and page.result.text.startswith("Elements: 0:")
    assert dump.messages[22].tool_calls[0].arguments == {"id": 50, "text": "Zürich"}
    assert dump.messages[23].result.unrecorded  # the dump ends before that action's outcome
