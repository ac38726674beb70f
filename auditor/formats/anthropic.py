"""Anthropic Messages logs: `{messages, system?, tools?}` with content blocks, or a list of those.

Content is a string or a list of blocks: `text`, `thinking`/`redacted_thinking` (kept as
reasoning), `tool_use` (and the server-run `server_tool_use`, `mcp_tool_use`), and results:
`tool_result` blocks arrive inside the next user message, each becoming a `tool` message ahead
of whatever the user wrote beside them; server tools' results (`web_search_tool_result`,
`code_execution_tool_result`, `mcp_tool_result`, …) sit in the assistant message itself and
become `tool` messages right after it. `is_error` is the result's error flag.

Claude Code logs this shape too. Its permission rejection ("The user doesn't want to proceed
with this tool use…", flagged `is_error`) is the call's result and a denied approval, not a tool
error: the `tool` message carries an `ApprovalDecision(approved=False)` and `is_error=False`.
The `exchange` and `stream` formats reuse `read_message` for bodies and lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from auditor.formats import contract, openai
from auditor.formats._common import (
    MessageDraft,
    Problem,
    as_id,
    containers,
    conversation,
    excerpt_json,
    freeze,
    malformed_part,
    positioned,
    read_each,
    result_draft,
    roled,
    text_of,
    tool_call,
    tool_specs,
    type_of,
)
from auditor.model import ApprovalDecision, Conversation, Location, Message
from auditor.sources import Record

NAME = "anthropic"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference

CALL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
THINKING_BLOCKS = frozenset({"thinking", "redacted_thinking"})
# Block types only Anthropic content has: any of them marks a conversation as Anthropic.
MARKERS = CALL_BLOCKS | THINKING_BLOCKS | {"tool_result"}
# Claude Code's wording when the person declines a permission prompt (both versions seen).
REJECTIONS = (
    "The user doesn't want to proceed with this tool use",
    "The user doesn't want to take this action right now",
)
_SAID = "the user said:"


def detect(record: Record) -> bool:
    value = record.value
    if isinstance(value, dict):
        return isinstance(value.get("messages"), list) and is_body(value)
    return (
        isinstance(value, list)
        and bool(value)
        and isinstance(value[0], dict)
        and isinstance(value[0].get("messages"), list)
        and any(isinstance(v, dict) and is_body(v) for v in value)
    )


def is_body(body: dict) -> bool:
    """A body or conversation in Anthropic's shape: its tools or its content blocks say so."""
    tools = body.get("tools")
    if isinstance(tools, list) and any(isinstance(t, dict) and "input_schema" in t for t in tools):
        return True
    messages = body.get("messages")
    if not isinstance(messages, list):
        return False
    if isinstance(body.get("system"), str | list):
        return True  # the system prompt beside the messages: OpenAI's chat has it among them
    for message in messages:  # runs on every OpenAI record too: a plain loop, no generator
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and has_blocks(content):
            return True
    return False


def has_blocks(content: Any) -> bool:
    """Content holding a block type only Anthropic has."""
    return isinstance(content, list) and any(type_of(b) in MARKERS for b in content)


def parse(record: Record) -> Iterator[Conversation | Problem]:
    units = containers(
        record.value, record.location, "messages", "a conversation object with `messages`"
    )
    return read_each(units, _conversation)


def _conversation(
    value: dict, location: Location, index: int | None
) -> Iterator[Conversation | Problem]:
    problems: list[Problem] = []
    msgs = messages(value, location, problems)
    tools = tool_specs(value.get("tools"))
    msgs = positioned(msgs, location, ("messages",))
    yield from conversation(NAME, value, location, msgs, problems, index, tools=tools)


def messages(body: dict, location: Location, problems: list[Problem]) -> tuple[Message, ...]:
    """The messages of a body with `messages` (and an optional top-level `system`).

    A body without Anthropic blocks (a Chat Completions request, or string contents) is read
    message by message as OpenAI's, without drafts: the same messages `drafts` and `freeze`
    give (`tests/formats/test_anthropic.py` checks it), at a third of the cost. Gateway logs send
    the whole conversation again in every request, so this is their hot path.
    """
    items = body.get("messages")
    if not isinstance(items, list) or any(
        type(m) is dict and type(c := m.get("content")) is list and _blocks(c) for m in items
    ):
        return freeze(drafts(body, location, problems))
    out: list[Message] = []
    system = body.get("system")
    if system:
        text = text_of(system)
        out.append(Message(0, "system", _stripped(text), location.child("system")))
    for _, item, here in roled(items, location.child("messages"), problems):
        message = openai.message(item, len(out), here, problems)
        message.text = _stripped(message.text)  # as `MessageDraft.text` leaves it
        message.reasoning = _stripped(message.reasoning)
        out.append(message)
    return tuple(out)


