"""Calls written as Python: `[get_x(a=1), get_y(b="z")]`, after a tag or as the whole answer.

Llama 3.2 and 4 (and the models tuned on their format, ToolACE's among them) write tool calls
as a Python list of calls with keyword arguments, as the whole message, after Llama 4's
`<|python_start|>`, or after a `<function-call>` tag (`<functioncall>`, `<function_call>`);
after a tag the value may also be JSON (`<functioncall> {"name": …, "arguments": …}`).

After a tag the text is a call by the tag's word, so a list Python cannot parse is still read
item by item: an unfilled `amount=?`, a bare word, a missing quote (`[get_balance(),
send_money(recipient="GB29…", amount=?)]`) leave each `name(key=value, …)` a call, its values
shown as written. Every item must still be a call by name with keyword arguments only.

Untagged, a list counts only where it is the whole answer (or, where tools are declared, stands
on lines of its own and names only declared tools), every item is a call with keyword
arguments only, and no item is a method or attribute call: `[len(x), max(y)]`, a list
comprehension or a call quoted inside prose is Python, not a tool call. The text is parsed with
`ast`, at most `MAX_SOURCE` characters of it.
"""

from __future__ import annotations

import ast
import itertools
import re
from typing import Any

from auditor.common.patterns import lazy
from auditor.dialects._reading import TextCall, Token
from auditor.dialects._scan import MAX_BLOCKS, TextScanner, valid_name

MAX_SOURCE = 20_000
"""Characters of one list handed to the Python parser."""
_TAG = lazy(r"<(?:function[-_]?call|functioncall)>", re.I)
_LIST_LINE = lazy(r"^[ \t]*\[[ \t]*[A-Za-z_][\w.]{0,63}\(", re.M)
_HOW_BARE = "the pythonic call-list dialect (`[name(arg=…), …]`)"


def calls(scan: TextScanner, tokens: tuple[Token, ...]) -> list[TextCall]:
    """Pythonic lists after a tag or `<|python_start|>`, then untagged lists."""
    found: list[TextCall] = []
    text = scan.text
    starts = [
        (t.span[0], t.span[1], f"the `{t.text}` dialect")
        for t in tokens
        if t.text == "<|python_start|>" and not t.quoted
    ]
    starts += [
        (m.start(), m.end(), f"the `{m.group()}` dialect")
        for m in _TAG.finditer(text)
        if scan.unquoted(m.start())
    ]
    for _, at, how in sorted(starts)[:MAX_BLOCKS]:
        value_at = scan.value_start(at, len(text))
        if value_at is None:
            continue
        if text[value_at] == "{":
            made, _ = scan.json_calls(value_at, len(text), True, how, "pythonic")
        else:
            close = _end(scan, value_at)
            made = _listed(scan, value_at, close, how, tagged=True)
            made = made or _lenient(scan, value_at, close, how)
        found += scan.take(made)
    if found or "(" not in text:
        return found
    whole = text.strip()
    if whole.startswith("[") and whole.endswith("]"):
        start = text.index("[")
        return scan.take(_listed(scan, start, len(text.rstrip()), _HOW_BARE, tagged=False))
    if scan.names is not None:  # a list on lines of its own, naming declared tools
        for m in itertools.islice(_LIST_LINE.finditer(text), MAX_BLOCKS):
            start = text.index("[", m.start())
            if scan.scan_budget <= 0:
                break
            end = _line_end(scan, start) if scan.unquoted(start) else None
            if end is not None:
                found += scan.take(_listed(scan, start, end, _HOW_BARE, tagged=False))
    return found


def _listed(scan: TextScanner, start: int, end: int, how: str, tagged: bool) -> list[TextCall]:
    source = scan.text[start:end].strip()
    if not source or len(source) > MAX_SOURCE:
        return []
    try:
        body = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    items = body.elts if isinstance(body, ast.List) else [body] if tagged else []
    parsed = [_call(item) for item in items[:64]]
    if not parsed or any(p is None for p in parsed):
        return []  # not every item a call by name with keyword arguments: Python, not calls
    named = [p for p in parsed if p is not None and valid_name(p[0], scan.names)]
    if len(named) < len(parsed):
        return []
    return [TextCall(name, arguments, "pythonic", how, (start, end)) for name, arguments in named]


def _lenient(scan: TextScanner, start: int, end: int, how: str) -> list[TextCall]:
    """A tagged call list Python cannot parse, read item by item: `name(key=value, …)` each,
    values that are not Python literals kept as written (`amount=?`)."""
    source = scan.text[start:end].strip()
    if not source or len(source) > MAX_SOURCE:
        return []
    if source.startswith("["):
        if not source.endswith("]"):
            return []
        source = source[1:-1]
    found: list[TextCall] = []
    for item in (_split(source) or [])[:64]:
        m = _ITEM.fullmatch(item.strip())
        pairs = _split(m.group(2)) if m is not None else None
        if m is None or pairs is None or not valid_name(m.group(1), scan.names):
            return []
        arguments: dict[str, Any] = {}
        for pair in pairs:
            if not pair.strip():
                continue
            key, eq, value = pair.partition("=")
            if not eq or not key.strip().isidentifier():
                return []  # a positional argument or an expression: not a call by keywords
            arguments[key.strip()] = _literal(value.strip())
        found.append(TextCall(m.group(1), arguments, "pythonic", how, (start, end)))
    return found


_ITEM = lazy(r"([A-Za-z_]\w{0,63})\s*+\((.*)\)", re.S)


def _split(source: str) -> list[str] | None:
    """`source` cut at its top-level commas (outside quotes and brackets); None when a bracket
    closes that it did not open (`get(a=1) or f(b`: not one call)."""
    parts: list[str] = []
    depth, quote, escaped, begin = 0, "", False, 0
    for i, c in enumerate(source):
        if escaped:
            escaped = False
        elif quote:
            if c == "\\":
                escaped = True
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return None
        elif c == "," and depth == 0:
            parts.append(source[begin:i])
            begin = i + 1
    parts.append(source[begin:])
    return parts if parts != [""] else []


def _literal(value: str) -> Any:
    """A Python literal's value, or the text as written."""
    try:
        return ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return value


def _call(node: ast.expr) -> tuple[str, dict[str, Any]] | None:
    """(name, keyword arguments) of `name(k=v, …)`; None for anything else (a method call,
    positional arguments, `**kwargs`)."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.args:
        return None
    arguments: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            return None
        try:
            arguments[keyword.arg] = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            arguments[keyword.arg] = ast.unparse(keyword.value)
    return node.func.id, arguments


def _end(scan: TextScanner, start: int) -> int:
    """Where a list or a call opened at `start` closes (bracket depth, strings skipped), or the
    end of what may be read; the distance is charged to the scanner's budget."""
    text = scan.text
    stop = min(len(text), start + MAX_SOURCE, start + max(scan.scan_budget, 0))
    depth, quote, escaped, end = 0, "", -1, stop
    for m in _STRUCT.finditer(text, start, stop):
        i, c = m.start(), m.group()
        if i == escaped:
            continue
        if quote:
            if c == "\\":
                escaped = i + 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                end = i + 1
                break
    scan.scan_budget -= end - start
    return end


_STRUCT = lazy(r"[()\[\]{}\"'\\]")


def _line_end(scan: TextScanner, start: int) -> int | None:
    """The end of a list that closes at the end of a line; None when text follows it there."""
    text = scan.text
    end = _end(scan, start)
    rest = text.find("\n", end)
    tail = text[end : rest if rest >= 0 else len(text)]
    return end if not tail.strip() else None
