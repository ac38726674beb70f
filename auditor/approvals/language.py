"""Approvals in plain language (tau-bench): proposals, decisions and the calls they cover.

- A *proposal* is the assistant's latest message that describes an action and asks about it
  (or, for a bare yes, the assistant's last words before it): its values (`values.py`) and,
  when it lists numbered or bulleted options, the values of each option.
- A *decision* is the user's answer, or an instruction the user gives unasked: `yes`, `no`
  (a plain refusal), a `choice` (an option picked by its number, "the first one", or by a
  value only it has: "the Visa ending in 6437"), an `instruction` ("please cancel all of
  these", "could you also add 2 checked bags"), or unclear (a question, a detail).
- The decision *covers* the calls of gated tools the assistant makes next, until the user
  speaks again after one of them succeeded: a retry after a failure is still covered, and an
  unclear answer does not undo a decision. An instruction covers only the tools that do what
  it says (`cancel` covers `cancel_reservation`, not `book_reservation`).

What the user confirmed or chose travels with each covered call, for CF001 to compare with
what the call sent: the values of the proposal (of the chosen options) and of the user's own
words, the values of the options the user did not pick, and every payment method shown
before the call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from auditor import actions
from auditor.approvals import values
from auditor.approvals.drafts import Calls, Draft
from auditor.approvals.options import ApprovalOptions
from auditor.approvals.policy import Policy
from auditor.approvals.policy import read as read_policy
from auditor.approvals.values import Value
from auditor.model import Conversation, Message

if TYPE_CHECKING:
    from auditor.replay import Exchange

# Without `require_approval`, the tools whose calls a plain-language decision covers.
_MUTATING = re.compile(
    r"(?:book|cancel|update|modify|change|delete|remove|create|send|pay|refund|purchase|buy"
    r"|order|submit|charge|issue|upgrade|downgrade|edit|exchange|return|reserve)(?:_|$)",
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
# The user's yes: at the start of a sentence or clause, perhaps after a grudging word.
_YES = re.compile(
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
_NO = re.compile(
    r"\W*(?:no(?! problem| worries)|nope|nah|non|don'?t|do not|not yet|never ?mind"
    r"|cancel (?:that|it)|stop|wait|hold (?:on|off))\b",
    re.I,
)
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
_TAKEN_BACK = re.compile(r"\b(?:no|not|don'?t|wait|stop|hold on)\b", re.I)
# Simulated users thank, comment and restate before the yes: look past the first sentences.
_REPLY_SCAN = 1200
# A plain refusal says little more than no ("No, keep it.", "No, I changed my mind."); a reply
# that asks for something else is an answer, not a denial of what runs next.
_PLAIN_NO_WORDS = 4
_ELSE = re.compile(r"\b(?:instead|rather|but|use|other|another|try|only|just)\b|\d", re.I)
# An instruction: a request, then a verb of action ("could you please cancel", "let's book").
_VERB = (
    r"(?P<verb>cancel|book|reserve|change|modify|update|upgrade|downgrade|add|remove|switch|move"
    r"|reschedule|adjust|exchange|return|refund|send|proceed|go ahead"
    r"|make (?:that|the|this|those) changes?)\b"
)
_INSTRUCTION = re.compile(
    r"(?:^|[.!?;,\n]|\b(?:please|kindly|can you|could you|would you|will you"
    r"|(?:i'?d|i would) (?:still )?(?:like|love|prefer)(?: you)? to|i (?:want|need)(?: you)? to"
    r"|let'?s|go ahead and|help me|you (?:can|may)|i'?d like to))"
    r"\W{0,3}(?:(?:please|also|just|now|kindly|go ahead and|still|then)\s){0,3}" + _VERB,
    re.I,
)
_NOT = re.compile(
    r"\b(?:not|never|no need|instead of|whether|if|unless|without|how (?:do|can|to)"
    r"|what|why|when)\b|n't\b",
    re.I,
)
_GENERIC = {"proceed", "go ahead"}
_OBJECTS = ("id", "handle")
"""Kinds of value that name what an action is done to (a booking, an order, a user)."""
_CORRECTION = re.compile(
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
_REQUEST = re.compile(
    r"\b(?:can you|could you|would you|please|make sure|(?:i'?d|i would) like|i (?:want|need)"
    r"(?:ed)?)\b",
    re.I,
)
_ACTING = re.compile(r"\b(?:appl(?:y|ied)|use|used|include|included|put|set|get)\b", re.I)
_WORD = re.compile(r"[a-z]{3,}")


def _asked_about(text: str) -> frozenset[str]:
    """The words of a request to act on something with no verb of action ("can you make sure
    my free baggage allowance is applied?"); empty when it is no such request."""
    if _REQUEST.search(text) is None or _ACTING.search(text) is None:
        return frozenset()
    return frozenset(_WORD.findall(text.lower()))


_VAGUE_NOUNS = frozenset(
    ("reservation", "reservations", "booking", "order", "orders", "user", "account", "details")
)
_ORDINAL_CHOICE = re.compile(
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
_ITEM = re.compile(
    r"^(?P<indent>[ \t]*)(?:[-*•]\s+)?(?:\*\*)?(?:(?:option|choice)\s+)?(?P<n>\d{1,2})[.):]"
    r"|^(?P<bullet_indent>[ \t]*)[-*•]\s",
    re.I,
)


def verdict(reply: str) -> bool | None:
    """A user's reply to a request for approval: True yes, False no, None neither (or both).

    A no counts only when it is all the reply says ("No.", "No, keep it."): "No, use the other
    card" asks for another action, and what runs next may be exactly that.
    """
    head = reply[:_REPLY_SCAN]
    yes = _YES.search(head)
    no = _NO.match(head)
    if yes is not None:
        if no is None:
            return True
        # "No way, that is unfair! But fine, go ahead.": a complaint, then the yes that ends it
        last = list(_YES.finditer(head))[-1]
        closed = _SENTENCE_END.search(head, no.end(), last.end()) is not None
        return True if closed and _TAKEN_BACK.search(head, last.end()) is None else None
    if no is None:
        return None
    rest = head[no.end() :]
    plain = len(rest.split()) <= _PLAIN_NO_WORDS and _ELSE.search(rest) is None
    return False if plain else None


def asks_to_confirm(text: str) -> bool:
    """An assistant message that asks the user to approve or choose what it describes."""
    return _ASKS.search(text) is not None


def instructed(text: str) -> frozenset[str] | None:
    """The actions a user's message asks for ("please cancel it" -> {"cancel"}); an empty set
    for a request to go ahead with whatever was proposed; None when it asks for none."""
    head = text[:_REPLY_SCAN]
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


@dataclass(slots=True)
class _Proposal:
    """The assistant's message a decision answers."""

    turn: int
    text: str
    asks: bool
    _options: list[list[Value]] | None = None
    _common: list[Value] | None = None
    _values: list[Value] | None = None

    def values(self) -> list[Value]:
        """Every value it names."""
        if self._values is None:
            self._values = values.in_text(self.text)
        return self._values

    def options(self) -> list[list[Value]]:
        """The values of each option it lists, by its number (1-based) or position."""
        if self._options is None:
            self._options, self._common = _options(self.text)
        return self._options

    def common(self) -> list[Value]:
        """The values outside its options (a total, the reservation acted on)."""
        self.options()
        assert self._common is not None
        return self._common


@dataclass(slots=True)
class _Decision:
    """The user's decision, until the calls it covers ran."""

    kind: str
    """`yes`, `no`, `choice`, `instruction`, or `unclear`."""
    question: int
    """The proposal's message, or the user's own for an instruction nothing proposed."""
    reply: int
    said: bool | None
    text: str
    confirmed: tuple[Value, ...] = ()
    rejected: tuple[Value, ...] = ()
    verbs: frozenset[str] = frozenset()
    """For an instruction: the actions it asks for (only calls doing one are covered)."""
    about: frozenset[str] = frozenset()
    """For a request with no verb: its words (only calls of a tool they name are covered)."""
    corrected: frozenset[str] = frozenset()
    """Kinds of value the user's words corrected ("No, HAT137 instead"): a flight."""
    succeeded: bool = False
    """A call it covered succeeded: the next word from the user starts something new."""
    covered: list[Exchange] = field(default_factory=list)

    def covers(self, e: Exchange) -> bool:
        if self.verbs:
            return any(actions.does(v, e.call.name) for v in self.verbs)
        if self.about:
            nouns = [w for w in actions.words(e.call.name) if w not in _VAGUE_NOUNS]
            return any(actions.names(n, self.about) for n in nouns)
        return True


class _Walk:
    """One pass over the messages: proposals, decisions, and the calls they cover."""

    def __init__(self, calls: Calls, options: ApprovalOptions, policy: Policy) -> None:
        self.calls = calls
        self.options = options
        self.policy = policy
        self.proposal: _Proposal | None = None  # the latest question not yet decided
        self.said: list[_Proposal] = []  # the assistant's words since the user spoke
        self.decision: _Decision | None = None
        self.shown: dict[str, Value] = {}  # payment methods the user has seen named
        self.cards: dict[str, str] = {}  # payment id -> last four digits, from tool results
        self.read: dict[int, list[Value]] = {}  # message -> its values, read once

    def walk(self) -> None:
        for m in self.calls.messages:
            if m.role == "user" and m.text.strip():
                self._shown(m.text)
                self.decision = self._decide(m)
                self.said = []
            elif m.role == "assistant":
                self._heard(m)
                for e in self.calls.at.get(m.index, ()):
                    if e.caller != "assistant" or id(e) in self.calls.linked:
                        continue
                    required = self.options.reason(e.call.name) or self.policy.requires(e.call.name)
                    if required or _MUTATING.match(e.call.name):
                        self._cover(e, required)
            elif m.result is not None:
                self.cards.update(values.card_profiles(m.result.text))

    def _heard(self, m: Message) -> None:
        if not m.text.strip():
            return
        self._shown(m.text)
        if m.tool_calls:
            return  # words beside a call report on it; the user could not answer them first
        here = _Proposal(m.index, m.text, asks_to_confirm(m.text))
        self.said.append(here)
        if here.asks:
            self.proposal = here

    def _shown(self, text: str) -> None:
        for v in values.payments_in(text):
            self.shown.setdefault(v.key, v)
        for v in values.money_in(text):
            self.shown.setdefault(f"money:{v.key}", v)

    def _decide(self, m: Message) -> _Decision | None:
        """The decision in force after the user's message `m`."""
        decision = self.decision
        if decision is not None and (
            decision.succeeded or (decision.said is False and self.proposal is None)
        ):
            decision = None  # it covered what it was for; a no, only the next answer
        # The options a choice picks from: the latest message listing some.
        listing = next(
            (
                p
                for p in reversed([*([self.proposal] if self.proposal else []), *self.said])
                if len(p.options()) >= 2
            ),
            None,
        )
        said = verdict(m.text)
        verbs = instructed(m.text) if said is None else None
        own = tuple(values.in_text(m.text))
        chosen = None if listing is None else _chosen(m.text, own, listing, said is not True)
        about: frozenset[str] = frozenset()
        standing = decision is not None and decision.said is True
        if said is None and chosen is None and verbs is None and not standing:
            about = _asked_about(m.text[:_REPLY_SCAN])
        if about:
            verbs = frozenset()
        if said is None and chosen is None and verbs is None:
            if standing and decision is not None:
                # A detail or a question: the decision stands, paid as the user now says
                # ("No credit card on file." "Let's use the gift card then.").
                paying = tuple(v for v in own if v.kind == "payment")
                if paying:
                    kept = tuple(v for v in decision.confirmed if v.kind != "payment")
                    decision.confirmed = kept + paying
                return decision
            if self.proposal is None:
                return decision
            return self._made("unclear", m, None, own, listing)
        if said is False:
            made = self._made("no", m, False, own, listing)
            self.proposal = None
            return made
        kind = "choice" if chosen is not None else "yes" if said else "instruction"
        made = self._made(kind, m, True, own, listing, chosen)
        if kind == "instruction" and not any(v.specific for v in made.confirmed):
            return decision  # "I want to change my flight": a goal, not a decision on a change
        made.verbs, made.about = verbs or frozenset(), about
        self.proposal = None
        if decision is not None and decision.said is True:
            made.confirmed += _still_standing(decision, made)
        return made

    def _made(
        self,
        kind: str,
        m: Message,
        said: bool | None,
        own: tuple[Value, ...],
        listing: _Proposal | None,
        chosen: list[int] | None = None,
    ) -> _Decision:
        """A decision and what it confirmed: the values of the user's words and of what the
        assistant said since the question it answers (of the options listed, those picked, or
        all when none is); rejected, the values only the options not picked list."""
        heard = [p for p in self.said if self.proposal is None or p.turn > self.proposal.turn]
        asked = ([self.proposal] if self.proposal is not None else []) + heard
        start = asked[0].turn if asked else m.index
        text = "\n".join(
            x.text
            for x in self.calls.messages[start : m.index + 1]
            if x.role in ("assistant", "user")
        )
        shown: list[Value] = []
        for p in asked:
            if p is listing:
                shown += p.common()
                for number, option in enumerate(p.options(), 1):
                    if not chosen or number in chosen:
                        shown += option
            else:
                shown += p.values()
        # A correction replaces what was proposed of the kinds it names: "No, move me to
        # HAT137 instead" confirms HAT137, not the HAT136 proposed.
        corrects = kind != "yes" and _CORRECTION.search(m.text[:_REPLY_SCAN]) is not None
        named = {v.kind for v in own if v.specific} if corrects else set()
        if any(v.kind == "payment" for v in own):
            named.add("payment")  # how to pay is the user's to say: "one of my certificates"
        confirmed = list(own) + [v for v in shown if v.kind not in named]
        rejected = _rejected(listing.options(), chosen, confirmed) if listing and chosen else []
        made = _Decision(kind, start, m.index, said, text, tuple(confirmed), tuple(rejected))
        made.corrected = frozenset(named)
        return made

    def _cover(self, e: Exchange, required: str) -> None:
        """Account for a gated call: covered by the decision in force, else required and not
        (`required` says by what: `require-approval` or the log's own policy)."""
        calls, decision = self.calls, self.decision
        calls.linked.add(id(e))
        if decision is not None and decision.covers(e):
            calls.drafts.append(self._covered(decision, e, required))
            decision.covered.append(e)
            if e.result is not None and not e.failed:
                decision.succeeded = True
        elif required:
            calls.drafts.append(
                Draft("policy", e.call.name, e.turn, execution=e, required_by=required)
            )

    def _covered(self, decision: _Decision, e: Exchange, required: str) -> Draft:
        return Draft(
            "natural-language",
            e.call.name,
            decision.question,
            approved=decision.said,
            decided_at=decision.reply,
            execution=e,
            text=decision.text,
            decision_kind=decision.kind,
            confirmed=decision.confirmed,
            rejected=decision.rejected,
            shown=tuple(self.shown.values()),
            cards=self.cards,
            required_by=required,
        )


def _still_standing(before: _Decision, after: _Decision) -> tuple[Value, ...]:
    """What an earlier decision of the same goal confirmed that still stands after a new one.

    After a failed call, the user's next answer continues the same change ("proceed with that
    segment first"): everything decided before stands, except what the answer corrects. Before
    any call, a new decision details the goal ("move XEWRD9 to HAT102", then yes to details
    that no longer name the booking): only what it acts on stands, unless named anew.
    """
    if before.covered:
        return tuple(v for v in before.confirmed if v.kind not in after.corrected)
    kinds = {v.kind for v in after.confirmed}
    return tuple(v for v in before.confirmed if v.kind in _OBJECTS and v.kind not in kinds)


def pair(calls: Calls, options: ApprovalOptions, conversation: Conversation) -> None:
    """Add a draft for every gated call of the assistant to `calls.drafts`: a call of a tool
    that writes (`book_…`, `cancel_…`) or that `require_approval` or the log's own policy
    requires approval for. Covered by a decision in plain language, or (`policy`) required
    and not."""
    assistant = [e for e in calls.exchanges if e.caller == "assistant"]
    if not assistant:
        return
    policy = read_policy(conversation)
    if not any(
        _MUTATING.match(e.call.name)
        or options.requires(e.call.name)
        or policy.requires(e.call.name)
        for e in assistant
    ):
        return  # nothing a decision could cover: spare the reading of every message
    _Walk(calls, options, policy).walk()


def _options(text: str) -> tuple[list[list[Value]], list[Value]]:
    """The values of each numbered (else bulleted) item of a message, and the values outside
    any item. An item runs to the next one at its indentation; the last one ends where text
    at that indentation follows a blank line."""
    lines = text.splitlines()
    items = [(i, m) for i, line in enumerate(lines) if (m := _ITEM.match(line))]
    numbered = [item for item in items if item[1]["n"]]
    marked = [i for i, _ in (numbered if len(numbered) >= 2 else items)]
    top = min((_indent(lines[i]) for i in marked), default=0)
    starts = [i for i in marked if _indent(lines[i]) == top]
    if len(starts) < 2:
        return [], values.in_text(text)
    options, common = [], lines[: starts[0]]
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        if k + 1 == len(starts):
            for j in range(start + 1, end):
                if lines[j].strip() and _indent(lines[j]) <= top and not lines[j - 1].strip():
                    common += lines[j:end]
                    end = j
                    break
        options.append(values.in_text("\n".join(lines[start:end])))
    return options, values.in_text("\n".join(common))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _chosen(
    text: str, own: tuple[Value, ...], listing: _Proposal, by_value: bool
) -> list[int] | None:
    """The options (1-based) a reply picks: by number ("option 2", "the first one"), or, when
    `by_value`, by a value that only one option lists of a kind several list ("the Visa ending
    in 6437" among cards). None when it picks none. A yes confirms the whole proposal, so
    values named beside it do not narrow it (`by_value` False)."""
    options = listing.options()
    picked: list[int] = []
    for m in _ORDINAL_CHOICE.finditer(text[:_REPLY_SCAN]):
        word = (m["n"] or m["ord"]).lower()
        number = len(options) if word == "last" else _ORDINAL_NUMBERS.get(word)
        if number is None and word.isdigit():
            number = int(word)
        if number is not None and 1 <= number <= len(options):
            picked.append(number)
    if by_value:
        parallel = _parallel(options)
        named = [v for v in own if v.specific and v.kind in parallel]
        for number, option in enumerate(options, 1):
            keys = {(v.kind, v.key) for v in option}
            if any((v.kind, v.key) in keys and _unique(v, options) for v in named):
                picked.append(number)
    return sorted(set(picked)) or None


def _parallel(options: list[list[Value]]) -> set[str]:
    """Kinds of value that several options list: what the options are alternatives in."""
    kinds = {v.kind for option in options for v in option}
    return {k for k in kinds if sum(any(v.kind == k for v in o) for o in options) >= 2}


def _unique(v: Value, options: list[list[Value]]) -> bool:
    """The value is listed by one option only: naming it picks that option."""
    return sum(any(o.kind == v.kind and o.key == v.key for o in option) for option in options) == 1


def _rejected(options: list[list[Value]], picked: list[int], confirmed: list[Value]) -> list[Value]:
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
