r"""The assistant tells the user an action is done, but no tool that does it ran successfully.

## What it does
Reads the assistant's messages for completion claims in the present perfect: "has been
cancelled", "have been added", "I've booked", "we have sent", and "has been processed" or
"completed" said of an action ("the cancellation has been processed", "your booking has been
completed"). A claim is matched first to the conversation's own calls, by verb family
(create / add / schedule / book …; send / post / invite / share / forward / email …; cancel /
delete / remove …; update / change / set / reset / upgrade …: "it has been added to your
calendar" is `create_calendar_event`'s), unless the claim names what was acted on and only
another matching tool's name agrees with it; then to the tools by its verb (`cancelled` →
`cancel_reservation`, `sent` → `send_email`) and, for verbs of change (added, changed, updated,
modified, removed, upgraded, downgraded), also by what changed (`checked bags have been added`
→ `update_reservation_baggages`). Fires when none of the matching tools has been called
successfully since the user last asked for that action (the last user message that names the
verb), or in the whole conversation when no user message does; when a matching call failed,
the finding names it and its error.

The tools are the ones the log declares, else those given with `--tools`, else the ones the
conversation calls or writes calls of as text (EX003's: `{"action": "cancel_reservation", …}`
that nothing ran is still a tool the agent has), else those inferred: every tool some
conversation of the same input file (or, failing that, of the run's other logs of that format,
when the file calls none of its own or shares one with them) called and got a result from that
was not an error. Inferred tools only extend a conversation whose own calls cannot say: one that
called a tool of the claim's family is judged by its own calls. The coverage report says which
conversations had which. Claims are read in English, and in Spanish, Portuguese, French, German
and Italian with their lexicons ("el cambio se ha realizado", "foi cancelada", "a été annulée",
"wurde storniert", "è stata annullata", "he enviado", "cancelé"); tool names in those languages
tie to the same verbs (`anular_sic` cancels, `crear_solicitud` creates, `bestellungStornieren`
cancels). A conversation in another language is not examined, and the coverage says so.

Reading a page is an action too: a first-person claim of having visited or read a web resource
the claim names ("I visited www.kettle-shop.com", "I had a look at Eve's blog", or "I just
visited your website" in the text of a call addressed to Dora) fires when no earlier call of
the agent named that resource's host. An owner's resource is the web address the conversation
gave before the claim with the owner's name as one of its words (`www.dora-website.com`).

## Why is this bad?
The user is told their reservation is cancelled or their bags are added while nothing happened:
the worst kind of silent failure, since neither the user nor the operator has a reason to check.
Models do this after a call fails, after a different call succeeds ("your cabin was upgraded and
three bags have been added" after only the cabin changed), or simply instead of calling.

## Example
```jsonl
{"id": "claimed", "tools": [{"type": "function", "function": {"name": "get_reservation", "parameters": {"type": "object"}}}, {"type": "function", "function": {"name": "cancel_reservation", "parameters": {"type": "object"}}}], "messages": [{"role": "user", "content": "Please cancel my reservation ABC123."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "g1", "type": "function", "function": {"name": "get_reservation", "arguments": "{\"reservation_id\": \"ABC123\"}"}}]}, {"role": "tool", "tool_call_id": "g1", "content": "{\"reservation_id\": \"ABC123\", \"status\": \"active\"}"}, {"role": "assistant", "content": "Your reservation ABC123 has been cancelled and the refund is on its way."}]}
```

## How to fix
Let the agent claim only what a tool result confirms: read the last call's result before
replying (a failed `cancel_reservation` is no cancellation), and put it in the prompt: "say an
action is done only after the tool that does it returned success; if it failed, say so". When
no tool does what the user asks, the agent should say so or hand over to a person, not pretend.
A harness can hold the final answer against the calls that succeeded (this rule's check) before
it is sent. When the tools were inferred (the coverage says so), declare them with `--tools
FILE` so the claim is judged against the real ones.

## Does not fire on
- a claim after a successful call of a matching tool since the user asked (a failed call
  retried with success included);
- negated, conditional or questioned claims ("has not been cancelled", "once it has been
  cancelled", "Has it been cancelled?"), claims about an earlier state ("has already been
  cancelled", "since it has been cancelled", "was booked last week": the simple past is not read),
  and passives with an agent ("has been cancelled by the airline");
- a claim that repeats what a tool result said since the request (`"status": "cancelled"`);
- verbs no tool matches (say, "charged" where no tool charges; a cancellation in a run where no
  cancel tool ever answered), verbs that only look something up ("I've checked", "I have
  searched", "the search has returned"), and "has been processed" said of no action ("your
  request has been processed");
- a tool inferred only from calls that failed (an "unknown tool" error says it does not exist);
- a tool only another log of the run called, when the claim's file calls tools and none of
  them is called in another log: it works with another tool set (a course's tau2 domains, one
  a file, whose `crear_solicitud` made the request another domain's `create_order` cannot
  judge). A claim in such a file that its own tools do not name is missed;
- a claim after a successful call of the conversation's own tool of the claim's verb family
  (`invite_user_to_slack` before "I have sent the invitation"); a tool whose name holds a verb
  of the family only as a noun after its first word does not count (`draft_email`);
- in Spanish, Portuguese, French, German and Italian: a future or an offer ("se cancelará",
  "si desea, puedo cancelar"), a question, a state ("está cancelada"), a claim after a hedge
  in its sentence ("ya", "no", "cuando", "usted": the user's own action), one with an agent
  ("por la aerolínea", "von der Airline"), one dated in the past ("foi criada em 10 de maio",
  "ayer": what a lookup showed), and the third person's simple past are not read;
- a conversation in a language with no lexicon (another script, Dutch, ...): reported in the
  coverage;
- a visit claim after a call that named the host (`navigate` to a page of the site), one whose
  resource is not named ("I have visited the website"), or whose owner the conversation gives
  no address for, a host only inside an e-mail address (`dora@dora-website.com`), and a file
  name (`README.md`).
  It still misses a claim the family matches wrongly ("the bags have been added" after a
  successful `book_reservation` in a conversation that knows no baggage tool).
```jsonl
{"id": "done", "tools": [{"type": "function", "function": {"name": "cancel_reservation", "parameters": {"type": "object"}}}], "messages": [{"role": "user", "content": "Please cancel my reservation ABC123."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "cancel_reservation", "arguments": "{\"reservation_id\": \"ABC123\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "{\"reservation_id\": \"ABC123\", \"status\": \"cancelled\"}"}, {"role": "assistant", "content": "Your reservation ABC123 has been cancelled."}, {"role": "user", "content": "And my refund?"}, {"role": "assistant", "content": "Since your reservation has been cancelled, the refund reaches your card in 5 to 7 days. If you want the hotel cancelled too, tell me once it has been confirmed."}]}
```
"""

