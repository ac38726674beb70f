"""What every source of approvals shares: the Approval a rule reads, the ApprovalDraft a walk fills
in, and the conversation's calls indexed once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any, Literal

import orjson

from auditor.common.structs import dataclass
from auditor.model import ApprovalDecision, ApprovalRequest, Message
from auditor.reading.values import Value

if TYPE_CHECKING:
    from auditor.replay.calls import Exchange

ApprovalSource = Literal["explicit", "pattern", "natural-language", "policy"]


@dataclass(frozen=True, slots=True)
class Approval:
    """One call's approval as the log tells it: where it was asked, the decision, what ran."""

    source: ApprovalSource
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
    asked_again: int | None = None
    """The message where the same call asked for approval again after it was approved."""
    reissued: Exchange | None = None
    """`pattern`: the call re-emitted after the approval whose result asked for it again."""
    decision_kind: str | None = None
    """`natural-language`: `yes`, `no`, `choice`, `instruction` or `unclear`."""
    confirmed: tuple[Value, ...] = ()
    """`natural-language`: the values the user confirmed, chose or named."""
    rejected: tuple[Value, ...] = ()
    """`natural-language`: values of the options the user did not pick."""
    shown: tuple[Value, ...] = ()
    """`natural-language`: every payment method named to or by the user before the call."""
    cards: Mapping[str, str] = field(default_factory=dict)
    """Payment ids -> the last four digits the conversation's tool results show for them."""
    required_by: str = ""
    """Why the call needed approval, when it did: `require-approval` or the log's own policy."""
    implied: tuple[Value, ...] = ()
    """`natural-language`: values of the call the user never named that go without saying
    (`records.py`): items the user described in words, and, when the user was not asked how
    to pay, the payment the record acted on was made with or a refund's payment method."""
    unconfirmed: bool = False
    """`natural-language`: the decision is the user's request alone (no summary of the action's
    details confirmed) where the log's policy asks for an explicit confirmation, and the user
    never waived it ("no need to check with me, just do it")."""


class ApprovalDraft:
    """An Approval while a walk is still filling it in."""

    def __init__(self, source: ApprovalSource, name: str, turn: int, **fields: Any) -> None:
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
        self.asked_again: int | None = None
        self.reissued: Exchange | None = None
        self.decision_kind: str | None = None
        self.confirmed: tuple[Value, ...] = ()
        self.rejected: tuple[Value, ...] = ()
        self.shown: tuple[Value, ...] = ()
        self.cards: Mapping[str, str] = {}
        self.required_by = ""
        self.implied: tuple[Value, ...] = ()
        self.unconfirmed = False
        for key, value in fields.items():
            setattr(self, key, value)

    @classmethod
    def of_call(
        cls, source: ApprovalSource, e: Exchange, turn: int, **fields: Any
    ) -> ApprovalDraft:
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
            self.asked_again,
            self.reissued,
            self.decision_kind,
            self.confirmed,
            self.rejected,
            self.shown,
            self.cards,
            self.required_by,
            self.implied,
            self.unconfirmed,
        )


class Calls:
    """The conversation's calls indexed once, and which of them an approval accounts for."""

    def __init__(self, messages: Sequence[Message], exchanges: Sequence[Exchange]) -> None:
        self.messages = messages
        self.exchanges = exchanges
        self.at: dict[int, list[Exchange]] = {}
        self.by_id: dict[str, list[Exchange]] = {}
        for e in exchanges:
            self.at.setdefault(e.turn, []).append(e)
            if e.call.id is not None:
                self.by_id.setdefault(e.call.id, []).append(e)
        self.linked: set[int] = set()  # id() of the exchanges an approval accounts for
        self.drafts: list[ApprovalDraft] = []

    def link(self, d: ApprovalDraft, e: Exchange) -> None:
        d.execution = e
        self.linked.add(id(e))

    def before(self, call_id: str | None, index: int) -> Exchange | None:
        """The latest call with this id made before message `index`."""
        if call_id is None:
            return None
        for e in reversed(self.by_id.get(call_id, ())):
            if e.turn < index:
                return e
        return None


def parse_arguments(value: Any) -> tuple[Any, str | None]:
    """Arguments as an approval event logs them: a JSON string is parsed, anything else kept."""
    if isinstance(value, str):
        try:
            return orjson.loads(value), value
        except orjson.JSONDecodeError:
            return None, value
    return value, None
