r"""The assistant tells the user a phone number, address, link, reference or price nothing gave.

## What it does
Reads what the assistant writes to the user for facts a reader could check (`_facts`): e-mail
addresses, URLs below a site's home page, phone numbers, references (an id written after
`order`, `booking`, `reservation`, `confirmation`, `ticket`, `flight`, `ID`, `number`, `#`, …),
prices (an amount with its currency) and template slots left where a fact belongs
(`[Generated ID, e.g., ABC123]`). Fires when one of them appears in no user turn, system
prompt, policy, tool declaration, tool result or argument of a successful call before it (nor
in the results of the message's own calls), in any of the written forms FB004 takes for the
same value (case, separators, a URL's scheme, `www.` or trailing slash, the digits of a phone
number; a phone number a tool wrote as `+51-1-555-1200`). A price counts as given when it is
a number people or the prompt wrote (`3000.0` given back as `$3000.00`), one of the amounts
given or written before it, a multiple or a share of one (two to five passengers; up to twelve
days or months of a tool's or the answer's own amount), a tool's or an earlier answer's amount
plus or minus another, or the sum of the prices listed just before it; a price the answer says
it worked out (a total, a difference, a refund, `= $X`, `$X ($a + $b)`) is not read. One
finding per message, naming up to three facts; a fact is reported once.

In preview: only `--select FB008` (or its name) turns it on. On the ecosystem check's real logs
it gives 14 findings, all judged true (invented flights, fares, phone numbers and payment ids,
and template slots, after tool calls a model wrote as text); it joins the default set at 30
judged findings and 95 %.

## Why is this bad?
A phone number, a booking reference or a price is exactly what a user copies and acts on, and
a model writes plausible ones from memory or from the pattern of others: the hotel's number
never looked up, a reservation id after a booking that never ran, a fare after a search that
returned nothing. Nothing in the answer says it was made up.

## Example
```jsonl
{"id": "invented-number", "tools": [{"type": "function", "function": {"name": "get_hotel", "parameters": {"type": "object"}}}], "messages": [{"role": "system", "content": "You are a travel assistant."}, {"role": "user", "content": "What is the phone number of the Grand Hotel in Oslo?"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_hotel", "arguments": "{\"name\": \"Grand Hotel Oslo\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "{\"name\": \"Grand Hotel\", \"city\": \"Oslo\", \"rating\": 4.5}"}, {"role": "assistant", "content": "You can reach the Grand Hotel at +47 23 21 20 00 or book at https://grandhotel.no/rooms/book."}]}
```

## How to fix
Give the agent a tool for each fact users act on (a directory for phone numbers and addresses,
the booking record for its reference, a quote for a price) and a rule in the prompt: "give a
phone number, link, reference or price only when a tool result or the user gave it; otherwise
say you do not have it". Check answers for unfilled template slots (`[Generated ID]`) before
they are sent. When the fact is in a document the agent was given that the log does not keep,
log that document (or the prompt that holds it) so the answer can be checked.

## Does not fire on
- facts a user turn, the system prompt or policy, a tool declaration or a tool result gave,
  in any written form, and prices the given amounts make up (a total, a difference, a price
  per passenger);
- code (inline or fenced), examples the assistant offers ("a user id like 'sara_doe_496'", "e.g.
  ZFA04Y"), facts in a sentence that says they are assumed or made up ("I assume", "Asumo un
  presupuesto de $100", "supposons", "angenommen"), and every fact of an answer to a user who
  asked for an example, a sample, a template or made-up data;
- digits inside a link or a path (`…&qid=1689009508`), which are no phone number;
- a site's home page (`https://www.udi.no/`), ids not written as a reference (`24-hour`),
  dates, times, counts and amounts without a currency;
- logs without a system prompt or policy: what the agent was given is not all in them (aider's
  chat history keeps no file the user added, a lone API response no request);
- conversations where several agents talk (what one tells another is not an answer to the
  user), chats without tools (no tool declared, called or written as text), and answers
  after a call whose outcome the log does not keep (a browser agent's pages: the fact may
  have been on one).
It misses facts with no digit, `@` or `/` (a street address, a name), a fact given for one
thing and pinned on another (one agency's address on another), and prices made up of three or
more given amounts that are not listed just before them.
```jsonl
{"id": "grounded", "tools": [{"type": "function", "function": {"name": "get_hotel", "parameters": {"type": "object"}}}], "messages": [{"role": "system", "content": "You are a travel assistant."}, {"role": "user", "content": "What is the phone number of the Grand Hotel in Oslo? Two rooms, two nights."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_hotel", "arguments": "{\"name\": \"Grand Hotel Oslo\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "{\"name\": \"Grand Hotel\", \"phone\": \"+4723212000\", \"url\": \"https://grandhotel.no/rooms/book\", \"price_per_night\": 150}"}, {"role": "assistant", "content": "Call +47 23 21 20 00 or book at grandhotel.no/rooms/book: two rooms for two nights come to $600 ($150 x 4). Your booking reference will look like `GH-XXXX`."}]}
```
"""

