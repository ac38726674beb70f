"""OpenAI Agents SDK run state: what an app persists to resume a run after a person's approval.

A `RunState` document (`$schemaVersion`; the Python SDK writes snake_case, the JS SDK camelCase)
holds the run so far: the user's `original_input` (text or Responses items) and the
`generated_items`, each wrapping a Responses item in `raw_item` (`tool_call_item`,
`tool_call_output_item`, `message_output_item`, `reasoning_item`, handoffs). A
`tool_approval_item` (also listed as the `current_step` interruption) is a call waiting for
approval: an approval request for it. The decisions taken so far live in `context.approvals`
(per tool: `approved`/`rejected` as `true` for every call of the tool or as a list of call ids,
with `rejection_messages`) and, in the JS SDK, `context.functionApprovals`; the decisions on
hosted MCP requests in `context.hosted_mcp_approvals`. They follow the items as approval events.

A run state is a paused run: a call waiting for its approval has no result yet, so the
conversation is a snapshot (a trailing pending call is normal). It declares no tools: the
functions it lists are only those of the last response.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from auditor.formats import contract, responses
from auditor.formats._common import (
    MessageDraft,
    Problem,
    as_id,
    excerpt_json,
    freeze,
    own_id,
)
from auditor.formats._common import conversation as conversation_of
from auditor.model import ApprovalDecision, ApprovalRequest, Conversation, Location
from auditor.sources import Record

NAME = "openai-agents"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference
_CAMEL = {
    "callId": "call_id",
    "rawItem": "raw_item",
    "generatedItems": "generated_items",
    "originalInput": "original_input",
    "currentStep": "current_step",
    "approvalRequestId": "approval_request_id",
}


def detect(record: Record) -> bool:
    value = record.value
    return (
        isinstance(value, dict)
        and "$schemaVersion" in value
        and ("current_agent" in value or "currentAgent" in value)
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = record.value, record.location
    problems: list[Problem] = []
    state = _snake(value)
    items = responses.Items(problems)
    original = state.get("original_input")
    if isinstance(original, str):
        items.drafts.append(
            MessageDraft("user", location.child(_key(value, "original_input")), [original])
        )
    elif isinstance(original, list):
        items.extend(original, location.child(_key(value, "original_input")))
    asked: dict[str, str] = {}  # call id -> tool, of the calls waiting for approval
    generated = state.get("generated_items")
    here = location.child(_key(value, "generated_items"))
    raw_key = "rawItem" if "generatedItems" in value else "raw_item"
    for i, item in enumerate(generated if isinstance(generated, list) else ()):
        _item(item, here.child(i), raw_key, items, asked, problems)
    step = state.get("current_step")
    data = step.get("data") if isinstance(step, dict) else None
    pending = data.get("interruptions") if isinstance(data, dict) else None
    where = location.child(_key(value, "current_step"), "data", "interruptions")
    for i, item in enumerate(pending if isinstance(pending, list) else ()):
        _item(item, where.child(i), raw_key, items, asked, problems)
    items.close()
    drafts = items.drafts
    context = context if isinstance(context := state.get("context"), dict) else {}
    drafts.extend(_decisions(context, location.child("context"), asked))
    trace = state.get("trace")
    ids = {"id": own_id(trace, "id")} if isinstance(trace, dict) and own_id(trace, "id") else {}
    ids = ids or {"conversation_id": as_id(state.get("conversation_id"))}
    yield from conversation_of(NAME, ids, location, freeze(drafts), problems, complete=False)


def _item(
    item: Any,
    here: Location,
    raw_key: str,
    items: responses.Items,
    asked: dict[str, str],
    problems: list[Problem],
) -> None:
    if not isinstance(item, dict) or not isinstance(item.get("raw_item"), dict):
        problems.append(
            Problem(here, "expected a run item with a `raw_item`", evidence=excerpt_json(item))
        )
        return
    raw = item["raw_item"]
    where = here.child(raw_key)
    if item.get("type") != "tool_approval_item":
        items.add(raw, where)
        return
    call_id = as_id(raw.get("call_id")) or as_id(raw.get("id"))
    if call_id is None or call_id in asked:
        return  # listed both among the items and as the interruption
    name = raw.get("name", item.get("tool_name"))
    asked[call_id] = name if isinstance(name, str) else ""
    draft = MessageDraft("approval", where)
    draft.approval_request = ApprovalRequest(
        call_id, call_id, name if isinstance(name, str) else "", raw.get("arguments")
    )
    items.close()
    items.drafts.append(draft)


def _decisions(context: dict, here: Location, asked: dict[str, str]) -> list[MessageDraft]:
    """The approval decisions the state records: per call, or for every call of a tool (`true`),
    which then decides the calls of that tool waiting here."""
    found: dict[str, tuple[bool, str]] = {}
    per_tool: list[tuple[str, Any]] = []
    approvals = context.get("approvals")
    if isinstance(approvals, dict):
        per_tool.extend(approvals.items())
    for entry in context.get("function_approvals") or ():
        if isinstance(entry, dict) and isinstance(entry.get("approvals"), dict):
            per_tool.extend(entry["approvals"].items())
    hosted = context.get("hosted_mcp_approvals") or ()
    per_tool.extend(("", entry.get("decision")) for entry in hosted if isinstance(entry, dict))
    for key, record in per_tool:
        if not isinstance(record, dict):
            continue
        messages = record.get("rejection_messages", record.get("messages"))
        messages = messages if isinstance(messages, dict) else {}
        tool = _tool_of(key)
        for field, approved in (("rejected", False), ("approved", True)):
            listed = record.get(field)
            if listed is True:  # every call of the tool
                listed = [c for c, name in asked.items() if name == tool and c not in found]
            for call_id in listed if isinstance(listed, list) else ():
                if not isinstance(call_id, str):
                    continue
                reason = messages.get(call_id)
                found.setdefault(
                    str(call_id), (approved, reason if isinstance(reason, str) else "")
                )
    drafts = []
    for call_id, (approved, reason) in found.items():
        draft = MessageDraft("approval", here)
        draft.approval_decision = ApprovalDecision(call_id, approved, reason=reason)
        drafts.append(draft)
    return drafts


def _tool_of(key: str) -> str:
    """The tool a decision record is for: its key, or the name in the JS SDK's `["bare", name]`."""
    if key.startswith("["):
        try:
            parts = orjson.loads(key)
        except orjson.JSONDecodeError:
            return key
        return str(parts[-1]) if isinstance(parts, list) and parts else key
    return key


def _snake(value: Any) -> Any:
    """The JS SDK's camelCase keys as the Python SDK writes them (the keys read here)."""
    if isinstance(value, dict):
        return {_CAMEL.get(k, _snake_key(k)): _snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_snake(v) for v in value]
    return value


def _snake_key(key: str) -> str:
    if key in ("functionApprovals",):
        return "function_approvals"
    return key


def _key(original: dict, snake: str) -> str:
    """The key as the document writes it, for locations."""
    if snake in original:
        return snake
    return next((camel for camel, s in _CAMEL.items() if s == snake and camel in original), snake)
