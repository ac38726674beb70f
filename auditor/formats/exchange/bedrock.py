"""Bedrock `Converse` bodies: `messages` of `{role, content}` whose blocks are keyed by kind
(`{text}`, `{toolUse}`, `{toolResult}`, `{reasoningContent}`) instead of typed; `system` is a list
of `{text}`; tools are `toolConfig.tools[].toolSpec{name, description, inputSchema{json}}`.
Used by `exchange`. A `toolResult` with `status: "error"` is an error result.
"""

from __future__ import annotations

from typing import Any

from auditor.formats._common import (
    MessageDraft,
    Problem,
    as_id,
    excerpt_json,
    json_text,
    result_draft,
    roled,
    text_of,
    tool_call,
    tool_specs,
    with_results,
)
from auditor.model import Location, ToolSpec

BLOCKS = frozenset({"text", "toolUse", "toolResult", "reasoningContent", "image", "document"})


def is_request(body: dict) -> bool:
    """Converse: a `toolConfig`, a `system` list, or content blocks keyed by kind."""
    if isinstance(body.get("toolConfig"), dict) or isinstance(body.get("inferenceConfig"), dict):
        return True
    messages = body.get("messages")
    if not isinstance(messages, list):
        return False
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and content:
            block = content[0]
            return isinstance(block, dict) and "type" not in block and not BLOCKS.isdisjoint(block)
    return False


def is_response(body: dict) -> bool:
    output = body.get("output")
    return isinstance(output, dict) and isinstance(output.get("message"), dict)


def request(body: dict, location: Location, problems: list[Problem]) -> list[MessageDraft]:
    out: list[MessageDraft] = []
    system = body.get("system")
    if system:
        out.append(MessageDraft("system", location.child("system"), [text_of(system)]))
    items = body.get("messages")
    if isinstance(items, list):
        for _, item, here in roled(items, location.child("messages"), problems):
            out.extend(message(item, here, problems))
    return out


def response(body: dict, location: Location, problems: list[Problem]) -> list[MessageDraft]:
    item = body["output"]["message"]
    item = {"role": "assistant", **item} if "role" not in item else item
    return message(item, location.child("output", "message"), problems)


def message(item: dict, here: Location, problems: list[Problem]) -> list[MessageDraft]:
    """One message; the tool results a user message carries come first, as `tool` messages."""
    main = MessageDraft(str(item["role"]), here)
    results: list[MessageDraft] = []
    content = item.get("content")
    if isinstance(content, str):
        main.texts.append(content)
    for j, block in enumerate(content if isinstance(content, list) else ()):
        where = here.child("content", j)
        if not isinstance(block, dict):
            problems.append(
                Problem(where, "expected a content block", evidence=excerpt_json(block))
            )
            continue
        if isinstance(block.get("text"), str):
            main.texts.append(block["text"])
        elif isinstance(block.get("toolUse"), dict):
            use = block["toolUse"]
            where = where.child("toolUse")
            main.calls.append(
                tool_call(use.get("toolUseId"), use.get("name"), use.get("input"), where)
            )
        elif isinstance(block.get("toolResult"), dict):
            results.append(tool_result(block["toolResult"], where.child("toolResult")))
        elif isinstance(block.get("reasoningContent"), dict):
            reasoning = block["reasoningContent"].get("reasoningText")
            if isinstance(reasoning, dict) and isinstance(reasoning.get("text"), str):
                main.reasoning.append(reasoning["text"])
    return with_results(main, results)


def tool_result(result: dict, where: Location) -> MessageDraft:
    content = content if isinstance(content := result.get("content"), list) else []
    parts = [
        p["text"] if isinstance(p.get("text"), str) else _json(p)
        for p in content
        if isinstance(p, dict)
    ]
    status = result.get("status")
    is_error = status == "error" if isinstance(status, str) else None
    return result_draft(as_id(result.get("toolUseId")), "\n".join(parts), where, is_error)


def _json(part: dict) -> str:
    return json_text(part["json"]) if "json" in part else ""


def declared_tools(body: dict) -> tuple[ToolSpec, ...] | None:
    config = body.get("toolConfig")
    if not isinstance(config, dict) or not isinstance(config.get("tools"), list):
        return None
    flat = []
    for tool in config["tools"]:
        spec = tool.get("toolSpec") if isinstance(tool, dict) else None
        if isinstance(spec, dict):
            schema: Any = spec.get("inputSchema")
            if isinstance(schema, dict) and "json" in schema:
                schema = schema["json"]
            flat.append({**spec, "parameters": schema})
    return tool_specs(flat)
