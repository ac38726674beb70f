"""Approvals in plain language (tau-bench): proposals, decisions and the calls they cover.

- A *proposal* is the assistant's latest message that describes an action and asks about it
  (or, for a bare yes, the assistant's last words before it): its values (`values.py`) and,
  when it lists numbered or bulleted options, the values of each option.
- A *decision* is the user's answer, or an instruction the user gives unasked: `yes`, `no`
  (a plain refusal), a `choice` (an option picked by its number, "the first one", or by a
  value only it has: "the Visa ending in 6437"), an `instruction` ("please cancel all of
  these", "could you also add 2 checked bags"), or unclear (a question, a detail). A no that
  answers nothing (no question open, no words of the assistant since its last calls: "don't
  modify `send_with_retries`" to a coding agent) is a constraint, not a decision.
- The decision *covers* the calls of gated tools the assistant makes next, until the user
  speaks again after one of them succeeded: a retry after a failure is still covered, and an
  unclear answer does not undo a decision. An instruction covers only the tools that do what
  it says (`cancel` covers `cancel_reservation`, not `book_reservation`).
- Where the log's policy asks for an explicit confirmation of the action's details ("list the
  action details and obtain explicit user confirmation (yes)"), an instruction that answers no
  proposal (the user's request alone) still covers the call, for CF001 to compare, but is not
  that confirmation: the approval is `unconfirmed`, for CF003, unless the user waived it
  ("no need to check with me, just do it").

What the user confirmed or chose travels with each covered call, for CF001 to compare with
what the call sent: the values of the proposal (of the chosen options) and of the user's own
words, the values of the options the user did not pick, every payment method shown before
the call, and the values that go without saying (`records.py`): items the user described in
words, and, unless the user was asked how to pay, the payment the booking acted on was made
with and the payment method a refund went back to.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import field
from typing import TYPE_CHECKING

from auditor.common.patterns import lazy
from auditor.common.structs import dataclass
from auditor.languages import lexicon
from auditor.languages.detect import languages_of, sample
from auditor.languages.lexicon import Lexicon
from auditor.model import Conversation, Message
from auditor.reading import actions, values
from auditor.reading.values import Value
from auditor.replay.approvals import records, replies
from auditor.replay.approvals.drafts import ApprovalDraft, Calls
from auditor.replay.approvals.options import ApprovalOptions
from auditor.replay.approvals.policy import Policy
from auditor.replay.approvals.policy import read as read_policy

if TYPE_CHECKING:
    from auditor.replay.calls import Exchange

# Without `require_approval`, the tools whose calls a plain-language decision covers.

_MUTATING = lazy(
    r"(?:book|cancel|update|modify|change|delete|remove|create|send|pay|refund|purchase|buy"
    r"|order|submit|charge|issue|upgrade|downgrade|edit|exchange|return|reserve|transfer"
    r"|withdraw|deposit|schedule|reschedule|share|invite|post|publish|sell|place|assign|grant"
    r"|revoke|approve|activate|deactivate|suspend|reset)(?:_|$)",
    re.I,
)
# An assistant message asking the user to approve what it just described.
_OBJECTS = ("id", "handle")
"""Kinds of value that name what an action is done to (a booking, an order, a user)."""
_VAGUE_NOUNS = frozenset(
    ("reservation", "reservations", "booking", "order", "orders", "user", "account", "details")
)
# A question that asks the user to supply what to act on or what to do ("Which would you like
# to change?", "What modifications would you like to make?", "How many would you like?"): what
# answers it picks or details the action; it confirms no summary of it.
_WHICH = lazy(
    r"\b(?:which|what(?! else)|how (?:many|much))\b[^.?!\n]{0,100}\?",
    re.I,
)
# A question about how to pay ("Which payment method would you like to use?", "how would you
# like to pay?"): where it was asked, no payment goes without saying.
_ASKS_PAYMENT = lazy(
    r"\b(?:which|what|how|provide|specify|choose|select)\b[^.?!\n]{0,80}"
    r"\b(?:pay|paying|payment|refund(?:ed)?\s+to)\b",
    re.I,
)


@dataclass(slots=True)
class _Proposal:
    """The assistant's message a decision answers; its values are read when first needed."""

    turn: int
    text: str
    asks: bool
    read: Callable[[str], list[Value]]
    """`values.in_text`, once per text of the conversation."""
    _looked: bool = False
    _items: tuple[list[str], str] | None = None
    _options: list[list[Value]] | None = None
    _common: list[Value] | None = None
    _values: list[Value] | None = None
    _which: bool | None = None
    _asks_payment: bool | None = None

    def which(self) -> bool:
        """It asks the user to supply what to act on or what to do (`_WHICH`)."""
        if self._which is None:
            self._which = _WHICH.search(self.text) is not None
        return self._which

    def asks_payment(self) -> bool:
        """It asks how to pay (`_ASKS_PAYMENT`)."""
        if self._asks_payment is None:
            self._asks_payment = _ASKS_PAYMENT.search(self.text) is not None
        return self._asks_payment

    def lists(self) -> bool:
        """It lists options to choose from (two or more numbered or bulleted items)."""
        if not self._looked:
            self._items, self._looked = replies.items(self.text), True
        return self._items is not None

    def values(self) -> list[Value]:
        """Every value it names."""
        if self._values is None:
            self._values = self.read(self.text)
        return self._values

    def options(self) -> list[list[Value]]:
        """The values of each option it lists, by its number (1-based) or position."""
        if self._options is None:
            self._options = (
                [self.read(item) for item in self._items[0]]
                if self.lists() and self._items is not None
                else []
            )
        return self._options

    def common(self) -> list[Value]:
        """The values outside its options (a total, the reservation acted on)."""
        if self._common is None:
            self._common = (
                self.read(self._items[1])
                if self.lists() and self._items is not None
                else self.values()
            )
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
    asks_payment: bool = False
    """What it answers asked the user how to pay (or where a refund should go)."""
    proposed: bool = False
    """It answers a proposal the assistant asked the user to confirm or choose from."""
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

    def __init__(
        self,
        calls: Calls,
        options: ApprovalOptions,
        policy: Policy,
        languages: Callable[[], tuple[str, ...]] | None = None,
    ) -> None:
        self.calls = calls
        self.languages = languages or (lambda: languages_of(sample(calls.messages)))
        self.options = options
        self.policy = policy
        self.proposal: _Proposal | None = None  # the latest question not yet decided
        self.said: list[_Proposal] = []  # the assistant's words since the user spoke
        self.decision: _Decision | None = None
        self.shown: dict[str, Value] = {}  # payment methods the user has seen named
        self.cards: dict[str, str] = {}  # payment id -> last four digits, from tool results
        self.records = records.Records()  # what tool results show of bookings, orders, items
        self.user_words: set[str] = set()  # every word the user wrote, as records match them
        self.waived = False  # the user said no confirmation is needed ("just do it")
        self._lexicon: tuple[Lexicon | None] | None = None
        # Read into `records` and `user_words` when a covered call first needs them.
        self.unread: list[str] = []
        self.unheard: list[str] = []
        self.texts: dict[str, list[Value]] = {}  # each text's values, read once

    @property
    def lexicon(self) -> Lexicon | None:
        """The lexicon replies are also read with, in a conversation in another language: decided
        when a reply is first read (most walks read none)."""
        if self._lexicon is None:
            self._lexicon = (next(filter(None, map(lexicon, self.languages())), None),)
        return self._lexicon[0]

    def read(self, text: str) -> list[Value]:
        """The values a text names (`values.in_text`), read once however often it is said."""
        found = self.texts.get(text)
        if found is None:
            found = self.texts[text] = values.in_text(text)
        return found

    def gated(self) -> dict[int, str]:
        """The assistant's calls a decision may cover (by `id()`), each with why it needs
        approval (`required`: empty when only its name says it writes)."""
        found = {}
        for e in self.calls.exchanges:
            if e.caller != "assistant" or id(e) in self.calls.linked:
                continue
            required = self.options.reason(e.call.name) or self.policy.requires(e.call.name)
            if required or _MUTATING.match(e.call.name) or _mutating_in_english(e.call.name):
                found[id(e)] = required
        return found

    def walk(self) -> None:
        gated = self.gated()
        # After the last gated call nothing can be covered: only the cards a draft shows.
        last = max((e.turn for e in self.calls.exchanges if id(e) in gated), default=-1)
        for m in self.calls.messages:
            if m.index > last:
                if m.result is not None:
                    self.cards.update(values.card_profiles(m.result.text))
            elif m.role == "user" and m.text.strip():
                self._shown(m.text)
                self.unheard.append(m.text)
                self.waived = self.waived or replies.waives(m.text, self.lexicon)
                self.decision = self._decide(m)
                self.said = []
            elif m.role == "assistant":
                self._heard(m)
                for e in self.calls.at.get(m.index, ()):
                    if id(e) in gated:
                        self._cover(e, gated[id(e)])
            elif m.result is not None:
                self.cards.update(values.card_profiles(m.result.text))
                self.unread.append(m.result.text)

    def _heard(self, m: Message) -> None:
        if not m.text.strip():
            return
        self._shown(m.text)
        if m.tool_calls:
            return  # words beside a call report on it; the user could not answer them first
        here = _Proposal(m.index, m.text, replies.asks_to_confirm(m.text, self.lexicon), self.read)
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
                if p.lists()
            ),
            None,
        )
        said = replies.verdict(m.text, self.lexicon)
        verbs = replies.instructed(m.text) if said is None else None
        own = tuple(self.read(m.text))
        chosen = (
            None
            if listing is None
            else replies.chosen(m.text, own, listing.options(), said is not True)
        )
        about: frozenset[str] = frozenset()
        standing = decision is not None and decision.said is True
        if said is None and chosen is None and verbs is None and not standing:
            about = replies.asked_about(m.text)
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
        if said is False and self.proposal is None and not self.said:
            # "don't modify `send_with_retries`" after the assistant made its calls, with
            # nothing proposed since: a constraint on what comes next, not a denial of it.
            return decision
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
        corrects = kind != "yes" and replies.corrects(m.text)
        named = {v.kind for v in own if v.specific} if corrects else set()
        if any(v.kind == "payment" for v in own):
            named.add("payment")  # how to pay is the user's to say: "one of my certificates"
        confirmed = list(own) + [v for v in shown if v.kind not in named]
        rejected = (
            replies.rejected(listing.options(), chosen, confirmed) if listing and chosen else []
        )
        made = _Decision(kind, start, m.index, said, tuple(confirmed), tuple(rejected))
        made.proposed = self.proposal is not None and not self.proposal.which()
        made.corrected = frozenset(named)
        made.asks_payment = any(p.asks_payment() for p in asked)
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
                ApprovalDraft("policy", e.call.name, e.turn, execution=e, required_by=required)
            )

    def _covered(self, decision: _Decision, e: Exchange, required: str) -> ApprovalDraft:
        return ApprovalDraft(
            "natural-language",
            e.call.name,
            decision.question,
            approved=decision.said,
            decided_at=decision.reply,
            execution=e,
            decision_kind=decision.kind,
            confirmed=decision.confirmed,
            rejected=decision.rejected,
            shown=tuple(self.shown.values()),
            cards=self.cards,
            required_by=required,
            implied=self._implied(decision, e),
            unconfirmed=decision.kind == "instruction"
            and not decision.proposed
            and not self.waived
            and self.policy.explicitly(e.call.name),
        )

    def _implied(self, decision: _Decision, e: Exchange) -> tuple[Value, ...]:
        """Values of the call the user never named that go without saying: the items the
        user's own words describe (by a tool result's name or options); unless the user was
        asked how to pay, the payment the record it acts on was made with, and a payment
        method its result shows money sent back to."""
        for text in self.unread:
            self.records.read(text)
        for text in self.unheard:
            self.user_words.update(records.tokens(text))
        self.unread, self.unheard = [], []
        implied = self.records.named(e.call.arguments, self.user_words)
        if not decision.asks_payment:
            implied += self.records.paid_for(e.call.arguments)
            if e.result is not None and not e.failed:
                implied += self.records.refunded(e.result.text)
        return tuple(implied)


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


