r"""Tool-call arguments that break the JSON Schema the transcript declares for the tool.

## What it does
Validates the arguments of every structured assistant call against the declared `parameters`
(or `input_schema`) of its tool, with jsonschema. Fires once per call and lists each problem:
a missing required argument, a value of the wrong type, a value not in the `enum` (listing the
allowed values), an argument the schema does not know where `additionalProperties` is false.

## Why is this bad?
The model called the tool in a way it was told it cannot. The tool then fails, often with a
message that names nothing ("An error occurred while executing tool X"), and the model repeats
the same call. The finding says which argument is wrong and what was allowed.

## Example
```jsonl
{"id": "ex7", "tools": [{"type": "function", "function": {"name": "paint", "parameters": {"type": "object", "properties": {"color": {"type": "string", "enum": ["red", "blue"]}, "coats": {"type": "integer"}}, "required": ["color", "coats"]}}}], "messages": [{"role": "user", "content": "Paint it"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "paint", "arguments": "{\"color\": \"not_a_color\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "An error occurred while executing tool \"paint\"."}]}
```

## How to fix
Use strict schemas (OpenAI's `"strict": true`, or constrained decoding), so the model cannot
send what the schema forbids. Make the schema say what the tool accepts: `enum` for fixed
values, `required` for what it needs, descriptions with an example. Make the tool's error name
the argument and what is allowed (the finding's text shows how), so the next call can be
right. If the tool accepts what the schema forbids, fix the schema.

## Does not fire on
- arguments EX006 reports (not JSON, not an object), and tools with no declared schema;
- schema keywords beyond those four (`pattern`, `minimum`, `oneOf` …), whose failures are
  reported by tools themselves in words a model can act on;
- a declared schema that is not valid JSON Schema, or whose `$ref` points outside it: that
  tool's calls are skipped (the auditor never fetches a schema over the network); coverage
  names the tool whose schema is invalid or nested too deep, once per conversation;
- tools whose schema uses `patternProperties` (validating them would run the log's own
  regular expressions, which may be hostile) or nests more than 128 levels deep;
- every call when jsonschema cannot be imported (it is a dependency; a broken install lacks
  it): coverage says so.
```jsonl
{"id": "ex7-ok", "tools": [{"type": "function", "function": {"name": "paint", "parameters": {"type": "object", "properties": {"color": {"type": "string", "enum": ["red", "blue"]}, "coats": {"type": "integer"}}, "required": ["color", "coats"]}}}], "messages": [{"role": "user", "content": "Paint it"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "paint", "arguments": "{\"color\": \"red\", \"coats\": 2.0}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "painted"}]}
```
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

import orjson

from auditor import canonical
from auditor.findings import Violation, on_call
from auditor.replay import Exchange, Replay
from auditor.rules._quickschema import checker

REQUIRES = ("tools", "calls", "jsonschema")

_SHOWN = 5  # problems listed in one message
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer"}


def screen(replay: Replay, options: None) -> bool:
    """Some call's arguments are not certainly valid by the quick pre-screen."""
    return bool(replay.shared("schema.doubtful", _doubtful))


def _doubtful(replay: Replay) -> list[tuple[Exchange, dict]]:
    """The assistant's structured calls with object arguments that the quick pre-screen cannot
    call valid, with their tool's schema (most calls are valid: jsonschema is spared them)."""
    schemas: dict[str, Any] = {}
    for spec in replay.conversation.tools or ():
        schemas.setdefault(spec.name, spec.parameters)
    found = []
    for exchange in replay.exchanges:
        call = exchange.call
        if call.origin != "structured" or exchange.caller != "assistant":
            continue
        schema = schemas.get(call.name)
        if not isinstance(call.arguments, dict) or not isinstance(schema, dict) or not schema:
            continue
        if not checker(schema)(call.arguments):
            found.append((exchange, schema))
    return found


