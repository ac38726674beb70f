"""Completion claims in assistant text: "has been cancelled", "I've sent", "have been added".

FB003 asks whether a claimed action ran; this module only finds the claims and what they are
about, skipping negated, conditional, questioned and earlier-state ones. Every pattern is
bounded so that hostile text stays linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from auditor.actions import ACTIONS, PARTICIPLES
from auditor.patterns import lazy

_ADVERB = r"(?:(?:now|just|also|all|both|successfully|fully|finally)\s+)*"
_CLAIM = lazy(
    r"\b(?:(?P<passive>ha(?:s|ve)\s+"
    + _ADVERB
    + r"been)|(?:I|we)(?:'ve|’ve|\s+have))\s+"
    + _ADVERB
    + r"(?P<word>[a-z]+)\b",
    re.IGNORECASE,
)
# Words before a claim in its sentence that make it conditional, negated, hypothetical or a
# reason given for something else.
_HEDGE = lazy(
    r"\b(?:if|once|when|whenever|after|before|until|unless|whether|since|because|as soon as"
    r"|would|could|should|might|(?-i:may)|must|will|can|cannot|not|no|never|nothing|none)\b|n[’']t\b",
    re.IGNORECASE,
)
_SENTENCE_END = lazy(r"[.!?](?=\s|$)|\n")
"""A full stop that ends a sentence, not the one in `$2.00` or `e.g`."""
_MOST_CLAIMS = 50
"""Claims read per message: no reply to a user makes more, and the cap keeps a hostile message
from costing more than a normal one."""
_REACH = 400
"""How far around a claim its sentence is read."""
_CLAUSE = lazy(r"[,;:()]|\band\b|\bbut\b", re.IGNORECASE)
WORD = lazy(r"[a-z]{3,}")
_ID = lazy(r"\S*\d\S*|\b[A-Z0-9]{4,}\b")
"""Ids and codes (`4XGCCM`, `HAT271`) say which one, not what kind of thing was acted on."""
_VAGUE = frozenset(("the", "your", "our", "their", "its", "this", "that", "these", "those", "all"))
"""Words that say nothing about what was acted on: `it has been sent` matches by verb alone."""
_SAME = {"booking": "reservation", "bookings": "reservations", "mail": "email"}
_DONE = frozenset(
    ("processed", "completed", "made", "finalized", "finalised", "initiated", "placed", "executed")
)
"""Participles that say an action is done without naming it: "the cancellation has been
processed", "your booking has been completed". The action is the noun they are said of."""


@dataclass(frozen=True, slots=True)
class Claim:
    """A message's statement that an action is done."""

    verb: str
    clause: str
    """The claim itself: `three checked bags have been added`."""
    sentence: str
    subject: list[str]
    """What the claim says was acted on: the words of its clause before a passive (`three
    checked bags have been added`) or after an active verb (`I've sent the e-mail`)."""
    objects: tuple[str, ...] = ()
    """Every word of the clause that may name a thing: the subject and the rest (`calendar`
    in `it has been added to your calendar`)."""


_CUES = ("been", "'ve", "’ve", "have")
"""What every `_CLAIM` holds (in lower case): most messages hold none and cost four substring
searches, not a regex scan."""


def possible(text: str) -> bool:
    """Whether `text` could hold a completion claim (`claims` reads only such texts)."""
    lower = text.lower()
    return any(map(lower.__contains__, _CUES))


def claims(text: str) -> Iterator[Claim]:
    """The completion claims in a message, in order."""
    if not possible(text):
        return
    start = 0
    candidates = (
        m
        for m in _CLAIM.finditer(text)
        if m["word"].lower() in PARTICIPLES or m["word"].lower() in _DONE
    )
    for match in islice(candidates, _MOST_CLAIMS):
        verb = PARTICIPLES.get(match["word"].lower(), "")
        for stop in _SENTENCE_END.finditer(text, start, match.start()):
            start = stop.end()
        start = max(start, match.start() - _REACH)  # bounded, so hostile text stays linear
        end_match = _SENTENCE_END.search(text, match.end(), match.end() + _REACH)
        end = end_match.end() if end_match else min(len(text), match.end() + _REACH)
        sentence = text[start:end].strip()
        before, after = text[start : match.start()], text[match.end() : end]
        if sentence.endswith("?") or _HEDGE.search(before) or after.lstrip().startswith("by "):
            continue
        lead, tail = _CLAUSE.split(before)[-1], _CLAUSE.split(after)[0]
        subject = lead if match["passive"] else tail
        clause = " ".join((lead + match[0] + tail).split())
        named = WORD.findall(_ID.sub(" ", subject).lower().replace("e-mail", "email"))
        if not verb:
            found = _action(before if match["passive"] else after, bool(match["passive"]))
            if found is None:
                continue
            action, at = found
            verb = ACTIONS[action]
            named = [action] if action in _SAME else []  # a booking is of a reservation
            if match["passive"]:  # quoted from the action: "the downgrade … has been processed"
                clause = " ".join((before[at:] + match[0] + tail).split())
        subject = [_SAME.get(w, w) for w in named if w not in _VAGUE]
        yield Claim(verb, clause, sentence, subject, _objects(clause))


_NOT_THINGS = _VAGUE | _DONE | frozenset(PARTICIPLES) | {"has", "have", "been", "and", "but"}


def _objects(clause: str) -> tuple[str, ...]:
    found = WORD.findall(_ID.sub(" ", clause).lower().replace("e-mail", "email"))
    return tuple(_SAME.get(w, w) for w in found if w not in _NOT_THINGS)


_ACTION = lazy(r"\b(?:" + "|".join(ACTIONS) + r")\b", re.IGNORECASE)


def _action(text: str, last: bool) -> tuple[str, int] | None:
    """The noun of action a participle that names none is said of ("the downgrade (…) has been
    processed", "I've processed the cancellation"): the nearest one, and where it starts."""
    found = list(_ACTION.finditer(text))
    if not found:
        return None
    m = found[-1] if last else found[0]
    return m.group().lower(), m.start()
