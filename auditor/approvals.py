"""Approvals paired with the calls they gate, once, for every rule (the approval half of replay).

Four sources, read here and nowhere else:
- `explicit`: the approval events formats normalise (Responses `mcp_approval_request`,
  `mcp_approval_response`, `mcp_call`; stream `approval_request`/`approval_response`; Claude
  Code rejections). A request pairs with its decision by id, and with the call it gates by the
  request's `call_id`, by the call's `approval_request_id`, or else as the next call of its tool.
- `pattern`: in chat logs, a tool result that asks for confirmation instead of running (one of
  `pending_patterns`), the user's reply, and the next call of that tool by the same caller.
- `natural-language` (tau-bench): an assistant message that asks the user to confirm, the user's
  yes (or no), and the calls of mutating tools that follow before the user speaks again.
- `policy`: a call of a tool that `require_approval` names and that nothing above approved.
"""

from __future__ import annotations

import fnmatch
import re
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

import orjson

from auditor import canonical
from auditor.errors import ConfigError
from auditor.model import ApprovalDecision, ApprovalRequest, Conversation, Message

if TYPE_CHECKING:
    from auditor.replay import Exchange

Source = Literal["explicit", "pattern", "natural-language", "policy"]

DEFAULT_PENDING_PATTERNS = (
    r"confirmation_required",
    r"awaiting (user )?approval",
    r"requires? (user )?confirmation",
)

# Where a tool result asking for confirmation says so: its opening, not deep inside data
# (a list of pull requests "awaiting approval" is not a request for one).
_PENDING_SCAN = 300
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


@dataclass(frozen=True, slots=True)
class ApprovalOptions:
    """What replay needs to find approvals in chat logs: `[tool.auditor.approvals]`."""

    require_approval: tuple[str, ...] = ()
    """Glob patterns (`book_*`) of tools that must be approved before they run; none by default."""
    pending_patterns: tuple[str, ...] = DEFAULT_PENDING_PATTERNS
    """Regular expressions (case-insensitive) a tool result matches when it asks for approval."""

    def __post_init__(self) -> None:
        for name in ("require_approval", "pending_patterns"):
            value = getattr(self, name)
            object.__setattr__(self, name, (value,) if isinstance(value, str) else tuple(value))
        for pattern in self.pending_patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ConfigError(f"invalid pending-patterns entry `{pattern}`: {exc}") from exc

    @classmethod
    def merge(cls, options: Iterable[Any]) -> ApprovalOptions:
        """One set of options from those of the enabled rules (the CF rules share theirs)."""
        found = [o for o in options if isinstance(o, ApprovalOptions)]
        if not found:
            return cls()
        return cls(
            tuple(dict.fromkeys(p for o in found for p in o.require_approval)),
            tuple(dict.fromkeys(p for o in found for p in o.pending_patterns)),
        )

    def requires(self, tool: str) -> bool:
        """The tool matches one of `require_approval`."""
        return any(fnmatch.fnmatchcase(tool, p) for p in self.require_approval)


@dataclass(frozen=True, slots=True)
class Approval:
    """One call's approval as the log tells it: where it was asked, the decision, what ran."""

    source: Source
    name: str
    """The tool the approval is for."""
    turn: int
    """Where approval was asked: the request event, the tool result asking for confirmation, or
    the assistant's question; for `policy`, the call itself."""
    arguments: Any = None
    """What the executed call must match: the request's arguments, or the person's edit when the
    call was logged after it; None where the log shows none (`natural-language`, `policy`)."""
    raw_arguments: str | None = None
    """`arguments` as logged, when they came as a JSON string."""
    edited: bool = False
    """The person changed the arguments before approving (an `edit` decision)."""
    approved: bool | None = None
    """True: approved (for a Responses `mcp_call` that names its request, by the API even when the
    decision is not in the log); False: denied; None: no decision, or a reply neither yes nor no."""
    decided_at: int | None = None
    """The message holding the decision (in chat logs the user's reply, even an unclear one)."""
    request: ApprovalRequest | None = None
    decision: ApprovalDecision | None = None
    execution: Exchange | None = None
    """The call that ran under this approval; None when nothing ran."""
    text: str = ""
    """`natural-language`: what the user confirmed, from the question to the call."""
    asked_again: int | None = None
    """The message where the same call asked for approval again after it was approved."""