def _mutating_in_english(name: str) -> bool:
    """A tool name in another language with a verb of change (`anular_sic` -> `cancel_sic`,
    `buchung_stornieren` -> `buchung_cancel`)."""
    english = actions.translated(name)
    return english is not None and any(_MUTATING.match(w) for w in english.split("_"))


def gating(
    exchanges: Sequence[Exchange], options: ApprovalOptions, conversation: Conversation
) -> Policy | None:
    """The log's policy when some call of the assistant is gated: of a tool that writes
    (`book_…`, `cancel_…`), or that `require_approval` or the log's own policy requires approval
    for; None when none is, and nothing a decision could cover needs reading any message."""
    names = {e.call.name for e in exchanges if e.caller == "assistant"}
    if not names:
        return None
    policy = read_policy(conversation)
    if any(
        _MUTATING.match(n) or _mutating_in_english(n) or options.requires(n) or policy.requires(n)
        for n in names
    ):
        return policy
    return None


def pair(
    calls: Calls,
    options: ApprovalOptions,
    policy: Policy,
    languages: Callable[[], tuple[str, ...]] | None = None,
) -> None:
    """Add a draft for every gated call of the assistant (see `gating`, which gives `policy`)
    to `calls.drafts`: covered by a decision in plain language, or (`policy`) required and
    not."""
    _Walk(calls, options, policy, languages).walk()
