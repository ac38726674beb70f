"""Tool arguments compared by meaning: parsed, object keys unordered, numbers by value, strings NFC.

Loops compare calls canonically (tau-bench repeats calls that differ only in whitespace) and
approvals compare the approved call with the executed one (a hash-matched confirmation breaks
on `1` vs `1.0` or a reordered key). Both use this module, so "the same call" means one thing.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import orjson

from auditor.common.structs import dataclass
from auditor.common.text import cut

MAX_DEPTH = 128
"""Arguments nested deeper than this are not read as arguments: every later stage that walks a
value (canonical call keys, approval diffs, schemas) recurses, and no real tool takes them."""


TOO_DEEP = f"nested more than {MAX_DEPTH} levels deep"
"""The `arguments_error` of such arguments: valid JSON, but not read."""


def depth_exceeds(value: Any, limit: int = MAX_DEPTH) -> bool:
    """The value nests containers more than `limit` deep (walked without recursion)."""
    if isinstance(value, str):
        # A string cannot open more containers than it has brackets: most end the check here.
        return value.count("[") + value.count("{") > limit and _text_depth(value) > limit
    if not isinstance(value, dict | list):
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False


def _text_depth(text: str) -> int:
    """How deep the brackets of a JSON text nest, outside its strings."""
    depth = deepest = 0
    quoted = escaped = False
    for ch in text:
        if quoted:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def normalise(value: Any) -> Any:
    """A plain JSON value whose serialisation with sorted keys is the same for equal meanings."""
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    if isinstance(value, int | float):
        return value
    if isinstance(value, dict):
        return {unicodedata.normalize("NFC", str(k)): normalise(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [normalise(v) for v in value]
    return repr(value)


def key(value: Any) -> str:
    """A string equal for two values exactly when they are equal in meaning."""
    try:
        return orjson.dumps(normalise(value), option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # nesting deeper than orjson writes: fall back to a slower exact form
        return repr(_sorted(normalise(value)))


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return sorted((k, _sorted(v)) for k, v in value.items())
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def same_meaning(a: Any, b: Any) -> bool:
    return key(a) == key(b)


_MISSING = object()


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between two argument values."""

    path: str
    """Where, as `payment_id` or `flights[0].date`; empty for the whole value."""
    old: Any
    new: Any
    """The values at `path`; `missing()` when the path exists on one side only."""


def missing() -> object:
    """The marker `Change.old`/`Change.new` holds when the path does not exist on that side."""
    return _MISSING


def changes(old: Any, new: Any, path: str = "") -> list[Change]:
    """Every path whose meaning differs between `old` and `new`, in a stable order."""
    if same_meaning(old, new):
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[Change] = []
        for k in sorted(set(old) | set(new), key=str):
            child = f"{path}.{k}" if path else str(k)
            out.extend(changes(old.get(k, _MISSING), new.get(k, _MISSING), child))
        return out
    if isinstance(old, list) and isinstance(new, list):
        out = []
        for i in range(max(len(old), len(new))):
            a = old[i] if i < len(old) else _MISSING
            b = new[i] if i < len(new) else _MISSING
            out.extend(changes(a, b, f"{path}[{i}]"))
        return out
    return [Change(path, old, new)]


def excerpt(value: Any, limit: int = 60) -> str:
    """A value as a short JSON excerpt for a finding's message (as written, not canonical: keys
    in their order), cut at `limit` characters; `(missing)` for an absent one."""
    if value is _MISSING:
        return "(missing)"
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = repr(value)
    return cut(text, limit)
