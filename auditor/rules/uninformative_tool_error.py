r"""A tool error says nothing the model could act on, and the model calls the tool again blindly.

## What it does
Fires on a tool error whose text carries no information once generic words, the tool's name,
quoted values and numbers are set aside ("An error occurred while executing tool "X".",
"Internal server error", "Tool execution failed", an empty result the log flags as an error),
when the assistant then calls the same tool again before the user speaks and that call fails
too. Such a text counts as an error even where the log has no error flag. One finding per chain
of retries, on the first uninformative error.

Options (`[tool.auditor.loops]`): `exempt-tools` (glob patterns).

## Why is this bad?
The model cannot fix what it is not told: it repeats the same call or guesses, and the run ends
in a loop or a transfer. In symfony/ai #2137 an argument the model got wrong reached it only as
`An error occurred while executing tool "X".` while the real cause (which argument, which values
are allowed) stayed in the server log. The fix is in the tool: its error should name the
argument and the values it accepts.

## Example
```jsonl
{"id": "generic", "messages": [{"role": "user", "content": "Show reservation K1NW8N."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_reservation", "arguments": "{\"reservation_id\": \"k1nw8n\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "An error occurred while executing tool \"get_reservation\"."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "get_reservation", "arguments": "{\"reservation_id\": \"k1nw8n\"}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": "An error occurred while executing tool \"get_reservation\"."}, {"role": "assistant", "content": "Something went wrong, sorry."}]}
```

## How to fix
Fix the tool: return the real cause to the model (which argument, which values are allowed,
what failed), not a generic "An error occurred". A framework that hides exception text from
the model can still pass a message mapped from the exception; log the full error on the server
with the call's id. In the harness, do not let the agent retry blindly: after an error that
says nothing, retry once, then report the failure.

## Does not fire on
- an error that names what is wrong ("Error: reservation_id must be 6 upper-case letters");
- an uninformative error that is not retried, or whose retry succeeds (a transient failure);
- a denied approval ("The user doesn't want to proceed with this tool use"): not a tool error.
```jsonl
{"id": "specific", "messages": [{"role": "user", "content": "Show reservation K1NW8N."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_reservation", "arguments": "{\"reservation_id\": \"k1nw8n\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "Error: reservation_id must be 6 upper-case letters or digits, got 'k1nw8n'"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "get_reservation", "arguments": "{\"reservation_id\": \"K1NW8N\"}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": "Error: no reservation K1NW8N"}, {"role": "assistant", "content": "There is no reservation K1NW8N."}]}
```
"""

from bisect import bisect_right
from collections.abc import Iterator, Sequence

from auditor.common.patterns import lazy
from auditor.findings import Violation, excerpt
from auditor.model import Message
from auditor.replay import Exchange, Replay
from auditor.rules._loops import QUOTED, Options, calls, quote, turns

REQUIRES = ("calls",)

# Words that say only that something failed. An error made of these alone (plus the tool's
# name, quoted values, numbers and punctuation) tells the model nothing it could change.
_GENERIC_WORDS = """
    a an the error errors exception occurred has been was while when during executing execution
    calling call running run tool tools function failed failure fail unknown unexpected internal
    server something went wrong please try again later sorry oops null none undefined status
    code http request could not be completed processing process
"""
GENERIC = frozenset(_GENERIC_WORDS.split())
_WORD = lazy(r"[a-z]+")
_LONGEST = 200
"""Longer errors carry detail even when they start generically."""


FAILURE = frozenset(("error", "errors", "exception", "failed", "failure", "fail"))
"""A generic text with one of these is an error even where the log has no error flag."""


def _generic_words(text: str, tool: str) -> list[str] | None:
    """The words of a text made of generic words only (quoted values and the tool name aside)."""
    if len(text) > _LONGEST:
        return None
    words = _WORD.findall(QUOTED.sub(" ", text.lower()).replace(tool.lower(), " "))
    return words if all(word in GENERIC for word in words) else None


def _uninformative_error(exchange: Exchange) -> bool:
    """A result that only says the call failed."""
    if exchange.result is None:
        return False
    words = _generic_words(exchange.result.text, exchange.call.name)
    if words is None:
        return False
    return exchange.failed or any(word in FAILURE for word in words)


def screen(replay: Replay, options: Options) -> bool:
    """A call of the agent failed with an error that says nothing."""
    messages = replay.conversation.messages
    return any(
        e.caller == "assistant" and _blind(e, messages) is not None for e in calls(replay, options)
    )


def check(replay: Replay, options: Options) -> Iterator[Violation]:
    messages = replay.conversation.messages
    users = [m.index for m in messages if m.role == "user"]
    made = [e for e in calls(replay, options) if e.caller == "assistant"]
    retried: set[int] = set()
    for i, exchange in enumerate(made):
        error = _blind(exchange, messages) if i not in retried else None
        if error is None:
            continue
        chain = [exchange]
        j = _retry(made, i, users)
        while j is not None:
            retried.add(j)
            chain.append(made[j])
            if _blind(made[j], messages) is None:
                break
            j = _retry(made, j, users)
        if len(chain) > 1:
            yield _violation(replay, chain, error)


def _blind(exchange: Exchange, messages: Sequence[Message]) -> Message | None:
    """The result message of a failed call whose error says nothing (not a denied approval)."""
    result, at = exchange.result, exchange.result_turn
    if result is None or at is None or messages[at].approval_decision is not None:
        return None
    return messages[at] if _uninformative_error(exchange) else None


def _retry(made: list[Exchange], i: int, users: list[int]) -> int | None:
    """The next call of the same tool before the user speaks again, when it failed too."""
    name, turn = made[i].call.name, made[i].turn
    speaks = bisect_right(users, turn)
    next_user = users[speaks] if speaks < len(users) else None
    for j in range(i + 1, len(made)):
        if next_user is not None and made[j].turn > next_user:
            return None
        if made[j].call.name == name:
            return j if made[j].failed or _uninformative_error(made[j]) else None
    return None


def _violation(replay: Replay, chain: list[Exchange], error: Message) -> Violation:
    first = chain[0]
    text = first.result.text if first.result is not None else ""
    retries = len(chain) - 1
    again = "once" if retries == 1 else f"{retries} times"
    return Violation(
        f"`{first.call.name}` failed with {quote(text)}, which says nothing about what was "
        f"wrong, and the assistant called it again {again} in vain "
        f"({turns(replay.at(e.turn) for e in chain[1:])}); the error should name the argument at fault "
        "and the values it accepts",
        error.index,
        error.location,
        tool=first.call.name,
        call_id=first.call.id,
        evidence=excerpt(text) or "(empty error)",
    )
