r"""The assistant says an action is done with values other than those of the call that did it.

## What it does
Reads the assistant's completion claims as FB003 does ("your reservation ABC123 has been
cancelled", "I've sent the invitation to bob@acme.test") and the values each states in its own
clause: amounts, dates, payment methods, flight numbers, e-mail addresses, ids, file names, and
the new value of a setting it quotes ("the password has been changed to 'Tr0ub4dor'"). The
calls that did the action are the successful calls, since the user last asked for it, of the
tools FB003 matches the claim to (the conversation's own tools of the claim's verb family, the
tools its verb names). Fires when a stated value is of a kind those calls sent (a date where
the call sent dates, an id where it sent ids) and matches none of them, nor what their results
returned, nor a value of any other successful call of those tools up to the user's next turn.
One finding per message; it names the claimed value and the call's value.

## Why is this bad?
The user is told the action was done as they asked, and it was done otherwise: the money went
to another account, the other reservation was cancelled, the flight booked for the wrong day.
The transcript holds both the claim and the call, but nobody compares them, and the user has
no reason to check.

## Example
```jsonl
{"id": "wrong-booking", "tools": [{"type": "function", "function": {"name": "cancel_reservation", "parameters": {"type": "object"}}}], "messages": [{"role": "user", "content": "Please cancel reservation ABC123."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "cancel_reservation", "arguments": "{\"reservation_id\": \"XYZ789\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "{\"reservation_id\": \"XYZ789\", \"status\": \"cancelled\"}"}, {"role": "assistant", "content": "Your reservation ABC123 has been cancelled."}]}
```

## How to fix
Write the confirmation from the call, not from the conversation: after the tool returns, the
reply should restate the values the call sent and those its result returned. When a value
changed on the way (another card after the first was declined), the agent must tell the user
what changed, and ask first (CF001). A harness can compare the values a reply states with the
last successful call of that tool before the reply is sent. If the call itself was wrong (the
user asked for another date), fix what led the agent to that value.

## Does not fire on
- values of a kind the calls did not send: a date in a claim about a cancellation that takes
  only the reservation's id, an amount the tool computed, a count ("2 bags have been added");
- values the call's result returned (the new reservation's id, the refund it computed), and
  amounts that are a sum, a share or a multiple (passengers) of those sent;
- a wrong call followed by a right one: a value of any successful matching call before the
  user's next turn backs the claim;
- values written as what was there before ("changed from HAT001", "instead of May 20"), and a
  removal done by a tool of change ("HAT002 has been removed" by an update that no longer
  sends it): only a tool named for the removal (`cancel_…`, `delete_…`) is compared;
- a claim with no successful matching call since the user asked: that is FB003's;
- a conversation in a language with no lexicon (claims are read in English, Spanish,
  Portuguese, French, German and Italian, as FB003 reads them). In the other five languages
  it compares ids, e-mail addresses and numbers as they are written; dates in words ("27 de
  julio") are not read.
It misses recipients and items named in words ("I've paid Apple") when the call sends an
account number or an id, and values outside the claim's own clause ("…has been cancelled. The
refund of $120 goes to your Visa").
```jsonl
{"id": "right-booking", "tools": [{"type": "function", "function": {"name": "book_reservation", "parameters": {"type": "object"}}}], "messages": [{"role": "user", "content": "Book HAT001 on May 20 for me, I'll pay with gift_card_11."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "book_reservation", "arguments": "{\"flights\": [{\"flight_number\": \"HAT001\", \"date\": \"2024-05-20\"}], \"payment_id\": \"gift_card_11\", \"amount\": 120}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "{\"reservation_id\": \"K7XQ2M\", \"status\": \"booked\"}"}, {"role": "assistant", "content": "Your reservation K7XQ2M has been booked: flight HAT001 on May 20th for $240 in total for two passengers, paid with gift_card_11."}]}
```
"""

from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from auditor.findings import Violation, excerpt
from auditor.reading.actions import FAMILY, tools_for, words
from auditor.reading.values import Argument, Value, card_profiles, in_text, leaves, same
from auditor.replay import Exchange, Replay
from auditor.replay.approvals.drift import explained
from auditor.rules._claims import Claim, may_claim, own_tools, quoted, requests, said_done
from auditor.rules._stated import sent, stated

REQUIRES = ("lexicon", "calls")
_KIN = {"code": ("flight", "id")}
"""Kinds of sent values a stated value is compared with, where not its own kind."""
_SHARES = range(2, 6)
_REMOVALS = FAMILY["cancel"]
"""Verbs whose claim names what is gone: only a call of a tool named for it sent that."""


def screen(replay: Replay, options: None) -> bool:
    """Some answer holds the words every English claim is made of (`have`, `been`, `'ve`), or
    the conversation is in another language with a lexicon."""
    return may_claim(replay)


