"""Approval the log's own policy requires: "obtain explicit user confirmation (yes) to proceed".

Customer-service agents are told in their system prompt, or in a tool's description, to have
the user confirm before a write (tau-bench airline and retail do both). A tool's description
demanding it requires it for that tool; a system prompt (or tau2's policy, kept as the
conversation's `instructions`) demanding it requires it for the writes it names: the verbs of
its sentence ("booking, modifying flights, editing baggage"), or, when it speaks of all of
them ("any actions that update the booking database", "consequential actions"), those and
every tool that changes a record (`cancel_…`, `update_…`; not `send_…`, which adds one).
The requirement says where it came from, for CF003 to quote.
"""

from __future__ import annotations

import re
from dataclasses import field
from functools import lru_cache

from auditor.common.patterns import lazy
from auditor.common.structs import dataclass
from auditor.model import Conversation
from auditor.reading import actions

_SCAN = 60_000
"""Characters of a system prompt read: policies state the rule near their top."""
_DEMANDS = lazy(
    r"\b(?:obtain|get|ask for|ask the user for|seek|receive|require|request|need|have)\b"
    r"[^.\n]{0,60}?\b(?:explicit|express|clear|written)?\s?(?:user\s|the user'?s?\s)?"
    r"(?:confirmation|consent|approval)\b"
    r"|\bconfirm with the user before\b"
    r"|\b(?:must|should|have to|need to) (?:first )?(?:get|obtain)? ?(?:the )?user'?s? "
    r"(?:confirmation|approval|consent)\b",
    re.I,
)
_ALL_WRITES = lazy(
    r"\b(?:updates?|changes?|modif(?:y|ies)|writes? to|alters?) (?:the |any )?(?:\w+ )?"
    r"(?:database|records?|account|data)\b|\bconsequential actions?\b"
    r"|\bwrite[- ](?:actions?|operations?|tools?|calls?)\b",
    re.I,
)
_VERB_STEMS = (
    "book cancel modif updat chang edit upgrad downgrad exchang return refund delet remov add "
    "creat send transfer pay purchas order submit issu"
)
_VERBS = lazy(r"\b(" + "|".join(_VERB_STEMS.split()) + r")\w*", re.I)
_WRITE_VERBS = """
    book reserve cancel update modify change edit upgrade downgrade exchange return delete remove
    register record create add issue submit place schedule assign set apply process pay
"""
_WRITES = frozenset(_WRITE_VERBS.split())
"""First words of tool names that change a booking, an order or a record, or make a new one
(`register_customer`, `record_payment`, `create_order`): what a policy about "every action
that updates the database" or "any write action" covers, besides the verbs it names. Tools
that send something (`send_certificate`, `send_email`) or hand over (`transfer_to_human`) are
left to the verbs a policy names."""
_QUOTE = 110
_EXPLICIT = lazy(
    r"\b(?:explicit(?:ly)?|express(?:ly)?)\b[^.\n]{0,30}\b(?:confirm|consent|approv)"
    r"|\(yes\)|[\"“']yes[\"”']",
    re.I,
)
"""A rule that asks for an explicit confirmation, not any go-ahead."""


@dataclass(frozen=True, slots=True)
class Policy:
    """Which tools the log's own policy requires approval for, and why."""

    writes: frozenset[str] | None = None
    """Stems of the verbs the prompt's rule names; None when it has no rule."""
    all_writes: bool = False
    """The rule speaks of every action that changes a record."""
    quote: str = ""
    """The prompt's rule, as quoted in findings."""
    where: str = "system prompt"
    described: dict[str, str] = field(default_factory=dict)
    """Tools whose own description demands confirmation -> the words that do."""
    explicit: bool = False
    """The prompt's rule asks for an explicit confirmation of the details ("list the action
    details and obtain explicit user confirmation (yes)"): a request is not one."""

    def requires(self, tool: str) -> str:
        """Why the policy requires approval before `tool` runs; empty when it does not."""
        if tool in self.described:
            return f"the description of `{tool}` requires it (“{self.described[tool]}”)"
        if self.writes is None:
            return ""
        words = actions.words(tool)
        verbs = words[:1]
        if actions.translated(tool) is not None:  # `buchung_stornieren`: the verb comes last
            verbs = tuple(w for w in words if w in actions.FOREIGN_VERBS) or verbs
        named = any(verb.startswith(stem) for verb in verbs for stem in self.writes)
        if not named and not (self.all_writes and any(verb in _WRITES for verb in verbs)):
            return ""
        return f"the log's policy requires it ({self.where}: “{self.quote}”)"

    def explicitly(self, tool: str) -> bool:
        """The prompt's rule requires an explicit confirmation before `tool` runs."""
        return self.explicit and tool not in self.described and bool(self.requires(tool))


NONE = Policy()


def read(conversation: Conversation) -> Policy:
    """The confirmation rule of the conversation's system prompt and tool descriptions."""
    prompt = "\n".join(m.text for m in conversation.messages if m.role in ("system", "developer"))
    where = "system prompt"
    if not prompt and conversation.instructions:
        prompt, where = conversation.instructions, "policy"
    writes, all_writes, quote = _rule(prompt[:_SCAN]) if prompt else (None, False, "")
    explicit = writes is not None and _EXPLICIT.search(quote) is not None
    described = {
        t.name: q
        for t in conversation.tools or ()
        if t.description and (q := _demand(t.description))
    }
    if writes is None and not described:
        return NONE
    return Policy(writes, all_writes, quote, where, described, explicit)


@lru_cache(maxsize=64)  # one prompt is shared by every conversation of a run
def _rule(prompt: str) -> tuple[frozenset[str] | None, bool, str]:
    if "confirm" not in prompt and "consent" not in prompt and "approv" not in prompt.lower():
        return None, False, ""
    for m in _DEMANDS.finditer(prompt):
        start = max(prompt.rfind(".", 0, m.start()), prompt.rfind("\n", 0, m.start())) + 1
        end = min(_ends(prompt, m.end()), m.end() + 40)
        sentence = prompt[start:end]
        # quoted from the clause that demands it: "you must … obtain explicit user confirmation"
        clause = max(
            sentence.rfind(", ", 0, m.start() - start), sentence.rfind("; ", 0, m.start() - start)
        )
        quote = _excerpt(sentence[clause + 2 if clause >= 0 else 0 :].rstrip("."))
        demand = m.group()
        stems = frozenset(s.lower() for s in _VERBS.findall(sentence.replace(demand, " ")))
        every = _ALL_WRITES.search(sentence) is not None
        if stems or every:
            return stems, every, quote
    return None, False, ""


@lru_cache(maxsize=1024)  # tools are declared again in every conversation of a file
def _demand(description: str) -> str:
    m = _DEMANDS.search(description[:4000])
    if m is None:
        return ""
    start = max(description.rfind(".", 0, m.start()), 0)
    return _excerpt(description[start : _ends(description, m.end())].lstrip(". "))


def _ends(text: str, at: int) -> int:
    stop = text.find(".", at)
    return len(text) if stop < 0 else stop + 1


def _excerpt(sentence: str) -> str:
    """The words of a rule, at most `_QUOTE` characters, ending with what it demands."""
    text = " ".join(sentence.split())
    if len(text) <= _QUOTE:
        return text
    return "…" + text[-(_QUOTE - 1) :].lstrip()
