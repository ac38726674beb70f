"""Calls the log's own policy requires again and again: "before each change, check the line".

A domain's policy (the system prompt, or tau2's `instructions`) may tell the agent to look
something up before (or after) each action: the same lookup, repeated with the same answer,
is then the policy followed, not a loop. A tool is required so when a sentence of the policy
that speaks of each time (`before each`, `after every`, `prior to any`, `each time`, `every
time`) names it: by its name (`get_line_status`), or, for a tool that only reads, by every word
of its name but the verb ("check the line status" names `get_line_status`). A sentence that says
`always` with a condition names it by its name only: "Always use `get_hotel_info` when the user
asks about breakfast" asks for the lookup at every such question.
"""

from __future__ import annotations

import re
from functools import lru_cache

from auditor.common.patterns import lazy
from auditor.model import Conversation
from auditor.reading.actions import names, words
from auditor.rules._toolnames import READ_VERBS, reads_only

_SCAN = 60_000
"""Characters of a policy read."""
_EACH = lazy(
    r"\b(?:before|prior to|after|following|ahead of)\s+(?:each|every|any)\b"
    r"|\b(?:each|every)\s+time\b",
    re.I,
)
_ALWAYS_WHEN = lazy(
    r"\balways\b[^.!?\n]{0,300}?\b(?:when|whenever|if)\b"
    r"|\b(?:when|whenever|if)\b[^.!?\n]{0,300}?\balways\b",
    re.I,
)
_SENTENCE = lazy(r"[^.!?\n]{1,600}")
_WORD = lazy(r"[a-z]{3,}")


def required_each_time(conversation: Conversation, tool: str) -> bool:
    """The conversation's policy asks for `tool` before or after each action."""
    told = [m.text for m in conversation.messages if m.role in ("system", "developer")]
    prompt = "\n".join([*told, conversation.instructions]).strip()
    if not prompt:
        return False
    return _required(prompt[:_SCAN], tool)


@lru_cache(maxsize=256)  # one policy and a handful of tools per run
def _required(prompt: str, tool: str) -> bool:
    if _EACH.search(prompt) is None and _ALWAYS_WHEN.search(prompt) is None:
        return False
    lowered = tool.lower()
    parts = [w for w in words(tool) if w not in READ_VERBS]
    for sentence in _SENTENCE.findall(prompt):
        each = _EACH.search(sentence) is not None
        if not each and _ALWAYS_WHEN.search(sentence) is None:
            continue
        text = sentence.lower()
        if lowered in text:
            return True
        if not each:
            continue  # "always … when": only the tool's own name is clear enough
        said = _WORD.findall(text.replace("_", " "))
        if reads_only(tool) and parts and all(names(p, said) for p in parts):
            return True
    return False