class _Draft:
    """An Approval while the walk is still filling it in."""

    def __init__(self, source: Source, name: str, turn: int, **fields: Any) -> None:
        self.source = source
        self.name = name
        self.turn = turn
        self.arguments: Any = None
        self.raw_arguments: str | None = None
        self.asked: Any = None  # the request's own arguments, whatever the edit
        self.edited = False
        self.approved: bool | None = None
        self.decided_at: int | None = None
        self.request: ApprovalRequest | None = None
        self.decision: ApprovalDecision | None = None
        self.execution: Exchange | None = None
        self.gated: Exchange | None = None  # the call the request is for, logged before it
        self.text = ""
        self.asked_again: int | None = None
        for key, value in fields.items():
            setattr(self, key, value)

    @classmethod
    def of_call(cls, source: Source, e: Exchange, turn: int, **fields: Any) -> _Draft:
        """An approval of a call as the call itself shows it."""
        call = e.call
        return cls(
            source,
            call.name,
            turn,
            arguments=call.arguments,
            raw_arguments=call.raw_arguments,
            asked=call.arguments,
            **fields,
        )

    def open(self) -> bool:
        return self.execution is None and self.gated is None and self.asked_again is None

    def freeze(self) -> Approval:
        return Approval(
            self.source,
            self.name,
            self.turn,
            self.arguments,
            self.raw_arguments,
            self.edited,
            self.approved,
            self.decided_at,
            self.request,
            self.decision,
            self.execution,
            self.text,
            self.asked_again,
        )


def pair(
    conversation: Conversation, exchanges: Sequence[Exchange], options: ApprovalOptions
) -> tuple[Approval, ...]:
    """Every approval in the conversation, paired with its decision and the call that ran."""
    walk = _Walk(conversation.messages, exchanges, options)
    walk.explicit()
    walk.pattern()
    walk.natural_language()
    return tuple(d.freeze() for d in walk.drafts)


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


@lru_cache(maxsize=32)
def _pending(patterns: tuple[str, ...]) -> Callable[[str], bool] | None:
    """A test for "this tool result asks for approval", case-insensitive.

    Every tool result is tested, and `re.IGNORECASE` makes a search five times slower: patterns
    with no capital letter (escapes like `\\S` aside) are matched against the lowercased text
    instead, which is the same test.
    """
    if not patterns:
        return None
    joined = "|".join(f"(?:{p})" for p in patterns)
    bare = _CLASS_ESCAPES.sub("", joined)
    if "\\" not in bare and bare == bare.lower():
        lowered = re.compile(joined)
        return lambda text: lowered.search(text.lower()) is not None
    folded = re.compile(joined, re.I)
    return lambda text: folded.search(text) is not None


# Escapes that mean the same on lowercased text; any other (`\x41`, `\N{…}`) keeps re.I.
_CLASS_ESCAPES = re.compile(r"\\[sSdDwWbB.\\\-()\[\]{}|?*+^$ /_:'\"]")


def _arguments(value: Any) -> tuple[Any, str | None]:
    """Arguments as an approval event logs them: a JSON string is parsed, anything else kept."""
    if isinstance(value, str):
        try:
            return orjson.loads(value), value
        except orjson.JSONDecodeError:
            return None, value
    return value, None


