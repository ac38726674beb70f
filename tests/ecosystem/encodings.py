"""A conversation as the model holds it, written again in another API's encoding.

For the format-invariance test (`test_format_invariance.py`): OpenAI chat messages, Anthropic
messages (tool results as `tool_result` blocks of the next user message, the system prompt
beside the messages), and Responses items (`function_call`, `function_call_output`). Each
writer takes only what every encoding can hold (`representable`): roles system, user, assistant
and tool, calls the log made (not calls read from text), results of a call by its id.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson

from auditor.model import Conversation, Message, ToolCall

ROLES = frozenset(("system", "user", "assistant", "tool"))


def with_policy(conversation: Conversation) -> Conversation:
    """The conversation with the policy kept beside its messages (tau2's) as its first system
    message, as an API request would send it."""
    if not conversation.instructions:
        return conversation
    policy = Message(0, "system", conversation.instructions, conversation.location)
    shifted = [replace(m, index=m.index + 1) for m in conversation.messages]
    return replace(conversation, messages=(policy, *shifted), instructions="")


def representable(conversation: Conversation) -> str | None:
    """Why the conversation cannot be written in every encoding, or None when it can."""
    roles = [m.role for m in conversation.messages]
    leading = len(roles) - len("".join("s" if r == "system" else "x" for r in roles).lstrip("s"))
    if "system" in roles[leading:]:
        return "a system message after the first turns: Anthropic's is beside the messages"
    for m in conversation.messages:
        if m.role not in ROLES or m.approval_request or m.approval_decision:
            return f"a message of role {m.role!r} or an approval event"
        if m.tool_calls and m.role != "assistant":
            return "a call a simulated user made (tau2): the APIs' calls are the assistant's"
        if any(c.origin != "structured" or not c.id for c in m.tool_calls):
            return "a call read from text, or with no id"
        if m.result is not None and (
            m.result.unrecorded or m.result.ran is False or not m.result.call_id
        ):
            return "a result the log does not keep, a refusal, or one paired by position"
        if m.name:
            return "a message of a named agent"
    return None


def _arguments(call: ToolCall) -> str:
    if call.raw_arguments is not None:
        return call.raw_arguments
    return orjson.dumps(call.arguments).decode()


def _tools(conversation: Conversation, shape: str) -> list[dict[str, Any]] | None:
    if conversation.tools is None:
        return None
    out = []
    for t in conversation.tools:
        schema = t.parameters if t.parameters is not None else {"type": "object"}
        if shape == "openai":
            function = {"name": t.name, "description": t.description, "parameters": schema}
            out.append({"type": "function", "function": function})
        elif shape == "anthropic":
            out.append({"name": t.name, "description": t.description, "input_schema": schema})
        else:
            out.append(
                {
                    "type": "function",
                    "name": t.name,
                    "description": t.description,
                    "parameters": schema,
                }
            )
    return out


def openai(conversation: Conversation) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for m in conversation.messages:
        if m.role == "tool" and m.result is not None:
            messages.append(
                {"role": "tool", "tool_call_id": m.result.call_id, "content": m.result.text}
            )
        elif m.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": m.text or None}
            if m.tool_calls:
                entry["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": _arguments(c)},
                    }
                    for c in m.tool_calls
                ]
            messages.append(entry)
        else:
            messages.append({"role": m.role, "content": m.text})
    record: dict[str, Any] = {"id": conversation.id, "messages": messages}
    tools = _tools(conversation, "openai")
    if tools is not None:
        record["tools"] = tools
    return record


def anthropic(conversation: Conversation) -> dict[str, Any]:
    system = [m.text for m in conversation.messages if m.role == "system"]
    messages: list[dict[str, Any]] = []
    for m in conversation.messages:
        if m.role == "system":
            continue
        if m.role == "tool" and m.result is not None:
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": m.result.call_id,
                "content": m.result.text,
            }
            if m.result.is_error:
                block["is_error"] = True
            _user_blocks(messages).append(block)
        elif m.role == "assistant":
            blocks: list[dict[str, Any]] = []
            if m.text:
                blocks.append({"type": "text", "text": m.text})
            blocks += [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": _input(c)}
                for c in m.tool_calls
            ]
            messages.append({"role": "assistant", "content": blocks})
        else:
            _user_blocks(messages).append({"type": "text", "text": m.text})
    record: dict[str, Any] = {"id": conversation.id, "messages": messages}
    if system:
        record["system"] = "\n\n".join(system)
    tools = _tools(conversation, "anthropic")
    if tools is not None:
        record["tools"] = tools
    return record


def _input(call: ToolCall) -> Any:
    return call.arguments if call.arguments is not None else {}


def _user_blocks(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The blocks of the user message being written: results and words share one."""
    if not messages or messages[-1]["role"] != "user":
        messages.append({"role": "user", "content": []})
    blocks: list[dict[str, Any]] = messages[-1]["content"]
    return blocks


def responses(conversation: Conversation) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    for m in conversation.messages:
        if m.role == "tool" and m.result is not None:
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": m.result.call_id,
                    "output": m.result.text,
                }
            )
            continue
        if m.text or m.role != "assistant":
            kind = "output_text" if m.role == "assistant" else "input_text"
            items.append(
                {"type": "message", "role": m.role, "content": [{"type": kind, "text": m.text}]}
            )
        items += [
            {"type": "function_call", "call_id": c.id, "name": c.name, "arguments": _arguments(c)}
            for c in m.tool_calls
        ]
    record: dict[str, Any] = {"id": conversation.id, "input": items}
    tools = _tools(conversation, "responses")
    if tools is not None:
        record["tools"] = tools
    return record


