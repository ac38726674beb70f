r"""The agent makes the same tool call again and again and gets the same answer each time.

## What it does
Compares every call of the assistant by tool name and arguments *in meaning* (key order,
whitespace and `1` vs `1.0` do not matter) and by its outcome (the result text and whether it
failed). Fires once per run of three or more identical calls with identical outcomes, at the
first call of the run, listing the turns of the repeats; the finding is an error from five
repeats on. A `think` call, a user message, a failed call or a lookup (a tool whose name starts
with `get`, `search`, `list`, `find`, `read`, `check`, `calculate`…, maybe after the name of its
family: `browser_get_state`) between two repeats does not end the run: the agent is still stuck.
A successful call of any other tool does, since it may have changed what the repeated call sees
(an edit before a test is run again).

The invariant that tells a loop from progress is that nothing the agent could see changed:
- a lookup made again between repeats that answers otherwise than it did the time before
  (digit-bearing tokens masked, since a page renumbers its elements at every render) shows the
  world moved, and ends the run from the second repeat on (what the first call did is that
  call's own effect): `browser_click {index: 1233}` answered `Clicked element 1233` each time,
  with lookups between showing the same page, is a loop (LP003 reports it instead when the
  click and one lookup strictly alternate); the same click on "next" with another page each
  time is paging;
- a relative move (`browser_go_back`, a scroll, `PageDown`) that succeeded with a result that
  only says it was done (one short line: `Navigated back`) reaches another state at each call
  and is never a repeat.

Where the log keeps an action but not what came of it (a browser agent's result file, whose
observations were screenshots), the same action three times in a row, with nothing between
(no other call, no recorded result, no user turn), is a loop too: the finding says the outcome
was not logged (`Click at (973, 761)` three times while the thoughts say "the cookie banner is
still there"). Clicks within 16 pixels of the first of the run on both axes aim at the same
target (`(1013, 35)`, `(1000, 35)`, `(997, 35)`: the agent nudging a click that did nothing);
measured from the first, so clicks drifting down a list are not one target.

Options (`[tool.auditor.loops]`): `min-repeats` (3), `exempt-tools` (glob patterns of tools
whose repeats are expected, such as `poll_*`).

## Why is this bad?
Calling a tool again with the same arguments cannot give a different answer unless something
else changed: the agent is looping, burning tokens and time, and usually ends up transferring
or giving up. OpenHands stops an agent after four identical action/observation pairs, Roo Code
and OpenCode after three identical calls, Gemini CLI after five.

## Example
```jsonl
{"id": "book-loop", "messages": [{"role": "user", "content": "Book HAT023 for me."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "book_reservation", "arguments": "{\"flight\": \"HAT023\", \"amount\": 1625}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "Error: payment amount does not add up, total price is 4875, but paid 1625"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "think", "arguments": "{\"thought\": \"try again\"}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": ""}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c3", "type": "function", "function": {"name": "book_reservation", "arguments": "{\"amount\": 1625, \"flight\": \"HAT023\"}"}}]}, {"role": "tool", "tool_call_id": "c3", "content": "Error: payment amount does not add up, total price is 4875, but paid 1625"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c4", "type": "function", "function": {"name": "book_reservation", "arguments": "{\"flight\":\"HAT023\",\"amount\":1625.0}"}}]}, {"role": "tool", "tool_call_id": "c4", "content": "Error: payment amount does not add up, total price is 4875, but paid 1625"}]}
```

## How to fix
In the harness: count repeated calls, as OpenHands and Roo Code do, and interrupt the agent
with a message ("you called X with these arguments 3 times and got the same result: change the
approach or ask the user"). In the prompt: when a result does not give what is needed, change
the arguments or the approach, and say so when giving up. In the tool: a result that says why
nothing happened (`no results for "…": try a broader query`) gives the model something to
change. If repeats are expected (polling a job), exempt the tool with `exempt-tools`.

## Does not fire on
- paging with a new cursor, or polling whose result changes between calls;
- a retry that succeeds (the outcome differs), or repeats with a successful call of another tool
  between them;
- calls of exempt tools and of `think`;
- calls whose outcome the log does not keep (a browser agent's actions without the pages it
  saw) unless the same action comes three times in a row with nothing between (no other call,
  no result, no user turn): then it fires, saying the outcome was not logged; and never
  actions that move through content (a scroll, `navigate_back`, `PageDown`, a wait), which
  repeat as progress;
- such a move with a recorded result that only acknowledges it (one line of at most 80
  characters with no address: `browser_go_back` answered `Navigated back` four times, walking
  back four pages): its arguments are relative to where the agent is, so the same call reaches
  a new place each time and the result does not say which. The move is still reported when it
  fails the same way or when its result shows the place (the page's address or content); a
  move that got nowhere while its result only acknowledged it is missed;
- a call the log's own policy asks for before or after each action (a sentence of the system
  prompt with `before each`, `after every`, `each time` … that names the tool, or, for a
  lookup, every word of its name but the verb: "before each change, check the line status"
  for `get_line_status`). A policy that words the lookup otherwise ("verify the SIM") is not
  understood, and its repeats are still reported;
- a lookup the policy asks for whenever a condition holds, naming the tool: "Always use
  `get_hotel_info` when the user asks about breakfast, check-in, or check-out";
- the same call with a lookup between whose answer changes (paging by clicking "next", with a
  `browser_get_state` after each click showing the next page), or a relative move answered
  with the same acknowledgment (`browser_go_back` four times walks back four pages);
- clicks further apart than 16 pixels from the first of the run (items down a list);
- calls made by a simulated user (tau2's telecom domain): the rule watches the agent;
- repeats that are all part of a cycle of different calls (A B A B A B): LP003 reports the
  cycle once.
```jsonl
{"id": "paging", "messages": [{"role": "user", "content": "List all orders."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "p1", "type": "function", "function": {"name": "list_orders", "arguments": "{\"cursor\": null}"}}]}, {"role": "tool", "tool_call_id": "p1", "content": "{\"orders\": [1, 2], \"next\": \"b\"}"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "p2", "type": "function", "function": {"name": "list_orders", "arguments": "{\"cursor\": \"b\"}"}}]}, {"role": "tool", "tool_call_id": "p2", "content": "{\"orders\": [3, 4], \"next\": \"c\"}"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "p3", "type": "function", "function": {"name": "list_orders", "arguments": "{\"cursor\": \"c\"}"}}]}, {"role": "tool", "tool_call_id": "p3", "content": "{\"orders\": [5], \"next\": null}"}, {"role": "assistant", "content": "Orders 1 to 5."}]}
```
"""

