"""SWE-agent trajectories (`.traj`): `{history: [...], trajectory, info}`.

`history` is what the model saw: `{role, content, agent, message_type?, action?, thought?}`.
Function-calling runs give assistant messages OpenAI `tool_calls` and answer each with a `tool`
message naming it in `tool_call_ids`. Text runs put the command in a fenced block of the
assistant message (parsed by SWE-agent into `action`) and return its output as the next user
message: that command was executed, so it becomes a call of origin `text` (named by its first
word, arguments `{"command": …}`, a synthetic id `action-<index>`) and the user message its
result. The run's last action (`submit`, `exit_cost`) usually has no observation in `history`;
EX001 reads only structured calls, so it is not reported. An empty `action` (SWE-agent could
not parse the output and answered with a format error) is no call.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from auditor.formats import openai
from auditor.formats._common import (
    MessageDraft,
    Problem,
    conversation,
    freeze,
    result_draft,
    roled,
    text_of,
)
from auditor.model import Conversation, Location, ToolCall
from auditor.sources import Record

NAME = "swe-agent"

# The last fenced block of a message, for logs without SWE-agent's own `action` field.
_FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.S)


def detect(record: Record) -> bool:
    value = record.value
    if record.kind != "json" or not isinstance(value, dict):
        return False
    history = value.get("history")
    if not isinstance(history, list):
        return False
    if "trajectory" in value:
        return True
    first = history[0] if history else None
    return isinstance(first, dict) and ("agent" in first or "message_type" in first)


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = record.value, record.location
    problems: list[Problem] = []
    drafts: list[MessageDraft] = []
    waiting: str | None = None  # the id of a text action whose output comes next
    history = roled(value["history"], location.child("history"), problems, "a history entry")
    for i, entry, here in history:
        role = entry["role"]
        if role == "tool":
            ids = entry.get("tool_call_ids")
            ids = ids if isinstance(ids, list) and ids else [entry.get("tool_call_id")]
            text = text_of(entry.get("content"))
            drafts.extend(result_draft(call_id, text, here) for call_id in ids)
        elif role == "assistant":
            draft = MessageDraft.of(openai.message(entry, 0, here, problems))
            waiting = None
            if not draft.calls:
                call = _action(entry, i, here)
                if call is not None:
                    draft.calls.append(call)
                    waiting = call.id
            drafts.append(draft)
        elif role == "user" and waiting is not None:
            drafts.append(result_draft(waiting, text_of(entry.get("content")), here))
            waiting = None
        else:
            drafts.append(MessageDraft(role, here, [text_of(entry.get("content"))]))
    yield from conversation(NAME, value, location, freeze(drafts), problems)


def _action(entry: dict, index: int, here: Location) -> ToolCall | None:
    """The command a text-mode assistant message ran, when it ran one."""
    if "action" in entry:
        action, where = entry["action"], here.child("action")
    else:
        blocks = _FENCE.findall(text_of(entry.get("content")))
        action, where = (blocks[-1] if blocks else None), here.child("content")
    if not isinstance(action, str) or not action.strip():
        return None
    command = action.strip()
    return ToolCall(
        f"action-{index}",
        command.split(None, 1)[0],
        {"command": command},
        origin="text",
        location=where,
    )
