"""Letta agent files (`.af`): a MemGPT-style agent with its messages, both generations.

Before 1.0 the file is one agent, `{agent_type, core_memory, messages, in_context_message_indices,
tools, llm_config, …}`; AgentFileSchema 1.0 holds `{agents: [{…, messages}], groups, blocks,
tools, …}`, one conversation per agent (id: the agent's `id`, else its `name`). A file written
as a JSON string holding the JSON is unwrapped once.

Messages are OpenAI-shaped (`role`, `content` parts, `tool_calls`, `tool_call_id`) with MemGPT's
conventions, which this reader follows:

- the assistant's `content` is its inner monologue (reasoning); what the user sees is the
  `message` argument of its `send_message` call, which becomes the turn's text (the call stays);
- a user message's text is itself JSON: `{"type": "user_message", "message": …}` is the user
  speaking; `heartbeat`, `login` and `system_alert` are written by the runtime (a heartbeat
  returns control to the agent after a call asked for one): they become `system` turns;
- a tool result's text is JSON `{"status": "OK"|"Failed", "message": …}`: a status other than
  OK, or a 1.0 `tool_returns[].status` of `error`, makes it an error;
- `system` messages after the first are memory rewrites and stay system turns;
- the messages before the first user turn (a login counts) are the agent's initial sequence,
  written by its author or the runtime (MemGPT's boot `send_message`), not by the model: they
  become system turns, without calls or results.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from auditor.formats import contract, openai
from auditor.formats._common import (
    Problem,
    conversation,
    read_each,
    roled,
    tool_specs,
)
from auditor.model import Conversation, Location, Message, ToolResult
from auditor.sources import Record

NAME = "letta"
KIND = contract.JSON
DETECT_KEYS = frozenset(("messages", "agents"))
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference
"""`detect` is false for a JSON object with none of these keys (`formats.FileReader`)."""
_AGENT_KEYS = ("agent_type", "core_memory", "in_context_message_indices", "llm_config")
_FILE_KEYS = ("agents", "groups", "blocks")
_RUNTIME = frozenset(("heartbeat", "login", "system_alert"))


def detect(record: Record) -> bool:
    value = _unwrapped(record.value)
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("messages"), list):
        return sum(k in value for k in _AGENT_KEYS) >= 2
    agents = value.get("agents")
    return isinstance(agents, list) and all(k in value for k in _FILE_KEYS)


def _unwrapped(value: Any) -> Any:
    """A file that holds its JSON as a JSON string, read once more."""
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return None
    return value


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = _unwrapped(record.value), record.location
    if "agents" in value and not isinstance(value.get("messages"), list):
        units = [
            (agent, location.child("agents", i))
            for i, agent in enumerate(value["agents"])
            if isinstance(agent, dict) and isinstance(agent.get("messages"), list)
        ]
        yield from read_each(units, _agent)
    else:
        yield from read_each([(value, location)], _agent)


def _agent(agent: dict, location: Location) -> Iterator[Conversation | Problem]:
    problems: list[Problem] = []
    out: list[Message] = []
    spoken = False  # a user turn (a login counts) came: the model speaks from here on
    for _, item, here in roled(agent["messages"], location.child("messages"), problems):
        spoken = spoken or item["role"] == "user"
        message = _message(item, len(out), here, problems)
        if not spoken and message.role in ("assistant", "tool"):
            message = _initial(message)
        out.append(message)
    tools = tool_specs(
        [t.get("json_schema", t) for t in agent.get("tools") or () if isinstance(t, dict)]
    )
    key = agent.get("id") or agent.get("name")
    yield from conversation(NAME, {"id": key}, location, tuple(out), problems, tools=tools)


def _message(item: dict, index: int, here: Location, problems: list[Problem]) -> Message:
    # The OpenAI reader's message, changed in place before anyone sees it (a `replace` would
    # build every message twice).
    message = openai.message(item, index, here, problems)
    role = message.role
    if role == "assistant":
        message.reasoning, message.text = message.text, _sent(message)
    elif role == "user":
        said = _json(message.text) or {}
        kind = said.get("type")
        if kind == "user_message" and isinstance(said.get("message"), str):
            message.text = said["message"]
        elif kind in _RUNTIME:
            message.role = "system"
    elif role == "tool" and message.result is not None:
        message.result = _result(item, message.result)
    return message


def _initial(message: Message) -> Message:
    """A message of the agent's initial sequence, written by its author or the runtime before
    anyone spoke to it (MemGPT's "Bootup sequence complete" `send_message`): a system turn
    saying what it holds, not a call the model made."""
    text = message.text or message.reasoning or (message.result.text if message.result else "")
    message.role, message.text, message.reasoning = "system", text, ""
    message.tool_calls, message.result = (), None
    return message


def _sent(message: Message) -> str:
    """What the user saw: the `message` argument of the turn's `send_message` call."""
    for call in message.tool_calls:
        if call.name == "send_message" and isinstance(call.arguments, dict):
            text = call.arguments.get("message")
            if isinstance(text, str):
                return text
    return ""


def _result(item: dict, result: ToolResult) -> ToolResult:
    failed = None
    said = _json(result.text)
    if said is not None and isinstance(said.get("status"), str):
        failed = said["status"] != "OK"
    for ret in item.get("tool_returns") or ():
        if isinstance(ret, dict) and isinstance(ret.get("status"), str):
            failed = bool(failed) or ret["status"] != "success"
    if failed is None:
        return result
    return ToolResult(result.call_id, result.text, failed, result.name)


def _json(text: str) -> dict | None:
    """A text that is a JSON object, parsed; None for any other text."""
    if not text.startswith("{"):
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