class _Walk:
    def __init__(
        self, messages: Sequence[Message], exchanges: Sequence[Exchange], options: ApprovalOptions
    ) -> None:
        self.messages = messages
        self.exchanges = exchanges
        self.options = options
        self.calls_at: dict[int, list[Exchange]] = {}
        self.calls_by_id: dict[str, list[Exchange]] = {}
        for e in exchanges:
            self.calls_at.setdefault(e.turn, []).append(e)
            if e.call.id is not None:
                self.calls_by_id.setdefault(e.call.id, []).append(e)
        # Explicit requests still waiting for their call, by the call id they name, or by tool
        # name when they name none; approved ones by tool name, to notice a request repeated.
        self.waiting_by_id: dict[str, list[_Draft]] = {}
        self.waiting_by_name: dict[str, deque[_Draft]] = {}
        self.approved_by_name: dict[str, list[_Draft]] = {}
        self.linked: set[int] = set()  # id() of the exchanges an approval accounts for
        self.drafts: list[_Draft] = []
        self.pending = _pending(options.pending_patterns)

    # explicit events ---------------------------------------------------------------------

    def explicit(self) -> None:
        requests: dict[str, _Draft] = {}
        for m in self.messages:
            if m.approval_request is not None:
                self._request(m.approval_request, m.index, requests)
            if m.approval_decision is not None:
                self._decision(m.approval_decision, m.index, requests)
            for e in self.calls_at.get(m.index, ()):
                self._explicit_call(e, requests)
        for d in self.drafts:
            if d.gated is not None and self._ran(d.gated):
                d.execution = d.gated

    def _request(self, r: ApprovalRequest, index: int, requests: dict[str, _Draft]) -> None:
        value, raw = _arguments(r.arguments)
        approved = [d for d in self.approved_by_name.get(r.name, ()) if d.open()]
        self.approved_by_name[r.name] = approved
        for d in approved:
            if _same(d, r, value):
                d.asked_again = index
        gated = self._call_before(r.call_id, index)
        if gated is not None:
            self.linked.add(id(gated))
        d = _Draft(
            "explicit",
            r.name or (gated.call.name if gated else ""),
            index,
            arguments=value,
            raw_arguments=raw,
            asked=value,
            request=r,
            gated=gated,
        )
        requests[r.id] = d
        self.drafts.append(d)
        if gated is None and r.call_id is not None:
            self.waiting_by_id.setdefault(r.call_id, []).append(d)
        elif gated is None:
            self.waiting_by_name.setdefault(d.name, deque()).append(d)

    def _decision(self, dec: ApprovalDecision, index: int, requests: dict[str, _Draft]) -> None:
        d = requests.get(dec.request_id)
        if d is None:
            # No request event: the decision names the call itself (a Claude Code rejection).
            gated = self._call_before(dec.request_id, index)
            if gated is None:
                return
            self.linked.add(id(gated))
            d = _Draft.of_call("explicit", gated, gated.turn, gated=gated)
            requests[dec.request_id] = d
            self.drafts.append(d)
        if d.decision is not None:
            return  # a second answer to one request: the first one stands
        d.decision, d.approved, d.decided_at = dec, dec.approved, index
        if dec.approved and d.request is not None:
            self.approved_by_name.setdefault(d.request.name, []).append(d)
        # An edit is what a call made after the decision must match; a call logged before the
        # request still shows what the person was asked about.
        if dec.arguments is not None and d.gated is None:
            d.arguments, d.raw_arguments = _arguments(dec.arguments)
            d.edited = True

    def _explicit_call(self, e: Exchange, requests: dict[str, _Draft]) -> None:
        call = e.call
        if call.approval_request_id is not None:
            d = requests.get(call.approval_request_id)
            self.linked.add(id(e))
            if d is not None and d.open():
                d.execution = e
                if d.approved is None:
                    d.approved = True  # the API ran it, so it was approved (SPEC §2)
            return
        if call.id is not None:
            for d in reversed(self.waiting_by_id.get(call.id, ())):
                if d.open():
                    self._link(d, e)
                    return
        queue = self.waiting_by_name.get(call.name)
        while queue and not queue[0].open():
            queue.popleft()
        if queue:
            self._link(queue.popleft(), e)

    def _link(self, d: _Draft, e: Exchange) -> None:
        d.execution = e
        self.linked.add(id(e))

    def _call_before(self, call_id: str | None, index: int) -> Exchange | None:
        if call_id is None:
            return None
        for e in reversed(self.calls_by_id.get(call_id, ())):
            if e.turn < index:
                return e
        return None

    def _ran(self, e: Exchange) -> bool:
        """The call got a result that is not a rejection of it."""
        if e.result is None or e.result_turn is None:
            return False
        decision = self.messages[e.result_turn].approval_decision
        return decision is None or decision.approved

    # tool results asking for confirmation -------------------------------------------------

    def pattern(self) -> None:
        if self.pending is None:
            return
        later: dict[tuple[str, str], int] = {}
        next_turn: list[int] = [len(self.messages)] * len(self.exchanges)
        for i in range(len(self.exchanges) - 1, -1, -1):
            e = self.exchanges[i]
            key = (e.caller, e.call.name)
            next_turn[i] = later.get(key, len(self.messages))
            later[key] = e.turn
        waiting: dict[tuple[str, str], _Draft] = {}
        for i, e in enumerate(self.exchanges):
            if id(e) in self.linked:
                continue
            key = (e.caller, e.call.name)
            asks = e.result is not None and self.pending(e.result.text[:_PENDING_SCAN])
            earlier = waiting.pop(key, None)
            if earlier is not None:
                if asks:
                    if earlier.approved:
                        earlier.asked_again = e.result_turn
                elif earlier.decided_at is not None or _same_arguments(earlier, e):
                    # Unanswered, only the same call re-emitted ran under it: another call of
                    # the tool (a new search) is not the one that asked.
                    self._link(earlier, e)
            if asks and e.result_turn is not None:
                self.linked.add(id(e))
                d = _Draft.of_call("pattern", e, e.result_turn)
                self._reply(d, e.result_turn + 1, next_turn[i])
                waiting[key] = d
                self.drafts.append(d)

    def _reply(self, d: _Draft, start: int, stop: int) -> None:
        for m in self.messages[start:stop]:
            if m.role == "user" and m.text.strip():
                d.approved, d.decided_at = verdict(m.text), m.index
                return

    # natural-language confirmations -------------------------------------------------------

    def natural_language(self) -> None:
        if not any(e.caller == "assistant" and self._gated(e) for e in self.exchanges):
            return  # nothing a confirmation could approve: spare the reading of every message
        ask: int | None = None  # the assistant's question waiting for the user's answer
        grant: _Grant | None = None
        for m in self.messages:
            if m.role == "user" and m.text.strip():
                if grant is not None and (grant.used or (grant.said is False and ask is None)):
                    grant = None  # it covered the calls before this; a no, only the next answer
                if ask is not None:
                    said = verdict(m.text)
                    # A reply that is neither yes nor no does not undo an earlier yes.
                    if said is not None or grant is None or grant.said is not True:
                        grant = _Grant(ask, m.index, said)
                    ask = None
            elif m.role == "assistant":
                if m.text.strip() and not m.tool_calls:
                    ask = m.index if asks_to_confirm(m.text) else None
                for e in self.calls_at.get(m.index, ()):
                    if e.caller != "assistant" or id(e) in self.linked or not self._gated(e):
                        continue
                    self.linked.add(id(e))
                    if grant is not None:
                        self.drafts.append(self._confirmed(grant, e))
                    elif self.options.requires(e.call.name):
                        self.drafts.append(_Draft("policy", e.call.name, e.turn, execution=e))

    def _gated(self, e: Exchange) -> bool:
        if self.options.require_approval:
            return self.options.requires(e.call.name)
        return _MUTATING.match(e.call.name) is not None

    def _confirmed(self, grant: _Grant, e: Exchange) -> _Draft:
        if not grant.used:
            # What the user confirmed ends where the first call it approved begins: what the
            # assistant says between later calls reports on earlier ones.
            grant.used = True
            grant.text = "\n".join(
                m.text
                for m in self.messages[grant.question : e.turn]
                if m.role in ("assistant", "user")
            )
        return _Draft(
            "natural-language",
            e.call.name,
            grant.question,
            approved=grant.said,
            decided_at=grant.reply,
            execution=e,
            text=grant.text,
        )


