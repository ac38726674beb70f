"""Llama `<function=NAME>{json}</function>` and Qwen XML `<function=NAME><parameter=ARG>…`.

Inside a `<tool_call>` block the tag is Qwen3-Coder's XML dialect, outside it Llama's. The
arguments are the JSON after the tag or, with none, the `<parameter=…>` pairs.

Qwen3-Coder sometimes mangles the opening tag while the rest stands: `<name>task`,
`<function>task`, `function=task>` without its `<`, or `<parameter=task>` in place of
`<function=task>`, followed by `<parameter=…>` pairs and `</function>`. Such a block, a
`</function>` that closes no `<function=…>` with parameters before it, is read as a call when
its mangled opener names a tool.
"""

from __future__ import annotations

from auditor.common.patterns import lazy
from auditor.dialects._reading import Block, TextCall
from auditor.dialects._scan import MAX_BLOCKS, TextScanner, positions, valid_name

LLAMA = "the Llama `<function=…>` dialect"
_FUNCTION_TAG = lazy(r"<function=([^>\s]{1,64})>")
_PARAMETER_TAG = lazy(r"<parameter=([^>\s]{1,64})>")
_MANGLED = lazy(
    r"<(?:name|function|tool|tool_name)>\s*+([A-Za-z_][\w.\-]{0,63})"
    r"|<function[\s:]++([A-Za-z_][\w.\-]{0,63})\s*+>"
    r"|(?<![<\w])function=([A-Za-z_][\w.\-]{0,63})>"
)
QWEN_BARE = "the Qwen3-Coder `<function=…><parameter=…>` dialect, without its `<tool_call>`"
QWEN = "the Qwen3-Coder `<function=…><parameter=…>` dialect, with a mangled opening tag"


def calls(scan: TextScanner, tags: list[Block]) -> list[TextCall]:
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
            if not in_tag and arguments:
                how = QWEN_BARE  # Qwen3-Coder dropped its `<tool_call>` opener
        else:
            arguments, repaired, _ = scan.arguments_at(value_at, body_end)
        call = TextCall(m.group(1), arguments, "function-tag", how, (start, end), repaired)
        calls.append(call)
    return scan.take(calls) + _mangled(scan, calls, closes)


def _mangled(scan: TextScanner, read: list[TextCall], closes: list[int]) -> list[TextCall]:
    """Qwen XML blocks whose `<function=…>` opener is mangled but whose parameters stand."""
    text = scan.text
    if "<parameter=" not in text:
        return []
    taken = [c.span for c in read]
    calls = []
    block_start = 0
    for close in closes[:MAX_BLOCKS]:
        start, block_start = block_start, close + len("</function>")
        if any(s <= close < e for s, e in taken) or not scan.unquoted(close):
            continue
        opener = text.rfind("<tool_call>", start, close)
        start = max(start, opener + len("<tool_call>") if opener >= 0 else 0, close - 20_000)
        params = list(_PARAMETER_TAG.finditer(text, start, close))
        if not params:
            continue
        header = _MANGLED.search(text, start, params[0].start())
        if header is not None:
            name = next(g for g in header.groups() if g is not None)
            at = header.start()
        elif len(params) > 1 and not text[params[0].end() : params[1].start()].strip():
            name, at = params[0].group(1), params[0].start()  # `<parameter=NAME>` as opener
            params = params[1:]
        else:
            continue
        if not valid_name(name, scan.names):
            continue
        arguments = _parameters(text[params[0].start() : close])
        end = close + len("</function>")
        calls.append(TextCall(name, arguments, "function-tag", QWEN, (at, end)))
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
