"""Kimi K2 tool-call sections: `<|tool_calls_section_begin|>` … `<|tool_calls_section_end|>`.

Each call is `<|tool_call_begin|>HEADER<|tool_call_argument_begin|>ARGUMENTS<|tool_call_end|>`.
The header is the call id, `functions.NAME:INDEX` (or `NAME:INDEX`), which carries the tool's
name; some servers and prompts make the model write an OpenAI-style id instead (`call_0`,
`call_abc123`), and then the name is the `"name"` key of the arguments. A section without
per-call wrappers is one call; the singular `<|tool_call_section_begin|>` is accepted. The
arguments may be cut off (no `<|tool_call_end|>`): they run to the next call, the section end
or the end of the text, and json-repair shows what they were meant to be.
"""

from __future__ import annotations

from typing import Any

from auditor.common.patterns import lazy
from auditor.dialects._reading import TextCall, Token
from auditor.dialects._scan import MAX_BLOCKS, TextScanner, valid_name

FORM = "the Kimi K2 `<|tool_call_begin|>` dialect"
_SECTION = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
_SECTION_END = ("<|tool_calls_section_end|>", "<|tool_call_section_end|>")
_CALL, _ARGUMENTS, _CALL_END = (
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
)
_MARKS = frozenset((*_SECTION, *_SECTION_END, _CALL, _ARGUMENTS, _CALL_END))
_NATIVE_ID = lazy(r"\s*+(?:functions\.)?([\w.\-]{1,64}):\d{1,6}\s*+")
_OPENAI_ID = lazy(r"\s*+call_[\w\-]{1,64}\s*+")


def calls(scan: TextScanner, tokens: tuple[Token, ...]) -> list[TextCall]:
    """The calls of the unquoted Kimi sections and call wrappers in the text."""
    marks = [t for t in tokens if t.text in _MARKS and not t.quoted][: MAX_BLOCKS * 4]
    found: list[TextCall] = []
    section_at: int | None = None
    for i, mark in enumerate(marks):
        nxt = marks[i + 1] if i + 1 < len(marks) else None
        if mark.text in _SECTION:
            section_at = mark.span[0]
            if nxt is not None and nxt.text == _CALL:
                continue  # the wrapped calls follow
        elif mark.text != _CALL:
            continue
        call = _call(scan, marks, i, section_at if mark.text == _CALL else None)
        if call is not None:
            found.append(call)
        section_at = None
    return scan.take(found)


def _call(scan: TextScanner, marks: list[Token], i: int, section_at: int | None) -> TextCall | None:
    """The call that starts at `marks[i]` (a call wrapper, or a section without wrappers)."""
    text = scan.text
    if i + 1 >= len(marks) or marks[i + 1].text != _ARGUMENTS:
        return None
    header = text[marks[i].span[1] : marks[i + 1].span[0]]
    body_at = marks[i + 1].span[1]
    end = marks[i + 2] if i + 2 < len(marks) else None
    body_end = end.span[0] if end is not None else len(text)
    span_end = body_end
    if end is not None and end.text == _CALL_END:
        span_end = end.span[1]
        if i + 3 < len(marks) and marks[i + 3].text in _SECTION_END:
            span_end = marks[i + 3].span[1]  # the section's end belongs to its last call
    elif end is not None and end.text in _SECTION_END:
        span_end = end.span[1]
    value_at = scan.value_start(body_at, body_end)
    if value_at is None:
        arguments: Any = text[body_at:body_end].strip()
        repaired = False
    else:
        arguments, repaired, _ = scan.arguments_at(value_at, body_end)
    name = _name(header, arguments)
    if name is None or not valid_name(name, scan.names):
        return None
    if _OPENAI_ID.fullmatch(header) and isinstance(arguments, dict):
        arguments = arguments.get("arguments", {k: v for k, v in arguments.items() if k != "name"})
    span = (section_at if section_at is not None else marks[i].span[0], span_end)
    return TextCall(name, arguments, "kimi", FORM, span, repaired)


def _name(header: str, arguments: Any) -> str | None:
    """The tool's name: from a native id, or from the arguments after an OpenAI-style id."""
    m = _NATIVE_ID.fullmatch(header)
    if m is not None:
        return m.group(1)
    if _OPENAI_ID.fullmatch(header) and isinstance(arguments, dict):
        name = arguments.get("name")
        return name if isinstance(name, str) else None
    return None
