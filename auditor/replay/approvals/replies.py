"""What a user's reply says: yes, no, an instruction, a choice among the options listed.

Read for the plain-language approvals of `language.py`; every pattern is bounded and reads at
most `REPLY_SCAN` characters of a reply, so hostile text stays linear.
"""

from __future__ import annotations

import re
from collections import Counter

from auditor.common.patterns import folded, lazy
from auditor.languages import replies as foreign
from auditor.languages.lexicon import Lexicon
from auditor.reading import sentences, values
from auditor.reading.values import Value

_ASKS = folded(
    r"\b(?:please|kindly|can you|could you|would you|do you|to) (?:please )?confirm\b"
    r"|\b(?:would|do) you (?:like|want|wish) (?:me |us )?to\b"
    r"|\bif you(?:'d| would)? (?:like|want|wish) (?:me |us )?to (?:proceed|go ahead|continue)\b"
    r"|\b(?:shall|should) (?:i|we)\b[^.?!\n]{0,80}\?"
    r"|\b(?:may|can) (?:i|we) (?:proceed|go ahead|continue)\b"
    r"|\b(?:reply|respond|answer|say|saying|type)\b[^.?!\n]{0,24}\byes\b"
    r"|\byes ?(?:/|or) ?no\b"
    r"|\b(?:is|does) (?:this|that|everything|all of this) (?:look )?(?:correct|right|ok|okay)\?"
    r"|\bsound good\?"
)
# The user's yes: at the start of a sentence or clause, perhaps after a grudging word.
_YES = lazy(
    r"(?:^|[.!?,;:\n])\W{0,8}(?:(?:but|so|then|well|fine|ok|okay|alright|all right|in that case"
    r"|if so|understood|i understand|i see)\W{1,3}){0,2}"
    r"(?:yes|yeah|yep|yup|sure|ok|okay|oui|s[ií]|correct|confirmed|confirming|fine"
    r"|i confirm|i approve|approved|absolutely|definitely|of course|go ahead|please go ahead"
    r"|please proceed|please do|proceed|sounds good|looks good|that'?s (?:correct|right|fine"
    r"|perfect|acceptable|ok|okay)|that (?:all )?(?:looks|sounds|works)"
    r"|everything (?:looks|is|sounds)|let'?s (?:go ahead|proceed|do it|do that))\b"
    # "go ahead" inside a longer turn: "I'd still like you to go ahead with the change"
    r"|\b(?:please|you (?:can|may)|(?:i'?d|i would) (?:still )?like (?:you )?to"
    r"|i want you to|feel free to)\s(?:\w+\s){0,2}?(?:go ahead|proceed)\b",
    re.I,
)
_NO = lazy(
    r"\W*(?:no(?! problem| worries)|nope|nah|non|don'?t|do not|not yet|never ?mind"
    r"|cancel (?:that|it)|stop|wait|hold (?:on|off))\b",
    re.I,
)
_TAKEN_BACK = lazy(r"\b(?:no|not|don'?t|wait|stop|hold on)\b", re.I)
# Simulated users thank, comment and restate before the yes: look past the first sentences.
REPLY_SCAN = 1200
# A plain refusal says little more than no ("No, keep it.", "No, I changed my mind."); a reply
# that asks for something else is an answer, not a denial of what runs next.
_PLAIN_NO_WORDS = 4
_ELSE = lazy(r"\b(?:instead|rather|but|use|other|another|try|only|just)\b|\d", re.I)
# An instruction: a request, then a verb of action ("could you please cancel", "let's book").
_VERB = (
    r"(?P<verb>cancel|book|reserve|change|modify|update|upgrade|downgrade|add|remove|switch|move"
    r"|reschedule|adjust|exchange|return|refund|send|proceed|go ahead"
    r"|make (?:that|the|this|those) changes?)\b"
)
_INSTRUCTION = lazy(
    r"(?:^|[.!?;,\n]|\b(?:please|kindly|can you|could you|would you|will you"
    r"|(?:i'?d|i would) (?:still )?(?:like|love|prefer)(?: you)? to|i (?:want|need)(?: you)? to"
    r"|let'?s|go ahead and|help me|you (?:can|may)|i'?d like to))"
    r"\W{0,3}(?:(?:please|also|just|now|kindly|go ahead and|still|then)\s){0,3}" + _VERB,
    re.I,
)
_NOT = lazy(
    r"\b(?:not|never|no need|instead of|whether|if|unless|without|how (?:do|can|to)"
    r"|what|why|when)\b|n't\b",
    re.I,
)
_GENERIC = {"proceed", "go ahead"}
_CORRECTION = lazy(
    r"^\W*no\b|\b(?:instead|rather|change (?:it|that|this) to|make it|switch (?:it|that) to)\b",
    re.I,
)
_SYNONYMS = {
    "switch": "change",
    "move": "change",
    "reschedule": "change",
    "adjust": "change",
    "reserve": "book",
}
# A request that names what to act on but no verb we know: "Can you make sure my free
# baggage allowance is applied?" covers a call of a tool named for it (`…_baggages`).
_REQUEST = lazy(
    r"\b(?:can you|could you|would you|please|make sure|(?:i'?d|i would) like|i (?:want|need)"
    r"(?:ed)?)\b",
    re.I,
)
_ACTING = lazy(r"\b(?:appl(?:y|ied)|use|used|include|included|put|set|get)\b", re.I)
_WORD = lazy(r"[a-z]{3,}")


