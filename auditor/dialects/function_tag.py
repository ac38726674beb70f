"""Llama `<function=NAME>{json}</function>` and Qwen XML `<function=NAME><parameter=ARG>…`.

Inside a `<tool_call>` block the tag is Qwen3-Coder's XML dialect, outside it Llama's. The
arguments are the JSON after the tag or, with none, the `<parameter=…>` pairs.
"""

from __future__ import annotations

import re

from auditor.dialects._reading import Block, TextCall
from auditor.dialects._scan import MAX_BLOCKS, Scan, positions, valid_name

LLAMA = "the Llama `<function=…>` dialect"
_FUNCTION_TAG = re.compile(r"<function=([^>\s]{1,64})>")
_PARAMETER_TAG = re.compile(r"<parameter=([^>\s]{1,64})>")


def calls(scan: Scan, tags: list[Block]) -> list[TextCall]:
    """Llama `<function=NAME>{json}</function>`, Qwen XML `<function=NAME><parameter=…>`."""
    text = scan.text
    opens = list(_FUNCTION_TAG.finditer(text))[:MAX_BLOCKS]
    closes = positions(text, "</function>")
    calls = []
    k = 0
    for i, m in enumerate(opens):
        start = m.start()
        nxt = opens[i + 1].start() if i + 1 < len(opens) else len(text)
        while k < len(closes) and closes[k] < start:
            k += 1
        closed = k < len(closes) and closes[k] < nxt
        body_end = closes[k] if closed else nxt
        end = body_end + len("</function>") if closed else nxt
        if not scan.unquoted(start) or not valid_name(m.group(1), scan.names):
            continue
        in_tag = any(t.span[0] <= start < t.span[1] for t in tags)
        how = "the Qwen `<tool_call><function=…>` dialect" if in_tag else LLAMA
        value_at = scan.value_start(m.end(), body_end)
        if value_at is None:
            arguments, repaired = _parameters(text[m.end() : body_end]), False
        else:
            arguments, repaired, _ = scan.arguments_at(value_at, body_end)
        call = TextCall(m.group(1), arguments, "function-tag", how, (start, end), repaired)
        calls.append(call)
    return scan.take(calls)


def _parameters(body: str) -> dict[str, str]:
    """Qwen XML parameters: `<parameter=city>\nParis\n</parameter>`."""
    out: dict[str, str] = {}
    opens = list(_PARAMETER_TAG.finditer(body))[:MAX_BLOCKS]
    closes = positions(body, "</parameter>")
    k = 0
    for i, m in enumerate(opens):
        nxt = opens[i + 1].start() if i + 1 < len(opens) else len(body)
        while k < len(closes) and closes[k] < m.end():
            k += 1
        end = closes[k] if k < len(closes) and closes[k] < nxt else nxt
        out[m.group(1)] = body[m.end() : end].strip("\n")
    return out
