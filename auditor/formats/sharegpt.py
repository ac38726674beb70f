"""ShareGPT fine-tuning data: `{conversations: [{from, value}], system?, tools?}`, or a list.

Speakers: `human` (user), `gpt` (assistant), `system`, `function_call` (an assistant turn whose
value is the JSON call `{name, arguments}`, or a list of them) and `observation` (the tool's
output, answering the open calls in order: ShareGPT has no call ids). `tools` is the declared
tools as a JSON string (LLaMA-Factory) or a list. `{role, content}` turns are read as well.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from auditor.formats import contract
from auditor.formats._common import (
    MessageDraft,
    Problem,
    containers,
    conversation,
    excerpt_json,
    freeze,
    positioned,
    read_each,
    result_draft,
    text_of,
    tool_call,
    tool_specs,
)
from auditor.model import Conversation, Location
from auditor.sources import Record

NAME = "sharegpt"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference
ROLES = {
    "human": "user",
    "user": "user",
    "gpt": "assistant",
    "assistant": "assistant",
    "chatgpt": "assistant",
    "model": "assistant",
    "bard": "assistant",
    "bing": "assistant",
    "system": "system",
    "function_call": "call",
    "observation": "tool",
    "tool": "tool",
    "function": "tool",
}


def detect(record: Record) -> bool:
    value = record.value
    if isinstance(value, list) and value:
        value = value[0]
    if not isinstance(value, dict):
        return False
    turns = value.get("conversations")
    return (
        isinstance(turns, list)
        and bool(turns)
        and isinstance(turns[0], dict)
        and ("from" in turns[0] or "role" in turns[0])
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    units = containers(
        record.value, record.location, "conversations", "a ShareGPT record with `conversations`"
    )
    return read_each(units, _conversation)


def _conversation(
    value: dict, location: Location, index: int | None
) -> Iterator[Conversation | Problem]:
    problems: list[Problem] = []
    drafts: list[MessageDraft] = []
    if isinstance(value.get("system"), str) and value["system"]:
        drafts.append(MessageDraft("system", location.child("system"), [value["system"]]))
    open_calls = 0
    for i, turn in enumerate(value["conversations"]):
        here = location.child("conversations", i)
        speaker = turn.get("from", turn.get("role")) if isinstance(turn, dict) else None
        if not isinstance(speaker, str):
            problems.append(
                Problem(here, "expected a turn with a string `from`", evidence=excerpt_json(turn))
            )
            continue
        text = text_of(turn.get("value", turn.get("content")))
        role = ROLES.get(speaker.lower(), speaker)
        if role == "call":
            draft = MessageDraft("assistant", here)
            draft.calls.extend(_calls(text, here, problems))
            open_calls = len(draft.calls)
            drafts.append(draft)
        elif role == "tool":
            outputs = _split(text, open_calls)
            drafts.extend(result_draft(None, out, here) for out in outputs)
            open_calls = 0
        else:
            drafts.append(MessageDraft(role, here, [text]))
    tools = tool_specs(_loaded(value.get("tools")))
    msgs = positioned(freeze(drafts), location, ("conversations", "messages"))
    yield from conversation(NAME, value, location, msgs, problems, index, tools=tools)


def _calls(text: str, here: Location, problems: list[Problem]) -> list:
    value = _loaded(text)
    calls = value if isinstance(value, list) else [value]
    if not all(isinstance(c, dict) and isinstance(c.get("name"), str) for c in calls):
        problems.append(
            Problem(here, "expected the call as JSON `{name, arguments}`", evidence=text[:80])
        )
        # the call happened, but what it was is unreadable: the Problem says so, once
        return [tool_call(None, "", {}, here)]
    return [
        tool_call(None, c["name"], c.get("arguments", c.get("parameters")), here) for c in calls
    ]


def _split(text: str, calls: int) -> list[str]:
    """One observation per open call when it holds a JSON list of that many outputs."""
    if calls > 1:
        value = _loaded(text)
        if isinstance(value, list) and len(value) == calls:
            return [v if isinstance(v, str) else orjson.dumps(v).decode() for v in value]
    return [text]


def _loaded(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return None
    return value
