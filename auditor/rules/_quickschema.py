"""A quick answer to "is this certainly valid?" for the simple schemas most tools declare.

jsonschema costs about 40 µs a call even for `{"type": "object", "properties": …}`, and almost
every call in a log is valid. This pre-screen understands only a small subset of JSON Schema
(`type`, `properties`, `required`, `additionalProperties` as a boolean, string `enum`, `items`,
and annotations) and answers True only when the value certainly satisfies the schema. Any
keyword outside the subset, or any doubt, gives False, and the caller asks jsonschema, which
alone writes the messages. Written by hand because no allowed library offers a faster path;
it can only skip work, never decide a finding.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_ANNOTATIONS = frozenset(
    ("description", "title", "default", "examples", "$schema", "$comment", "deprecated")
)
_UNDERSTOOD = _ANNOTATIONS | {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "items",
}


def certainly_valid(schema: Any, value: Any, depth: int = 0) -> bool:
    """True when `value` satisfies `schema` for sure; False when unsure or invalid."""
    if schema is True or (isinstance(schema, dict) and not schema):
        return True
    if not isinstance(schema, dict) or depth > 20 or not _UNDERSTOOD.issuperset(schema):
        return False
    kind = schema.get("type")
    if kind is not None and not _has_type(value, kind):
        return False
    enum = schema.get("enum")
    if enum is not None and not (
        isinstance(enum, list)
        and isinstance(value, str)
        and all(isinstance(e, str) for e in enum)
        and value in enum
    ):
        return False
    if isinstance(value, dict):
        return _object(schema, value, depth)
    if isinstance(value, list) and "items" in schema:
        items = schema["items"]
        return all(certainly_valid(items, v, depth + 1) for v in value)
    return True


def _object(schema: dict, value: dict, depth: int) -> bool:
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if not isinstance(properties, dict) or not isinstance(required, list):
        return False
    if not all(type(name) is str for name in required):
        return False  # a malformed schema: jsonschema decides
    if not isinstance(extra, bool):
        return False
    if any(name not in value for name in required):
        return False
    for name, v in value.items():
        sub = properties.get(name)
        if sub is None:
            if not extra:
                return False
        elif not certainly_valid(sub, v, depth + 1):
            return False
    return True


def _has_type(value: Any, kind: Any) -> bool:
    if isinstance(kind, list):
        return any(_has_type(value, k) for k in kind)
    if kind == "string":
        return isinstance(value, str)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if isinstance(value, bool):
        return False
    if kind == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if kind == "number":
        return isinstance(value, int | float)
    return False


def checker(schema: Any) -> Callable[[dict], bool]:
    """`certainly_valid(schema, arguments)` for object arguments, made once per schema.

    A log declares the same tools in every conversation (and the formats share their parsed
    declarations), so the schema of a call is looked up, not walked: an object schema whose
    properties are plain typed values becomes a closure testing what `certainly_valid` would
    test; any other schema keeps `certainly_valid` itself. Either answers as it would.
    """
    key = id(schema)
    found = _CHECKERS.get(key)
    if found is not None and found[0] is schema:
        return found[1]
    made = _compile(schema)
    if len(_CHECKERS) >= _KEPT:
        _CHECKERS.clear()
    _CHECKERS[key] = (schema, made)  # the schema is kept with it: its id stays its own
    return made


_CHECKERS: dict[int, tuple[Any, Callable[[dict], bool]]] = {}
_KEPT = 512
_LEAF_TYPES = frozenset(("string", "integer", "number", "boolean", "null"))


def _compile(schema: Any) -> Callable[[dict], bool]:
    def walked(value: dict) -> bool:
        return certainly_valid(schema, value)

    if (
        not isinstance(schema, dict)
        or not schema
        or not _UNDERSTOOD.issuperset(schema)
        or schema.get("type") != "object"
        or "enum" in schema
    ):
        return walked
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if (
        not isinstance(properties, dict)
        or not isinstance(required, list)
        or not all(type(name) is str for name in required)
        or not isinstance(extra, bool)
    ):
        return walked
    leaves: dict[str, Callable[[Any], bool]] = {}
    for name, sub in properties.items():
        leaf = _leaf(sub)
        if leaf is None:
            return walked
        leaves[name] = leaf
    names = tuple(required)

    def compiled(value: dict) -> bool:
        if type(value) is not dict:
            return certainly_valid(schema, value)
        for name in names:
            if name not in value:
                return False
        for name, v in value.items():
            test = leaves.get(name)
            if test is None:
                if not extra:
                    return False
            elif not test(v):
                return False
        return True

    return compiled


def _leaf(sub: Any) -> Callable[[Any], bool] | None:
    """A test of a value against a property's schema that holds no object or array: what
    `certainly_valid` answers for it; None for any other schema."""
    if sub is True or (isinstance(sub, dict) and not sub):
        return _always
    if not isinstance(sub, dict) or not _UNDERSTOOD.issuperset(sub):
        return None
    if "properties" in sub or "items" in sub or "required" in sub or "additionalProperties" in sub:
        return None
    kind = sub.get("type")
    if type(kind) is not str or kind not in _LEAF_TYPES:
        return None
    enum = sub.get("enum")
    if enum is None:
        return lambda v: _has_type(v, kind)
    if not isinstance(enum, list) or not all(isinstance(e, str) for e in enum):
        return _never
    allowed = frozenset(enum)
    return lambda v: isinstance(v, str) and v in allowed and _has_type(v, kind)


def _always(value: Any) -> bool:
    return True


def _never(value: Any) -> bool:
    return False
