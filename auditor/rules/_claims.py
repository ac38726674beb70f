"""Completion claims in assistant text: "has been cancelled", "I've sent", "have been added".

A conversation in another language with a lexicon is read with it (`auditor.languages.claims`:
"ha sido cancelada", "wurde storniert"), into the same claims with English verbs.

FB003 asks whether a claimed action ran, FB007 whether what ran is what the claim says; this
module finds the claims and what they are about (skipping negated, conditional, questioned and
earlier-state ones), the tools that could have done them, and when the user last asked for
each action. Every pattern is bounded so that hostile text stays linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice
from typing import TYPE_CHECKING

from auditor.common.patterns import lazy
from auditor.common.structs import dataclass
from auditor.languages import claims as foreign
from auditor.reading import sentences
from auditor.reading.actions import (
    ACTIONS,
    PARTICIPLES,
    PARTICIPLES_OF,
    VERBS,
    names,
    nouns,
    of_family,
)
from auditor.rules._language import english as in_english
from auditor.rules._language import read_in

if TYPE_CHECKING:
    from auditor.replay import Replay

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
_MOST_CLAIMS = 50
"""Claims read per message: no reply to a user makes more, and the cap keeps a hostile message
from costing more than a normal one."""
_REACH = 400
"""How far around a claim its sentence is read."""
_CLAUSE = lazy(r"(?<!\d),|,(?!\d)|[;:()]|\band\b|\bbut\b", re.IGNORECASE)
"""What ends a claim's clause: a comma (not one between digits: `$1,000`, `39,90 €`), a
semicolon, a colon, a bracket, `and`, `but`."""
WORD = lazy(r"[a-z]{3,}")
_LETTERS = lazy(r"[^\W\d_]{3,}")
"""A word in any Latin script: how requests in other languages are read."""
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


def may_claim(replay: Replay) -> bool:
    """Some answer could hold a claim: it holds the words every English claim is made of, or
    the conversation is in another language with a lexicon (its claims are read with it)."""
    return possible(replay.said()) or read_in(replay) is not None


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
        start = sentences.last_end(text, start, match.start(), start)
        start = max(start, match.start() - _REACH)  # bounded, so hostile text stays linear
        end = sentences.next_end(text, match.end(), match.end() + _REACH)
        end = end if end is not None else min(len(text), match.end() + _REACH)
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


_READ = frozenset(VERBS)
"""The verbs a claim may have: a tool-name verb of another language outside them ("registrar"
-> `register`) names no claim."""


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


def said_done(replay: Replay) -> dict[int, list[Claim]]:
    """The claims of each assistant message that makes some, by its index: read once per
    replay for FB003 and FB007."""
    return replay.shared("claims", _said_done)


def _said_done(replay: Replay) -> dict[int, list[Claim]]:
    lexicon = read_in(replay)
    english = in_english(replay) and possible(replay.said())
    if lexicon is None and not english:
        return {}
    found: dict[int, list[Claim]] = {}
    for t in replay.turns:
        text = t.message.text
        said = list(claims(text)) if english else []
        if lexicon is not None:
            said += [Claim(*c) for c in foreign.claims(text, lexicon) if c.verb in _READ]
        if said:
            found[t.message.index] = said
    return found


def own_tools(claim: Claim, called: tuple[str, ...], matching: list[str]) -> list[str]:
    """The conversation's own tools that do what the claim says: a verb of its family in their
    name (`create_calendar_event` for "it has been added"), unless the claim names what was
    acted on and only another matching tool's name agrees with it (`two bags have been added`
    is `update_reservation_baggages`'s, not `book_reservation`'s)."""

    def agrees(tool: str) -> bool:
        return any(names(n, claim.objects) for n in nouns(tool))

    family = [t for t in called if of_family(claim.verb, t)]
    if not family or not any(agrees(t) for t in matching):
        return family
    return [t for t in family if agrees(t) or t in matching]


@dataclass(frozen=True, slots=True)
class Request:
    """When the user last asked for a claim's action, and whether a tool has said it is done."""

    asked: int
    """The last user message before the claim that words its verb (`cancel`, `cancellation`),
    or -1 when none does."""
    reported: bool
    """A tool result after that message says it is done (`"status": "cancelled"`)."""


def requests(replay: Replay) -> dict[tuple[int, str], Request]:
    """For each claiming message and each verb it claims: the request it answers. One walk over
    the conversation for FB003 and FB007, reading only the words their claims need."""
    return replay.shared("claims.requests", _requests)


def _requests(replay: Replay) -> dict[tuple[int, str], Request]:
    claimed = said_done(replay)
    if not claimed:
        return {}
    verbs = {c.verb for found in claimed.values() for c in found}
    forms = {form: verb for verb in verbs for form in FORMS[verb]}
    participles = {p: verb for verb in verbs for p in PARTICIPLES_OF[verb]}
    lexicon = read_in(replay)
    said: dict[str, int] = {}  # a verb -> the last user message that words it
    shown: dict[str, int] = {}  # a verb -> the last tool result that says it is done
    out: dict[tuple[int, str], Request] = {}
    for m in replay.conversation.messages:
        if m.role == "user":
            for word in WORD.findall(m.text.lower()):
                if word in forms:
                    said[forms[word]] = m.index
            if lexicon is not None:
                for word in _LETTERS.findall(m.text.lower()):
                    if (verb := lexicon.asked_for(word)) in verbs:
                        said[verb] = m.index
        elif m.role == "tool":
            lower = m.text.lower()
            for participle, verb in participles.items():
                if participle in lower and re.search(rf"(?<![a-z]){participle}(?![a-z])", lower):
                    shown[verb] = m.index
            if lexicon is not None:
                for verb in foreign.reported(lower, lexicon) & verbs:
                    shown[verb] = m.index
        for claim in claimed.get(m.index, ()):
            asked = said.get(claim.verb, -1)
            out[(m.index, claim.verb)] = Request(asked, shown.get(claim.verb, -1) > asked)
    return out


def _forms(verb: str) -> set[str]:
    """The verb as a request may word it: `cancel`, `cancelling`, `cancellation`, `adding`."""
    stem = verb[:-1] if verb.endswith(("e", "y")) else verb
    endings = ("", "s", "es", "ing", "ling", "ion", "ation", "lation", "ication", "ies", "ment")
    forms = {verb, *(stem + ending for ending in endings), verb + "ing", verb + "s"}
    return forms | set(PARTICIPLES_OF[verb])


FORMS = {verb: _forms(verb) for verb in VERBS}
"""How a user's request may word each verb: the last message using one starts the window."""


def quoted(clause: str) -> str:
    """The claim in quotes, its middle cut when long: what and what was done to it stay."""
    words = clause.split()
    text = " ".join(words)
    if len(text) > 100:
        head = words[:5]
        tail: list[str] = []
        while words[len(head) : len(words) - len(tail)] and len(" ".join(tail)) < 50:
            tail.insert(0, words[len(words) - len(tail) - 1])
        text = " ".join(head) + " … " + " ".join(tail)
    return "“" + text.replace("`", "'") + "”"