def asked_about(reply: str) -> frozenset[str]:
    """The words of a request to act on something with no verb of action ("can you make sure
    my free baggage allowance is applied?"); empty when it is no such request."""
    text = reply[:REPLY_SCAN]
    if _REQUEST.search(text) is None or _ACTING.search(text) is None:
        return frozenset()
    return frozenset(_WORD.findall(text.lower()))


_ORDINAL_CHOICE = lazy(
    r"\b(?:option|choice|number|no\.|#)\s?(?P<n>\d{1,2}|one|two|three|four|five|six)\b"
    r"|\b(?:the\s)?(?P<ord>first|second|third|fourth|fifth|sixth|last)\s"
    r"(?:option|one|choice|flight|card|itinerary|route|connection)\b",
    re.I,
)
_ORDINAL_NUMBERS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
} | values.NUMBERS
_ITEM = lazy(
    r"^(?P<indent>[ \t]*)(?:[-*•]\s+)?(?:\*\*)?(?:(?:option|choice)\s+)?(?P<n>\d{1,2})[.):]"
    r"|^(?P<bullet_indent>[ \t]*)[-*•]\s",
    re.I,
)


def verdict(reply: str, lexicon: Lexicon | None = None) -> bool | None:
    """A user's reply to a request for approval: True yes, False no, None neither (or both).

    A no counts only when it is all the reply says ("No.", "No, keep it."): "No, use the other
    card" asks for another action, and what runs next may be exactly that. In a conversation
    in another language with a lexicon the reply is read in it, and in English only when it
    holds English words.
    """
    if lexicon is not None:
        said = foreign.verdict(reply, lexicon)
        if said is not None or not foreign.in_english(reply):
            return said
    head = reply[:REPLY_SCAN]
    yes = _YES.search(head)
    no = _NO.match(head)
    if yes is not None:
        if no is None:
            return True
        # "No way, that is unfair! But fine, go ahead.": a complaint, then the yes that ends it
        last = list(_YES.finditer(head))[-1]
        closed = sentences.ends_between(head, no.end(), last.end(), lines=False)
        return True if closed and _TAKEN_BACK.search(head, last.end()) is None else None
    if no is None:
        return None
    rest = head[no.end() :]
    plain = len(rest.split()) <= _PLAIN_NO_WORDS and _ELSE.search(rest) is None
    return False if plain else None


_WAIVES = lazy(
    r"\b(?:no need to|(?:you )?(?:do not|don'?t) (?:need to|have to)|without)\s(?:\w+\s){0,2}?"
    r"(?:check(?:ing)?|ask(?:ing)?|confirm(?:ing|ation)?|wait(?:ing)?)\b"
    r"|\bjust do (?:it|that|them)\b"
    r"|\b(?:pre-?approve|(?:approve|confirm|authori[sz]e) (?:it all|everything|all of (?:it|them)"
    r"|in advance))\b"
    r"|\bconsider (?:this|that) (?:my|as my|an?) (?:explicit )?(?:confirmation|approval|yes)\b",
    re.I,
)


def waives(text: str, lexicon: Lexicon | None = None) -> bool:
    """The user says no confirmation is needed: "no need to check with me, just do it", "you
    don't have to ask", "I approve everything in advance" (or so in the lexicon's language)."""
    if lexicon is not None and foreign.waives(text, lexicon):
        return True
    return _WAIVES.search(text[:REPLY_SCAN]) is not None


def asks_to_confirm(text: str, lexicon: Lexicon | None = None) -> bool:
    """An assistant message that asks the user to approve or choose what it describes; not a
    question that asks the user what to do ("What changes would you like to make?", "Which
    flight would you like to change?"): its answer supplies the action, it approves none.
    In a conversation in another language with a lexicon, also its requests ("¿Desea que
    proceda?")."""
    if lexicon is not None and foreign.asks_to_confirm(text, lexicon):
        return True
    for m in _ASKS.finditer(text):
        start = max(text.rfind(c, 0, m.start()) for c in ".?!\n") + 1
        if _WH_QUESTION.match(text, start) is None:
            return True
    return False