from collections.abc import Iterator

from auditor.common.structs import dataclass
from auditor.dialects import marked_turns, read_turns
from auditor.findings import Violation, excerpt
from auditor.model import Message
from auditor.reading.actions import tools_for
from auditor.replay import Exchange, Replay
from auditor.rules import _visits as visits
from auditor.rules._claims import Claim, may_claim, own_tools, quoted, requests, said_done

REQUIRES = ("lexicon",)


@dataclass(frozen=True, slots=True)
class Unmatched:
    """A message's claims with no successful call of a matching tool in their conversation,
    whose tools are inferred: decided by `resolve` with the tools of the whole file."""

    claims: tuple[tuple[str, tuple[str, ...], str, str], ...]
    """(verb, what was acted on, the claim's words, since when), in the message's order."""
    called: tuple[str, ...]
    """The tools the conversation itself called."""


def screen(replay: Replay, options: None) -> bool:
    """Some answer holds the words every English claim is made of (`have`, `been`, `'ve`), or
    the conversation is in another language with a lexicon."""
    return may_claim(replay) or visits.may_claim(replay)


def check(replay: Replay, options: None) -> Iterator[Violation]:
    yield from visits.check(replay)
    yield from _actions(replay)


def _actions(replay: Replay) -> Iterator[Violation]:
    claimed = said_done(replay)
    if not claimed:
        return  # most conversations claim nothing: skip reading every user and tool message
    declared = replay.conversation.tools
    called = tuple(sorted({e.call.name for e in replay.exchanges if e.caller == "assistant"}))
    # Tools the agent wrote calls of as text (EX003's) are its tools too, though nothing ran them.
    written = _written(replay) if declared is None else set()
    names = [t.name for t in declared] if declared is not None else [*called, *sorted(written)]
    turns = {turn.message.index: turn for turn in replay.turns}
    asks = requests(replay)
    done: dict[str, int] = {}  # a tool -> the turn of its last call that did not fail
    failed: dict[str, Exchange] = {}  # a tool -> its last call that failed
    walked = 0
    for message in replay.conversation.messages:
        turn = turns.get(message.index)
        if turn is None:
            continue
        # Calls up to this turn's own count; one without a result counts as done: EX001's.
        for exchange in replay.exchanges[walked : turn.first_exchange + len(turn.exchanges)]:
            if exchange.failed:
                failed[exchange.call.name] = exchange
            else:
                done[exchange.call.name] = exchange.turn
        walked = turn.first_exchange + len(turn.exchanges)
        unmatched = []
        for claim in claimed.get(message.index, ()):
            request = asks[(message.index, claim.verb)]
            asked = request.asked
            matching = tools_for(claim.verb, claim.subject, names)
            own = own_tools(claim, called, matching)
            if any(done.get(name, -1) > asked for name in (*own, *matching)):
                continue
            if request.reported:
                continue  # a tool said so ("status": "cancelled"): the claim reports it
            since = (
                f"since the user asked at turn {replay.at(asked)}"
                if asked >= 0
                else "before this turn"
            )
            matching = list(dict.fromkeys((*own, *matching)))
            failure = _failure(matching, failed, asked)
            text_only = [n for n in matching if n in written and n not in called]
            if failure is None and declared is None and not own and not text_only:
                unmatched.append((claim, since))
                continue
            if not matching:
                continue
            yield _violation(replay, claim, message, matching, since, failure, bool(text_only))
            break  # one finding per message
        else:
            if unmatched:
                yield _deferred(unmatched, message, called)