class _Grant:
    """The user's answer to an assistant's request to confirm, until the calls it covers ran."""

    __slots__ = ("question", "reply", "said", "text", "used")

    def __init__(self, question: int, reply: int, said: bool | None) -> None:
        self.question = question
        self.reply = reply
        self.said = said
        self.used = False
        self.text = ""


def _same_arguments(d: _Draft, e: Exchange) -> bool:
    """The call that asked, sent again, perhaps with a confirmation flag the model set itself
    (`"confirmed": true`): that flag is the approval it was supposed to get from the user."""
    return canonical.same_meaning(_unflagged(d.asked), _unflagged(e.call.arguments))


_SELF_APPROVAL = re.compile(
    r"(?:user_?)?(?:confirm(?:ed|ation)?|approved?|approval|force|skip_?confirm(?:ation)?|yes)",
    re.I,
)


def _unflagged(arguments: Any) -> Any:
    if not isinstance(arguments, dict):
        return arguments
    return {k: v for k, v in arguments.items() if not _SELF_APPROVAL.fullmatch(str(k))}


def _same(d: _Draft, r: ApprovalRequest, arguments: Any) -> bool:
    """A new request for the call an earlier approval was about."""
    earlier = d.request
    if earlier is not None and r.call_id is not None and earlier.call_id == r.call_id:
        return True
    return (
        d.name == r.name
        and arguments is not None
        and any(
            a is not None and canonical.same_meaning(a, arguments) for a in (d.asked, d.arguments)
        )
    )