_WH_QUESTION = lazy(r"\W*(?:\w+,\s)?(?:which|what|how (?:many|much)|when|where)\b", re.I)
"""A sentence that opens with a question word, perhaps after a word of address ("So, what
…", "Okay, which …")."""


def instructed(text: str) -> frozenset[str] | None:
    """The actions a user's message asks for ("please cancel it" -> {"cancel"}); an empty set
    for a request to go ahead with whatever was proposed; None when it asks for none."""
    head = text[:REPLY_SCAN]
    found: set[str] = set()
    for m in _INSTRUCTION.finditer(head):
        at = m.start("verb")
        clause = max(head.rfind(c, 0, at) for c in ",.!?;\n") + 1
        if _NOT.search(head, clause, at):
            continue  # "if you could cancel", "I don't want to change", "how do we proceed"
        verb = m["verb"].lower()
        found.add("proceed" if verb.startswith("make ") else _SYNONYMS.get(verb, verb))
    if not found:
        return None
    return frozenset() if found <= _GENERIC else frozenset(found - _GENERIC)


_MOST_OPTIONS = 60
"""A message listing more items is a report, not a choice to make."""


def items(text: str) -> tuple[list[str], str] | None:
    """The text of each numbered (else bulleted) item of a message, and the text outside any
    item; None when it lists fewer than two items or more than `_MOST_OPTIONS`. An item runs
    to the next one at its indentation; the last one ends where text at that indentation
    follows a blank line. Nothing is read for values here."""
    lines = text[: values.TEXT_LIMIT].splitlines()
    found = [(i, m) for i, line in enumerate(lines) if (m := _ITEM.match(line))]
    numbered = [item for item in found if item[1]["n"]]
    marked = [i for i, _ in (numbered if len(numbered) >= 2 else found)]
    top = min((_indent(lines[i]) for i in marked), default=0)
    starts = [i for i in marked if _indent(lines[i]) == top]
    if not 2 <= len(starts) <= _MOST_OPTIONS:
        return None
    pieces, common = [], lines[: starts[0]]
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        if k + 1 == len(starts):
            for j in range(start + 1, end):
                if lines[j].strip() and _indent(lines[j]) <= top and not lines[j - 1].strip():
                    common += lines[j:end]
                    end = j
                    break
        pieces.append("\n".join(lines[start:end]))
    return pieces, "\n".join(common)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def chosen(
    text: str, own: tuple[Value, ...], options: list[list[Value]], by_value: bool
) -> list[int] | None:
    """The options (1-based) a reply picks: by number ("option 2", "the first one"), or, when
    `by_value`, by a value that only one option lists of a kind several list ("the Visa ending
    in 6437" among cards). None when it picks none. A yes confirms the whole proposal, so
    values named beside it do not narrow it (`by_value` False)."""
    picked: list[int] = []
    for m in _ORDINAL_CHOICE.finditer(text[:REPLY_SCAN]):
        word = (m["n"] or m["ord"]).lower()
        number = len(options) if word == "last" else _ORDINAL_NUMBERS.get(word)
        if number is None and word.isdigit():
            number = int(word)
        if number is not None and 1 <= number <= len(options):
            picked.append(number)
    if by_value:
        parallel = _parallel(options)
        listing = Counter((v.kind, v.key) for option in options for v in set(option))
        named = {(v.kind, v.key) for v in own if v.specific and v.kind in parallel}
        unique = {key for key in named if listing[key] == 1}  # naming it picks its option
        picked += [
            n for n, option in enumerate(options, 1) if unique & {(v.kind, v.key) for v in option}
        ]
    return sorted(set(picked)) or None


def _parallel(options: list[list[Value]]) -> set[str]:
    """Kinds of value that several options list: what the options are alternatives in."""
    kinds = {v.kind for option in options for v in option}
    return {k for k in kinds if sum(any(v.kind == k for v in o) for o in options) >= 2}


def rejected(options: list[list[Value]], picked: list[int], confirmed: list[Value]) -> list[Value]:
    """Values of the options not picked, of a kind the options list in parallel, that nothing
    confirmed: sending one is sending what the user turned down."""
    if not picked:
        return []
    kept = {(v.kind, v.key) for v in confirmed}
    parallel = _parallel(options)
    return [
        v
        for number, option in enumerate(options, 1)
        if number not in picked
        for v in option
        if v.kind in parallel and v.specific and (v.kind, v.key) not in kept
    ]


def corrects(text: str) -> bool:
    """The reply corrects what was proposed: "No, HAT137 instead", "make it two"."""
    return _CORRECTION.search(text[:REPLY_SCAN]) is not None
