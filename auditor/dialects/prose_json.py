"""JSON calls written in prose or in JSON fences: a name under `name`, `tool`, `tool_name`,
`action` or `function` with its arguments under `arguments`, `parameters`, `params`, `args`,
`input`, `tool_input` or `action_input` (`{"action": "get_x", "parameters": {…}}`),
`{"function": {…}}`, flat objects (`{"tool": NAME, "city": …}`), and arrays of those.

Read last, outside every span the other dialects took. Inline code and fences of another
language are quotations; a fence that says JSON (or nothing) is a dialect. JSON that the words
before it in its paragraph present as an example or a format ("for example", "the request
looks like", "the payload is in this format:") is an explanation of an API, not a call.

Where tools are declared a name must be one of them. Where none are, a name needs its
arguments as an object beside it; a flat object (`{"action": "consultar_datos_cliente",
"cliente_id": "C001"}`, in any language) counts only when it stands alone, as the whole answer
or as the whole of its JSON fence, not in an array; its name key comes first and names a
function (words joined as `snake_case` or `camelCase`, not a word or a phrase); every key is an
identifier; and the instructions (system prompt, tau2 policy, the user's opening turn) do not
quote that name key as JSON: there it is an answer format the harness asked for (`{"action":
"final_answer", …}`), not a call. Its conversation decides the rest (`read_turns`): none where
the agent makes structured calls (a coding agent's payload, data), and none whose action name a
user turn or tool result before it wrote (a record shown back).
"""

from __future__ import annotations

import bisect
import re
from typing import Any

import orjson

from auditor.common.patterns import lazy
from auditor.dialects._reading import TextCall, TextSpan
from auditor.dialects._scan import MAX_CANDIDATES, NAME_KEYS, TextScanner, json_fence

_JSON_START = lazy(r"""[\[{]\s*+["'{\[]""")
_EXPLAINS = lazy(
    r"\b(?:for example|for instance|e\.g\.|examples?|like this|looks? like|such as|formats?"
    r"|formatted|schema|payload|request body|syntax|structure|would look|should look"
    r"|you (?:can|could|would|should) (?:send|call|use|write|pass))\b",
    re.I,
)
_OBJECT_START = lazy(r"""\{\s*+["']""")
_LOOK_BACK = 200
"""Characters before a JSON value read for words that present it as an example."""


def calls(scan: TextScanner) -> list[TextCall]:
    """JSON calls written in prose or in JSON fences, outside everything read so far."""
    taken = sorted(scan.taken)
    starts = [s for s, _ in taken]
    calls: list[TextCall] = []
    resume = 0
    for count, m in enumerate(_JSON_START.finditer(scan.text)):
        if count >= MAX_CANDIDATES or scan.scan_budget <= 0:
            break
        start = m.start()
        if start < resume:
            continue
        k = bisect.bisect_right(starts, start) - 1
        if k >= 0 and start < taken[k][1]:
            resume = taken[k][1]
            continue
        code = scan.code.at(start)
        if code is not None and not json_fence(code[2]):
            resume = code[1]  # inline code, or a fence of another language
            continue
        loose = _loose(scan, start, code)
        found, resume = scan.json_calls(start, len(scan.text), False, None, "json", loose)
        if found and _explained(scan.text, start):
            continue
        calls += found
    return calls


def records(text: str) -> list[tuple[TextSpan, dict[str, Any]]]:
    """The JSON objects written in `text`, each whole (not one inside another), outside inline
    code and fences of another language, that the words before them do not present as an
    example: what a model shows as data, or writes as a tool's answer."""
    scan = TextScanner(text, None)
    found: list[tuple[TextSpan, dict[str, Any]]] = []
    resume = 0
    for count, m in enumerate(_OBJECT_START.finditer(text)):
        if count >= MAX_CANDIDATES or scan.scan_budget <= 0:
            break
        start = m.start()
        if start < resume:
            continue
        code = scan.code.at(start)
        if code is not None and not json_fence(code[2]):
            resume = code[1]
            continue
        end = scan.json_end(start, len(text))
        if end is None:
            break
        resume = end
        try:
            value = orjson.loads(text[start:end])
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict) and not _explained(text, start):
            found.append(((start, end), value))
    return found


def _loose(
    scan: TextScanner, start: int, code: tuple[int, int, str | None] | None
) -> frozenset[str]:
    """The name keys whose flat object at `start` counts as a call though no tools are
    declared: none unless the object stands alone (the whole answer, or the whole fence)."""
    if scan.names is not None:
        return frozenset()
    text = scan.text
    if code is None:
        since, after_stop = 0, len(text)
    else:
        since = text.find("\n", code[0], start)
        if since < 0:
            return frozenset()
        after_stop = code[1] - len(_ticks(text, code[1]))
    if not _blank(text, since, start):
        return frozenset()
    end = scan.json_end(start, after_stop)
    if end is None or not _blank(text, end, after_stop):
        return frozenset()
    return frozenset(NAME_KEYS) - scan.asked


def _blank(text: str, start: int, stop: int) -> bool:
    """Only white space between `start` and `stop` (read in place, not copied)."""
    found = _SPACE.match(text, start, stop)
    return found is not None and found.end() == stop


_SPACE = lazy(r"\s*+")


def _ticks(text: str, end: int) -> str:
    """The run of backticks that ends at `end`."""
    i = end
    while i > 0 and text[i - 1] == "`":
        i -= 1
    return text[i:end]


def _explained(text: str, start: int) -> bool:
    """The words before the JSON in its paragraph present it as an example or a format."""
    since = max(start - _LOOK_BACK, text.rfind("\n\n", 0, start) + 1, 0)
    return _EXPLAINS.search(text, since, start) is not None
