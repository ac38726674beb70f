r"""Tool-call arguments that are not valid JSON, not an object, or JSON encoded twice.

## What it does
Fires on a structured call whose arguments do not parse as JSON (saying where the parse failed,
and whether json-repair recovers an object from them, and which), whose arguments parse to
something other than an object (an array, a number, `null`), or whose arguments are a JSON
string that itself holds JSON (encoded twice).

## Why is this bad?
The tool cannot run on arguments it cannot read: the runtime answers with a parse error, calls
the tool with nothing, or silently "repairs" the text into something the model never meant.
Models then retry the same broken call. Double encoding is the signature of a framework bug
(arguments serialised once too often), not of the model.

## Example
```jsonl
{"id": "ex6", "messages": [{"role": "user", "content": "Weather in Rome?"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Rome\", \"units\": \"metric\""}}]}, {"role": "tool", "tool_call_id": "c1", "content": "Error: could not parse arguments"}]}
```

## How to fix
Turn on strict tool arguments or constrained decoding (OpenAI's `"strict": true`, a JSON
grammar in the serving stack): the model then cannot write arguments that do not parse. Raise
the output token limit when arguments are cut off mid-object. Answer arguments that do not
parse with an error that says where and why, rather than repair them silently. Arguments
encoded twice (a JSON string holding JSON) are a framework bug: serialise them once, where
the request is built.

## Does not fire on
- empty arguments (`""`), which APIs send for tools without parameters;
- arguments a format logs as an object (tau2-bench, Anthropic `input`);
- calls written into message text (EX003 reports those).
```jsonl
{"id": "ex6-ok", "messages": [{"role": "user", "content": "Weather in Rome?"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Rome\", \"units\": \"metric\"}"}}, {"id": "c2", "type": "function", "function": {"name": "get_time", "arguments": ""}}]}, {"role": "tool", "tool_call_id": "c1", "content": "21C"}, {"role": "tool", "tool_call_id": "c2", "content": "12:00"}]}
```
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from auditor import canonical
from auditor.findings import Violation, on_call
from auditor.model import ToolCall
from auditor.replay import Replay

REQUIRES = ("calls",)

# json-repair is only asked to show what could be recovered, and only on bounded input: its
# work on a huge or hostile text is not bounded by us.
_REPAIR_LIMIT = 20_000
_KINDS = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}


def screen(replay: Replay, options: None) -> bool:
    """Some structured call has arguments that are not a JSON object (`malformed`'s first
    test)."""
    return any(e.call.origin == "structured" and not _an_object(e.call) for e in replay.exchanges)


def _an_object(call: ToolCall) -> bool:
    return call.arguments_error is None and isinstance(call.arguments, dict)


def check(replay: Replay, options: None) -> Iterator[Violation]:
    for exchange in replay.exchanges:
        call = exchange.call
        if call.origin != "structured":
            continue
        problem = malformed(call)
        if problem is None:
            continue
        where = replay.conversation.messages[exchange.turn].location
        yield on_call(f"arguments of `{call.name}` {problem}", call, exchange.turn, where)


def malformed(call: ToolCall) -> str | None:
    """What is wrong with a call's arguments; None when they are a JSON object."""
    if _an_object(call):
        return None
    if call.arguments_error == canonical.TOO_DEEP:
        return f"are {canonical.TOO_DEEP}: too deep to read as arguments"
    if call.arguments_error is not None:
        return f"are not valid JSON ({call.arguments_error}); {_recovery(call.raw_arguments)}"
    value = call.arguments
    if isinstance(value, dict):
        return None
    if isinstance(value, str):
        inner = _decoded(value)
        if inner is not None:
            return (
                "are a JSON string that holds JSON (encoded twice); decoded once more they are "
                + canonical.excerpt(inner, 80)
            )
    kind = "null" if value is None else _KINDS.get(type(value), type(value).__name__)
    return f"are {kind}, not a JSON object: {canonical.excerpt(value, 80)}"


def _decoded(text: str) -> Any:
    """The JSON value a string holds, when it holds an object or an array."""
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None


def _recovery(raw: str | None) -> str:
    text = (raw or "").strip()
    if len(text) > _REPAIR_LIMIT:
        return f"json-repair was not tried on {len(text)} characters"
    recovered = _repair(text)
    if recovered is None:
        return "json-repair recovers no object from them"
    return f"json-repair recovers {canonical.excerpt(recovered, 80)}"


def _repair(text: str) -> dict | None:
    """json-repair's reading of the text, when it is an object it did not have to invent."""
    if not text.startswith("{"):
        return None  # it would pull an object out of prose, or make one from nothing
    import json_repair  # heavy: loaded only when a call's arguments are broken

    try:
        value = json_repair.loads(text)
    except (RecursionError, ValueError, TypeError):
        return None
    if not isinstance(value, dict) or not value or not _plausible(value, text):
        return None
    return value


def _plausible(value: Any, text: str) -> bool:
    """Every key json-repair returns is in the text, and no empty string it returns is invented.

    It reads `{"a" 1}` as `{"a": ""}`: an empty value the text never wrote.
    """
    if isinstance(value, dict):
        return all(str(k) in text and _plausible(v, text) for k, v in value.items())
    if isinstance(value, list):
        return all(_plausible(v, text) for v in value)
    if value == "":
        return '""' in text or "''" in text
    return True
