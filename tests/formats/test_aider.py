"""aider chat history (`aider.py`): edits answered by the console, a section of it for each
failed edit, marks that count only at the start of a line, reasoning blocks cut from the reply."""

from __future__ import annotations

from tests.formats.shared import call_names, found
from tests.helpers import FORMAT_DIR, conversations


def test_aider_edits_are_answered_by_the_console():
    session, hello = conversations(FORMAT_DIR / "aider" / "aider-author-chat-history-excerpt.md")
    assert session.id.endswith("aider-author-chat-history-excerpt.md:1")
    two = session.messages[11]
    assert [c.arguments["path"] for c in two.tool_calls] == ["aider/commands.py"] * 2
    failed, applied = session.messages[12].result, session.messages[13].result
    assert failed.is_error and failed.text.startswith("## SearchReplaceNoExactMatch")
    assert not applied.is_error and "were applied successfully" in applied.text
    assert session.messages[3].text == "/add aider/coders/base_coder.py"
    assert [m.text for m in hello.messages[:2]] == ["hi", "Hello! How can I assist you today?"]
    (whole,) = conversations(FORMAT_DIR / "aider" / "mozgoslav-whole-format-excerpt.md")
    write = whole.messages[1].tool_calls[0]
    assert write.name == "write" and write.arguments["path"] == "Topology"  # aider's misparse
    assert whole.messages[2].result.text == "Applied edit to Topology"
    assert whole.messages[4].reasoning.startswith("Here's a thinking process:")
    # "don't paginate cmd_web from Coder" is no denial; "hi" answered six times is no loop
    assert found(FORMAT_DIR / "aider") == []


def test_aider_each_failed_edit_gets_its_own_section_of_the_console(tmp_path):
    # Two SEARCH blocks that failed in one reply: each edit's result is its own section, not
    # both sections run together under the first heading.
    failed = "> ## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in"
    history = tmp_path / "chat.md"
    history.write_text(
        "# aider chat started at 2024-08-09 17:24:39\n\n"
        "#### go ahead  \n\n"
        "a.py\n```python\n<<<<<<< SEARCH\nold one\n=======\nnew one\n>>>>>>> REPLACE\n```\n"
        "a.py\n```python\n<<<<<<< SEARCH\nold two\n=======\nnew two\n>>>>>>> REPLACE\n```\n"
        "> Tokens: 1 sent, 2 received.  \n"
        "> # 2 SEARCH/REPLACE blocks failed to match!  \n>   \n"
        f"{failed} a.py  \n"
        "> <<<<<<< SEARCH  \n> old one  \n> =======  \n> new one  \n> >>>>>>> REPLACE  \n>   \n"
        f"{failed} a.py  \n"
        "> <<<<<<< SEARCH  \n> old two  \n> =======  \n> new two  \n> >>>>>>> REPLACE  \n>   \n"
        "> Did you mean to match some of these actual lines from a.py?  \n"
    )
    (session,) = conversations(history)
    first, second = (m.result for m in session.messages if m.result is not None)
    assert first.is_error and second.is_error
    assert "old one" in first.text and "old two" not in first.text
    assert "old two" in second.text and "old one" not in second.text


def test_aider_marks_count_only_at_the_start_of_a_line(tmp_path):
    history = tmp_path / "chat.md"
    history.write_text(
        "# aider chat started at 2024-08-09 17:24:39\n\n"
        "> aider --model x  \n> Aider v0.48.2  \n\n"
        "#### rename foo  \n#### in a.py\n\n"
        "Sure. Not a session: # aider chat started at 2024-01-01 00:00:00\n\n"
        "a.py\n```python\n<<<<<<< SEARCH\nfoo\n=======\nbar\n>>>>>>> REPLACE\n```\n\n"
        "> Tokens: 1 sent, 2 received.\nCost: $0.01 message.  \n> Applied edit to a.py  \n\n"
        "# aider chat started at 2024-08-09 18:00:00\n\n#### show the markers\n\n"
        "Ten are no marker:\n<<<<<<<<<< SEARCH\nx\n==========\ny\n>>>>>>>>>> REPLACE\n\n"
        "> Tokens: 3 sent"  # a console line that ends the file, with no newline
    )
    edit, markers = conversations(history)
    assert [(m.role, m.text, m.location.line) for m in edit.messages] == [
        ("user", "rename foo\nin a.py", 6),
        (
            "assistant",
            "Sure. Not a session: # aider chat started at 2024-01-01 00:00:00\n\na.py\n```python"
            "\n<<<<<<< SEARCH\nfoo\n=======\nbar\n>>>>>>> REPLACE\n```",
            9,
        ),
        ("tool", "Applied edit to a.py", 20),
    ]
    (call,) = edit.messages[1].tool_calls
    assert call.arguments == {"path": "a.py", "search": "foo", "replace": "bar"}
    assert edit.messages[2].result.call_id == call.id and not edit.messages[2].result.is_error
    assert markers.id.endswith("chat.md:24") and call_names(markers) == []


def test_aider_reasoning_blocks_are_cut_from_the_reply_in_one_pass():
    from auditor.formats.aider import _thinking

    reply = "<think>plan A</think>Here is the edit.<thinking-content-7>why</thinking-content-7>!"
    assert _thinking(reply) == (["plan A", "why"], "Here is the edit.!")
    # an unclosed block is left in the reply, and blocks after it are still read
    assert _thinking("<think>cut off<think>a</think>b") == (["cut off<think>a"], "b")
    assert _thinking("<thinking-content-x>never closed <think>b</think>") == (
        ["b"],
        "<thinking-content-x>never closed",
    )
    assert _thinking("<think> no end") == ([], "<think> no end")
