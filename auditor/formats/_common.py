"""Helpers every format shares: text of content parts, tool declarations, call arguments."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import orjson

from auditor.model import Location, ToolCall, ToolSpec

TEXT_PART_TYPES = frozenset({"text", "input_text", "output_text"})


@dataclass(frozen=True, slots=True)
class Problem:
    """Part of a recognised record that does not have the expected shape (reported as IN002)."""

    location: Location
    reason: str
    conversation: str | None = None
    """The id of the conversation the part belongs to, when there is one."""
    evidence: str = ""


def attach(problems: Iterable[Problem], conversation: str) -> Iterator[Problem]:
    """The problems found while reading a conversation, labelled with its id."""
    return (replace(p, conversation=conversation) for p in problems)


def excerpt_json(value: Any, limit: int = 80) -> str:
    """A short excerpt of a JSON value, for a Problem's evidence."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(t for t in map(_part_text, content) if t)
    if isinstance(content, dict):
        return _part_text(content)
    if isinstance(content, bool | int | float):
        return str(content)
    return ""


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        text = part.get("text")
        if isinstance(text, str) and part.get("type", "text") in TEXT_PART_TYPES:
            return text
    return ""


def as_id(value: Any) -> str | None:
    """An id as a string; ids logged as numbers are still ids."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def tool_call(
    call_id: Any,
    name: Any,
    arguments: Any,
    location: Location,
    origin: str = "structured",
) -> ToolCall:
    """A ToolCall with its arguments parsed once: a JSON string is parsed with orjson here."""
    name = name if isinstance(name, str) else ""
    if isinstance(arguments, str):
        try:
            parsed = orjson.loads(arguments) if arguments.strip() else {}
        except orjson.JSONDecodeError as exc:
            return ToolCall(
                as_id(call_id),
                name,
                None,
                raw_arguments=arguments,
                arguments_error=f"{exc.msg} at column {exc.colno}",
                origin=origin,  # type: ignore[arg-type]
                location=location,
            )
        return ToolCall(
            as_id(call_id),
            name,
            parsed,
            arguments,
            None,
            origin,
            location,  # type: ignore[arg-type]
        )
    if arguments is None:
        arguments = {}
    return ToolCall(as_id(call_id), name, arguments, None, None, origin, location)  # type: ignore[arg-type]


def tool_specs(tools: Any) -> tuple[ToolSpec, ...] | None:
    """Declared tools in any of the shapes APIs use; None when the log declares none.

    Accepts OpenAI chat (`{"type": "function", "function": {...}}`), flat
    (`{"name", "parameters"}`, as the Responses API writes them), Anthropic
    (`{"name", "input_schema"}`) and a mapping of name to declaration.
    """
    if isinstance(tools, dict):
        tools = [
            {"name": name, **spec} if isinstance(spec, dict) else {"name": name}
            for name, spec in tools.items()
        ]
    if not isinstance(tools, list) or not tools:
        return None
    specs = []
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        fn = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            continue
        schema = fn.get("parameters", fn.get("input_schema", fn.get("inputSchema")))
        description = fn.get("description")
        specs.append(ToolSpec(name, description if isinstance(description, str) else "", schema))
    return tuple(specs) if specs else None


def own_id(record: dict, *keys: str) -> str | None:
    """The first of `keys` that holds an id in `record`."""
    for key in keys:
        value = as_id(record.get(key))
        if value:
            return value
    return None


def fallback_id(location: Location, index: int | None = None) -> str:
    """`path:line` for a JSON Lines record, `path#index` inside a document (SPEC §3)."""
    base = location.path if location.line is None else f"{location.path}:{location.line}"
    return base if index is None else f"{base}#{index}"