def resolve(
    deferred: Unmatched, tools: frozenset[str], where: str = "this file"
) -> tuple[str, str | None] | None:
    """The first of the message's claims that a tool called `where` could have done, or None."""
    known = sorted(tools.union(deferred.called))
    for verb, subject, clause, since in deferred.claims:
        matching = tools_for(verb, subject, known)
        if matching:
            return _message(clause, matching, since, f"called in {where}"), matching[0]
    return None


def _written(replay: Replay) -> set[str]:
    """The tools the assistant wrote calls of as text in this conversation (`dialects`)."""
    if not marked_turns(replay):
        return set()
    return {c.name for _, reading in read_turns(replay) for c in reading.calls}


def _violation(
    replay: Replay,
    claim: Claim,
    message: Message,
    matching: list[str],
    since: str,
    failure: Exchange | None,
    as_text: bool = False,
) -> Violation:
    if failure is not None:
        error = excerpt(failure.result.text if failure.result else "", 80).replace("`", "'")
        text = (
            f"the assistant says {quoted(claim.clause)}, but the matching call "
            f"`{failure.call.name}` at turn {replay.at(failure.turn)} failed (“{error}”) and none "
            f"succeeded {since}"
        )
        tool = failure.call.name
    else:
        where = "written only as text in this conversation" if as_text else ""
        text, tool = _message(claim.clause, matching, since, where), matching[0]
    return Violation(
        text, message.index, message.location, tool=tool, evidence=excerpt(claim.sentence)
    )


def _deferred(
    unmatched: list[tuple[Claim, str]], message: Message, called: tuple[str, ...]
) -> Violation:
    first, since = unmatched[0]
    data = Unmatched(
        tuple((c.verb, tuple(c.subject), c.clause, when) for c, when in unmatched), called
    )
    return Violation(
        _message(first.clause, [], since, "called in this file"),
        message.index,
        message.location,
        evidence=excerpt(first.sentence),
        deferred=data,
    )


def _message(clause: str, matching: list[str], since: str, inferred: str) -> str:
    """The finding; `inferred` says where the tools were seen when the log declares none."""
    names = ", ".join(f"`{n}`" for n in matching[:3])
    where = f", {inferred}" if inferred else ""
    return (
        f"the assistant says {quoted(clause)}, but no matching tool ({names}{where}) was "
        f"called successfully {since}"
    )


def _failure(matching: list[str], failed: dict[str, Exchange], asked: int) -> Exchange | None:
    """The latest failed call of a matching tool since the user asked, if any."""
    found = [failed[n] for n in matching if n in failed and failed[n].turn > asked]
    return max(found, key=lambda e: e.turn, default=None)
