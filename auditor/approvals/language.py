"""Approvals in plain language (tau-bench): proposals, decisions and the calls they cover.

A *proposal* is an assistant message that asks the user to approve what it describes; a
*decision* is the user's answer to it (yes, no, or neither); the decision *covers* the calls of
gated tools that follow, until the user speaks again after one of them ran.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from auditor.approvals.drafts import Calls, Draft
from auditor.approvals.options import ApprovalOptions
from auditor.model import Message

if TYPE_CHECKING:
    from auditor.replay import Exchange

# Without `require_approval`, the tools whose calls a natural-language confirmation approves.
_MUTATING = re.compile(
    r"(?:book|cancel|update|modify|change|delete|remove|create|send|pay|refund|purchase|buy"
    r"|order|submit|charge|issue|upgrade|downgrade|edit)(?:_|$)",
    re.I,
)
# An assistant message asking the user to approve what it just described.
_ASKS = re.compile(
    r"\b(?:please|kindly|can you|could you|would you|do you|to) (?:please )?confirm\b"
    r"|\b(?:would|do) you (?:like|want|wish) (?:me |us )?to\b"
    r"|\bif you(?:'d| would)? (?:like|want|wish) (?:me |us )?to (?:proceed|go ahead|continue)\b"
    r"|\b(?:shall|should) (?:I|we)\b[^.?!\n]{0,80}\?"
    r"|\b(?:may|can) (?:I|we) (?:proceed|go ahead|continue)\b"
    r"|\b(?:reply|respond|answer|say|saying|type)\b[^.?!\n]{0,24}\byes\b"
    r"|\byes ?(?:/|or) ?no\b"
    r"|\b(?:is|does) (?:this|that|everything|all of this) (?:look )?(?:correct|right|ok|okay)\?"
    r"|\bsound good\?",
    re.I,
)
# The user's reply: a yes at the start of a sentence or clause, or a no at its very start.
_YES = re.compile(
    r"(?:^|[.!?,;:\n])\W{0,8}(?:yes|yeah|yep|yup|sure|ok|okay|oui|s[ií]|correct|confirmed|confirming"
    r"|i confirm|i approve|approved|absolutely|definitely|of course|go ahead|please go ahead"
    r"|please proceed|please do|proceed|sounds good|looks good|that'?s (?:correct|right|fine"
    r"|perfect|acceptable)|that (?:all )?(?:looks|sounds|works)|everything (?:looks|is|sounds)"
    r"|let'?s (?:go ahead|proceed|do it))\b",
    re.I,
)
_NO = re.compile(
    r"\W*(?:no|nope|nah|non|don'?t|do not|not yet|never ?mind|cancel (?:that|it)|stop|wait"
    r"|hold (?:on|off))\b",
    re.I,
)
# Simulated users thank, comment and restate before the yes: look past the first sentences.
_REPLY_SCAN = 1200
# A plain refusal says little more than no ("No, keep it.", "No, I changed my mind."); a reply
# that asks for something else is an answer, not a denial of what runs next.
_PLAIN_NO_WORDS = 4
_ELSE = re.compile(r"\b(?:instead|rather|but|use|other|another|try|only|just)\b|\d", re.I)


def verdict(reply: str) -> bool | None:
    """A user's reply to a request for approval: True yes, False no, None neither (or both).

    A no counts only when it is all the reply says ("No.", "No, keep it."): "No, use the other
    card" asks for another action, and what runs next may be exactly that.
    """
    head = reply[:_REPLY_SCAN]
    if _YES.search(head) is not None:
        return None if _NO.match(head) else True
    no = _NO.match(head)
    if no is None:
        return None
    rest = head[no.end() :]
    plain = len(rest.split()) <= _PLAIN_NO_WORDS and _ELSE.search(rest) is None
    return False if plain else None


def asks_to_confirm(text: str) -> bool:
    """An assistant message that asks the user to approve what it describes."""
    return _ASKS.search(text) is not None


class _Decision:
    """The user's answer to a proposal, until the calls it covers ran."""

    __slots__ = ("question", "reply", "said", "text", "used")

    def __init__(self, question: int, reply: int, said: bool | None) -> None:
        self.question = question
        self.reply = reply
        self.said = said
        self.used = False
        self.text = ""


def pair(calls: Calls, options: ApprovalOptions) -> None:
    """Add a draft for every gated call of the assistant to `calls.drafts`: approved by a
    decision in plain language, or (`policy`) required by `require_approval` and not."""
    if not any(e.caller == "assistant" and _gated(e, options) for e in calls.exchanges):
        return  # nothing a confirmation could approve: spare the reading of every message
    proposal: int | None = None  # the assistant's question waiting for the user's answer
    decision: _Decision | None = None
    for m in calls.messages:
        if m.role == "user" and m.text.strip():
            decision = _decide(m, proposal, decision)
            proposal = None
        elif m.role == "assistant":
            if m.text.strip() and not m.tool_calls:
                proposal = m.index if asks_to_confirm(m.text) else None
            for e in calls.at.get(m.index, ()):
                if e.caller == "assistant" and id(e) not in calls.linked and _gated(e, options):
                    _cover(calls, options, decision, e)


def _decide(m: Message, proposal: int | None, decision: _Decision | None) -> _Decision | None:
    """The decision in force after the user's message `m`."""
    if decision is not None and (decision.used or (decision.said is False and proposal is None)):
        decision = None  # it covered the calls before this; a no, only the next answer
    if proposal is None:
        return decision
    said = verdict(m.text)
    # A reply that is neither yes nor no does not undo an earlier yes.
    if said is not None or decision is None or decision.said is not True:
        return _Decision(proposal, m.index, said)
    return decision


def _cover(calls: Calls, options: ApprovalOptions, decision: _Decision | None, e: Exchange) -> None:
    """Account for a gated call: covered by the decision in force, else required and not."""
    calls.linked.add(id(e))
    if decision is not None:
        calls.drafts.append(_covered(calls, decision, e))
    elif options.requires(e.call.name):
        calls.drafts.append(Draft("policy", e.call.name, e.turn, execution=e))


def _gated(e: Exchange, options: ApprovalOptions) -> bool:
    if options.require_approval:
        return options.requires(e.call.name)
    return _MUTATING.match(e.call.name) is not None


def _covered(calls: Calls, decision: _Decision, e: Exchange) -> Draft:
    if not decision.used:
        # What the user confirmed ends where the first call it approved begins: what the
        # assistant says between later calls reports on earlier ones.
        decision.used = True
        decision.text = "\n".join(
            m.text
            for m in calls.messages[decision.question : e.turn]
            if m.role in ("assistant", "user")
        )
    return Draft(
        "natural-language",
        e.call.name,
        decision.question,
        approved=decision.said,
        decided_at=decision.reply,
        execution=e,
        text=decision.text,
    )
