"""What the reader tests share: a conversation read back as rows (roles, lines, calls and
results), the conversations and problems of a fixture, and a log's findings in brief.

Conversations as plain data come from `tests.helpers.normalised`; as model objects, from
`tests.helpers.conversations` (one named file) and `conversations_below` (a walk).
"""

from __future__ import annotations

from pathlib import Path

from auditor.model import Conversation
from auditor.replay import replay
from tests.helpers import audit, normalise, normalised

# Of plain data (`normalised`)


def by_id(path) -> dict[str, dict]:
    """The conversations of a fixture by their id."""
    return {c["id"]: c for c in normalised(path)}


def problems_of(path) -> list[dict]:
    """The problems a fixture gives, as plain data."""
    return [i["problem"] for i in normalise(path) if "problem" in i]


def roles_of(conversation: dict) -> str:
    """The roles of its messages, in order, one word each."""
    return " ".join(m["role"] for m in conversation["messages"])


def lines_of(conversation: dict) -> list[int]:
    """The line of the file each message was read from."""
    return [int(m["location"].split(":")[1].split("/")[0]) for m in conversation["messages"]]


def shape_of(conversation: dict) -> list[tuple]:
    """(role, call ids, result id and error flag) of each message."""
    rows = []
    for m in conversation["messages"]:
        calls = tuple(c.get("id") for c in m.get("tool_calls", ()))
        result = m.get("result")
        rows.append(
            (m["role"], calls, (result.get("call_id"), result.get("is_error")) if result else None)
        )
    return rows


# Of model objects (`conversations`, `conversations_below`)


def call_names(conversation: Conversation) -> list[str]:
    """The name of every call, in order."""
    return [c.name for m in conversation.messages for c in m.tool_calls]


def replayed_calls(conversation: Conversation) -> list[tuple]:
    """(turn, name, command or arguments, failed, ran) of every call, as replay pairs them."""
    return [
        (
            e.turn,
            e.call.name,
            e.call.arguments.get("command", e.call.arguments)
            if isinstance(e.call.arguments, dict)
            else e.call.arguments,
            None if e.result is None else e.failed,
            None if e.result is None else e.result.ran,
        )
        for e in replay(conversation).exchanges
    ]


def found(*paths: Path | str) -> list[tuple[str, int | None, str]]:
    """(code, line, message) of each finding, in report order."""
    return [(f.code, f.line, f.message) for f in audit(paths).findings]