def check(replay: Replay, options: None) -> Iterator[Violation]:
    validators: dict[str, Any] = {}  # one validator per tool, for this conversation
    for exchange, schema in replay.shared("schema.doubtful", _doubtful):
        call = exchange.call
        if call.name not in validators:
            validators[call.name] = validator = _validator(schema)
            if isinstance(validator, str) and validator:  # said once per tool and conversation
                where = replay.conversation.messages[exchange.turn].location
                yield Violation(
                    f"tool `{call.name}`'s declared schema {validator}", exchange.turn, where,
                    not_examined=True,
                )  # fmt: skip
        problems = _problems(validators[call.name], call.arguments)
        if not problems:
            continue
        more = f"; and {len(problems) - _SHOWN} more" if len(problems) > _SHOWN else ""
        yield on_call(
            f"arguments of `{call.name}` break its schema: " + "; ".join(problems[:_SHOWN]) + more,
            call,
            exchange.turn,
            replay.conversation.messages[exchange.turn].location,
        )


def _validator(schema: dict) -> Any:
    """A validator for the schema; when it cannot be used, why (empty for `patternProperties`,
    skipped by design and documented).

    Checking a schema against its meta-schema costs milliseconds, and a log declares the same
    tools in every conversation: validators are shared by schema content (never by tool name,
    so two conversations that declare one tool differently do not share one).
    """
    try:
        content = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # integers orjson does not write: compile this one on its own
        return _compile(schema)
    return _compiled(content)


@lru_cache(maxsize=256)
def _compiled(content: bytes) -> Any:
    return _compile(orjson.loads(content))


def _compile(schema: dict) -> Any:
    """A validator, or why this rule does not use the schema: broken, nested past
    `canonical.MAX_DEPTH` (jsonschema recurses), or with `patternProperties` (jsonschema would
    run the log's own regexes, which may be hostile: "", not said)."""
    if canonical.depth_exceeds(schema):
        return f"nests more than {canonical.MAX_DEPTH} levels deep"
    if _mentions(schema, "patternProperties"):
        return ""
    import referencing  # heavy: loaded only when a declared tool is called
    from jsonschema import SchemaError, validators

    with warnings.catch_warnings():  # an unknown `$schema` falls back to the latest draft
        warnings.simplefilter("ignore")
        cls = validators.validator_for(schema, default=validators.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except (SchemaError, RecursionError):
        return "is not valid JSON Schema"
    # An empty registry: a `$ref` to anything outside the schema fails instead of being fetched.
    return _without_pattern(cls)(schema, registry=referencing.Registry())


@lru_cache(maxsize=8)
def _without_pattern(cls: Any) -> Any:
    """The draft's validator minus `pattern`: not reported, and a log's regex may be hostile."""
    from jsonschema import validators

    return validators.extend(cls, {"pattern": lambda *_: iter(())})


def _problems(validator: Any, arguments: dict) -> list[str]:
    if isinstance(validator, str):
        return []
    from referencing.exceptions import Unresolvable

    try:
        errors = sorted(validator.iter_errors(arguments), key=lambda e: _path(e.absolute_path))
    except (Unresolvable, RecursionError):
        return []
    out: list[str] = []
    for error in errors:
        for problem in _describe(error):
            if problem not in out:
                out.append(problem)
    return out


def _describe(error: Any) -> Iterable[str]:
    where, instance, expected = _path(error.absolute_path), error.instance, error.validator_value
    label = where or "(arguments)"
    if error.validator == "required" and isinstance(instance, dict):
        return [f"missing required `{_join(where, n)}`" for n in expected if n not in instance]
    if error.validator == "type":
        types = " or ".join(expected) if isinstance(expected, list) else str(expected)
        return [f"`{label}` should be {types}, not {_type(instance)} {canonical.excerpt(instance)}"]
    if error.validator == "enum" and isinstance(expected, list):
        allowed = ", ".join(canonical.excerpt(v, 30) for v in expected[:8])
        allowed += ", …" if len(expected) > 8 else ""
        return [f"`{label}` is {canonical.excerpt(instance)}, not one of {allowed}"]
    if error.validator == "const":
        return [f"`{label}` is {canonical.excerpt(instance)}, not {canonical.excerpt(expected)}"]
    if error.validator == "additionalProperties" and expected is False:
        known = error.schema.get("properties") or {}
        return [
            f"unexpected argument `{_join(where, k)}` (the schema allows no others)"
            for k in instance
            if k not in known
        ]
    return []


def _mentions(value: Any, key: str) -> bool:
    """`key` is a key of some object inside the value (walked without recursion)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if key in item:
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _path(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _join(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def _type(value: Any) -> str:
    if value is None:
        return "null"
    return _JSON_TYPES.get(type(value), "number")
