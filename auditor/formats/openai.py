"""OpenAI chat logs: `{messages, tools?, id?}`, a list of those, or a bare list of messages.

Messages are `{role, content, tool_calls?, tool_call_id?}`; content is a string or a list of
parts; `tool_calls[].function.arguments` is a JSON string. Also read: the legacy single
`function_call` with `role: function` results, and the flat `{id, name, arguments}` calls and
`{role: tool, id, error}` results that tau2-bench writes (the `tau` format reuses this parser).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from auditor.formats import contract
from auditor.formats._common import (
    Problem,
    as_id,
    containers,
    conversation,
    excerpt_json,
    malformed_parts,
    read_each,
    roled,
    text_of,
    tool_call,
    tool_specs,
)
from auditor.model import Conversation, Location, Message, ToolCall, ToolResult
from auditor.sources import Record

NAME = "openai"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference


def detect(record: Record) -> bool:
    value = record.value
    if isinstance(value, dict):
        return isinstance(value.get("messages"), list)
    if isinstance(value, list) and value and isinstance(value[0], dict):
        first = value[0]
        return isinstance(first.get("messages"), list) or is_message(first)
    return False


def is_message(value: Any) -> bool:
    """An OpenAI-style message: a role and a content or calls."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("role"), str)
        and ("content" in value or "tool_calls" in value or "function_call" in value)
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = record.value, record.location
    if isinstance(value, list) and not (
        value and isinstance(value[0], dict) and "messages" in value[0]
    ):
        problems: list[Problem] = []
        msgs = messages(value, location, problems)
        yield from conversation(NAME, value, location, msgs, problems)
        return
    units = containers(value, location, "messages", "a conversation object with `messages`")
    yield from read_each(units, _conversation)


def _conversation(
    value: dict, location: Location, index: int | None
) -> Iterator[Conversation | Problem]:
    problems: list[Problem] = []
    msgs = messages(value["messages"], location.child("messages"), problems)
    tools = tool_specs(value.get("tools") or value.get("functions"))
    yield from conversation(NAME, value, location, msgs, problems, index, tools=tools)


def messages(items: list, location: Location, problems: list[Problem]) -> tuple[Message, ...]:
    """Normalise a list of OpenAI-style messages; what is not a message becomes a Problem."""
    out: list[Message] = []
    append = out.append
    for _, item, here in roled(items, location, problems):
        append(message(item, len(out), here, problems))
    return tuple(out)


_RESULT_ROLES = frozenset(("tool", "function"))


def message(item: dict, index: int, here: Location, problems: list[Problem]) -> Message:
    # Hot: every message of every OpenAI-shaped log passes here (no helper calls on the
    # common path: a string content, no calls).
    get = item.get
    role = item["role"]
    content = get("content")
    text = content if type(content) is str else text_of(content)
    if type(content) is list:
        malformed_parts(content, here, problems)
    calls = _calls(item, here, problems) if "tool_calls" in item or "function_call" in item else ()
    result = None
    author = None
    if role in _RESULT_ROLES:
        call_id = as_id(get("tool_call_id")) or (as_id(get("id")) if role == "tool" else None)
        error = get("error", get("is_error"))
        name = get("name")
        result = ToolResult(
            call_id,
            text,
            error if isinstance(error, bool) else None,
            name if isinstance(name, str) else None,
        )
        role = "tool"
    elif "name" in item:
        author = get("name")
        if not isinstance(author, str):
            author = None
    if "reasoning_content" in item or "reasoning" in item:
        reasoning = get("reasoning_content", get("reasoning"))
        if not isinstance(reasoning, str):
            reasoning = ""
    else:
        reasoning = ""
    return Message(index, role, text, here, calls, result, author, reasoning)


def _calls(item: dict, here: Location, problems: list[Problem]) -> tuple[ToolCall, ...]:
    raw = item.get("tool_calls")
    if not raw and "function_call" not in item:
        if raw is not None and not isinstance(raw, list):
            problems.append(Problem(here.child("tool_calls"), "expected `tool_calls` to be a list"))
        return ()  # most messages: no call
    calls: list[ToolCall] = []
    if isinstance(raw, list):
        for j, entry in enumerate(raw):
            where = here.child("tool_calls", j)
            if not isinstance(entry, dict):
                problems.append(
                    Problem(where, "expected a tool call object", evidence=excerpt_json(entry))
                )
                continue
            fn = fn if isinstance(fn := entry.get("function"), dict) else entry
            if not isinstance(fn.get("name"), str) or not fn.get("name"):
                problems.append(
                    Problem(where, "tool call has no `name`", evidence=excerpt_json(entry))
                )
            calls.append(tool_call(entry.get("id"), fn.get("name"), fn.get("arguments"), where))
    elif raw is not None:
        problems.append(Problem(here.child("tool_calls"), "expected `tool_calls` to be a list"))
    legacy = item.get("function_call")
    if isinstance(legacy, dict):
        calls.append(
            tool_call(
                None, legacy.get("name"), legacy.get("arguments"), here.child("function_call")
            )
        )
    return tuple(calls)
