r"""The agent cycles through the same few calls, with the same results, again and again.

## What it does
Reads the calls of the conversation in order (leaving out `think` and exempt tools) and looks
for a cycle of two to five different calls, each with the same arguments (in meaning) and the
same result at every pass, repeated three full times in a row: A B A B A B, A B C A B C A B C,
up to A B C D E repeated three times. One finding per cycle, at its first call, with the number
of passes; the shortest period is taken.

The invariant is that the whole pass changed nothing the agent could see: every call of a pass
answered as in the pass before, exactly for a call that may write, and for a lookup but for its
digit-bearing tokens (a page's state renumbers its elements at every render, so a click followed
by a `browser_get_state` showing the same page, again and again, is a cycle). One result that
differs otherwise (a listing with a new file, a page with other rows) is progress and ends the
cycle. A cycle with a move in it (a scroll, going back, a wait) is never one.

Options (`[tool.auditor.loops]`): `min-repeats` (full passes, 3), `exempt-tools` (glob patterns).

## Why is this bad?
An agent that alternates between two actions without making progress (open a file, run a check,
open the file again, run the same check again) is looping just as surely as one that repeats a
single call, and a guard that only compares neighbouring calls misses it. OpenHands stops an
agent whose last six steps alternate between two action/observation pairs.

## Example
```jsonl
{"id": "ab-cycle", "messages": [{"role": "user", "content": "Deploy the service."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "a1", "type": "function", "function": {"name": "get_status", "arguments": "{\"service\": \"api\"}"}}]}, {"role": "tool", "tool_call_id": "a1", "content": "stopped"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "b1", "type": "function", "function": {"name": "deploy", "arguments": "{\"service\": \"api\"}"}}]}, {"role": "tool", "tool_call_id": "b1", "content": "Error: quota exceeded"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "a2", "type": "function", "function": {"name": "get_status", "arguments": "{\"service\": \"api\"}"}}]}, {"role": "tool", "tool_call_id": "a2", "content": "stopped"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "b2", "type": "function", "function": {"name": "deploy", "arguments": "{\"service\": \"api\"}"}}]}, {"role": "tool", "tool_call_id": "b2", "content": "Error: quota exceeded"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "a3", "type": "function", "function": {"name": "get_status", "arguments": "{\"service\": \"api\"}"}}]}, {"role": "tool", "tool_call_id": "a3", "content": "stopped"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "b3", "type": "function", "function": {"name": "deploy", "arguments": "{\"service\": \"api\"}"}}]}, {"role": "tool", "tool_call_id": "b3", "content": "Error: quota exceeded"}]}
```

## How to fix
As for one repeated call (LP001), but the harness must compare the last few steps, not only
neighbouring calls, and interrupt a cycle that changes nothing. Usually one call of the cycle
fails in a way that sends the agent back to check the other (a deploy fails, the status has
not changed): make that result say what to do next, and let the agent stop with a message
after the second pass.

## Does not fire on
- two passes of a cycle (A B A B), or a cycle whose results change between passes (polling);
- a cycle of six calls or more, or one broken by any other call (a pass that does something
  new is not the same pass);
- one call repeated (A A A): that is LP001, which in turn leaves the calls of a cycle to this
  rule;
- calls made by a simulated user;
- calls whose outcome the log does not keep (a browser agent's actions), unless the cycle comes
  in a row with nothing between its calls (no other call, no result, no user turn): then it
  fires, saying the outcome was not logged; never a cycle that scrolls or pages.
```jsonl
{"id": "two-passes", "messages": [{"role": "user", "content": "Deploy the service."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "a1", "type": "function", "function": {"name": "get_status", "arguments": "{\"service\": \"api\"}"}}]}, {"role": "tool", "tool_call_id": "a1", "content": "stopped"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "b1", "type": "function", "function": {"name": "deploy", "arguments": "{\"service\": \"api\"}"}}]}, {"role": "tool", "tool_call_id": "b1", "content": "Error: quota exceeded"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "a2", "type": "function", "function": {"name": "get_status", "arguments": "{\"service\": \"api\"}"}}]}, {"role": "tool", "tool_call_id": "a2", "content": "stopped"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "b2", "type": "function", "function": {"name": "deploy", "arguments": "{\"service\": \"api\"}"}}]}, {"role": "tool", "tool_call_id": "b2", "content": "Error: quota exceeded"}, {"role": "assistant", "content": "The deploy fails: the quota is exceeded."}]}
```
"""

from collections.abc import Iterator

from auditor.findings import Violation
from auditor.replay import Exchange, Replay
from auditor.rules._blind import blind_cycles, blind_stretches
from auditor.rules._loops import (
    Options,
    at_call,
    cycles,
    outcome,
    repeated,
    turns,
)

REQUIRES = ("calls",)


def screen(replay: Replay, options: Options) -> bool:
    """The agent made two different calls, each with one outcome, `min_repeats` times or more
    (every step of a cycle repeats as often as the cycle); or made `min_repeats` calls in a row
    whose outcome the log does not keep."""
    return len(repeated(replay, options)) >= 2 or bool(blind_stretches(replay, options))


def check(replay: Replay, options: Options) -> Iterator[Violation]:
    for cycle in cycles(replay, options):
        yield _violation(replay, cycle.calls, cycle.period, cycle.passes)
    for cycle in blind_cycles(replay, options):
        names = " → ".join(f"`{e.call.name}`" for e in cycle.calls[: cycle.period])
        yield at_call(
            replay,
            cycle.calls[0],
            f"the calls {names} repeat {cycle.passes} times in a row in the same order, with "
            f"the same arguments ({turns(replay.at(e.turn) for e in cycle.calls[:: cycle.period])}); the "
            "log does not record what came of them, and nothing came between them",
        )


def _violation(replay: Replay, cycle: list[Exchange], period: int, passes: int) -> Violation:
    names = " → ".join(f"`{e.call.name}`" for e in cycle[:period])
    renumbered = any(outcome(e) != outcome(cycle[i % period]) for i, e in enumerate(cycle))
    but = ", but for numbers in what the lookups answered" if renumbered else ""
    return at_call(
        replay,
        cycle[0],
        f"the calls {names} repeat {passes} times in the same order, with the same arguments "
        f"and the same results each time{but} ({turns(replay.at(e.turn) for e in cycle[::period])})",
    )
