"""A rule's documentation as a person reads it: its docstring with each example log shown as the
conversation it holds, one `role: text` line a message.

The docstring keeps its examples as JSON Lines in ```` ```jsonl ```` fences: the tests run them
(the example fires, the counterexamples do not), and a reader can save one and audit it. Read
raw, though, an example is one line of up to 1,500 characters. Here each record in the
chat-messages shape (`{"messages": [...], "tools": [...]}`, the shape every example outside
the IN rules has) is written as its conversation:

    tools: get_weather(city: string)
    user: Weather in Paris?
    assistant → call_1: get_weather({"city": "Paris"})
    tool ← call_1: sunny, 24C
    assistant: It is sunny in Paris.

A call is written `assistant → ID: name(arguments)`, its arguments as the log wrote them; a
result `tool ← ID: text`; a message's further lines are indented under it, and a line past the
width is wrapped. A fence holding anything else (an unreadable line, a record of another shape:
the IN rules' examples are about the records themselves) is kept as it is. The one rendering is
used by the rule's page (`docs/rules/CODE.md`, with the JSON Lines kept under the conversation
for whoever wants to run it), `--explain`, SARIF's `help` and the HTML report's rule dialog.
"""

from __future__ import annotations

import json
import re
import textwrap
from typing import TYPE_CHECKING, Any

import orjson

from auditor.common.patterns import lazy
from auditor.common.text import safe

if TYPE_CHECKING:
    from auditor.rules import Rule

WIDTH = 100
"""Where the lines of a conversation are wrapped on a page."""
INDENT = "    "
"""A message's further lines, and its wrapped ones: four spaces, so that a line of a message
that starts with ```` ``` ```` can never close the fence it is shown in."""
FENCE = lazy(r"^```jsonl\n(.*?)^```$", re.DOTALL | re.MULTILINE)
FIRES = ("Example",)
"""The sections whose example fires; a fence in any other is a counterexample."""


def markdown(rule: Rule, *, logs: bool = False, width: int = WIDTH) -> str:
    """The rule's docstring (below its summary) with its example logs as conversations. With
    `logs`, each log is also kept as JSON Lines in a folded block under its conversation (a
    page: the reader may want to run it)."""
    parts = []
    for heading, body in rule.sections.items():
        shown = _examples(body, heading in FIRES, logs, width)
        parts.append(f"## {heading}\n{shown}")
    return "\n\n".join(parts)


def _examples(body: str, fires: bool, logs: bool, width: int) -> str:
    def replace(match: re.Match[str]) -> str:
        jsonl = match.group(1)
        talks = conversations(jsonl, width)
        if talks is None:
            return match.group(0)
        # A blank line first: a lead right under a list would continue its last item.
        apart = "" if match.string.endswith("\n\n", 0, match.start()) else "\n"
        lead = "" if fires else apart + _lead(len(talks))
        shown = "\n\n".join("\n".join(lines) for lines in talks)
        block = f"{lead}```text\n{shown}\n```"
        if logs:
            block += (
                "\n\n<details><summary>The log, as JSON Lines</summary>\n\n"
                f"```jsonl\n{jsonl}```\n\n</details>"
            )
        return block

    return FENCE.sub(replace, body)


def _lead(count: int) -> str:
    return "None of these fires:\n\n" if count > 1 else "This does not fire:\n\n"


def conversations(jsonl: str, width: int = WIDTH) -> list[list[str]] | None:
    """Each record of a JSON Lines text as the lines of its conversation; None when one line
    is not a record in the chat-messages shape (the text is then shown as it is). Several
    conversations are each headed by their id."""
    records = []
    for line in jsonl.splitlines():
        try:
            records.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            return None
    talks = [conversation(record, width) for record in records]
    if not talks or any(lines is None for lines in talks):
        return None
    if len(records) > 1:
        return [
            [f"--- {safe(str(record.get('id', i + 1)))} ---", *(lines or [])]
            for i, (record, lines) in enumerate(zip(records, talks, strict=True))
        ]
    return [lines or [] for lines in talks]