from collections.abc import Iterator

from auditor.findings import Severity, Violation
from auditor.replay import Exchange, Replay
from auditor.rules._blind import NEAR, blind_runs, blind_stretches
from auditor.rules._loops import (
    Observations,
    Options,
    at_call,
    attempts,
    breaks,
    call_key,
    calls,
    cycles,
    in_order,
    outcome,
    progresses,
    quote,
    repeated,
    same_outcome,
    turns,
)
from auditor.rules._required import required_each_time

REQUIRES = ("calls",)
ERROR_AT = 5
SEVERITY_CHANGES = f"error from {ERROR_AT} repeats"
"""From this many repeats on, the finding is an error."""


def screen(replay: Replay, options: Options) -> bool:
    """The agent made one call, with one outcome, in `min_repeats` turns or more; or made
    `min_repeats` calls in a row whose outcome the log does not keep."""
    return any(turns >= options.min_repeats for _, turns in repeated(replay, options)) or bool(
        blind_stretches(replay, options)
    )


def check(replay: Replay, options: Options) -> Iterator[Violation]:
    found: list[list[Exchange]] = []
    open_runs: dict[str, list[Exchange]] = {}
    last_at: dict[str, int] = {}  # where each open run's last call is in `made`
    seen = Observations()
    made = calls(replay, options)
    for position, exchange in enumerate(made):
        mine = _key(exchange)
        run = open_runs.pop(mine, None) if mine is not None else None
        if run is not None and (
            not same_outcome(run[0], exchange)
            or (len(run) > 1 and seen.changed_after(last_at[mine]))  # type: ignore[index]
        ):
            found.append(run)
            run = None
        if breaks(exchange):
            found.extend(open_runs.values())
            open_runs.clear()
        seen.add(position, exchange)
        if mine is not None:
            if run is None:
                run = []
            run.append(exchange)  # in place: copying the run at each repeat is quadratic
            open_runs[mine] = run
            last_at[mine] = position
    found.extend(open_runs.values())
    in_cycles = {id(e) for c in cycles(replay, options) for e in (*c.calls, *c.tail)}
    for run in in_order(found, made):
        if attempts(run) < options.min_repeats or all(id(e) in in_cycles for e in run):
            continue
        if required_each_time(replay.conversation, run[0].call.name):
            continue  # the policy asks for it before each action: followed, not stuck
        yield _violation(replay, run)
    for run in blind_runs(replay, options):
        first = run[0]
        yield at_call(
            replay,
            first,
            f"`{first.call.name}` called {len(run)} times in a row with the same arguments"
            f"{_nudged(run)} ({turns(replay.at(e.turn) for e in run)}); the log does not record what came of them, and "
            "nothing came between them: no other call, no result, no user turn",
            Severity.ERROR if attempts(run) >= ERROR_AT else None,
        )


def _nudged(run: list[Exchange]) -> str:
    """Words saying the run's coordinates moved by a few pixels, where they did."""
    if len({call_key(e.call) for e in run}) == 1:
        return ""
    return f" but for a few pixels (within {NEAR} of the first)"


def _key(exchange: Exchange) -> str | None:
    """The key of a call of the agent that can repeat: not a relative move whose result only
    says it was done (walking back four pages is four different pages)."""
    if exchange.caller != "assistant" or progresses(exchange):
        return None
    return call_key(exchange.call)


def _violation(replay: Replay, run: list[Exchange]) -> Violation:
    first = run[0]
    failed, text = outcome(first)
    answer = "the same error" if failed else "the same result"
    return at_call(
        replay,
        first,
        f"`{first.call.name}` called {len(run)} times with the same arguments, each answered "
        f"with {answer} {quote(text)} ({turns(replay.at(e.turn) for e in run)})",
        Severity.ERROR if attempts(run) >= ERROR_AT else None,
    )
