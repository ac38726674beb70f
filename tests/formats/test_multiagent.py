"""Multi-agent chats (`multiagent.py`): speakers and roles, the code blocks an executor ran,
WebSurfer's actions and the pages that answer them; and the real Who&When logs in
../shared/realdata (skipped in a user's clone)."""

from __future__ import annotations

from collections import Counter

from auditor.replay import replay
from tests.formats.shared import roles_of
from tests.helpers import FORMAT_DIR, REALDATA, conversations_below, normalised, requires_realdata


def test_multiagent_speakers_and_roles():
    (hand,) = normalised(FORMAT_DIR / "multiagent" / "who-and-when-hand-crafted-1.json")
    assert [(m["role"], m.get("name")) for m in hand["messages"][:5]] == [
        ("user", None),
        ("assistant", "Orchestrator (thought)"),
        ("assistant", "Orchestrator (thought)"),
        ("assistant", "Orchestrator (-> WebSurfer)"),
        ("assistant", "WebSurfer"),
    ]
    (algo,) = normalised(FORMAT_DIR / "multiagent" / "who-and-when-algorithm-generated-17.json")
    assert [m["role"] for m in algo["messages"][:3]] == ["user", "assistant", "user"]
    assert algo["messages"][2]["name"] == "Computer_terminal"
    (ag2,) = normalised(FORMAT_DIR / "multiagent" / "ag2-chat-history.json")
    assert roles_of(ag2) == "user assistant tool assistant tool assistant"


def test_multiagent_code_blocks_an_executor_ran_are_calls_and_its_report_their_result():
    (ag2,) = normalised(FORMAT_DIR / "multiagent" / "ag2-chat-history.json")
    python, sh = (ag2["messages"][i]["tool_calls"] for i in (1, 3))
    assert [(c["id"], c["name"], c["origin"]) for c in python + sh] == [
        ("exec-2-0", "python", "text"),
        ("exec-4-0", "sh", "text"),
    ]
    assert sh[0]["arguments"] == {"code": "pip install yfinance"}
    assert [ag2["messages"][i]["result"]["is_error"] for i in (2, 4)] == [True, False]
    # AG2 ran both blocks of the task message, stopped at the first (an IndentationError: its
    # traceback names tmp_code_<md5 of that block>), so the second block never ran
    (weather,) = normalised(FORMAT_DIR / "multiagent" / "who-and-when-algorithm-generated-112.json")
    first, report = weather["messages"][:2]
    assert first["role"] == "user" and [c["id"] for c in first["tool_calls"]] == ["exec-1-0"]
    assert first["tool_calls"][0]["arguments"]["code"].startswith("   import pandas as pd\n")
    assert report["role"] == "tool" and report["result"]["is_error"] is True
    assert "YOUR_API_KEY" in weather["messages"][4]["tool_calls"][0]["arguments"]["code"]
    assert weather["messages"][5]["result"]["is_error"] is True
    # Magentic-One: the terminal runs the first block of the latest message that holds one,
    # past the orchestrator's instruction and its `(thought)` notes
    (m1,) = normalised(FORMAT_DIR / "multiagent" / "who-and-when-hand-crafted-58-excerpt.json")
    assert roles_of(m1) == "user assistant assistant assistant assistant assistant assistant tool"
    (call,) = m1["messages"][3]["tool_calls"]
    assert (call["id"], call["name"]) == ("exec-7-0", "python")
    assert call["arguments"]["code"].startswith("# filename: fetch_issues.py\n")
    assert m1["messages"][7]["result"] == {
        "call_id": "exec-7-0",
        "text": "The script ran, then exited with Unix exit code: 0\nIts output was:\n"
        "No issues found with the specified label.",
        "is_error": False,
    }


def test_multiagent_web_surfer_actions_are_calls_and_the_page_their_result():
    (hand,) = normalised(FORMAT_DIR / "multiagent" / "who-and-when-hand-crafted-1.json")
    action, page = hand["messages"][4:6]
    assert action["text"] == (
        "I typed 'martial arts schools near the New York Stock Exchange' into "
        "'0 characters out of 2000'."
    )
    assert action["tool_calls"] == [
        {
            "id": "web-4",
            "name": "input_text",
            "arguments": {
                "text_value": "martial arts schools near the New York Stock Exchange",
                "input_field": "0 characters out of 2000",
            },
            "origin": "text",
        }
    ]
    assert page["role"] == "tool" and page["result"]["call_id"] == "web-4"
    assert page["text"].startswith("Here is a screenshot of [martial arts schools")
    assert page["location"] == action["location"]  # one history entry, two messages


@requires_realdata
def test_who_and_when_executor_reports_answer_the_code_they_ran():
    # Every AG2 `exitcode:` report answers the blocks of the message before it, and every
    # Magentic-One terminal report but one the block it ran: in Hand-Crafted/47 the
    # orchestrator's `unzip …` reached the terminal without a fence the log keeps.
    calls = Counter()
    unpaired = []
    for conversation in conversations_below(REALDATA / "who_and_when"):
        folder = conversation.location.path.split("/")[-2]
        for e in replay(conversation).exchanges:
            assert e.result is not None and e.call.origin == "text"
            calls[(folder, e.call.name, e.failed)] += 1
        unpaired += [
            (conversation.location.path.rsplit("/", 1)[1], m.location.pointer)
            for m in conversation.messages
            if m.role == "user" and m.text.startswith(("exitcode:", "The script ran"))
        ]
    assert unpaired == [("47.json", "/history/55")]
    assert calls == {
        ("Algorithm-Generated", "python", False): 154,
        ("Algorithm-Generated", "python", True): 98,
        ("Algorithm-Generated", "sh", False): 19,
        ("Algorithm-Generated", "sh", True): 8,
        ("Hand-Crafted", "python", False): 6,
        ("Hand-Crafted", "python", True): 1,
        ("Hand-Crafted", "click", False): 277,
        ("Hand-Crafted", "input_text", False): 142,
        ("Hand-Crafted", "web_search", False): 52,
        ("Hand-Crafted", "page_down", False): 65,
        ("Hand-Crafted", "page_up", False): 1,
        ("Hand-Crafted", "visit_url", False): 9,
        ("Hand-Crafted", "history_back", False): 3,
    }