def conversation(record: Any, width: int = WIDTH) -> list[str] | None:
    """A record's conversation, one `role: text` line a message (wrapped at `width`); None
    when it is not in the chat-messages shape."""
    if not isinstance(record, dict):
        return None
    messages = record.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        return None
    lines = []
    tools = record.get("tools")
    if isinstance(tools, list) and tools:
        lines += _wrapped("tools", ", ".join(tool(t) for t in tools), width)
    for message in messages:
        lines += _message(message, width)
    return lines


def _message(message: dict[str, Any], width: int) -> list[str]:
    role = str(message.get("role", "?"))
    name = message.get("name")
    text = _text(message.get("content"))
    calls = message.get("tool_calls") or []
    lines: list[str] = []
    if role in ("tool", "function"):
        call_id = message.get("tool_call_id")
        label = f"{role} ← {call_id}" if call_id else f"{role} ({name})" if name else role
        return _wrapped(label, text or "(empty)", width)
    label = f"{role} ({name})" if name else role
    reasoning = _text(message.get("reasoning_content") or message.get("reasoning"))
    if reasoning:
        lines += _wrapped(f"{label} (reasoning)", reasoning, width)
    if text or not calls:
        lines += _wrapped(label, text if text else "(empty)", width)
    for call in calls:
        lines += _wrapped(*_call(label, call), width)
    return lines


def _call(label: str, call: Any) -> tuple[str, str]:
    """`assistant → ID` and `name(arguments)`, the arguments as the log wrote them."""
    if not isinstance(call, dict):
        return f"{label} →", _written(call)
    function = _inner(call, "function")
    arguments = function.get("arguments", function.get("input", ""))
    written = arguments if isinstance(arguments, str) else _written(arguments)
    call_id = call.get("id")
    return f"{label} → {call_id}" if call_id else f"{label} →", f"{function.get('name')}({written})"


def tool(declared: Any) -> str:
    """A declared tool as `name(param: type, …)`: enums as their values, and the required
    parameters named when the schema says which."""
    if not isinstance(declared, dict):
        return _written(declared)
    spec = _inner(declared, "function")
    schema = spec.get("parameters") or spec.get("input_schema") or {}
    properties = schema.get("properties") if isinstance(schema, dict) else None
    params = []
    for key, value in (properties or {}).items():
        params.append(f"{key}: {_type(value)}" if _type(value) else str(key))
    required = schema.get("required") if isinstance(schema, dict) else None
    if required:
        params.append("required: " + ", ".join(map(str, required)))
    return f"{spec.get('name')}({'; '.join(params) if required else ', '.join(params)})"


def _inner(value: dict[str, Any], key: str) -> dict[str, Any]:
    """`value[key]` when it is an object (OpenAI's `{"type": "function", "function": {…}}`),
    else `value` itself (the flat form other APIs write)."""
    inner = value.get(key)
    return inner if isinstance(inner, dict) else value


def _type(schema: Any) -> str:
    if not isinstance(schema, dict):
        return ""
    if isinstance(schema.get("enum"), list):
        return " | ".join(_written(v) for v in schema["enum"])
    kind = schema.get("type")
    return " | ".join(map(str, kind)) if isinstance(kind, list) else str(kind or "")


def _text(content: Any) -> str:
    """A message's content as text: a string, the text of its parts, or its JSON."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, dict):
                parts.append(f"[{part.get('type', 'part')}]")
            else:
                parts.append(_text(part))
        return "\n".join(parts)
    return _written(content)


def _written(value: Any) -> str:
    """A value as JSON written the way people write it (`{"a": 1, "b": [2, 3]}`)."""
    return json.dumps(value, ensure_ascii=False)


def _wrapped(label: str, text: str, width: int) -> list[str]:
    """`label: text`, its further lines indented, each line wrapped at `width`."""
    out = []
    for i, line in enumerate(text.split("\n")):
        line = safe(line.rstrip("\r"))
        first = f"{label}: {line}" if i == 0 else f"{INDENT}{line}"
        if len(first) <= width:
            out.append(first.rstrip())
            continue
        out += textwrap.wrap(
            first,
            width,
            subsequent_indent=INDENT,
            break_on_hyphens=False,
            break_long_words=False,
        )
    return out
