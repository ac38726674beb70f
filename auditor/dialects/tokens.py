"""Chat-template control tokens: `<|channel|>`, `<|im_end|>`, `[TOOL_CALLS]`, `<start_of_turn>`, …

Each is marked quoted when it sits inside a backtick code span or fence: quoted while
explaining, not leaked. Harmony, Mistral and `<|python_tag|>` read their calls from these.
"""

from __future__ import annotations

import itertools
import re

from auditor.dialects._reading import Token
from auditor.dialects._scan import MAX_MARKS, Scan

_TOKEN = re.compile(
    r"<\|[a-z][a-z0-9_]{0,40}\|>"
    r"|\[(?:TOOL_CALLS|/?INST|/?TOOL_RESULTS|/?AVAILABLE_TOOLS|ARGS|CALL_ID)\]"
    r"|<｜[^｜\n]{1,40}｜>"
    r"|<(?:start|end)_of_turn>"
)


def tokens(scan: Scan) -> tuple[Token, ...]:
    """Every control token in the text, in order, at most MAX_MARKS."""
    return tuple(
        Token(m.group(), m.span(), scan.code.at(m.start()) is not None)
        for m in itertools.islice(_TOKEN.finditer(scan.text), MAX_MARKS)
    )