def check(replay: Replay, options: None) -> Iterator[Violation]:
    claimed = said_done(replay)
    mine = [e for e in replay.exchanges if e.caller == "assistant"]
    done = [e for e in mine if e.result is not None and not e.failed]
    if not claimed or not done:
        return
    conversation = replay.conversation
    called = tuple(sorted({e.call.name for e in mine}))
    names = [t.name for t in conversation.tools] if conversation.tools is not None else called
    users = [m.index for m in conversation.messages if m.role == "user"]
    calls = _Calls(done)
    asks = requests(replay)
    for message in conversation.messages:
        k = bisect_right(users, message.index)
        horizon = users[k] if k < len(users) else len(conversation.messages)
        for claim in claimed.get(message.index, ()):
            tools = set(tools_for(claim.verb, claim.subject, names))
            tools.update(own_tools(claim, called, sorted(tools)))
            if claim.verb in _REMOVALS:
                tools = {t for t in tools if _REMOVALS.intersection(words(t))}
            backing = calls.of(tools, horizon)
            asked = asks[(message.index, claim.verb)].asked
            doers = [e for e in backing if asked < e.turn <= message.index]
            found = _contradiction(claim, doers, backing, calls) if doers else None
            if found is not None:
                yield _violation(replay, claim, message.index, message.location, *found)
                break  # one finding per message


class _Calls:
    """What the successful calls sent and returned, read once per call."""

    def __init__(self, done: list[Exchange]) -> None:
        self.done = done
        self.by_tool: dict[str, list[Exchange]] = {}
        self.turns: dict[str, list[int]] = {}
        for e in done:
            self.by_tool.setdefault(e.call.name, []).append(e)
            self.turns.setdefault(e.call.name, []).append(e.turn)
        self._sent: dict[int, list[Argument]] = {}
        self._returned: dict[int, list[Value]] = {}
        self._cards: dict[str, str] | None = None

    def of(self, tools: set[str], before: int) -> list[Exchange]:
        """The calls of these tools made before message `before`, in order."""
        found = []
        for tool in tools:
            if tool in self.by_tool:
                found += self.by_tool[tool][: bisect_left(self.turns[tool], before)]
        return sorted(found, key=lambda e: e.turn)

    def sent(self, e: Exchange) -> list[Argument]:
        if id(e) not in self._sent:
            self._sent[id(e)] = list(sent(e.call.arguments))
        return self._sent[id(e)]

    def returned(self, e: Exchange) -> list[Value]:
        if id(e) not in self._returned:
            self._returned[id(e)] = in_text(e.result.text) if e.result is not None else []
        return self._returned[id(e)]

    @property
    def cards(self) -> dict[str, str]:
        """Payment ids -> the last four digits the results show (read on first need)."""
        if self._cards is None:
            self._cards = {}
            for e in self.done:
                self._cards.update(card_profiles(e.result.text if e.result else ""))
        return self._cards


def _contradiction(
    claim: Claim, doers: list[Exchange], backing: list[Exchange], calls: _Calls
) -> tuple[Value, Exchange, str, str] | None:
    """The first stated value no backing call accounts for, with the latest call that did the
    action and sent values of its kind: (value, call, path, the call's value)."""
    values = stated(claim.clause, claim.verb)
    for value in values:
        if any(_backs(value, e, calls) for e in backing):
            continue
        for e in reversed(doers):
            carried = _carried(value, claim, e, calls)
            if carried:
                # what the call sent instead: a value the claim does not state elsewhere
                others = [c for c in carried if not any(v.text in c[1] for v in values)]
                return value, e, *(others or carried)[0]
    return None


def _backs(value: Value, e: Exchange, calls: _Calls) -> bool:
    """The call sent the value or returned it; for an amount, sent what makes it up."""
    cards = calls.cards if value.kind == "payment" else {}
    sent_values = [a.value for a in calls.sent(e)]
    if value.kind == "setting":
        strings = (leaf for _, _, leaf in leaves(e.call.arguments) if isinstance(leaf, str))
        text = e.result.text.casefold() if e.result else ""
        return any(s.strip().casefold() == value.key for s in strings) or value.key in text
    if any(same(value, v, cards) for v in sent_values):
        return True
    if value.kind == "money":
        amounts = {Decimal(v.key) for v in sent_values if v.kind == "money" and v.key}
        returned = {Decimal(v.key) for v in calls.returned(e) if v.kind == "money"}
        known = amounts | returned | {sum(amounts, Decimal(0))}
        claimed = Decimal(value.key)
        if explained(claimed, known) or any(claimed * n in known for n in _SHARES):
            return True  # a total, or a share of one (per passenger)
    return any(same(value, v, cards) for v in calls.returned(e))


def _carried(value: Value, claim: Claim, e: Exchange, calls: _Calls) -> list[tuple[str, str]]:
    """(path, value) of what the call sent in place of the stated value: values of its kind, or,
    for a setting, the strings under a key naming what the claim changed (`new_password`)."""
    if value.kind == "setting":
        return [
            (path, leaf)
            for path, key, leaf in leaves(e.call.arguments)
            if isinstance(leaf, str) and _names_setting(key, claim)
        ]
    kinds = _KIN.get(value.kind, (value.kind,))
    return [(a.path, a.value.text) for a in calls.sent(e) if a.value.kind in kinds]


def _names_setting(key: str, claim: Claim) -> bool:
    parts = words(key)
    return bool(parts) and (parts[0] in ("new", "value") or bool(set(parts) & set(claim.objects)))


def _violation(
    replay: Replay,
    claim: Claim,
    turn: int,
    location: Any,
    value: Value,
    e: Exchange,
    path: str,
    sent_as: str,
) -> Violation:
    shown = excerpt(sent_as, 60).replace("`", "'")
    return Violation(
        f"the assistant says {quoted(claim.clause)}, but `{e.call.name}`, the call that did it "
        f"at turn {replay.at(e.turn)}, sent `{path}` = `{shown}`, not “{value.text}”",
        turn,
        location,
        tool=e.call.name,
        evidence=excerpt(claim.sentence),
    )
