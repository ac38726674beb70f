"""The text-action protocol (`_text_actions.py`) the coding agents' readers declare: a new
framework is a few lines of declaration."""

from __future__ import annotations


def test_a_new_framework_is_a_few_lines_of_declaration():
    import re

    from auditor.formats._common import MessageDraft, freeze
    from auditor.formats._text_actions import TextProtocol, exit_status, fenced, pair
    from auditor.model import Location

    protocol = TextProtocol(
        actions=fenced("python", "python", "code"),
        runs="last",
        opening=re.compile(r"Execution result:\n"),
        failed=exit_status(r"\[exit (-?\d+)\]", window=40),
        refusal=re.compile(r"Only one code block per turn"),
        issued=True,
    )
    said = [
        ("user", "Sum 1 and 2, then 3 and 4."),
        ("assistant", "```python\nprint(1 + 2)\n```"),
        ("user", "Execution result:\n3\n[exit 0]"),
        ("assistant", "```python\nprint(3 + 4\n```"),
        ("user", "Execution result:\nSyntaxError: '(' was never closed\n[exit 1]"),
        ("assistant", "Two at once:\n```python\nprint(3)\n```\n```python\nprint(4)\n```"),
        ("user", "Only one code block per turn, please."),
        ("assistant", "```python\nprint(7)\n```"),
        ("user", "Is it done?"),  # not an answer: that block stays text
        ("assistant", "Done.\n```python\nprint('bye')\n```"),  # the run ends on it: issued
    ]
    drafts = [
        MessageDraft(role, Location("x", i + 1), [text]) for i, (role, text) in enumerate(said)
    ]
    messages = freeze(pair(drafts, (protocol,)))
    made = [(m.index, c.id, c.arguments["code"]) for m in messages for c in m.tool_calls]
    assert made == [
        (1, "action-1", "print(1 + 2)"),
        (3, "action-3", "print(3 + 4"),
        (5, "action-5", "print(4)"),  # runs="last": the harness takes the last block
        (9, "action-9", "print('bye')"),
    ]
    results = [
        (m.index, m.result.call_id, m.result.text, m.result.is_error, m.result.ran)
        for m in messages
        if m.result is not None
    ]
    assert results == [
        (2, "action-1", "3\n[exit 0]", False, None),  # the opening left out of the text
        (4, "action-3", "SyntaxError: '(' was never closed\n[exit 1]", True, None),
        (6, "action-5", "Only one code block per turn, please.", True, False),
    ]
    assert not messages[7].tool_calls and messages[8].role == "user"
