"""Llama `<|python_tag|>{"name": …, "parameters": …}` or `<|python_tag|>NAME.call(k="v")`."""

from __future__ import annotations

from dataclasses import replace

from auditor.common.patterns import lazy
from auditor.dialects._reading import TextCall, Token
from auditor.dialects._scan import MAX_BLOCKS, MAX_REPAIR, TextScanner, valid_name

_PYTHON_CALL = lazy(r"\s*+([A-Za-z_]\w{0,63})\.call\(")
_KWARG = lazy(r"""(\w{1,64})\s*+=\s*+(?:"([^"]{0,2000})"|'([^']{0,2000})'|([\w.\-]{1,100}))""")
_ENDS = ("<|eom_id|>", "<|eot_id|>")


def calls(scan: TextScanner, tokens: tuple[Token, ...]) -> list[TextCall]:
    """`<|python_tag|>{"name": …, "parameters": …}` or `<|python_tag|>NAME.call(k="v")`."""
    text = scan.text
    marks = [t for t in tokens if not t.quoted]
    how = "the Llama `<|python_tag|>` dialect"
    calls: list[TextCall] = []
    tags = [i for i, t in enumerate(marks) if t.text == "<|python_tag|>"][:MAX_BLOCKS]
    for i in tags:
        token = marks[i]
        nxt = marks[i + 1] if i + 1 < len(marks) else None
        stop = nxt.span[0] if nxt is not None else len(text)
        end = nxt.span[1] if nxt is not None and nxt.text in _ENDS else stop
        value_at = scan.value_start(token.span[1], stop)
        if value_at is not None:
            found, _ = scan.json_calls(value_at, stop, True, how, "python-tag")
            calls += scan.take(replace(c, span=(token.span[0], end)) for c in found)
            continue
        m = _PYTHON_CALL.match(text, token.span[1], stop)
        if m is None or not valid_name(m.group(1), scan.names):
            continue
        arguments = {
            k.group(1): next(g for g in k.groups()[1:] if g is not None)
            for k in _KWARG.finditer(text, m.end(), min(stop, m.end() + MAX_REPAIR))
        }
        span = (token.span[0], end)
        calls += scan.take([TextCall(m.group(1), arguments, "python-tag", how, span)])
    return calls
