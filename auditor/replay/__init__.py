"""One walk per conversation that pairs calls with results, once, for every rule.

A call is paired with the first later result that carries its id; a result without an id
answers the oldest open call. A call is *passed* when the role that made it speaks again
before its result arrives: the caller moved on without the tool's output.

Converters write the parallel calls of one model response one message per call, and a log
that records results as they come (Claude Code) puts results between the calls of the batch,
even a result before its own call. So a *batch* is a run of messages holding only calls, with
the results among them, up to the next message that says something (text) or comes from
another role. Within a batch:

- a message holding only calls, right after a message of the same role with calls, passes
  nothing;
- one after a result defers the caller's waiting calls that have an id: each is passed there
  only if its result, named by that id, has not arrived when the batch ends (a call without
  an id is passed at once: a result without an id could answer any call);
- a result whose id names no call yet answers the first call of the batch with that id, made
  after it; it is an orphan only if no such call follows.
Approvals are paired with the calls they gate (`auditor.replay.approvals`) when a rule first asks
for them. Rules read the pairing from here and never pair anything themselves.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable
from functools import cache
from typing import Any, TypeVar, overload

from auditor.languages.detect import languages_of, sample
from auditor.model import Conversation, Message, ToolCall, ToolResult, turn_of
from auditor.replay.approvals import Approval, ApprovalOptions, pair
from auditor.replay.calls import Exchange, Orphan, Turn, failed, looks_like_error

T = TypeVar("T")

__all__ = [
    "Approval",
    "ApprovalOptions",
    "Exchange",
    "Orphan",
    "Replay",
    "Turn",
    "looks_like_error",
    "replay",
]


class Replay:
    """A conversation with its calls, results and turns paired.

    What several rules need beyond the pairing is computed once, on first use, and kept here
    (`shared`): approvals, the loop rules' calls and keys, the text rules' readings.
    """

    __slots__ = (
        "_approvals",
        "_options",
        "_shared",
        "conversation",
        "exchanges",
        "orphans",
        "turns",
    )

    def __init__(
        self,
        conversation: Conversation,
        turns: tuple[Turn, ...],
        exchanges: tuple[Exchange, ...],
        orphans: tuple[Orphan, ...],
        options: ApprovalOptions | None = None,
    ) -> None:
        self.conversation = conversation
        self.turns = turns
        self.exchanges = exchanges
        """Every call in the order it was made."""
        self.orphans = orphans
        self._options = options or _default_options()
        self._approvals: tuple[Approval, ...] | None = None
        self._shared: dict[Hashable, Any] = {}

    @property
    def approvals(self) -> tuple[Approval, ...]:
        """Every approval asked, decided or required, with the call that ran under it: paired
        on first use (`auditor.replay.approvals.pair`), which most conversations make cheap."""
        if self._approvals is None:
            self._approvals = pair(self.conversation, self.exchanges, self._options, self.languages)
        return self._approvals

    def languages(self) -> tuple[str, ...]:
        """The languages the conversation is read in (`auditor.languages.detect.languages_of`
        of what its user and assistant write), decided once for the rules and the approvals."""
        return self.shared("language", _languages)

    def languages_read(self) -> tuple[str, ...] | None:
        """`languages()` when some rule or the approvals decided them, else None (not decided
        just to be counted)."""
        found: tuple[str, ...] | None = self._shared.get("language")
        return found

    def said(self) -> str:
        """The text of every assistant message, joined by NUL: where screens look for their
        markers, once per conversation rather than once per message (no marker holds a NUL,
        so one found here is in some message's text)."""
        return self.shared("said", _said)

    def shared(self, key: Hashable, make: Callable[[Replay], T]) -> T:
        """`make(self)`, computed once for this replay whichever rule asks first: what rules
        share (their options belong in `key` when the result depends on them)."""
        try:
            return self._shared[key]
        except KeyError:
            value = self._shared[key] = make(self)
            return value

    @overload
    def at(self, index: int) -> int: ...
    @overload
    def at(self, index: None) -> None: ...
    def at(self, index: int | None) -> int | None:
        """The turn a finding's message names for message `index`: its place in the file
        (`model.turn_of`), as the finding's own turn is reported."""
        messages = self.conversation.messages
        if index is None or not 0 <= index < len(messages):
            return index
        return turn_of(messages[index])

    def history(self, turn: Turn) -> tuple[Exchange, ...]:
        """The calls made before `turn`, with their outcomes."""
        return self.exchanges[: turn.first_exchange]

    def pending(self, turn: Turn) -> list[Exchange]:
        """The assistant's earlier calls that had no result yet when `turn` was written.

        Computed on demand (a scan of the history): kept on every turn, a run of unanswered
        calls would make replay quadratic in time and memory.
        """
        at = turn.message.index
        return [
            e
            for e in self.history(turn)
            if e.caller == "assistant" and (e.result_turn is None or e.result_turn > at)
        ]


def _said(replay: Replay) -> str:
    return "\x00".join(t.message.text for t in replay.turns)


@cache
def _default_options() -> ApprovalOptions:
    return ApprovalOptions()  # checks its patterns: built once, not per conversation


class _Open:
    """An exchange while the walk is still looking for its result."""

    __slots__ = ("call", "caller", "passed_at", "result", "result_turn", "taken", "turn")

    def __init__(self, call: ToolCall, turn: int, caller: str) -> None:
        self.call = call
        self.turn = turn
        self.caller = caller
        self.result: ToolResult | None = None
        self.result_turn: int | None = None
        self.passed_at: int | None = None
        self.taken = False

    def freeze(self) -> Exchange:
        return Exchange(
            self.call,
            self.turn,
            self.caller,
            self.result,
            self.result_turn,
            self.passed_at,
            failed(self.result),
        )


class _Waiting:
    """Calls without a result, indexed: by id for results that name one, in call order for
    results that do not, and by caller for marking calls passed. Each call enters and leaves
    each index once, so pairing is linear however many calls stay unanswered."""

    __slots__ = ("by_caller", "by_id", "deferred", "order")

    def __init__(self) -> None:
        self.order: deque[_Open] = deque()
        self.by_id: dict[str, deque[_Open]] = {}
        self.by_caller: dict[str, list[_Open]] = {}
        """Calls not yet passed: their caller has not spoken since making them."""
        self.deferred: dict[str, list[tuple[_Open, int]]] = {}
        """Calls whose caller went on with more calls of the same batch, with where: passed
        there if the batch ends before their result arrives."""

    def add(self, opened: _Open) -> None:
        self.order.append(opened)
        if opened.call.id is not None:
            self.by_id.setdefault(opened.call.id, deque()).append(opened)
        self.by_caller.setdefault(opened.caller, []).append(opened)

    def take(self, call_id: str | None) -> _Open | None:
        """Remove and return the open call a result answers: the oldest with its id, or the
        oldest of all when the result names none."""
        if call_id is None:
            queue = self.order
        else:
            queue = self.by_id.get(call_id)  # type: ignore[assignment]
            if queue is None:
                return None
        while queue:
            opened = queue.popleft()
            if not opened.taken:
                opened.taken = True
                return opened
        return None

    def pass_calls(self, caller: str, index: int) -> None:
        """The caller speaks again: its calls still waiting were passed over."""
        opened = self.by_caller.pop(caller, None)
        for w in opened or ():
            if not w.taken and w.passed_at is None:
                w.passed_at = index

    def defer(self, caller: str, index: int) -> None:
        """The caller makes more calls of the batch after a result: its calls still waiting
        are passed at `index` unless their results, by id, arrive before the batch ends."""
        opened = self.by_caller.pop(caller, None)
        for w in opened or ():
            if w.taken or w.passed_at is not None:
                continue
            if w.call.id is None:
                w.passed_at = index
            else:
                self.deferred.setdefault(caller, []).append((w, index))

    def settle(self, keep: str | None = None) -> None:
        """The batch ends (for every caller but `keep`): deferred calls still waiting are
        passed where they were deferred."""
        for caller in [c for c in self.deferred if c != keep]:
            for w, index in self.deferred.pop(caller):
                if not w.taken and w.passed_at is None:
                    w.passed_at = index


def _languages(replay: Replay) -> tuple[str, ...]:
    return languages_of(sample(replay.conversation.messages))


def replay(conversation: Conversation, approvals: ApprovalOptions | None = None) -> Replay:
    """Walk the conversation once and pair everything.

    `approvals` says how to find approvals in chat logs (the CF rules' options); defaults apply
    when it is None.
    """
    made: list[_Open] = []
    waiting = _Waiting()
    orphans: list[Orphan | None] = []  # None: an early result its call claimed later
    early: dict[str, int] = {}  # call id -> index in `orphans`: results of the batch before it
    closed: dict[str, int] = {}  # call id -> turn, for calls already answered
    turn_parts: list[tuple[Message, int, int]] = []
    speakers = waiting.by_caller
    previous: Message | None = None  # the message before, approval events left out
    for message in conversation.messages:
        if message.result is not None:
            match = waiting.take(message.result.call_id)
            if match is None:
                call_id = message.result.call_id
                earlier = closed.get(call_id) if call_id is not None else None
                if call_id is not None and earlier is None:
                    early.setdefault(call_id, len(orphans))
                orphans.append(Orphan(message, message.result, earlier))
            else:
                match.result = message.result
                match.result_turn = message.index
                if match.call.id is not None:
                    closed[match.call.id] = match.turn
        if message.role not in ("tool", "approval"):
            only_calls = _only_calls(message)
            if not only_calls:
                early.clear()
            waiting.settle(keep=message.role if only_calls else None)
            if message.role in speakers and not _same_batch(message, previous):
                if only_calls:
                    waiting.defer(message.role, message.index)  # more calls of its batch
                else:
                    waiting.pass_calls(message.role, message.index)  # it moved on without them
        if message.role != "tool":
            first = len(made)
            for call in message.tool_calls:
                opened = _Open(call, message.index, message.role)
                made.append(opened)
                cid = call.id
                at = early.pop(cid, None) if cid is not None else None
                logged = orphans[at] if at is not None else None  # its result, logged before it
                if cid is None or at is None or logged is None:
                    waiting.add(opened)
                    continue
                orphans[at] = None
                opened.result, opened.result_turn = logged.result, logged.message.index
                opened.taken = True
                closed[cid] = message.index
            if message.role == "assistant":
                turn_parts.append((message, first, len(made)))
        if message.role != "approval":
            previous = message
    waiting.settle()
    frozen = tuple(m.freeze() for m in made)
    turns = tuple(Turn(message, frozen[first:end], first) for message, first, end in turn_parts)
    kept = tuple(o for o in orphans if o is not None)
    return Replay(conversation, turns, frozen, kept, approvals)


def _only_calls(message: Message) -> bool:
    """The message makes calls and says nothing."""
    return bool(message.tool_calls) and (not message.text or message.text.isspace())


def _same_batch(message: Message, previous: Message | None) -> bool:
    """`message` holds only calls and follows calls of the same role: one parallel batch."""
    return (
        _only_calls(message)
        and previous is not None
        and previous.role == message.role
        and bool(previous.tool_calls)
    )
