r"""The assistant tells the user an action is done, but no tool that does it ran successfully.

## What it does
Reads the assistant's messages for completion claims in the present perfect: "has been
cancelled", "have been added", "I've booked", "we have sent". A claim is matched to the
declared tools by its verb (`cancelled` → `cancel_reservation`, `sent` → `send_email`) and, for
verbs of change (added, changed, updated, modified, removed, upgraded, downgraded), also by what
changed (`checked bags have been added` → `update_reservation_baggages`). Fires when none of the
matching tools has been called successfully since the user last asked for that action (the
last user message that names the verb), or in the whole conversation when no user message
does. Runs only on conversations that declare their tools.

## Why is this bad?
The user is told their reservation is cancelled or their bags are added while nothing happened:
the worst kind of silent failure, since neither the user nor the operator has a reason to check.
Models do this after a call fails, after a different call succeeds ("your cabin was upgraded and
three bags have been added" after only the cabin changed), or simply instead of calling.

## Example
```jsonl
{"id": "claimed", "tools": [{"type": "function", "function": {"name": "get_reservation", "parameters": {"type": "object"}}}, {"type": "function", "function": {"name": "cancel_reservation", "parameters": {"type": "object"}}}], "messages": [{"role": "user", "content": "Please cancel my reservation ABC123."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "g1", "type": "function", "function": {"name": "get_reservation", "arguments": "{\"reservation_id\": \"ABC123\"}"}}]}, {"role": "tool", "tool_call_id": "g1", "content": "{\"reservation_id\": \"ABC123\", \"status\": \"active\"}"}, {"role": "assistant", "content": "Your reservation ABC123 has been cancelled and the refund is on its way."}]}
```

## Does not fire on
- a claim after a successful call of a matching tool since the user asked;
- negated, conditional or questioned claims ("has not been cancelled", "once it has been
  cancelled", "Has it been cancelled?"), claims about an earlier state ("has already been
  cancelled", "since it has been cancelled", "was booked last week": the simple past is not read),
  and passives with an agent ("has been cancelled by the airline");
- a claim that repeats what a tool result said since the request (`"status": "cancelled"`);
- verbs no declared tool matches (say, "charged" where no tool charges), and verbs that only
  look something up ("I've checked", "I have searched");
- conversations without declared tools (tau-bench logs declare none): see the coverage report.
```jsonl
{"id": "done", "tools": [{"type": "function", "function": {"name": "cancel_reservation", "parameters": {"type": "object"}}}], "messages": [{"role": "user", "content": "Please cancel my reservation ABC123."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "cancel_reservation", "arguments": "{\"reservation_id\": \"ABC123\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "{\"reservation_id\": \"ABC123\", \"status\": \"cancelled\"}"}, {"role": "assistant", "content": "Your reservation ABC123 has been cancelled."}, {"role": "user", "content": "And my refund?"}, {"role": "assistant", "content": "Since your reservation has been cancelled, the refund reaches your card in 5 to 7 days. If you want the hotel cancelled too, tell me once it has been confirmed."}]}
```
"""

from collections.abc import Iterator

from auditor.actions import PARTICIPLES_OF, VERBS, tools_for
from auditor.findings import Severity, Violation, excerpt
from auditor.model import ToolSpec
from auditor.replay import Replay
from auditor.rules._claims import WORD, Claim, claims

CODE = "FB003"
NAME = "claimed-action-without-call"
SEVERITY = Severity.WARNING
REQUIRES = ("tools",)


def check(replay: Replay, options: None) -> Iterator[Violation]:
    tools = replay.conversation.tools or ()
    said_done = {
        t.message.index: found for t in replay.turns if (found := list(claims(t.message.text)))
    }
    if not said_done:
        return  # most conversations claim nothing: skip reading every user and tool message
    turns = {turn.message.index: turn for turn in replay.turns}
    said: dict[str, int] = {}  # a word -> the last user message that used it
    shown: dict[str, int] = {}  # a word -> the last tool result that used it
    done: dict[str, int] = {}  # a tool -> the turn of its last call that did not fail
    walked = 0
    for message in replay.conversation.messages:
        if message.role in ("user", "tool"):
            found = dict.fromkeys(WORD.findall(message.text.lower()), message.index)
            (said if message.role == "user" else shown).update(found)
        turn = turns.get(message.index)
        if turn is None:
            continue
        # Calls up to this turn's own count; one without a result counts as done: EX001's.
        for exchange in replay.exchanges[walked : turn.first_exchange + len(turn.exchanges)]:
            if not exchange.failed:
                done[exchange.call.name] = exchange.turn
        walked = turn.first_exchange + len(turn.exchanges)
        for claim in said_done.get(message.index, ()):
            matching = _matching(claim, tools)
            asked = max((said.get(form, -1) for form in FORMS[claim.verb]), default=-1)
            if not matching or any(done.get(name, -1) > asked for name in matching):
                continue
            if any(shown.get(p, -1) > asked for p in PARTICIPLES_OF[claim.verb]):
                continue  # a tool said so ("status": "cancelled"): the claim reports it
            names = ", ".join(f"`{n}`" for n in matching[:3])
            since = f"since the user asked at turn {asked}" if asked >= 0 else "before this turn"
            yield Violation(
                f"the assistant says {_quote(claim.clause)}, but no matching tool ({names}) "
                f"was called successfully {since}",
                message.index,
                message.location,
                tool=matching[0],
                evidence=excerpt(claim.sentence),
            )
            break  # one finding per message


def _matching(claim: Claim, tools: tuple[ToolSpec, ...]) -> list[str]:
    """The declared tools that could have done what the claim says: same verb (or, for a verb
    of change, any tool of change), and a name that agrees with what the claim is about."""
    return tools_for(claim.verb, claim.subject, (tool.name for tool in tools))


def _forms(verb: str) -> set[str]:
    """The verb as a request may word it: `cancel`, `cancelling`, `cancellation`, `adding`."""
    stem = verb[:-1] if verb.endswith(("e", "y")) else verb
    endings = ("", "s", "es", "ing", "ling", "ion", "ation", "lation", "ication", "ies", "ment")
    forms = {verb, *(stem + ending for ending in endings), verb + "ing", verb + "s"}
    return forms | set(PARTICIPLES_OF[verb])


FORMS = {verb: _forms(verb) for verb in VERBS}
"""How a user's request may word each verb: the last message using one starts the window."""


def _quote(sentence: str) -> str:
    return "“" + excerpt(sentence, 100).replace("`", "'") + "”"