def gemini(conversation: Conversation) -> dict[str, Any]:
    """Gemini `generateContent` contents: `user` and `model` turns of parts, a call a
    `functionCall` part and its result a `functionResponse` part of the next user turn."""
    system = [m.text for m in conversation.messages if m.role == "system"]
    contents: list[dict[str, Any]] = []
    names = {c.id: c.name for m in conversation.messages for c in m.tool_calls}

    def turn(role: str) -> list[dict[str, Any]]:
        if not contents or contents[-1]["role"] != role:
            contents.append({"role": role, "parts": []})
        parts: list[dict[str, Any]] = contents[-1]["parts"]
        return parts

    for m in conversation.messages:
        if m.role == "system":
            continue
        if m.role == "tool" and m.result is not None:
            said = {"error" if m.result.is_error else "output": m.result.text}
            response = {"name": names.get(m.result.call_id, ""), "response": said}
            turn("user").append({"functionResponse": {"id": m.result.call_id, **response}})
        elif m.role == "assistant":
            contents.append({"role": "model", "parts": []})  # each its own turn, as read
            parts = contents[-1]["parts"]
            if m.text:
                parts.append({"text": m.text})
            parts += [
                {"functionCall": {"id": c.id, "name": c.name, "args": _input(c)}}
                for c in m.tool_calls
            ]
        else:
            turn("user").append({"text": m.text})
    record: dict[str, Any] = {"id": conversation.id, "contents": contents}
    if system:
        record["systemInstruction"] = {"parts": [{"text": "\n\n".join(system)}]}
    if conversation.tools is not None:
        declarations = [
            {"name": t.name, "description": t.description, "parameters": t.parameters or {}}
            for t in conversation.tools
        ]
        record["tools"] = [{"functionDeclarations": declarations}]
    return record


def one_event_a_turn(conversation: Conversation) -> bool:
    """Every assistant turn is one event: a text, or one call. A flat stream of events keeps no
    turn around several calls (a parallel batch), nor around words and the call after them:
    each event is read as a turn of its own, and the turns (and what hangs on them, a batch's
    pairing) differ from those of an API's encoding."""
    return all(
        len(m.tool_calls) + bool(m.text) <= 1
        for m in conversation.messages
        if m.role == "assistant"
    )


def events(conversation: Conversation) -> list[dict[str, Any]]:
    """A generic event stream of no API (one event a line, no reader of its own): what only
    the structural reader reads, by shape."""
    out: list[dict[str, Any]] = []
    speaker = {"system": "system", "user": "human", "assistant": "agent"}
    for m in conversation.messages:
        if m.role == "tool" and m.result is not None:
            event = {
                "session": conversation.id,
                "kind": "tool_result",
                "tool_use_id": m.result.call_id,
                "output": m.result.text,
            }
            if m.result.is_error:
                event["is_error"] = True
            out.append(event)
            continue
        if m.text or m.role != "assistant":
            out.append({"session": conversation.id, "author": speaker[m.role], "text": m.text})
        out += [
            {
                "session": conversation.id,
                "kind": "tool_use",
                "id": c.id,
                "name": c.name,
                "input": _input(c),
            }
            for c in m.tool_calls
        ]
    return out


WRITERS = {"openai": openai, "anthropic": anthropic, "responses": responses, "gemini": gemini}
