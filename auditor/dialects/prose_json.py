"""JSON calls written in prose or in JSON fences: `{"name", "arguments"}`, `{"function": {…}}`,
flat `{"tool": NAME, …}`, `{"action", "action_input"}`, and arrays of those.

Read last, outside every span the other dialects took. Inline code and fences of another
language are quotations; a fence that says JSON (or nothing) is a dialect.
"""

from __future__ import annotations

import bisect

from auditor.dialects._reading import TextCall
from auditor.dialects._scan import MAX_CANDIDATES, TextScanner, json_fence
from auditor.patterns import lazy

_JSON_START = lazy(r"""[\[{]\s*+["'{\[]""")


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
        calls += found
    return calls
