"""Chat-template control tokens: `<|channel|>`, `<|im_end|>`, `[TOOL_CALLS]`, `<start_of_turn>`, …

Each is marked quoted when it sits inside a backtick code span or fence: quoted while
explaining, not leaked. Harmony, Mistral, `<|python_tag|>` and Kimi read their calls from these.

Besides the `<|name|>` tokens: Mistral's bracketed ones, DeepSeek's `<｜…｜>`, Gemma's plain
`<start_of_turn>`, `<end_of_turn>`, `<eos>`, `<bos>`, and the channel words of a gpt-oss
answer whose harmony tokens were stripped but whose words stayed glued to the text: an answer
that starts `analysisThe user asks…`, or `assistantfinal`, `assistantanalysis`,
`assistantcommentary` joined to what follows (`…assistantfinalHello!`).
"""

from __future__ import annotations

import itertools

from auditor.common.patterns import lazy
from auditor.dialects._reading import Token
from auditor.dialects._scan import MAX_MARKS, TextScanner

_TOKEN = lazy(
    r"<\|[a-z][a-z0-9_]{0,40}\|>"
    r"|\[(?:TOOL_CALLS|/?INST|/?TOOL_RESULTS|/?AVAILABLE_TOOLS|ARGS|CALL_ID)\]"
    r"|<｜[^｜\n]{1,40}｜>"
    r"|<(?:start|end)_of_turn>|<(?:eos|bos)>"
)
_GLUED = lazy(
    r"assistant(?:final|analysis|commentary)"
    r"|\Aanalysis(?=(?:The|We|User|I|Let|Need|Okay|Ok|So|Now|This|They|It|Here|First|Sure"
    r"|Alright|Given|To|In|Based|Our|My)\b)"
)
"""gpt-oss channel words left glued to the text once its harmony tokens were stripped: the
answer starts `analysisThe user asks…` (a sentence glued to the channel name), or holds
`assistantfinal…`."""


def tokens(scan: TextScanner) -> tuple[Token, ...]:
    """Every control token in the text, in order, at most MAX_MARKS."""
    found = [
        Token(m.group(), m.span(), scan.code.at(m.start()) is not None)
        for m in itertools.islice(_TOKEN.finditer(scan.text), MAX_MARKS)
    ]
    if "analysis" in scan.text or "assistant" in scan.text:
        glued = itertools.islice(_GLUED.finditer(scan.text), MAX_MARKS)
        found += [Token(m.group(), m.span(), scan.code.at(m.start()) is not None) for m in glued]
        found.sort(key=lambda t: t.span)
    return tuple(found)