import re
from collections.abc import Iterator, Sequence
from decimal import Decimal

from auditor.common.patterns import lazy
from auditor.dialects import read_turns
from auditor.findings import Violation, excerpt
from auditor.model import Message
from auditor.replay import Replay
from auditor.rules import _facts, _grounding
from auditor.rules._agents import speaker
from auditor.rules._facts import Fact

_SHOWN = 3


def check(replay: Replay, options: None) -> Iterator[Violation]:
    conversation = replay.conversation
    if not conversation.instructions and not any(
        m.role in ("system", "developer") for m in conversation.messages
    ):
        return  # no prompt: what the agent was given is not all in the log (added files)
    if conversation.tools is None and not replay.exchanges and not _writes_calls(replay):
        return  # a chat without tools: its answers come from what the model knows
    if len({speaker(t.message.name) for t in replay.turns} - {None}) > 1:
        return  # agents talking to each other: not answers to the user
    # After a call whose outcome the log does not keep (a browser agent's pages), a fact may
    # come from what the agent saw: it is not in the log.
    blind = next((e.turn for e in replay.exchanges if e.result and e.result.unrecorded), None)
    answers = [t for t in replay.turns if blind is None or t.message.index < blind]
    stated = [(t, found) for t in answers if (found := _facts.facts(t.message.text))]
    if not stated:
        return
    given = _Given(replay, [f for _, found in stated for f in found])
    reported: set[Fact] = set()
    for turn, found in stated:
        message = turn.message
        # A message's own calls' results count: a hosted tool answers within the response.
        given.read_to(max([message.index, *(e.result_turn or 0 for e in turn.exchanges)]) + 1)
        if _asked_for_examples(conversation.messages[: message.index]):
            continue
        new = [f for f in found if f not in reported and not given.gives(f, message)]
        given.worked.update(_facts.prices(message.text))  # the next answer may repeat its sums
        if new:
            reported.update(new)
            yield _violation(message, new)


class _Given:
    """What the conversation gave, read in order as far as the answer being checked: the
    identifiers (`_grounding.GroundingIndex`) and the amounts (every number of a tool result,
    the prices of the other messages and of the policy)."""

    def __init__(self, replay: Replay, facts: list[Fact]) -> None:
        self.conversation = replay.conversation
        candidates = [("", f.text, f.lookup) for f in facts if f.amount is None]
        self.index = _grounding.GroundingIndex(True, candidates, replay)
        self.pool = set(_facts.prices(self.conversation.instructions))
        """Amounts given by people and the prompt."""
        self.worked: set[Decimal] = set()
        """Amounts tools returned and earlier answers wrote."""
        self.said: set[Decimal] = set()
        """Every number people and the prompt wrote, with or without a currency: an answer
        that gives one back as a price (`3000.0` as `$3000.00`) re-spells it."""
        self.read = 0

    def read_to(self, end: int) -> None:
        messages = self.conversation.messages[self.read : end]
        self.index.read(messages)
        for m in messages:
            if m.result is not None:
                self.worked |= _facts.amounts(m.result.text)
            elif m.role in _GIVERS:
                self.pool.update(_facts.prices(m.text))
                self.said |= _facts.amounts(m.text)
        self.read = max(self.read, end)

    def gives(self, fact: Fact, message: Message) -> bool:
        if fact.sort == "template slot":
            return False
        if fact.amount is None:
            return self.index.grounds(fact.text, fact.lookup, self.conversation)
        if fact.amount in self.said:
            return True
        before = message.text[: message.text.find(fact.text)]
        return _facts.adds_up(fact.amount, self.pool, self.worked, _facts.prices(before))


_GIVERS = ("system", "developer", "user")


def _asked_for_examples(messages: Sequence[Message]) -> bool:
    """The user's last turn asks for an example, a sample or made-up data."""
    last = next((m for m in reversed(messages) if m.role == "user"), None)
    return last is not None and _EXAMPLES.search(last.text[: _facts.TEXT_LIMIT]) is not None


_EXAMPLES = lazy(
    r"\b(?:examples?|samples?|templates?|mock|dummy|fake|made[- ]up|make up|hypothetical"
    r"|fictional|fictitious|invent|placeholders?)\b",
    re.I,
)


def _writes_calls(replay: Replay) -> bool:
    """The assistant writes tool calls as text (EX003's): an agent with tools, whether or not
    anything ran them."""
    return any(reading.calls for _, reading in read_turns(replay))


def _violation(message: Message, new: list[Fact]) -> Violation:
    shown = ", ".join(f"the {f.sort} `{f.text}`" for f in new[:_SHOWN])
    more = f" and {len(new) - _SHOWN} more" if len(new) > _SHOWN else ""
    first = new[0].text
    at = message.text.find(first)
    return Violation(
        f"the assistant tells the user {shown}{more}, which no user turn, system prompt, tool "
        "declaration or tool result of the conversation gave",
        message.index,
        message.location,
        evidence=excerpt(message.text[max(0, at - 60) : at + 100]),
    )