def _stripped(text: str) -> str:
    """A text that is only whitespace counts as none (what a draft's `text` gives)."""
    return "" if text.isspace() else text


def _blocks(content: Any) -> bool:
    """What makes `read_message` read a message's content as blocks."""
    return has_blocks(content) or _server_blocks(content)


def drafts(body: dict, location: Location, problems: list[Problem]) -> list[MessageDraft]:
    out: list[MessageDraft] = []
    system = body.get("system")
    if system:
        out.append(MessageDraft("system", location.child("system"), [text_of(system)]))
    items = body.get("messages")
    if not isinstance(items, list):
        return out
    for _, item, here in roled(items, location.child("messages"), problems):
        out.extend(read_message(item, here, problems))
    return out


def read_message(item: dict, here: Location, problems: list[Problem]) -> list[MessageDraft]:
    """One message: the message itself and the `tool` messages its blocks hold.

    For an assistant: the message, then the results of server-run tools. For a user: the
    results of the previous turn's calls, then the user's own text when there is any. A
    message without Anthropic blocks is read as an OpenAI one (text parts, `tool_calls`).
    """
    role = item["role"]
    content = item.get("content")
    if not _blocks(content):
        return [MessageDraft.of(openai.message(item, 0, here, problems))]
    main = MessageDraft(role, here)
    results: list[MessageDraft] = []
    for j, block in enumerate(content):  # type: ignore[arg-type]
        where = here.child("content", j)
        if isinstance(block, str):
            main.texts.append(block)
            continue
        if not isinstance(block, dict):
            problems.append(
                Problem(where, "expected a content block object", evidence=excerpt_json(block))
            )
            continue
        malformed_part(block, where, problems)
        kind = type_of(block)
        if kind == "text":
            text = block.get("text")
            main.texts.append(text if isinstance(text, str) else "")
        elif kind in THINKING_BLOCKS:
            thinking = block.get("thinking")
            main.reasoning.append(thinking if isinstance(thinking, str) else "")
        elif kind in CALL_BLOCKS:
            if not isinstance(block.get("name"), str) or not block.get("name"):
                problems.append(
                    Problem(where, "tool use block has no `name`", evidence=excerpt_json(block))
                )
            call = tool_call(block.get("id"), block.get("name"), block.get("input"), where)
            main.calls.append(call)
        elif kind == "tool_result":
            results.append(tool_result(block, where))
        elif isinstance(kind, str) and kind.endswith("_tool_result"):
            results.append(_server_result(block, where))
        # images, documents, citations and other blocks carry nothing the rules read
    if role == "assistant":
        return [main, *results]
    if main.texts or main.reasoning or main.calls or not results:
        results.append(main)
    return results


def _server_blocks(content: Any) -> bool:
    return isinstance(content, list) and any(
        (type_of(b) or "").endswith("_tool_result") for b in content
    )


def tool_result(block: dict, where: Location) -> MessageDraft:
    """A `tool_result` block as a `tool` message; a Claude Code rejection is a denied approval."""
    call_id = as_id(block.get("tool_use_id"))
    text = text_of(block.get("content"))
    draft = result_draft(call_id, text, where, block.get("is_error"))
    if call_id is not None and text.startswith(REJECTIONS):
        said = text.find(_SAID)
        reason = text[said + len(_SAID) :].strip() if said >= 0 else ""
        draft.approval_decision = ApprovalDecision(call_id, False, reason=reason)
        draft.result = result_draft(call_id, text, where, False).result
    return draft


def _server_result(block: dict, where: Location) -> MessageDraft:
    """The result of a tool the API ran itself, found in the assistant's own content."""
    content = block.get("content")
    is_error = block.get("is_error")
    kind = type_of(content) or ""
    if kind.endswith("_error") and isinstance(content, dict):  # a type is only an object's
        code = content.get("error_code")
        return result_draft(
            block.get("tool_use_id"),
            f"{kind}: {code}" if isinstance(code, str | int) and code else kind,
            where,
            True,
        )
    return result_draft(block.get("tool_use_id"), _server_text(content), where, is_error)


def _server_text(content: Any) -> str:
    text = text_of(content)
    if text:
        return text
    if isinstance(content, dict):
        parts = (content.get(k) for k in ("stdout", "stderr", "content", "text"))
        return "\n".join(p if isinstance(p, str) else text_of(p) for p in parts if p)
    if isinstance(content, list):
        found = (c.get("title") or c.get("url") or "" for c in content if isinstance(c, dict))
        return "\n".join(t for t in found if isinstance(t, str))
    return ""
