"""Loops of actions whose outcome the log does not keep (a browser agent's result file).

Only actions one right after the other count, with nothing between them that could tell them
apart (no call with a recorded result, no call of another caller, no user turn), and never
actions that move through content (a scroll, `back`, `PageDown`), which repeat as progress.
Clicks within `NEAR` pixels of the first of a run aim at the same target.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from auditor.canonical import key
from auditor.model import ToolCall
from auditor.replay import Exchange, Replay
from auditor.rules._loops import (
    Cycle,
    Options,
    _cycles_in,
    _moving,
    attempts,
    call_key,
    moves,
    transparent,
)


def blind_stretches(replay: Replay, options: Options) -> list[list[Exchange]]:
    """Stretches of the agent's consecutive calls whose outcome the log does not keep, with
    nothing between two of them that could tell them apart: no call with a recorded result, no
    call of another caller, no user turn (computed once per replay for LP001 and LP003)."""
    return replay.shared(("loops.blind", options), lambda r: _stretches(r, options))


def _stretches(replay: Replay, options: Options) -> list[list[Exchange]]:
    made = [e for e in replay.exchanges if not transparent(e.call.name, options)]
    if not any(e.result is not None and e.result.unrecorded for e in made):
        return []  # most logs keep every outcome
    users = [m.index for m in replay.conversation.messages if m.role == "user"]
    found: list[list[Exchange]] = []
    stretch: list[Exchange] = []
    for e in made:
        blind = e.caller == "assistant" and e.result is not None and e.result.unrecorded
        if stretch and (not blind or _between(users, stretch[-1].turn, e.turn)):
            found.append(stretch)
            stretch = []
        if blind:
            stretch.append(e)
    found.append(stretch)
    return [s for s in found if len(s) >= options.min_repeats]


def _between(users: list[int], after: int, before: int) -> bool:
    """A user turn lies between messages `after` and `before`."""
    k = bisect.bisect_right(users, after)
    return k < len(users) and users[k] < before


def blind_cycles(replay: Replay, options: Options) -> list[Cycle]:
    """Cycles of two to five different actions with unrecorded outcomes, repeated
    `min_repeats` full passes in a row (LP003)."""
    found = []
    for stretch in blind_stretches(replay, options):
        steps = [(e.caller, call_key(e.call), "") for e in stretch]
        found += _cycles_in(stretch, steps, options.min_repeats, _moving)
    return found


def blind_runs(replay: Replay, options: Options) -> list[list[Exchange]]:
    """Runs of the same action with an unrecorded outcome, `min_repeats` times or more in a row
    (in as many turns), outside the cycles LP003 reports and not moving through content (LP001)."""
    in_cycles = {id(e) for c in blind_cycles(replay, options) for e in (*c.calls, *c.tail)}
    found = []
    for stretch in blind_stretches(replay, options):
        for run in _target_runs(stretch):
            cycled = all(id(e) in in_cycles for e in run)
            if attempts(run) >= options.min_repeats and not moves(run[0].call) and not cycled:
                found.append(run)
    return found


NEAR = 16
"""Pixels: two clicks this close on both axes aim at the same target (a link, an icon)."""


def _target_runs(stretch: list[Exchange]) -> Iterator[list[Exchange]]:
    """Maximal stretches of the same action, a pointer's coordinates counting as the same
    within `NEAR` pixels of the stretch's first action (`(1013, 35)` then `(997, 35)`): an
    agent that nudges a click that did nothing still aims at the same target. Measured from
    the first, never from the one before, so a drift across a list is not one target."""
    run: list[Exchange] = []
    first: tuple[str, tuple[float, float] | None] | None = None
    for item in stretch:
        mine = _target(item.call)
        if run and not _near(first, mine):  # type: ignore[arg-type]
            yield run
            run = []
        if not run:
            first = mine
        run.append(item)
    if run:
        yield run


def _target(call: ToolCall) -> tuple[str, tuple[float, float] | None]:
    """The call's key without its `x` and `y`, and the point they name, where both are numbers."""
    args = call.arguments
    if isinstance(args, dict):
        x, y = args.get("x"), args.get("y")
        if _number(x) and _number(y):
            rest = {k: v for k, v in args.items() if k not in ("x", "y")}
            return f"{call.name}\x1f{key(rest)}", (float(x), float(y))  # type: ignore[arg-type]
    return call_key(call), None


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _near(
    a: tuple[str, tuple[float, float] | None], b: tuple[str, tuple[float, float] | None]
) -> bool:
    if a[0] != b[0]:
        return False
    if a[1] is None or b[1] is None:
        return a[1] is None and b[1] is None
    return abs(a[1][0] - b[1][0]) <= NEAR and abs(a[1][1] - b[1][1]) <= NEAR
