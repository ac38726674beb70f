r"""One tool keeps failing with the same error while the agent reworks the arguments.

## What it does
Follows the calls the assistant makes of each tool. Fires when three or more calls of one tool
in a row fail with the same error once the values that vary between attempts are masked
(numbers, ids, dates, quoted values: `total price is 4875, but paid 1625` and `total price is
1203, but paid 833` are the same error) while the arguments change: at least two different
sets of arguments, none of them sent three times (that run is LP001's finding). Calls of other
tools and user messages in between do not matter; a success of the tool or a different error
ends the run. One finding per run, at its first call.

The invariant is that the tool's answer, values masked, did not move while the agent changed
what it sent: whatever it changed was not what the error is about. It is read from the tool's
own result only; an action whose outcome the log does not keep (a browser agent's click,
followed by a thought saying "the filter didn't apply") is never taken as failed, since the
agent's reading of a screenshot is not the tool's answer.

Options (`[tool.auditor.loops]`): `min-repeats` (3), `exempt-tools` (glob patterns).

## Why is this bad?
The model changes something at every attempt, but not the thing the error is about: it is stuck
as surely as when it repeats itself, only harder to spot. OpenHands stops an agent after three
erroring actions in a row. The usual cause is an error that does not say which argument is wrong
or what would be accepted, or a rule the model cannot infer from the tool's description.

## Example
```jsonl
{"id": "rework", "messages": [{"role": "user", "content": "Book it with my gift cards."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "book_reservation", "arguments": "{\"payment_id\": \"gift_card_1\", \"amount\": 833}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "Error: payment amount does not add up, total price is 1203, but paid 833"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "book_reservation", "arguments": "{\"payment_id\": \"gift_card_2\", \"amount\": 900}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": "Error: payment amount does not add up, total price is 1203, but paid 900"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c3", "type": "function", "function": {"name": "book_reservation", "arguments": "{\"payment_id\": \"gift_card_2\", \"amount\": 1000}"}}]}, {"role": "tool", "tool_call_id": "c3", "content": "Error: payment amount does not add up, total price is 1203, but paid 1000"}]}
```

## How to fix
Make the error say what to change: the argument that is wrong, the value it got and what it
accepts (`total price is 4875, but paid 1625: the payments must add up to the total`). Put the
rule the model keeps breaking in the tool's description. In the harness, stop after three equal
errors and tell the model to ask the user or give up. If the error is the same whatever the
arguments, the tool or its backend is broken: fix that, not the agent.

## Does not fire on
- the same failing call repeated with identical arguments, even amid other attempts: LP001;
- a run that ends in success, or errors that differ once values are masked;
- a run in which every attempt sent a different value of an argument the error names only by
  kind, by the words of the value (`gift_card_7480005` for "gift card balance is not
  enough") or of its key, without quoting the value sent: a different gift card each time is
  the agent working on the cause, which the error does not say how to fix. Attempts that try
  such an argument at random for ever (five gift cards, none with the balance) are missed;
- calls of exempt tools, and calls made by a simulated user.
```jsonl
{"id": "fixed", "messages": [{"role": "user", "content": "Book it."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "book_reservation", "arguments": "{\"amount\": 833}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "Error: payment amount does not add up, total price is 1203, but paid 833"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "book_reservation", "arguments": "{\"amount\": 900}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": "Error: payment amount does not add up, total price is 1203, but paid 900"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c3", "type": "function", "function": {"name": "book_reservation", "arguments": "{\"amount\": 1203}"}}]}, {"role": "tool", "tool_call_id": "c3", "content": "{\"reservation_id\": \"Q1W2E3\"}"}]}
```
"""

from collections import Counter, defaultdict
from collections.abc import Iterator
from typing import Any

from auditor.common.patterns import lazy
from auditor.findings import Violation
from auditor.replay import Exchange, Replay
from auditor.rules._loops import (
    Options,
    at_call,
    attempts,
    call_key,
    calls,
    in_order,
    normalised_error,
    quote,
    runs,
    turns,
)

REQUIRES = ("calls",)


def screen(replay: Replay, options: Options) -> bool:
    """One tool failed for the agent in `min_repeats` turns or more."""
    failed: dict[str, set[int]] = defaultdict(set)
    for e in calls(replay, options):
        if e.caller == "assistant" and e.failed:
            failed[e.call.name].add(e.turn)
    return any(len(turns) >= options.min_repeats for turns in failed.values())


def check(replay: Replay, options: Options) -> Iterator[Violation]:
    made = calls(replay, options)
    by_tool: dict[str, list[Exchange]] = defaultdict(list)
    for exchange in made:
        if exchange.caller == "assistant":
            by_tool[exchange.call.name].append(exchange)
    found = [
        run
        for made in by_tool.values()
        for run in runs(made, _same_error)
        if run[0].failed
        and attempts(run) >= options.min_repeats
        and _varied(run, options.min_repeats)
        and not _cause_changed(run)
    ]
    for run in in_order(found, made):
        first = run[0]
        yield at_call(
            replay,
            first,
            f"`{first.call.name}` failed {len(run)} calls in succession with the same error "
            f"across {_variants(run)} different sets of arguments: {quote(_text(first))} "
            f"({turns(replay.at(e.turn) for e in run)})",
        )


def _same_error(before: Exchange, after: Exchange) -> bool:
    return (
        before.failed
        and after.failed
        and normalised_error(_text(before)) == normalised_error(_text(after))
    )


def _variants(run: list[Exchange]) -> int:
    return len({call_key(e.call) for e in run})


def _varied(run: list[Exchange], min_repeats: int) -> bool:
    """More than one set of arguments, none of them repeated into a loop of its own (LP001)."""
    counts = Counter(call_key(e.call) for e in run)
    return len(counts) > 1 and max(counts.values()) < min_repeats


def _cause_changed(run: list[Exchange]) -> bool:
    """Every attempt sent a different value of an argument the error is about, which the error
    names only by kind: by the words of the value (`gift card` for `gift_card_7480005`) or of
    its key, never quoting the value sent. The agent tried another one each time, and the error
    never said which would do: it is working on the cause, not stuck. An error that quotes the
    value ("total price is 1203, but paid 833") tells the agent what to change."""
    errors = [_text(e).lower() for e in run]
    words = set(_WORD.findall(errors[0]))
    sent = [dict(_leaves(e.call.arguments, "")) for e in run]
    common = set(sent[0]).intersection(*sent[1:])
    sets = {path: [str(leaves[path]).lower() for leaves in sent] for path in common}
    if any(v in t for values in sets.values() for v, t in zip(values, errors, strict=True)):
        return False  # the error quotes what was sent: it says what to change
    for path, values in sets.items():
        if len(set(values)) < len(values) or not all(map(_identifier, values)):
            continue  # the same value twice, or prose and code: its words are anything's
        key = path.rpartition(".")[2].split("[")[0].lower()
        named = {*_WORD.findall(key), *_WORD.findall(values[0])} - _VAGUE
        if named & words:
            return True
    return False


_WORD = lazy(r"[a-z0-9]{3,}")
_IDENTIFIER = lazy(r"[^\s]{1,64}")


def _identifier(value: str) -> bool:
    """A value that names one thing (`gift_card_7480005`, `HAT136`), not a text or a program."""
    return _IDENTIFIER.fullmatch(value) is not None


_VAGUE = frozenset(("the", "and", "for", "with", "value", "type", "name", "data"))


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}[{i}]")
    elif isinstance(value, str | int | float) and not isinstance(value, bool):
        yield path, value


def _text(exchange: Exchange) -> str:
    return exchange.result.text if exchange.result is not None else ""
