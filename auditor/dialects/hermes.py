"""Hermes/Qwen `<tool_call>{"name": …, "arguments": …}</tool_call>`.

A block whose `<function=…>` tag was read already (Qwen XML, `function_tag`) is only marked as
read here.
"""

from __future__ import annotations

from dataclasses import replace

from auditor.dialects._reading import Block, TextCall
from auditor.dialects._scan import MAX_BLOCKS, TextScanner


def calls(scan: TextScanner, tags: list[Block], tagged: list[TextCall]) -> list[TextCall]:
    """The calls in each `<tool_call>` block that holds JSON; `tagged` are Qwen XML calls."""
    calls: list[TextCall] = []
    how = "the Hermes/Qwen `<tool_call>` dialect"
    for block in tags[:MAX_BLOCKS]:
        start, end = block.span
        if any(start <= c.span[0] < end for c in tagged):
            scan.taken.append(block.span)  # Qwen XML: its `<function=…>` was read already
            continue
        body_at = start + len("<tool_call>")
        body_end = body_at + len(block.body)
        value_at = scan.value_start(body_at, body_end)
        if value_at is None:
            continue
        found, _ = scan.json_calls(value_at, body_end, True, how, "hermes")
        calls += scan.take((replace(c, span=block.span) for c in found), block.span)
    return calls
