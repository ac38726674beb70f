"""The scanner every dialect reads with: code spans, JSON values, repairs, and the limits.

A `TextScanner` is one pass over one text. Dialect modules ask it where code spans are (a call
quoted in backticks is not a call), where a JSON value ends, what json-repair makes of malformed
JSON, and they record the spans they have read (`take`) so later dialects do not read them again.
Every piece of work is capped, so a megabyte of `{` or `Action:` costs a scan.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from auditor.common.patterns import lazy
from auditor.dialects._reading import Block, TextCall, TextSpan

MAX_SCAN = 1_000_000
"""Characters the JSON bracket scanner may visit in one message, over all values."""
MAX_VALUE = 200_000
"""Characters one JSON value may span."""
MAX_CANDIDATES = 200
"""JSON starts examined in the prose of one message."""
MAX_REPAIR = 20_000
"""Characters handed to json-repair at once."""
MAX_REPAIRS = 8
"""json-repair calls per message."""
MAX_BLOCKS = 1_000
"""Tagged blocks (`<tool_call>`, `<function=…>`, `[TOOL_CALLS]`, …) read per message."""
MAX_MARKS = 4_000
"""ReAct labels and control tokens read per message (a real message has a handful)."""
_TICKS = lazy(r"`+")
_VALUE_START = lazy(r"\s*+(?:```[\w-]{0,20}\s*+)?")
_STRUCT = lazy(r'[\[\]{}"\\]')
_NAME_HINT = lazy(r"""["'](?:name|tool|tool_name|action)["']\s*+:""")
_IDENT = lazy(r"[A-Za-z_][\w.\-]{0,63}")
NOT_ACTIONS = frozenset(("none", "n/a", "na", "final answer", "finish", "no action", "null"))
"""Action names that say "no call"."""
_RESERVED = frozenset(("tool", "tool_name", "type", "id", "call_id", "tool_call_id"))
NAME_KEYS = ("tool", "tool_name", "action", "function")
"""Keys whose string value names the tool in a JSON call (besides `name`)."""
ARG_KEYS = (
    "arguments",
    "parameters",
    "tool_input",
    "action_input",
    "args",
    "params",
    "input",
)
"""Keys that hold a JSON call's arguments."""
_NOT_NAME_ARGS = frozenset(("tool_input", "action_input"))
"""Argument keys that go with another name key: `{"name", "action_input"}` is no shape."""
_FUNCTION_NAME = lazy(r"[a-z][a-z0-9]*+(?:_[a-z0-9]++)++|[a-z][a-z0-9]*+(?:[A-Z][a-z0-9]*+)++")
_KEY = lazy(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_JSON_FENCES = ("", "json", "jsonc", "json5", "tool_call", "tool_code", "tool")


class Code:
    """Backtick code spans and fences: a run of N backticks closes at the next run of N."""

    def __init__(self, text: str) -> None:
        runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
        by_length: dict[int, list[int]] = {}
        for i, (start, end) in enumerate(runs):
            by_length.setdefault(end - start, []).append(i)
        self.starts: list[int] = []
        self.spans: list[tuple[int, int, str | None]] = []
        i = 0
        while i < len(runs):
            start, end = runs[i]
            same = by_length[end - start]
            k = bisect.bisect_right(same, i)
            if k == len(same):
                i += 1
                continue
            j = same[k]
            info = None
            if end - start >= 3:
                line_end = text.find("\n", end, end + 200)
                info = text[end : line_end if line_end >= 0 else end].strip().lower()
            self.starts.append(start)
            self.spans.append((start, runs[j][1], info))
            i = j + 1

    def at(self, pos: int) -> tuple[int, int, str | None] | None:
        """The code span or fence holding `pos` (its fence info string; None for inline)."""
        k = bisect.bisect_right(self.starts, pos) - 1
        if k >= 0 and pos < self.spans[k][1]:
            return self.spans[k]
        return None


class TextScanner:
    """One pass over one text; every piece of work is capped."""

    def __init__(
        self, text: str, names: frozenset[str] | None, asked: frozenset[str] = frozenset()
    ) -> None:
        self.text = text
        self.names = names
        """The declared tools; None when none are declared."""
        self.asked = asked
        """Name keys (`action`, `tool`, …) the instructions quote as JSON: an answer format
        asked for, whose flat objects are answers, not calls, where no tools are declared."""
        self.code = Code(text)
        self.scan_budget = MAX_SCAN
        self.repairs = 0
        self.taken: list[TextSpan] = []
        """Spans already read as a call or a ReAct input: the prose JSON scan skips them."""

    def unquoted(self, pos: int) -> bool:
        return self.code.at(pos) is None

    def blocks(self, opener: str, closer: str) -> Iterator[Block]:
        """`opener … closer` blocks outside code; an unclosed one ends at the next opener."""
        text = self.text
        opens = positions(text, opener)
        closes = positions(text, closer)
        k = 0
        for i, start in enumerate(opens):
            nxt = opens[i + 1] if i + 1 < len(opens) else len(text)
            while k < len(closes) and closes[k] < start:
                k += 1
            if not self.unquoted(start):
                continue
            body_start = start + len(opener)
            if k < len(closes) and closes[k] < nxt:
                end, body_end = closes[k] + len(closer), closes[k]
            else:
                end = body_end = nxt
            yield Block(opener[1:-1], text[body_start:body_end], (start, end))

    def json_end(self, start: int, stop: int) -> int | None:
        """End of the JSON value opening at `start`, by bracket matching; None if unclosed."""
        limit = min(stop, start + MAX_VALUE, start + max(self.scan_budget, 0))
        end = next((i + 1 for i, depth in brackets(self.text, start, limit) if depth <= 0), None)
        self.scan_budget -= (end or limit) - start
        return end

    def repair(self, raw: str, call_known: bool = False) -> Any:
        """What json-repair makes of malformed JSON; None when it makes nothing useful.

        Unless the call is already known from around the JSON (a tag, a label), the raw text
        must look like it names a tool before json-repair is even tried.
        """
        if self.repairs >= MAX_REPAIRS or len(raw) > MAX_REPAIR:
            return None
        if not call_known and not _NAME_HINT.search(raw):
            return None
        self.repairs += 1
        import json_repair  # heavy: only for text that already looks like a call

        try:
            value = json_repair.loads(raw)
        except Exception:  # ValueError on deep nesting; whatever else on odd input
            return None
        return value if isinstance(value, dict | list) and value else None

    def json_calls(
        self,
        start: int,
        stop: int,
        strong: bool,
        form: str | None,
        dialect: str,
        loose: frozenset[str] = frozenset(),
    ) -> tuple[list[TextCall], int]:
        """The calls in the JSON value at `start`, and where the value ends.

        `strong`: special tokens around the JSON already say it is a call, so a name is enough
        even where no tools are declared. `form` None: prose JSON, described by its shape.
        `loose`: name keys whose flat object counts without declared tools (`flat_call`) when
        the value is one object, not an array.
        """
        text = self.text
        end = self.json_end(start, stop)
        repaired = False
        if end is not None:
            raw = text[start:end]
            try:
                value = orjson.loads(raw)
            except orjson.JSONDecodeError:
                value, repaired = self.repair(raw), True
        else:
            end = min(stop, start + MAX_VALUE)
            raw = text[start : min(end, start + MAX_REPAIR)]
            value, repaired = self.repair(raw), True
        items = value if isinstance(value, list) else [value]
        loose = frozenset() if isinstance(value, list) else loose
        calls = []
        for item in items[:64]:
            shape = _call_shape(item, self.names, strong, loose)
            if shape is None:
                continue
            name, key, arguments, base, weak = shape
            if repaired and not _literal_name(raw, key, name):
                continue  # json-repair invents keys out of prose: the raw text must say it
            how = form or _prose_form(base, isinstance(value, list), self.code.at(start))
            call = TextCall(name, arguments, dialect, how, (start, end), repaired, loose=weak)
            calls.append(call)
        return calls, end

    def arguments_at(self, start: int | None, stop: int) -> tuple[Any, bool, int]:
        """Arguments of a call already known (from a tag or a label): (value, repaired, end)."""
        if start is None:
            return {}, False, stop
        end = self.json_end(start, stop)
        raw = self.text[start : end if end is not None else stop]
        try:
            return orjson.loads(raw), False, end or stop
        except orjson.JSONDecodeError:
            fixed = self.repair(raw, call_known=True)
            if fixed is None:
                return raw.strip(), False, end or stop
            return fixed, True, end or stop

    def value_start(self, pos: int, stop: int) -> int | None:
        """Where a JSON value starts after `pos` (whitespace, a fence line skipped), or None."""
        m = _VALUE_START.match(self.text, pos, stop)
        i = m.end() if m else pos
        return i if i < stop and self.text[i] in "{[" else None

    def take(self, calls: Iterable[TextCall], span: TextSpan | None = None) -> list[TextCall]:
        calls = list(calls)
        self.taken.extend(c.span for c in calls)
        if span is not None:
            self.taken.append(span)
        return calls

    # -- dialects -------------------------------------------------------------------------


def _prose_form(shape: str, in_array: bool, code: tuple[int, int, str | None] | None) -> str:
    how = f"the {shape} JSON dialect"
    if in_array:
        how += ", inside a JSON array"
    if code is not None:
        how += ", in a fenced code block"
    return how


def json_fence(info: str | None) -> bool:
    """A fence whose info string says JSON (or nothing); None is an inline code span."""
    return info is not None and (info.split() or [""])[0] in _JSON_FENCES


def positions(text: str, needle: str) -> list[int]:
    """Every position of `needle` in `text`, at most MAX_MARKS of them."""
    found: list[int] = []
    i = text.find(needle)
    while i >= 0 and len(found) < MAX_MARKS:
        found.append(i)
        i = text.find(needle, i + len(needle))
    return found


def valid_name(name: Any, names: frozenset[str] | None) -> bool:
    """A declared tool's name; where none are declared, something shaped like a name."""
    if not isinstance(name, str):
        return False
    if names is not None:
        return name in names
    return _IDENT.fullmatch(name) is not None


def _call_shape(
    item: Any, names: frozenset[str] | None, strong: bool, loose: frozenset[str] = frozenset()
) -> tuple[str, str, Any, str, bool] | None:
    """(name, name key, arguments, shape, loose) when `item` is a call object, else None;
    `loose` when only `flat_call` made it one.

    `loose`: the name keys whose flat objects count where no tools are declared (the object
    stands alone, and the instructions do not ask for JSON with that key): see `flat_call`.
    """
    if not isinstance(item, dict):
        return None
    for wrapper in ("function", "function_call"):
        inner = item.get(wrapper)
        if isinstance(inner, dict):
            found = _call_shape(inner, names, strong)
            if found is None:
                return None
            inner_name, inner_key, arguments, _, weak = found
            return inner_name, inner_key, arguments, f'`{{"{wrapper}": {{…}}}}`', weak
    if "description" in item or "input_schema" in item:
        return None  # a tool declaration quoted in the text, not a call
    explicit = next((k for k in ARG_KEYS if k in item), None)
    named_by = next((k for k in NAME_KEYS if isinstance(item.get(k), str)), None)
    weak = False
    key: str
    if named_by in ("tool", "tool_name"):
        key = named_by
        if names is None and not strong and not isinstance(item.get(explicit or ""), dict):
            if not (key in loose and flat_call(item, key)):
                return None  # a flat object names its tool only where tools are declared
            weak = True
        if explicit is not None:
            arguments = item[explicit]
        else:
            arguments = {k: v for k, v in item.items() if k not in _RESERVED}
        shape = f'flat `{{"{key}": …}}`'
    elif isinstance(item.get("name"), str):
        key = "name"
        arg_key = next((k for k in ARG_KEYS if k in item and k not in _NOT_NAME_ARGS), None)
        if arg_key is None and not strong:
            return None
        arguments = item[arg_key] if arg_key else {}
        shape = f'`{{"name": …, "{arg_key or "arguments"}": …}}`'
    elif named_by is not None:  # `action` or a `function` that names the tool
        key = named_by
        if explicit is not None:
            arguments = item[explicit]
            shape = f'`{{"{key}": …, "{explicit}": …}}`'
        elif names is not None or strong or (key in loose and flat_call(item, key)):
            weak = names is None and not strong
            arguments = {k: v for k, v in item.items() if k != key and k not in _RESERVED}
            shape = f'flat `{{"{key}": …}}`'
        else:
            return None
    else:
        return None
    name = item[key]
    if _no_action(name) or not valid_name(name, names):
        return None
    arguments = _arguments(arguments)
    if isinstance(arguments, dict) and "properties" in arguments and "type" in arguments:
        return None  # a JSON Schema: the declaration of a tool, not a call
    if names is None and not strong and not isinstance(arguments, dict):
        return None
    return name, key, arguments, shape, weak


def flat_call(item: dict[str, Any], key: str) -> bool:
    """A flat object that reads as a call with no tool list to check its name against: the
    name key comes first and names a function (`consultar_datos_cliente`, `getBalance`: words
    joined as an identifier, not a word or a phrase), and every key is an identifier."""
    return (
        next(iter(item)) == key
        and _FUNCTION_NAME.fullmatch(item[key]) is not None
        and all(_KEY.fullmatch(k) is not None for k in item)
    )


def _no_action(name: str) -> bool:
    """An action name that says "no call" (`Final Answer`, `final_answer`, `none`)."""
    return name.lower().replace("_", " ").strip() in NOT_ACTIONS


def _arguments(value: Any) -> Any:
    """Arguments as meant: a JSON string holding JSON is parsed, None is no arguments."""
    if value is None:
        return {}
    if isinstance(value, str) and value.strip().startswith(("{", "[")):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def _literal_name(raw: str, key: str, name: str) -> bool:
    """The raw text itself says `"key": "name"` near the top of the value.

    json-repair invents structure (prose around an object, `{"a" 1}` -> `{'a': ''}`): a call
    recovered from malformed JSON counts only if its name is written literally, inside at most
    an array, an object and a `function` wrapper.
    """
    pattern = r"""["']""" + re.escape(key) + r"""["']\s*+:\s*+["']""" + re.escape(name) + "[\"']"
    found = re.search(pattern, raw)
    return found is not None and 1 <= _depth(raw, found.start()) <= 3


def _depth(raw: str, pos: int) -> int:
    """Bracket depth at `pos`."""
    depth = 0
    for _, depth in brackets(raw, 0, pos):  # noqa: B007 - the last depth is the answer
        pass
    return depth


def brackets(text: str, start: int, stop: int) -> Iterator[tuple[int, int]]:
    """(position, depth after it) of each bracket outside JSON strings in `text[start:stop]`."""
    depth = 0
    in_string = False
    escaped_at = -1
    for m in _STRUCT.finditer(text, start, stop):
        i = m.start()
        c = text[i]
        if i == escaped_at:
            continue
        if c == "\\":
            escaped_at = i + 1 if in_string else escaped_at
        elif c == '"':
            in_string = not in_string
        elif not in_string:
            depth += 1 if c in "{[" else -1
            yield i, depth
