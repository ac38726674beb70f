"""Gemini `generateContent` bodies: `contents` of `{role, parts}` with `functionCall` and
`functionResponse` parts, in the REST API's camelCase or the Python SDK's snake_case (Google ADK
writes the latter into its spans). Used by `exchange` and by the span reader (ADK `llm_request`).

A `functionResponse` whose `response` holds `error` is an error result; one that holds an
`output` does not say whether the call succeeded (a tool writes its error there too), so its
text decides as any result's does. Gemini rarely sends call
ids: a call without one keeps None, and replay pairs its result by position.
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
    text_of,
    tool_call,
    tool_specs,
    with_results,
)
from auditor.model import Location, ToolSpec

ROLES = {"model": "assistant", "user": "user", "function": "tool", "system": "system"}


def is_request(body: dict) -> bool:
    contents = body.get("contents")
    return (
        isinstance(contents, list)
        and bool(contents)
        and isinstance(contents[0], dict)
        and isinstance(contents[0].get("parts"), list)
    )


def is_response(body: dict) -> bool:
    candidates = body.get("candidates")
    return (
        isinstance(candidates, list)
        and bool(candidates)
        and isinstance(candidates[0], dict)
        and isinstance(candidates[0].get("content"), dict | type(None))
    )


def request(body: dict, location: Location, problems: list[Problem]) -> list[MessageDraft]:
    """The system instruction and the contents of a request, in order."""
    out: list[MessageDraft] = []
    config = config if isinstance(config := body.get("config"), dict) else body
    for key in ("systemInstruction", "system_instruction"):
        system = config.get(key)
        if system:
            here = location.child(*(("config", key) if config is not body else (key,)))
            out.append(MessageDraft("system", here, [_content_text(system)]))
            break
    for i, item in enumerate(body.get("contents") or ()):
        here = location.child("contents", i)
        if isinstance(item, dict):
            out.extend(content(item, here, problems))
        else:
            problems.append(Problem(here, "expected a content object", evidence=excerpt_json(item)))
    return out


def response(body: dict, location: Location, problems: list[Problem]) -> list[MessageDraft]:
    """The first candidate's content (the conversation continues with it)."""
    candidates = body.get("candidates")
    if not isinstance(candidates, list) or not candidates:
        return []
    first = candidates[0]
    item = first.get("content") if isinstance(first, dict) else None
    if not isinstance(item, dict):
        return []  # blocked or empty: no turn
    return content({"role": "model", **item}, location.child("candidates", 0, "content"), problems)


def content(item: dict, here: Location, problems: list[Problem]) -> list[MessageDraft]:
    """One `{role, parts}`: the message, and a `tool` message per function response."""
    role = ROLES.get(str(item.get("role", "user")), str(item.get("role")))
    main = MessageDraft("assistant" if role == "assistant" else role, here)
    results: list[MessageDraft] = []
    parts = item.get("parts")
    if not isinstance(parts, list):
        return [main]
    for j, part in enumerate(parts):
        where = here.child("parts", j)
        if not isinstance(part, dict):
            problems.append(Problem(where, "expected a part object", evidence=excerpt_json(part)))
            continue
        call = part.get("functionCall", part.get("function_call"))
        answer = part.get("functionResponse", part.get("function_response"))
        if isinstance(call, dict):
            main.calls.append(tool_call(call.get("id"), call.get("name"), call.get("args"), where))
        elif isinstance(answer, dict):
            results.append(function_response(answer, where))
        elif isinstance(part.get("text"), str):
            (main.reasoning if part.get("thought") is True else main.texts).append(part["text"])
    return with_results(main, results)


def function_response(answer: dict, where: Location) -> MessageDraft:
    """A function's result; `response.error` makes it an error."""
    payload = answer.get("response")
    is_error: bool | None = None  # an `output` says nothing of success: its text may
    if isinstance(payload, dict):
        if "error" in payload:
            is_error = True
            payload = payload["error"]
        elif set(payload) == {"output"} or set(payload) == {"return_value"}:
            payload = next(iter(payload.values()))
        elif set(payload) == {"result"}:
            payload = payload["result"]
    return result_draft(
        as_id(answer.get("id")), json_text(payload), where, is_error, answer.get("name")
    )


def declared_tools(body: dict) -> tuple[ToolSpec, ...] | None:
    """`tools[].functionDeclarations` (or `function_declarations`, also under `config`)."""
    config = config if isinstance(config := body.get("config"), dict) else body
    tools = config.get("tools")
    if not isinstance(tools, list):
        return None
    flat: list[dict] = []
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        for key in ("functionDeclarations", "function_declarations"):
            declared = declared if isinstance(declared := tool.get(key), list) else ()
            flat.extend({**d, "parameters": _schema(d)} for d in declared if isinstance(d, dict))
    return tool_specs(flat)


def _schema(decl: dict) -> Any:
    for key in ("parametersJsonSchema", "parameters_json_schema"):
        if key in decl:
            return decl[key]
    return _lower_types(decl.get("parameters"))


def _lower_types(schema: Any) -> Any:
    """Gemini's OpenAPI subset writes `"type": "OBJECT"`; JSON Schema spells it `object`."""
    if isinstance(schema, dict):
        return {
            k: v.lower() if k == "type" and isinstance(v, str) else _lower_types(v)
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_lower_types(v) for v in schema]
    return schema


def _content_text(value: Any) -> str:
    if isinstance(value, dict):
        return text_of(value.get("parts"))
    return text_of(value)
