"""AutoGen AgentChat: message lists (`[m.model_dump() …]`, `TaskResult`) and saved agent state.

A message list is `[{source, type, content, models_usage?, metadata?}]`, bare or as a
`TaskResult`'s `messages`. `source` is who wrote it: `user` is the user, any other source an
agent (an assistant turn named by it). `TextMessage`, `MultiModalMessage`, `StopMessage`,
`HandoffMessage` and `ToolCallSummaryMessage` are turns; `ToolCallRequestEvent.content` is the
calls (`{id, name, arguments}`) and `ToolCallExecutionEvent.content` their results (`{call_id,
content, is_error, name}`); a `ThoughtEvent` is the reasoning of the turn it precedes. Streaming
chunks, speaker selection, memory queries and input requests are events, not turns.

Saved state (`agent.save_state()`): an `AssistantAgentState`'s `llm_context.messages` are the
model's context: `UserMessage`, `SystemMessage`, `AssistantMessage` (its `content` a text or a
list of calls, `thought` its reasoning) and `FunctionExecutionResultMessage` (results). A
`TeamState` holds a state per member: the group chat manager's `message_thread` when there is
one (the team's whole chat), else each member's own context, one conversation each.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from auditor.formats import contract
from auditor.formats._common import (
    MessageDraft,
    Problem,
    conversation,
    excerpt_json,
    freeze,
    json_text,
    positioned,
    read_each,
    result_draft,
    text_of,
    tool_call,
    type_of,
)
from auditor.model import Conversation, Location, ToolCall
from auditor.sources import Record

NAME = "autogen"
KIND = contract.JSON
DETECT_KEYS = frozenset(("type", "messages"))
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference
"""`detect` is false for a JSON object with none of these keys (`formats.FileReader`)."""
_TURNS = frozenset(
    (
        "TextMessage",
        "MultiModalMessage",
        "StopMessage",
        "HandoffMessage",
        "ToolCallSummaryMessage",
        "StructuredMessage",
    )
)
_STATE_TYPES = (
    "UserMessage",
    "SystemMessage",
    "AssistantMessage",
    "FunctionExecutionResultMessage",
)


def detect(record: Record) -> bool:
    value = record.value
    if isinstance(value, dict):
        kind = type_of(value)
        if kind is not None and kind.endswith("State"):
            return "llm_context" in value or "agent_states" in value
        value = value.get("messages")
    return isinstance(value, list) and bool(value) and _agentchat(value[0])


def _agentchat(item: object) -> bool:
    kind = type_of(item)
    return (
        kind is not None
        and kind.endswith(("Message", "Event"))
        and isinstance(item, dict)
        and isinstance(item.get("source"), str)
        and "role" not in item
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = record.value, record.location
    if isinstance(value, list):
        yield from _chat(value, location, {})
    elif isinstance(value.get("messages"), list):
        yield from _chat(value["messages"], location.child("messages"), value)
    else:
        units: list[tuple[Any, ...]] = list(_contexts(value, location))
        if len(units) > 1:  # one conversation per member: `path#0`, `path#1`, …
            units = [(*unit[:3], i) for i, unit in enumerate(units)]
        yield from read_each(units, _context)


def _chat(
    items: list, location: Location, owner: dict, index: int | None = None
) -> Iterator[Conversation | Problem]:
    problems: list[Problem] = []
    drafts: list[MessageDraft] = []
    thought: list[str] = []
    for i, item in enumerate(items):
        here = location.child(i)
        kind = type_of(item)
        if kind is None or not isinstance(item.get("source"), str):
            problems.append(
                Problem(here, "expected an AgentChat message", evidence=excerpt_json(item))
            )
            continue
        source, content = item["source"], item.get("content")
        if kind == "ThoughtEvent":
            thought.append(text_of(content))
        elif kind == "ToolCallRequestEvent":
            draft = MessageDraft("assistant", here, name=source, reasoning=thought)
            draft.calls.extend(_calls(content, here))
            drafts.append(draft)
            thought = []
        elif kind == "ToolCallExecutionEvent":
            drafts.extend(_results(content, here))
        elif kind in _TURNS:
            role = "user" if source == "user" else "assistant"
            text = text_of(content) if not isinstance(content, dict) else json_text(content)
            drafts.append(
                MessageDraft(
                    role, here, [text], name=None if role == "user" else source, reasoning=thought
                )
            )
            thought = []
    msgs = positioned(freeze(drafts), location, ("", "messages"))
    yield from conversation(NAME, owner, location, msgs, problems, index)


def _calls(content: object, here: Location) -> list[ToolCall]:
    """The calls a request event or an assistant message lists: `{id, name, arguments}`."""
    return [
        tool_call(call.get("id"), call.get("name"), call.get("arguments"), here.child("content", k))
        for k, call in enumerate(content if isinstance(content, list) else ())
        if isinstance(call, dict)
    ]


def _results(content: object, here: Location) -> list[MessageDraft]:
    drafts = []
    for k, result in enumerate(content if isinstance(content, list) else ()):
        if isinstance(result, dict):
            drafts.append(
                result_draft(
                    result.get("call_id"),
                    text_of(result.get("content")),
                    here.child("content", k),
                    result.get("is_error"),
                    result.get("name"),
                )
            )
    return drafts


def _contexts(state: dict, location: Location) -> Iterator[tuple[list, Location, str]]:
    """(messages, location, kind) of each context a saved state holds."""
    members = state.get("agent_states")
    if not isinstance(members, dict):
        context = state.get("llm_context")
        if isinstance(context, dict) and isinstance(context.get("messages"), list):
            yield context["messages"], location.child("llm_context", "messages"), "context"
        return
    for name, member in members.items():
        thread = member.get("message_thread") if isinstance(member, dict) else None
        if isinstance(thread, list):
            yield thread, location.child("agent_states", name, "message_thread"), "chat"
            return
    for name, member in members.items():
        inner = member.get("agent_state", member) if isinstance(member, dict) else None
        if isinstance(inner, dict):
            yield from _contexts(inner, location.child("agent_states", name, "agent_state"))


def _context(
    messages: list, location: Location, kind: str, index: int | None = None
) -> Iterator[Conversation | Problem]:
    if kind == "chat":
        yield from _chat(messages, location, {}, index)
        return
    problems: list[Problem] = []
    drafts: list[MessageDraft] = []
    for i, item in enumerate(messages):
        here = location.child(i)
        item_kind = type_of(item)
        if item_kind not in _STATE_TYPES:
            problems.append(Problem(here, "expected an LLM message", evidence=excerpt_json(item)))
            continue
        content = item.get("content")
        if item_kind == "FunctionExecutionResultMessage":
            drafts.extend(_results(content, here))
        elif item_kind == "AssistantMessage":
            thought = item.get("thought")
            draft = MessageDraft(
                "assistant", here, reasoning=[thought] if isinstance(thought, str) else []
            )
            if isinstance(content, list):
                draft.calls.extend(_calls(content, here))
            else:
                draft.texts.append(text_of(content))
            source = item.get("source")
            draft.name = source if isinstance(source, str) else None
            drafts.append(draft)
        else:
            role = "user" if item_kind == "UserMessage" else "system"
            drafts.append(MessageDraft(role, here, [text_of(content)]))
    msgs = positioned(freeze(drafts), location, ("", "messages"))
    yield from conversation(NAME, {}, location, msgs, problems, index)
