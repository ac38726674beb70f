"""Mistral `[TOOL_CALLS][{"name": …, "arguments": …}]`, or `[TOOL_CALLS]NAME[ARGS]{…}`."""

from __future__ import annotations

from dataclasses import replace

from auditor.common.patterns import lazy
from auditor.dialects._reading import TextCall, Token
from auditor.dialects._scan import MAX_BLOCKS, TextScanner, valid_name

_MISTRAL_NAME = lazy(r"\s*+([\w.\-]{1,64})(?:\[CALL_ID\][\w\-]{0,64})?\[ARGS\]")


def calls(scan: TextScanner, tokens: tuple[Token, ...]) -> list[TextCall]:
    """`[TOOL_CALLS][{"name": …, "arguments": …}]`, or `[TOOL_CALLS]NAME[ARGS]{…}`."""
    text = scan.text
    starts = [t for t in tokens if t.text == "[TOOL_CALLS]" and not t.quoted][:MAX_BLOCKS]
    how = "the Mistral `[TOOL_CALLS]` dialect"
    calls: list[TextCall] = []
    for i, token in enumerate(starts):
        stop = starts[i + 1].span[0] if i + 1 < len(starts) else len(text)
        value_at = scan.value_start(token.span[1], stop)
        if value_at is not None:
            found, end = scan.json_calls(value_at, stop, True, how, "mistral")
            calls += scan.take(replace(c, span=(token.span[0], end)) for c in found)
            continue
        m = _MISTRAL_NAME.match(text, token.span[1], stop)
        if m is None or not valid_name(m.group(1), scan.names):
            continue
        arguments, repaired, end = scan.arguments_at(scan.value_start(m.end(), stop), stop)
        span = (token.span[0], end)
        calls += scan.take([TextCall(m.group(1), arguments, "mistral", how, span, repaired)])
    return calls
