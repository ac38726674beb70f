"""JSON calls written in prose or in JSON fences: `{"name", "arguments"}`, `{"function": {…}}`,
flat `{"tool": NAME, …}`, `{"action", "action_input"}`, and arrays of those.

Read last, outside every span the other dialects took. Inline code and fences of another
language are quotations; a fence that says JSON (or nothing) is a dialect. JSON that the words
before it in its paragraph present as an example or a format ("for example", "the request
looks like", "the payload is in this format:") is an explanation of an API, not a call.
"""

from __future__ import annotations

import bisect
import re

from auditor.dialects._reading import TextCall
from auditor.dialects._scan import MAX_CANDIDATES, TextScanner, json_fence
from auditor.patterns import lazy

_JSON_START = lazy(r"""[\[{]\s*+["'{\[]""")
_EXPLAINS = lazy(
    r"\b(?:for example|for instance|e\.g\.|examples?|like this|looks? like|such as|formats?"
    r"|formatted|schema|payload|request body|syntax|structure|would look|should look"
    r"|you (?:can|could|would|should) (?:send|call|use|write|pass))\b",
    re.I,
)
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
        found, resume = scan.json_calls(start, len(scan.text), False, None, "json")
        if found and _explained(scan.text, start):
            continue
        calls += found
    return calls


def _explained(text: str, start: int) -> bool:
    """The words before the JSON in its paragraph present it as an example or a format."""
    since = max(start - _LOOK_BACK, text.rfind("\n\n", 0, start) + 1, 0)
    return _EXPLAINS.search(text, since, start) is not None
